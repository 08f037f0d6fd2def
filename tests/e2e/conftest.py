"""End-to-end fixtures: the real app under uvicorn on 127.0.0.1 port 0, on the test Redis.

Servers run in the test process (their own uvicorn.Server task) unless a test needs to kill
one, in which case it starts ``python -m server`` as a subprocess (see ``subprocess_server``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import redis.asyncio as aioredis
import uvicorn

from bench.loopback import tictactoe
from client import Client
from lobby.identity import Player, issue_token, new_guest
from server.__main__ import uvicorn_config
from server.app import create_app
from server.redis import store
from server.rooms import SeatHolder, new_room
from server.settings import Settings
from tests.conftest import RedisServer
from tests.e2e.push_service import PushServiceOnLoopback, loopback_push_service

ROOT = Path(__file__).resolve().parents[2]
SECRET = b"end-to-end-tests"


@dataclass
class RunningServer:
    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        self.server.should_exit = True
        await asyncio.wait_for(self.task, 20)


async def start_server(redis_url: str, **changes: Any) -> RunningServer:
    """The app on a free port in this process; returns once it accepts connections."""
    settings = Settings(redis_url=redis_url, port=0, session_secret=SECRET)
    settings = dataclasses.replace(settings, **changes)
    server = uvicorn.Server(uvicorn_config(create_app(settings), settings, log_level="error"))
    server.config.loop = "none"  # runs in the test's loop
    task = asyncio.create_task(server.serve())
    async with asyncio.timeout(10):
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.005)  # uvicorn has no startup event to await
    port = server.servers[0].sockets[0].getsockname()[1]
    return RunningServer(server, task, port)


@pytest.fixture
async def push_service() -> AsyncIterator[PushServiceOnLoopback]:
    """A push service of the test's own on loopback (see :mod:`tests.e2e.push_service`)."""
    async with loopback_push_service() as service:
        yield service


@pytest.fixture
def ttt() -> Iterator[ModuleType]:
    """tic-tac-toe in ``rules.GAMES`` during the test (and only then: other tests list GAMES)."""
    with tictactoe.registered():
        yield tictactoe


@pytest.fixture
async def app_server(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: ModuleType
) -> AsyncIterator[RunningServer]:
    """One server process (in this process) on a freshly emptied Redis."""
    running = await start_server(redis_server.url)
    yield running
    await running.stop()


def token_for(player: Player) -> str:
    return issue_token(SECRET, player, 0, ttl=10**10)


async def connect(server: RunningServer, player: Player | None = None) -> Client:
    """A client connected as ``player`` (a new guest by default)."""
    return await Client.connect(server.ws_url, token_for(player or new_guest()))


async def make_room(
    client: aioredis.Redis,
    first: Player,
    second: Player,
    game: str = "tictactoe",
    options: str = "",
    room_id: str = "r1",
) -> str:
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    room = await store.create_room(client, new_room(room_id, game, options, seats))
    return room.id


@pytest.fixture
def subprocess_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env["SESSION_SECRET"] = SECRET.decode()
    env["PYTHONPATH"] = str(ROOT)
    yield env


class ServerProcess:
    """``python -m server`` (with the test game registered) as a child process."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.env = {**env, "PORT": str(port), "HOST": "127.0.0.1"}
        self.port = port
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.loopback.serve"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        stdout = self.process.stdout
        assert stdout is not None
        listening = threading.Event()

        def drain() -> None:  # keeps reading so the child never blocks on a full pipe
            for line in stdout:
                self.output.append(line)
                if line.startswith("listening on"):
                    listening.set()
            listening.set()

        threading.Thread(target=drain, daemon=True).start()
        await asyncio.to_thread(listening.wait, 30)
        if self.process.poll() is not None or not any(
            line.startswith("listening on") for line in self.output
        ):
            raise RuntimeError("server did not start:\n" + "".join(self.output))

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process is not None:
            self.process.kill()
            self._reap()

    def terminate(self) -> None:
        """SIGTERM: a clean shutdown."""
        if self.process is not None:
            self.process.terminate()
            self._reap()

    def _reap(self) -> None:
        assert self.process is not None
        self.process.wait(20)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None
