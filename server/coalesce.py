"""Work per room that may run at most once per interval, however often it is asked for.

:class:`Coalesced` is how a room's spectator count and its players' presence are committed:
a burst of sockets joining and leaving costs a commit at once and one after the pause, not
one per socket.  Imports rooms (for the id type) only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from server.rooms import RoomId

log = logging.getLogger(__name__)


class Coalesced:
    """Runs ``action(room_id)`` for the rooms that ask: at once when the room's last run is
    ``every`` seconds past, else once that much time has passed, however many asked
    meanwhile.  So a room costs at most one run per ``every`` seconds, and a request is never
    lost: one made while a run is under way brings another after it."""

    def __init__(
        self, action: Callable[[RoomId], Awaitable[None]], every: float, what: str
    ) -> None:
        self.action = action
        self.every = every
        self.what = what
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """The pause between two runs of a room (tests replace it)."""
        self._wanted: set[RoomId] = set()
        self._tasks: dict[RoomId, asyncio.Task[None]] = {}

    def request(self, room_id: RoomId) -> None:
        self._wanted.add(room_id)
        if room_id not in self._tasks:
            self._tasks[room_id] = asyncio.create_task(self._run(room_id))

    async def wait_idle(self) -> None:
        """Wait until no room has a run pending (for tests)."""
        while self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def aclose(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, room_id: RoomId) -> None:
        try:
            while room_id in self._wanted:
                self._wanted.discard(room_id)
                try:
                    await self.action(room_id)
                except Exception:
                    log.warning("%s of room %s not updated", self.what, room_id, exc_info=True)
                await self.sleep(self.every)
        finally:
            # Synchronously after the last check of _wanted: a request from now on starts a
            # new task.
            self._tasks.pop(room_id, None)
