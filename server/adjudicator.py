"""The sweep that ends games on time or for want of moves: every process runs one.

Each tick sends every room whose clock entry is due a ``Timeout``, and every room whose idle
entry is due an ``Idle``; both change a room only if its flag really fell or it really saw no
move for its limit, and both are version-checked commits, so processes sweeping the same sets
need no coordination and a game ends exactly once.  The entries themselves are kept by
:mod:`server.redis.clock_store`.  Imports clock_store, rooms and the room service.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from protocol.errors import UnknownRoomError
from server.redis.clock_store import BATCH, DUE_KEY, IDLE_KEY, due_rooms, set_idle_deadlines, settle
from server.rooms import Idle, Timeout, idle_deadline
from server.service import RoomService

log = logging.getLogger(__name__)

STOP_WAIT = 2.0
"""Seconds shutdown waits for a sweep to finish, then again after cancelling it."""


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
