"""``python -m server``: serve the game with uvicorn, on an embedded Redis unless REDIS_URL is set.

Prints ``listening on http://HOST:PORT`` once it accepts connections (PORT=0 picks a free
port).  Websocket compression is off on purpose: diffs are a few dozen bytes of msgpack,
which deflate barely shrinks, and it cut throughput several times over in measurements.
The cyclic garbage collector runs rarely (see :func:`_tune_gc`).
Beside the server runs the bot pool (``python -m bots``, a child process) with
``BOT_WORKERS`` workers: one by default with the embedded Redis, none with REDIS_URL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import importlib.util
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from typing import IO

import uvicorn
import uvicorn.config
from pythonjsonlogger.json import JsonFormatter

from protocol.messages import MAX_FRAME_BYTES
from server.app import create_app
from server.redis.embedded_redis import EmbeddedRedis
from server.settings import ROOT, Settings, from_environment
from server.websocket_protocol import GameWebSocketProtocol

GRACEFUL_SHUTDOWN_SECONDS = 5
"""How long a stopping process waits for its open connections before it ends them."""


def uvicorn_config(app: object, settings: Settings, log_level: str = "warning") -> uvicorn.Config:
    """The uvicorn settings every server process uses (tests and benchmarks included)."""
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=settings.host,
        port=settings.port,
        ws=GameWebSocketProtocol,
        ws_per_message_deflate=False,
        ws_max_size=MAX_FRAME_BYTES,
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        http="httptools" if importlib.util.find_spec("httptools") else "h11",
        lifespan="on",
        log_level=log_level,
        # In JSON, uvicorn's own records go through the root logger's JSON lines too.
        log_config=None if settings.log_format == "json" else uvicorn.config.LOGGING_CONFIG,
        access_log=False,
        # The app reads X-Forwarded-For itself, from TRUSTED_PROXIES only; uvicorn's own
        # default would trust any local peer.
        proxy_headers=False,
        # Sockets get a going-away close at shutdown; one that does not finish closing in
        # time (a peer that stopped reading) must not hold the process up for ever.
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )


async def serve(settings: Settings, bot_workers: int = 0) -> None:
    server = uvicorn.Server(uvicorn_config(create_app(settings), settings))
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.01)  # uvicorn offers no startup event
    bots = None
    if server.started:
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://{settings.host}:{port}", flush=True)
        if bot_workers > 0:
            bots = start_bots(settings, f"http://{settings.host}:{port}", bot_workers)
    try:
        await task
    finally:
        if bots is not None:
            bots.terminate()
            await asyncio.to_thread(bots.wait, 15)


def bot_workers(environ: Mapping[str, str], embedded: bool) -> int:
    """Bot worker processes to start beside this server: ``BOT_WORKERS``, else one with the
    embedded Redis (a one-command start has computer opponents) and none with REDIS_URL (a
    deployment runs ``python -m bots`` on its own)."""
    return int(environ.get("BOT_WORKERS", "1" if embedded else "0"))


def start_bots(settings: Settings, server_url: str, workers: int) -> subprocess.Popen[bytes]:
    """``python -m bots`` as a child that serves this server and ends with it.

    Started as a program, not imported: the bots play over the websocket like anyone else,
    and their searches never run in the server's event loop.
    """
    assert settings.redis_url is not None
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    if settings.session_secret:
        env["SESSION_SECRET"] = settings.session_secret.decode()
    command = [sys.executable, "-m", "bots", "--workers", str(workers), "--server", server_url]
    command += ["--redis", settings.redis_url, "--parent", str(os.getpid())]
    # Its output comes through a pipe of ours, so a killed server leaves no child holding
    # the server's own stdout open.
    bots = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    threading.Thread(target=_copy_lines, args=(bots.stdout,), daemon=True).start()
    return bots


def _copy_lines(source: IO[bytes] | None) -> None:
    if source is None:
        return
    for line in source:
        sys.stderr.write(line.decode(errors="replace"))
    source.close()


def configure_logging(log_format: str, level: int = logging.WARNING) -> None:
    """Log records as a line of words, or (``json``) as one JSON object per line with the
    fields ``time``, ``level``, ``logger`` and ``message`` (and ``exc_info`` with a traceback)."""
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def main() -> int:
    settings = from_environment()
    configure_logging(settings.log_format)
    # uvicorn re-raises SIGTERM and SIGINT once it has shut down; exit through Python so
    # that the embedded redis-server is stopped cleanly below.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    _tune_gc()
    embedded = None
    workers = bot_workers(os.environ, settings.redis_url is None)
    if settings.redis_url is None:
        embedded = EmbeddedRedis(settings.data_dir, maxmemory=settings.redis_maxmemory)
        settings = dataclasses.replace(settings, redis_url=embedded.start())
        print(f"embedded redis-server keeps its data in {embedded.data_dir}", flush=True)
    try:
        if importlib.util.find_spec("uvloop"):
            import uvloop  # noqa: PLC0415

            uvloop.run(serve(settings, workers))
        else:
            asyncio.run(serve(settings, workers))
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def _tune_gc() -> None:
    """Collect cycles rarely: what a move allocates (plain data, frames) is freed by reference
    counting, but every 700 allocations the collector ran, and its longer passes over
    everything kept (rules tables, cached rooms) stalled every socket at once: they made the
    slowest move round trips (the load bench's p99) about twice as long.  What exists when
    the server starts is left out of every collection; cycles made later are still
    collected, after 50,000 allocations instead of 700."""
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    sys.exit(main())
