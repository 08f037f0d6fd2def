"""Deadlines of running clocks and of idle games in Redis, and the adjudicator that ends games
on time or for want of moves.

``clocks:due`` is a sorted set: room id -> the time its running clock's flag may fall.
Entries only need to be no later than the truth: before a commit the service lowers a
room's entry to the new flag time (``ZADD LT``), so a process dying between commit and
bookkeeping loses no deadline; after the commit it sets the exact time, but only if the
room is still at the version it committed (a script reads the room's version), so a slow
process never puts back an older deadline.  An entry that comes due early is harmless:
the adjudicator sends the room a ``Timeout``, which changes nothing unless the flag really
fell, and then sets the entry from the room as it is.

Exactly once: every process may run :func:`adjudicate` over the same set; the ``Timeout``
commit is version-checked, so only one commit ends the game and the others find it over.

``rooms:idle`` is a sorted set too: room id -> when the room ends for want of moves
(:func:`server.rooms.idle_deadline`).  The lobby's outbox keeps it from every listed change
(the marks carry the deadline), and :func:`end_idle` sends due rooms an ``Idle`` command and
then sets the entry from the room as it is, so an entry that is early (written from an older
change) only costs a look.

No decisions here (they are in lobby.clocks and rooms); the Redis client and the service
are arguments.  Imports redis, lobby.clocks, rooms and store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from lobby import clocks
from protocol.errors import UnknownRoomError
from server import store
from server.rooms import Idle, Room, RoomId, Timeout, idle_deadline

if TYPE_CHECKING:
    from server.service import RoomService

log = logging.getLogger(__name__)

DUE_KEY = "clocks:due"
IDLE_KEY = "rooms:idle"
BATCH = 100
STOP_WAIT = 2.0
"""Seconds shutdown waits for a sweep to finish, then again after cancelling it."""

_SET_IF_VERSION = """
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
end
return 1
"""


def flag_time(room: Room) -> float | None:
    """When the adjudicator should look at ``room`` again; None if no clock runs."""
    if room.clock is None or room.outcome is not None:
        return None
    return clocks.flag_time(room.clock)


async def lower(client: aioredis.Redis, room: Room) -> None:
    """Before committing ``room``: make its entry no later than its new flag time."""
    due = flag_time(room)
    if due is not None:
        await client.zadd(DUE_KEY, {room.id: due}, lt=True)


async def settle(client: aioredis.Redis, room: Room) -> bool:
    """After committing ``room``: its entry is its flag time exactly (or gone), if the room
    is still at ``room.version``; returns whether it was."""
    due = flag_time(room)
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


async def due_rooms(client: aioredis.Redis, now: float, limit: int = BATCH) -> list[RoomId]:
    """Rooms whose entry is due at ``now``, the earliest first."""
    members = await client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=limit)
    return [m.decode() if isinstance(m, bytes) else str(m) for m in members]


async def deadline_of(client: aioredis.Redis, room_id: RoomId) -> float | None:
    """The entry of ``room_id`` (for tests and the operator)."""
    score = await client.zscore(DUE_KEY, room_id)
    return None if score is None else float(score)


async def adjudicate(service: RoomService, now: float) -> int:
    """Send every due room a ``Timeout`` and settle its entry; returns how many rooms were
    looked at.  Whether a game ended (here or in another process) shows in the room."""
    rooms = await due_rooms(service.client, now)
    for room_id in rooms:
        try:
            await service.command(room_id, Timeout(now))
            loaded = await service.room(room_id)
            if not await settle(service.client, loaded.room):
                # The cached room was behind: read it again next time.
                service.forget_older(room_id, loaded.room.version + 1)
        except UnknownRoomError:
            await service.client.zrem(DUE_KEY, room_id)
        except Exception:  # one bad room must not stop the others
            log.warning("room %s not adjudicated", room_id, exc_info=True)
    return len(rooms)


async def set_idle_deadlines(client: aioredis.Redis, deadlines: dict[RoomId, float | None]) -> None:
    """Set when each room ends for want of moves (None: never), in one round trip."""
    if not deadlines:
        return
    async with client.pipeline(transaction=False) as pipe:
        for room_id, due in deadlines.items():
            if due is None:
                pipe.zrem(IDLE_KEY, room_id)
            else:
                pipe.zadd(IDLE_KEY, {room_id: due})
        await pipe.execute()


async def idle_deadline_of(client: aioredis.Redis, room_id: RoomId) -> float | None:
    """The idle entry of ``room_id`` (for tests and the operator)."""
    score = await client.zscore(IDLE_KEY, room_id)
    return None if score is None else float(score)


async def end_idle(service: RoomService, now: float) -> int:
    """Send every room whose idle entry is due an ``Idle`` command (which ends it only if it
    really saw no move for its limit) and set its entry from the room as it is; returns how
    many rooms were looked at."""
    client, limits = service.client, service.idle_limits
    members = await client.zrangebyscore(IDLE_KEY, "-inf", now, start=0, num=BATCH)
    rooms = [m.decode() if isinstance(m, bytes) else str(m) for m in members]
    for room_id in rooms:
        try:
            await service.command(room_id, Idle(now, limits))
            room = (await service.room(room_id)).room
            await set_idle_deadlines(client, {room_id: idle_deadline(room, limits)})
        except UnknownRoomError:
            await client.zrem(IDLE_KEY, room_id)
        except Exception:  # one bad room must not stop the others
            log.warning("idle room %s not ended", room_id, exc_info=True)
    return len(rooms)


class Adjudicator:
    """The periodic sweep of one process: every ``every`` seconds, end the games whose flag
    fell or that saw no move for their idle limit.  Every process runs one; they need no
    coordination (see :func:`adjudicate`, :func:`end_idle`)."""

    def __init__(
        self, service: RoomService, every: float = 0.5, now: Callable[[], float] = time.time
    ) -> None:
        self.service = service
        self.every = every
        self.now = now
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        if self._task is None:
            self._stopping = asyncio.Event()
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop between sweeps; a sweep stuck on Redis is cancelled, and shutdown never waits
        more than a few seconds for it."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping.set()
        done, _ = await asyncio.wait({task}, timeout=STOP_WAIT)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_WAIT)
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.warning("clock sweep ended with an error", exc_info=task.exception())

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                await adjudicate(self.service, self.now())
                await end_idle(self.service, self.now())
            except Exception:  # Redis away for a moment: try again at the next tick
                log.warning("clock sweep failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.every)
