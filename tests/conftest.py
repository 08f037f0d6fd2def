"""Fixtures shared by every test: a private, real redis-server and a clean client per test.

The server runs on a free loopback port with its own data directory, so the tests never touch
a Redis that happens to run on the machine, and a test can restart it to prove persistence.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import sys
import threading
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.redis.embedded_redis import EmbeddedRedis

ROOT = Path(__file__).resolve().parent.parent
HANG_REPORT_SECONDS = 240.0
"""A test still running after this long prints every task of the tests' event loop, where
it waits: the stacks pytest-timeout prints (at 300 s, pyproject.toml) show only threads, and
an awaiting test's thread shows only the loop's poll."""


def package_setup() -> ModuleType:
    """setup.py as a module (its build runs only as a script): ``COMPILED``, ``can_compile``."""
    spec = importlib.util.spec_from_file_location("package_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test a compiled module older than its source: the extension would shadow
    the edit, and the tests would pass or fail on code that is no longer there."""
    for path in package_setup().COMPILED:
        source = ROOT / path
        for extension in source.parent.glob(f"{source.stem}.*.so"):
            if source.stat().st_mtime > extension.stat().st_mtime:
                pytest.exit(
                    f"{path} changed after it was compiled: "
                    "run `./dev test`, which compiles it again",
                    returncode=2,
                )


class RedisServer(EmbeddedRedis):
    """The tests' redis-server: the machine's own (Debian's Redis 7, as deployed), on a free
    loopback port that a restart keeps, with the embedded server's append-only persistence."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(
                "redis-server is not installed: run `apt-get install redis-server` "
                "(or `bash .ci/run`, which installs it) and try again",
                pytrace=False,
            )
        super().__init__(directory, tcp=True, binary=binary)

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the server as a crash would (SIGKILL): only what is on disk survives."""
        self.kill()

    def restart(self) -> None:
        self.kill()
        self.start()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One private redis-server for the whole test session."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def redis_client(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    """A client on an empty database: every test starts from nothing."""
    client = aioredis.Redis.from_url(redis_server.url)
    await client.flushall()
    yield client
    await client.aclose()


def pytest_configure(config: pytest.Config) -> None:
    # Child processes (the server under test, the CLI) must not inherit a REDIS_URL that would
    # point them at a Redis the tests do not own.
    os.environ.pop("REDIS_URL", None)


class _SessionLoop:
    """The event loop every async test and fixture runs in (the session's, pyproject.toml)."""

    loop: asyncio.AbstractEventLoop | None = None


@pytest.fixture(scope="session", autouse=True)
async def _session_loop() -> None:
    _SessionLoop.loop = asyncio.get_running_loop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    timer = threading.Timer(HANG_REPORT_SECONDS, _report_tasks, args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _report_tasks(test: str) -> None:
    loop = _SessionLoop.loop
    if loop is not None and loop.is_running():
        loop.call_soon_threadsafe(_print_tasks, test)


def _print_tasks(test: str) -> None:
    print(f"\n{test} still runs after {HANG_REPORT_SECONDS:.0f} s; its tasks:", file=sys.stderr)
    for task in asyncio.all_tasks():
        print(f"{task.get_name()}:", file=sys.stderr)
        awaiting: Any = task.get_coro()
        while awaiting is not None:  # the coroutines it waits in, outermost first
            frame = getattr(awaiting, "cr_frame", None) or getattr(awaiting, "ag_frame", None)
            if frame is not None:
                code = frame.f_code
                print(f"  {code.co_filename}:{frame.f_lineno} {code.co_name}", file=sys.stderr)
            awaiting = getattr(awaiting, "cr_await", None) or getattr(awaiting, "ag_await", None)
