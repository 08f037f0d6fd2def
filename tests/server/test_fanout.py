"""The fan-out's check of room versions against a real Redis: a version that never reached
this process's sockets is handed to them, once, and only after it had time to arrive."""

from __future__ import annotations

from types import ModuleType

import redis.asyncio as aioredis

from server.fanout import Fanout
from server.redis import store
from server.rooms import SeatHolder, new_room

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")


class Recorder:
    def __init__(self) -> None:
        self.pushed: list[int] = []
        self.behind_at: list[int] = []

    def push(self, room_id: str, version: int, frame: bytes) -> None:
        self.pushed.append(version)

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
