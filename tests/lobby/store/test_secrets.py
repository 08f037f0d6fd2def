"""The session secret every process on one Redis shares."""

from __future__ import annotations

import redis.asyncio as aioredis

from lobby.store import secrets as secret_store


async def test_the_session_secret_is_shared_by_every_process(
    redis_client: aioredis.Redis,
) -> None:
    first = await secret_store.session_secret(redis_client, b"one")
    assert await secret_store.session_secret(redis_client, b"two") == first == b"one"
    assert await redis_client.get("server:session_secret") == b"one"
