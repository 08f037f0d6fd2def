"""The test harness itself: the private Redis is real, empty per test, and persists to disk."""

from __future__ import annotations

import redis.asyncio as aioredis

from tests.conftest import RedisServer


async def test_redis_client_starts_empty(redis_client: aioredis.Redis) -> None:
    left = await redis_client.keys()  # named, so a test that keeps writing later is found
    assert left == [], f"keys written after the flush: {left}"
    await redis_client.set("harness:key", "value")
    assert await redis_client.get("harness:key") == b"value"


async def test_redis_server_keeps_writes_across_a_crash(redis_server: RedisServer) -> None:
    """Append-only with fsync always: an acknowledged write survives SIGKILL and restart."""
    client = aioredis.Redis.from_url(redis_server.url)
    await client.flushall()
    await client.set("harness:durable", "kept")
    await client.aclose()
    redis_server.restart()
    client = aioredis.Redis.from_url(redis_server.url)
    assert await client.get("harness:durable") == b"kept"
    await client.aclose()
