"""``python -m server``: serve the game with uvicorn, on an embedded Redis unless REDIS_URL is set.

Prints ``listening on http://HOST:PORT`` once it accepts connections (PORT=0 picks a free
port).  Websocket compression is off on purpose: diffs are a few dozen bytes of msgpack,
which deflate barely shrinks, and it cut throughput several times over in measurements.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import logging
import signal
import sys

import uvicorn

from server.app import create_app
from server.embedded_redis import EmbeddedRedis
from server.protocol import MAX_FRAME_BYTES
from server.settings import Settings, from_environment


def uvicorn_config(app: object, settings: Settings, log_level: str = "warning") -> uvicorn.Config:
    """The uvicorn settings every server process uses (tests and benchmarks included)."""
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=settings.host,
        port=settings.port,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_max_size=MAX_FRAME_BYTES,
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        http="httptools" if importlib.util.find_spec("httptools") else "h11",
        lifespan="on",
        log_level=log_level,
        access_log=False,
    )


async def serve(settings: Settings) -> None:
    server = uvicorn.Server(uvicorn_config(create_app(settings), settings))
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.01)  # uvicorn offers no startup event
    if server.started:
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://{settings.host}:{port}", flush=True)
    await task


def main() -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    settings = from_environment()
    # uvicorn re-raises SIGTERM and SIGINT once it has shut down; exit through Python so
    # that the embedded redis-server is stopped cleanly below.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    embedded = None
    if settings.redis_url is None:
        embedded = EmbeddedRedis(settings.data_dir)
        settings = dataclasses.replace(settings, redis_url=embedded.start())
        print(f"embedded redis-server keeps its data in {embedded.data_dir}", flush=True)
    try:
        if importlib.util.find_spec("uvloop"):
            import uvloop  # noqa: PLC0415

            uvloop.run(serve(settings))
        else:
            asyncio.run(serve(settings))
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    sys.exit(main())
