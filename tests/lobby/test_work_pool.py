"""The password hashing pool: work runs off the event loop, and a full pool refuses at once."""

from __future__ import annotations

import asyncio
import threading

import pytest

from lobby.work_pool import WorkPool
from protocol.errors import RateLimitedError


async def test_work_runs_in_a_thread_of_the_pool_not_in_the_event_loop() -> None:
    pool = WorkPool(workers=1, waiting=0)
    ran_in = await pool.run(threading.get_ident)
    pool.shutdown()
    assert ran_in != threading.get_ident()


async def test_a_full_pool_refuses_at_once_and_frees_its_place_when_the_work_ends() -> None:
    pool = WorkPool(workers=1, waiting=1)
    release = threading.Event()
    first = asyncio.create_task(pool.run(release.wait, 10))
    queued = asyncio.create_task(pool.run(release.wait, 10))
    await asyncio.sleep(0)  # both tasks take their places
    with pytest.raises(RateLimitedError) as caught:
        pool.reserve()
    assert caught.value.retry_after > 0
    release.set()
    assert await first and await queued
    with pool.reserve():
        pass
    pool.shutdown()


async def test_a_cancelled_request_holds_its_place_until_its_thread_is_done() -> None:
    """The bound counts work in the threads: cancelling the request does not stop a hash."""
    pool = WorkPool(workers=1, waiting=0)
    started, release = threading.Event(), threading.Event()

    def hash_like() -> bool:
        started.set()
        return release.wait(10)

    request = asyncio.create_task(pool.run(hash_like))
    assert await asyncio.to_thread(started.wait, 10)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    with pytest.raises(RateLimitedError):
        pool.reserve()
    release.set()
    async with asyncio.timeout(10):
        while not has_room(pool):
            await asyncio.sleep(0)  # the place comes back by a callback the loop runs
    pool.shutdown()


def has_room(pool: WorkPool) -> bool:
    try:
        with pool.reserve():
            return True
    except RateLimitedError:
        return False
