"""The fan-out against a real Redis: a version that never reached this process's sockets is
handed to them, once, and only after it had time to arrive; a diff relayed from another
process reaches the sockets once, and a process's own diff coming back is not relayed."""

from __future__ import annotations

import asyncio
import logging
from types import ModuleType

import pytest
import redis.asyncio as aioredis

from server.fanout import Fanout, new_pubsub
from server.metrics import Metrics
from server.redis import store
from server.rooms import SeatHolder, new_room

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")


class Recorder:
    def __init__(self) -> None:
        self.pushed: list[int] = []
        self.behind_at: list[int] = []
        self.arrived = asyncio.Event()

    def push(self, room_id: str, version: int, frame: bytes) -> None:
        self.pushed.append(version)
        self.arrived.set()

    async def wait_for(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.pushed) < count:
                self.arrived.clear()
                await self.arrived.wait()

    def behind(self, room_id: str, version: int) -> None:
        self.behind_at.append(version)


async def test_a_version_missing_at_two_checks_is_handed_to_the_subscribers_once(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    await store.create_room(redis_client, new_room("r1", "tictactoe", "", (ANN, BOB)))
    fanout = Fanout(redis_client, "a")
    subscriber = Recorder()
    await fanout.subscribe("r1", subscriber)
    fanout.deliver("r1", 0, b"joined at 0")
    assert await fanout.check_versions() == []  # nothing ahead
    # Committed as if by a process that believed nobody else listened: nothing published.
    result = await store.commit(redis_client, "r1", 0, 1, None, b"diff", subscribed=True)
    assert result.applied
    assert await fanout.check_versions() == []  # may still be on its way
    assert subscriber.behind_at == []
    assert await fanout.check_versions() == ["r1"]
    assert subscriber.behind_at == [1]
    assert await fanout.check_versions() == []  # handed over once
    assert subscriber.behind_at == [1]
    await fanout.unsubscribe("r1", subscriber)
    await fanout.stop()


async def test_a_version_that_arrives_between_checks_is_not_read_again(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    await store.create_room(redis_client, new_room("r2", "tictactoe", "", (ANN, BOB)))
    fanout = Fanout(redis_client, "a")
    subscriber = Recorder()
    await fanout.subscribe("r2", subscriber)
    fanout.deliver("r2", 0, b"joined at 0")
    await store.commit(redis_client, "r2", 0, 1, None, b"diff", subscribed=True)
    assert await fanout.check_versions() == []
    fanout.deliver("r2", 1, b"diff")  # the publication was only late
    assert await fanout.check_versions() == []
    assert subscriber.behind_at == [] and subscriber.pushed == [0, 1]
    await fanout.unsubscribe("r2", subscriber)
    await fanout.stop()


async def test_a_diff_crosses_processes_once_and_its_author_drops_its_own(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    await store.create_room(redis_client, new_room("r3", "tictactoe", "", (ANN, BOB)))
    metrics = {"a": Metrics(), "b": Metrics()}
    fanouts = {name: Fanout(redis_client, name, metrics=metrics[name]) for name in "ab"}
    subscribers = {name: Recorder() for name in "ab"}
    for name, fanout in fanouts.items():
        await fanout.start()
        await fanout.subscribe("r3", subscribers[name])
    async with asyncio.timeout(5):
        while not all(f.is_subscribed("r3") for f in fanouts.values()):
            await asyncio.sleep(0.01)
    # Each process hands its own commit to its sockets, and Redis sends it to both.
    fanouts["a"].deliver("r3", 1, b"one")
    await store.commit(redis_client, "r3", 0, 1, None, b"one", subscribed=True)
    await subscribers["b"].wait_for(1)
    fanouts["b"].deliver("r3", 2, b"two")
    await store.commit(redis_client, "r3", 1, 2, None, b"two", subscribed=True)
    await subscribers["a"].wait_for(2)  # after a's own diff came back, in order
    assert subscribers["a"].pushed == [1, 2] and subscribers["b"].pushed == [1, 2]
    assert [(m.relayed, m.relayed_bytes) for m in metrics.values()] == [(1, 11), (1, 11)]
    for name, fanout in fanouts.items():
        await fanout.unsubscribe("r3", subscribers[name])
        await fanout.stop()


async def test_a_message_is_handed_on_as_sent_without_a_text_made_of_it(
    redis_client: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """redis-py's own push handler writes every message to a debug log line, built whether or
    not debug is on: for a diff, a text as long as the diff, on every relayed move."""
    caplog.set_level(logging.DEBUG, logger="push_response")
    pubsub = new_pubsub(redis_client)
    await pubsub.subscribe("room:big")
    assert (await pubsub.get_message(timeout=5))["type"] == "subscribe"
    diff = bytes(range(256)) * 64
    await redis_client.publish("room:big", diff)
    message = await pubsub.get_message(timeout=5)
    assert message is not None and message["data"] == diff
    assert not [r for r in caplog.records if r.name == "push_response"]
    await pubsub.aclose()  # type: ignore[no-untyped-call]
