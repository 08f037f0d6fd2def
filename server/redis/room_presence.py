"""Seated players' presence on their rooms: leases in Redis that lapse unless renewed.

``room:{id}:presence`` is a sorted set: ``<process id>|<player id>`` -> when that lease
lapses.  A process holds one lease per room and seated player with a socket on the room
there, renews all it holds every third of the lease, and ends one (lapsing now) when that
player's last socket there leaves.  A player is here while any of their leases is unexpired,
so a process that dies (SIGKILL) leaves nothing behind for long: its leases lapse on their
own, the player shows away, and after the grace period the opponent may claim the game.

``presence:due`` is a sorted set: room id -> no later than the first lapse among its leases.
Every process sweeps the rooms that are due: one script drops their lapsed leases and sets
the entry to the next lapse (or removes it), and the room's presence is brought in step with
the leases (a ``Presence`` command for each player who came, left or lapsed, which commits
only a change: a player who never came is not shown away).  Those
commits are coalesced per room (see :class:`server.coalesce.Coalesced`), so sockets coming and
going in a burst cost a bounded number of versions.

On a Redis Cluster a room's leases and ``presence:due`` are on different slots, so the two
scripts become single-slot steps, ordered so that a lease is never left without a due entry
by a live process: a lease lowers the room's entry, is written, and lowers the entry again;
a sweep drops the lapsed leases (one script on the room's slot, which also reads the next
lapse), sets or removes the entry, and, having removed it, looks at the leases again and
puts the entry back if one was written meanwhile.

The decisions are the room's (``Presence`` in :mod:`server.rooms`); the Redis client and the
room service's ``current`` and ``command`` are arguments.  Imports redis, rooms, store (for the
loaded room's type), errors and coalesce; never the room service.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from lobby.store.common import lua
from protocol.errors import UnknownRoomError
from server.coalesce import Coalesced
from server.redis.cluster import is_cluster
from server.redis.store import Loaded
from server.rooms import Command, Presence, RoomId

log = logging.getLogger(__name__)

LEASE = 15.0
"""Seconds a lease lasts unless renewed; the process renews its leases every third of it."""
DUE_KEY = "presence:due"
SWEEP_BATCH = 100
STOP_WAIT = 2.0
"""Seconds stopping waits for the loops, then again after cancelling them."""

_LEASE = lua("lease", "server.redis")

_RENEW = lua("renew_leases", "server.redis")
RENEW_CHUNK = 500
"""Leases one renewal script takes at most, so that no script holds Redis for long."""

_SWEEP = lua("sweep_leases", "server.redis")

_DROP = lua("drop_lapsed_leases", "server.redis")


def presence_key(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}:presence"


def lease_member(process_id: str, player_id: str) -> str:
    return f"{process_id}|{player_id}"


async def players_here(client: aioredis.Redis, room_id: RoomId, now: float) -> set[str]:
    """The players with an unexpired lease on the room (one lapsing later than ``now``), over
    every process."""
    members = await client.zrangebyscore(presence_key(room_id), f"({now!r}", "+inf")
    here = set()
    for member in members:
        text = member.decode() if isinstance(member, bytes) else str(member)
        here.add(text.partition("|")[2])
    return here


class RoomPresence:
    """The leases of one process's seated sockets, their renewal, and the sweep of lapsed
    leases (of any process) into the rooms' presence."""

    def __init__(
        self,
        client: aioredis.Redis,
        process_id: str,
        current: Callable[[RoomId], Awaitable[Loaded]],
        command: Callable[[RoomId, Command], Awaitable[object]],
        sync_every: float,
        lease: float = LEASE,
        now: Callable[[], float] = time.time,
    ) -> None:
        """``current`` reads a room as Redis has it now and ``command`` commits a command to
        it (the room service's); presence syncs of one room come at most every
        ``sync_every`` seconds."""
        self.client = client
        self.process_id = process_id
        self.current = current
        self.command = command
        self.lease = lease
        self.now = now
        self.sockets: dict[tuple[RoomId, str], int] = {}
        """(room, player) -> this process's sockets of that seated player on the room."""
        self.syncs = Coalesced(self.sync, sync_every, "presence")
        self._changed: dict[RoomId, set[str]] = {}
        """Players whose leases on a room changed since its last sync."""
        self._lease_script = self.client.register_script(_LEASE)
        self._renew_script = self.client.register_script(_RENEW)
        self._sweep_script = self.client.register_script(_SWEEP)
        self._drop_script = self.client.register_script(_DROP)
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def arrive(self, room_id: RoomId, player_id: str) -> None:
        """A socket of a seated player joined the room here."""
        key = (room_id, player_id)
        self.sockets[key] = self.sockets.get(key, 0) + 1
        if self.sockets[key] == 1:
            await self._lease(room_id, player_id, self.now() + self.lease)
        self._changed_on(room_id, player_id)

    async def depart(self, room_id: RoomId, player_id: str) -> None:
        """A socket of a seated player left the room here (or closed)."""
        key = (room_id, player_id)
        left = self.sockets.get(key, 0) - 1
        if left > 0:
            self.sockets[key] = left
            return
        self.sockets.pop(key, None)
        # Lapsed rather than removed: were this process to stop before its sync commits, the
        # sweep of any process still finds the lapse and shows the player away.
        await self._lease(room_id, player_id, self.now())
        self._changed_on(room_id, player_id)

    async def renew(self) -> None:
        """Renew every lease this process holds: a script per :data:`RENEW_CHUNK` leases on
        one Redis, a lease at a time on a cluster (each room's leases are on its own slot)."""
        if not self.sockets:
            return
        lapses = repr(self.now() + self.lease)
        if is_cluster(self.client):
            for room_id, player_id in list(self.sockets):
                await self._lease(room_id, player_id, float(lapses))
            return
        held = list(self.sockets)
        for start in range(0, len(held), RENEW_CHUNK):
            keys: list[str] = []
            args: list[str] = [lapses]
            for room_id, player_id in held[start : start + RENEW_CHUNK]:
                keys.append(presence_key(room_id))
                args += [lease_member(self.process_id, player_id), room_id]
            await self._renew_script(keys=[*keys, DUE_KEY], args=args)

    async def sweep(self) -> int:
        """Drop the lapsed leases of the rooms that are due and bring those rooms' presence
        in step; returns how many rooms were looked at."""
        now = self.now()
        members = await self.client.zrangebyscore(DUE_KEY, "-inf", now, start=0, num=SWEEP_BATCH)
        rooms = [m.decode() if isinstance(m, bytes) else str(m) for m in members]
        for room_id in rooms:
            if is_cluster(self.client):
                lapsed = await self._sweep_in_steps(room_id, now)
            else:
                lapsed = await self._sweep_script(
                    keys=[presence_key(room_id), DUE_KEY], args=[repr(now), room_id]
                )
            for member in lapsed:
                text = member.decode() if isinstance(member, bytes) else str(member)
                self._changed_on(room_id, text.partition("|")[2])
        return len(rooms)

    async def sync(self, room_id: RoomId) -> None:
        """Commit the presence of the players whose leases changed as the unexpired leases
        say (a ``Presence`` command changes the room only if it differs)."""
        players = self._changed.pop(room_id, set())
        try:
            loaded = await self.current(room_id)
        except UnknownRoomError:
            return
        if loaded.room.outcome is not None:
            return
        here = await players_here(self.client, room_id, self.now())
        for player_id in sorted(players):
            await self.command(room_id, Presence(player_id, player_id in here, 0.0))

    def _changed_on(self, room_id: RoomId, player_id: str) -> None:
        self._changed.setdefault(room_id, set()).add(player_id)
        self.syncs.request(room_id)

    def start(self) -> None:
        if self._task is None:
            self._stopping = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name="room-presence")

    async def stop(self) -> None:
        """Stop renewing and sweeping (the leases held lapse, unless the sockets closed first
        and dropped them); a loop stuck on Redis is cancelled."""
        task, self._task = self._task, None
        if task is not None:
            self._stopping.set()
            done, _ = await asyncio.wait({task}, timeout=STOP_WAIT)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=STOP_WAIT)
        await self.syncs.aclose()

    async def _lease(self, room_id: RoomId, player_id: str, lapses: float) -> None:
        if is_cluster(self.client):
            member = lease_member(self.process_id, player_id)
            await self.client.zadd(DUE_KEY, {room_id: lapses}, lt=True)
            await self.client.zadd(presence_key(room_id), {member: lapses})
            await self.client.zadd(DUE_KEY, {room_id: lapses}, lt=True)
            return
        await self._lease_script(
            keys=[presence_key(room_id), DUE_KEY],
            args=[repr(lapses), lease_member(self.process_id, player_id), room_id],
        )

    async def _sweep_in_steps(self, room_id: RoomId, now: float) -> list[bytes]:
        """The sweep of one room as single-slot steps (see the module's docstring)."""
        key = presence_key(room_id)
        lapsed, first = await self._drop_script(keys=[key], args=[repr(now)])
        if first:
            await self.client.zadd(DUE_KEY, {room_id: float(first)})
            return list(lapsed)
        await self.client.zrem(DUE_KEY, room_id)
        again = await self.client.zrange(key, 0, 0, withscores=True)
        if again:
            await self.client.zadd(DUE_KEY, {room_id: float(again[0][1])}, lt=True)
        return list(lapsed)

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.renew()
                await self.sweep()
            except Exception:  # Redis away for a moment: try again at the next tick
                log.warning("presence leases not renewed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.lease / 3)
