"""Fixtures of the lobby store tests: a second client (a second server process) and a
subscriber to the lobby channel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.store import common as store_common
from tests.lobby.store.helpers import Events


@pytest.fixture
async def second_client(redis_server: Any) -> AsyncIterator[aioredis.Redis]:
    """Another connection to the same Redis, standing for a second server process."""
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


@pytest.fixture
async def events(redis_client: aioredis.Redis) -> AsyncIterator[Events]:
    """A subscriber to the lobby channel that collects events as they are published."""
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(store_common.CHANNEL)
    # Wait for the confirmation, so no event published by the test can come before it.
    confirmation = await pubsub.get_message(timeout=2.0)
    assert confirmation is not None and confirmation["type"] == "subscribe"
    yield Events(pubsub)
    await pubsub.aclose()  # type: ignore[no-untyped-call]
