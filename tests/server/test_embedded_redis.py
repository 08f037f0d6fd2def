"""The embedded redis-server keeps its data across restarts and replaces a leftover one."""

from __future__ import annotations

from pathlib import Path

import redis.asyncio as aioredis

from server.embedded_redis import EmbeddedRedis


async def test_data_survives_a_stop_and_start(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    url = server.start()
    assert url.startswith("unix://")
    client = aioredis.Redis.from_url(url)
    await client.set("kept", "yes")
    assert await client.config_get("appendfsync") == {"appendfsync": "always"}
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
