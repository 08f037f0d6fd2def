"""The embedded redis-server keeps its data across restarts and replaces a leftover one."""

from __future__ import annotations

import shutil
from pathlib import Path

import redis.asyncio as aioredis

from server.redis.embedded_redis import EmbeddedRedis, redis_version


async def test_data_survives_a_stop_and_start(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    url = server.start()
    assert url.startswith("unix://")
    client = aioredis.Redis.from_url(url)
    await client.set("kept", "yes")
    assert await client.config_get("appendfsync") == {"appendfsync": "always"}
    # Full, it refuses writes (players retry) rather than evicting rooms.
    assert await client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    assert await client.config_get("maxmemory") == {"maxmemory": str(1024**3)}
    await client.aclose()
    server.stop()
    server.start()
    client = aioredis.Redis.from_url(url)
    assert await client.get("kept") == b"yes"
    await client.aclose()
    server.stop()


async def test_a_leftover_server_on_the_same_data_is_stopped_first(tmp_path: Path) -> None:
    first = EmbeddedRedis(tmp_path / "data", tcp=True)
    first.start()
    assert first.process is not None
    second = EmbeddedRedis(tmp_path / "data", tcp=True)
    second.start()
    assert first.process.wait(10) == 0  # stopped cleanly by the second
    client = aioredis.Redis.from_url(second.url)
    assert await client.ping()
    await client.aclose()
    second.stop()
    first.process = None


async def test_runs_the_binary_it_is_given_and_reads_its_version(tmp_path: Path) -> None:
    """The server bench runs the deployment's Redis this way, and reports its version."""
    binary = shutil.which("redis-server")
    assert binary is not None, "the tests' own redis-server is on PATH"
    server = EmbeddedRedis(tmp_path / "data", tcp=True, binary=binary)
    server.start()
    client = aioredis.Redis.from_url(server.url)
    running = (await client.info("server"))["redis_version"]
    await client.aclose()
    server.stop()
    assert redis_version(binary) == tuple(map(int, running.split(".")))
    assert redis_version(str(tmp_path / "no-such-redis")) == ()
