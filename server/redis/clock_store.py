"""Deadlines of running clocks and of idle games in Redis, and the adjudicator that ends games
on time or for want of moves.

``clocks:due`` is a sorted set: room id -> the time its running clock's flag may fall.
On one Redis the commit script sets the entry with the move (:func:`deadline`), in the same
step.  On a Redis Cluster the entry is on another slot than the room, so there entries only
need to be no later than the truth: before a commit the service lowers a
room's entry to the new flag time (``ZADD LT``), so a process dying between commit and
bookkeeping loses no deadline; after the commit it sets the exact time, but only if the
room is still at the version it committed (a script reads the room's version), so a slow
process never puts back an older deadline.  An entry that comes due early is harmless:
the adjudicator sends the room a ``Timeout``, which changes nothing unless the flag really
fell, and then sets the entry from the room as it is.

Exactly once: every process's sweep (:mod:`server.adjudicator`) may look at the same set; the
``Timeout`` commit is version-checked, so only one commit ends the game and the others find
it over.

On a Redis Cluster the room and ``clocks:due`` live on different slots, so one script cannot
read the one and write the other: there, :func:`settle` reads the version, writes the entry,
and reads the version again; a room that moved on meanwhile may have had its newer entry
overwritten by this older one, so the entry is then set again from the room as it is now
(until a pass finds the room unchanged around its write).

``rooms:idle`` is a sorted set too: room id -> when the room ends for want of moves
(:func:`server.rooms.idle_deadline`).  The lobby's outbox keeps it from every listed change
(the marks carry the deadline), and the sweep sends due rooms an ``Idle`` command and then
sets the entry from the room as it is, so an entry that is early (written from an older
change) only costs a look.

No decisions here (they are in lobby.clocks and rooms); the Redis client is an argument.
Imports redis, lobby.clocks, rooms and store; never the room service (the sweep that drives
it is :mod:`server.adjudicator`).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from lobby import clocks
from lobby.store.common import lua
from server.redis import store
from server.redis.cluster import is_cluster
from server.rooms import Room, RoomId

DUE_KEY = "clocks:due"
IDLE_KEY = "rooms:idle"
BATCH = 100
SETTLE_TRIES = 10
"""Passes of a cluster's settle before leaving the entry to the adjudicator (an early entry
only costs a look; a late one is what the passes avoid)."""

_SET_IF_VERSION = lua("set_deadline_if_version", "server.redis")


def flag_time(room: Room) -> float | None:
    """When the adjudicator should look at ``room`` again; None if no clock runs."""
    if room.clock is None or room.outcome is not None:
        return None
    return clocks.flag_time(room.clock)


def deadline(room: Room) -> store.Deadline:
    """The room's entry as its commit leaves it, on one Redis (see :func:`store.commit`):
    the commit and its flag time are then one step, and nothing is left to lower or settle."""
    return store.Deadline(DUE_KEY, flag_time(room))


async def lower(client: aioredis.Redis, room: Room) -> None:
    """Before committing ``room``: make its entry no later than its new flag time."""
    due = flag_time(room)
    if due is not None:
        await client.zadd(DUE_KEY, {room.id: due}, lt=True)


async def settle(client: aioredis.Redis, room: Room) -> bool:
    """After committing ``room``: its entry is its flag time exactly (or gone), if the room
    is still at ``room.version``; returns whether it was."""
    due = flag_time(room)
    if is_cluster(client):
        return await _settle_in_steps(client, room)
    result = await client.eval(
        _SET_IF_VERSION,
        2,
        store.room_key(room.id),
        DUE_KEY,
        str(room.version),
        room.id,
        "" if due is None else repr(due),
    )
    return bool(result)


async def _settle_in_steps(client: aioredis.Redis, room: Room) -> bool:
    """:func:`settle` as single-slot steps (see the module's docstring)."""
    for _ in range(SETTLE_TRIES):
        if await store.current_version(client, room.id) != room.version:
            return False
        due = flag_time(room)
        if due is None:
            await client.zrem(DUE_KEY, room.id)
        else:
            await client.zadd(DUE_KEY, {room.id: due})
        if await store.current_version(client, room.id) == room.version:
            return True
        loaded = await store.load_room(client, room.id)  # moved on: set it from the room now
        if loaded is None:
            return False
        room = loaded.room
    return False


async def due_rooms(client: aioredis.Redis, now: float, limit: int = BATCH) -> list[RoomId]:
    """Rooms whose entry is due at ``now``, the earliest first."""
    members = await client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit)
    return [m.decode() if isinstance(m, bytes) else str(m) for m in members]


async def deadline_of(client: aioredis.Redis, room_id: RoomId) -> float | None:
    """The entry of ``room_id`` (for tests and the operator)."""
    score = await client.zscore(DUE_KEY, room_id)
    return None if score is None else float(score)


async def set_idle_deadlines(client: aioredis.Redis, deadlines: dict[RoomId, float | None]) -> None:
    """Set when each room ends for want of moves (None: never), in one round trip."""
    if not deadlines:
        return
    # Two commands for the whole pass, not one per room: a drain brings hundreds of rooms.
    due = {room_id: at for room_id, at in deadlines.items() if at is not None}
    never = [room_id for room_id, at in deadlines.items() if at is None]
    async with client.pipeline(transaction=False) as pipe:
        if due:
            pipe.zadd(IDLE_KEY, due)
        if never:
            pipe.zrem(IDLE_KEY, *never)
        await pipe.execute()


async def idle_deadline_of(client: aioredis.Redis, room_id: RoomId) -> float | None:
    """The idle entry of ``room_id`` (for tests and the operator)."""
    score = await client.zscore(IDLE_KEY, room_id)
    return None if score is None else float(score)
