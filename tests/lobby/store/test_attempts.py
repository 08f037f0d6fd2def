"""Attempt limits against a real redis-server: windows, growing delays, and the one step that
checks and counts an attempt, raced by concurrent attempts from two clients.

Time is passed in, never slept through.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.store import attempts as attempt_store
from lobby.store.attempts import Delay, Window
from protocol.errors import RateLimitedError

T0 = 1_000_000.0


@pytest.fixture
async def second_client(redis_server: Any) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def test_a_window_allows_its_limit_then_says_when_the_oldest_attempt_leaves_it(
    redis_client: aioredis.Redis,
) -> None:
    window = Window("guest", "10.0.0.1", limit=3, seconds=60)
    for i in range(3):
        await attempt_store.take(redis_client, [window], T0 + i)
    with pytest.raises(RateLimitedError) as caught:
        await attempt_store.take(redis_client, [window], T0 + 10)
    assert caught.value.retry_after == pytest.approx(50.0)
    await attempt_store.take(redis_client, [window], T0 + 60)
    other = Window("guest", "10.0.0.2", limit=3, seconds=60)
    await attempt_store.take(redis_client, [other], T0 + 10)


async def test_a_delay_grows_with_each_attempt_up_to_its_last_step(
    redis_client: aioredis.Redis,
) -> None:
    delay = Delay("login-name", "gina", schedule=(0.0, 0.0, 10.0, 20.0, 40.0), reset=600)
    for _ in range(2):
        await attempt_store.take(redis_client, [delay], T0)
    now, waits = T0, []
    for _ in range(5):
        await attempt_store.take(redis_client, [delay], now)
        with pytest.raises(RateLimitedError) as caught:
            await attempt_store.take(redis_client, [delay], now)
        waits.append(caught.value.retry_after)
        now += caught.value.retry_after
    assert waits == pytest.approx([10.0, 20.0, 40.0, 40.0, 40.0])


async def test_a_refused_attempt_counts_in_no_gate(redis_client: aioredis.Redis) -> None:
    """An attempt one gate refuses is not counted by the gates that would have let it pass."""
    open_window = Window("login-address", "10.0.0.1", limit=2, seconds=60)
    shut = Delay("login-name", "dave", schedule=(100.0,), reset=600)
    await attempt_store.take(redis_client, [shut], T0)
    for _ in range(5):
        with pytest.raises(RateLimitedError):
            await attempt_store.take(redis_client, [open_window, shut], T0 + 1)
    for _ in range(2):
        await attempt_store.take(redis_client, [open_window], T0 + 1)


async def test_giving_an_attempt_back_frees_its_place_and_restarts_the_delay(
    redis_client: aioredis.Redis,
) -> None:
    window = Window("login-address", "10.0.0.1", limit=1, seconds=60)
    delay = Delay("login-name", "dave", schedule=(100.0,), reset=600)
    ticket = await attempt_store.take(redis_client, [window, delay], T0)
    await attempt_store.give_back(redis_client, ticket)
    await attempt_store.take(redis_client, [window, delay], T0 + 1)


async def test_concurrent_attempts_from_two_processes_never_pass_the_limit_together(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    window = Window("register", "10.0.0.1", limit=5, seconds=3600)
    results = await asyncio.gather(
        *(
            attempt_store.take((redis_client, second_client)[i % 2], [window], T0)
            for i in range(64)
        ),
        return_exceptions=True,
    )
    passed = [r for r in results if isinstance(r, attempt_store.Ticket)]
    refused = [r for r in results if isinstance(r, RateLimitedError)]
    assert (len(passed), len(refused)) == (5, 59)


async def test_every_key_expires_once_it_limits_nothing(redis_client: aioredis.Redis) -> None:
    window = Window("guest", "10.0.0.1", limit=3, seconds=60)
    delay = Delay("login-name", "dave", schedule=(30.0,), reset=600)
    await attempt_store.take(redis_client, [window, delay], T0)
    ttls = {key.decode(): await redis_client.ttl(key) for key in await redis_client.keys("*")}
    assert ttls == {
        "{lobby}:attempts:guest:10.0.0.1": 61,
        "{lobby}:attempts:login-name:dave": 631,
    }
