"""The room service against a real Redis: a cache left behind by another process's commit."""

from __future__ import annotations

from types import ModuleType

import redis.asyncio as aioredis

from server import store
from server.fanout import Fanout
from server.metrics import Metrics
from server.rooms import Move, SeatHolder, new_room
from server.service import RoomService

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")


async def test_a_move_seen_elsewhere_refreshes_a_stale_cache_instead_of_refusing(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Process A cached the room; process B committed a move A never heard of; a client that
    saw B's move sends the next one to A, which must read the room again, not refuse it."""
    await store.create_room(redis_client, new_room("r1", "tictactoe", "", (ANN, BOB)))
    services = [
        RoomService(redis_client, Fanout(redis_client, name), Metrics(), name)
        for name in ("a", "b")
    ]
    first, second = services
    assert (await first.room("r1")).room.version == 0  # cached at version 0
    assert await second.command("r1", Move(ANN.id, 0, "a1")) == 1
    assert await first.command("r1", Move(BOB.id, 1, "b1")) == 2
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None and loaded.room.record == ("a1", "b1")
