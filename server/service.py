"""Running room commands: read the room, decide, diff, commit if unchanged, deliver.

This is the imperative shell around :func:`server.rooms.decide`.  Rooms are cached per
process with the document they were read from, so a move costs one Redis round trip (the
commit script); the script's version check makes the cache safe, since a commit from a stale
cache fails and the room is read again.  A diff from another process brings the cached room
forward at its next use (a gap drops it instead).
Each diff is encoded once and the same bytes go to every socket and into Redis.  A commit
that changes what the lobby lists leaves the room's mark in the lobby's outbox in the same
script (:mod:`server.outbox`): the lobby follows from there, and nothing here waits for it.
Imports rooms, diff, listing, protocol, store, fanout, coalesce and room_presence; the Redis
client is an argument.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import (
    ClusterError,
    OutOfMemoryError,
    ReadOnlyError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol.diff import apply_copy
from protocol.errors import (
    BusyError,
    NotAPlayerError,
    RequestId,
    StaleVersionError,
    UnavailableError,
    UnknownRoomError,
)
from protocol.messages import ServerSnapshot, diff_reply, encode, encode_diff
from rules.api import PlainData, Seat
from server import listing
from server.coalesce import Coalesced
from server.fanout import Author, Fanout
from server.metrics import Metrics
from server.redis import clock_store, room_presence, store
from server.redis.batcher import Batcher
from server.redis.cluster import Durability, is_cluster
from server.redis.store import Loaded
from server.rooms import (
    DEFAULT_IDLE_LIMITS,
    Abort,
    Claim,
    Command,
    Draw,
    Event,
    IdleLimits,
    Move,
    PlayerId,
    Presence,
    RematchAgreed,
    Resign,
    Room,
    RoomId,
    SetSpectators,
    Takeback,
    decide,
    rematch_room,
    room_changes,
    room_from_doc,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

CACHE_SIZE = 10_000
RELAYED_KEPT = 32
"""Diffs from other processes kept for one cached room at most; past them, the room is read
again when next used (cheaper than applying a long run of diffs)."""
COMMIT_ATTEMPTS = 8
COUNT_EVERY = 1.0
"""Least seconds between two commits of one room's spectator count by one process (and of
its players' presence): sockets joining and leaving in a burst cost one commit now and one
when the burst is over, not one each, and each commit is a diff to every socket on the
room."""


class RoomService:
    """Commands, catch-up and spectator counts for the rooms of one server process."""

    def __init__(
        self,
        client: aioredis.Redis,
        fanout: Fanout,
        metrics: Metrics,
        process_id: str,
        history: int = store.DIFF_HISTORY,
        snapshot_every: int = store.SNAPSHOT_EVERY,
        idle_limits: IdleLimits = DEFAULT_IDLE_LIMITS,
        count_every: float = COUNT_EVERY,
        presence_lease: float = room_presence.LEASE,
        durability: Durability = store.NO_REPLICAS,
        on_commit: Callable[[Room, tuple[Event, ...]], None] | None = None,
    ) -> None:
        # The kept diffs must reach back to the last whole document.
        snapshot_every = max(1, min(snapshot_every, history))
        self.client = client
        self.fanout = fanout
        self.metrics = metrics
        self.process_id = process_id
        self.history = history
        self.snapshot_every = snapshot_every
        self.idle_limits = idle_limits
        """How long games may go without a move (the outbox marks carry their deadlines)."""
        self.durability = durability
        """What a commit waits for before it is acknowledged (see server.redis.cluster)."""
        self._cache: OrderedDict[RoomId, Loaded] = OrderedDict()
        self._relayed: dict[RoomId, list[tuple[int, bytes]]] = {}
        """Versions and diff frames other processes committed after a cached room, in order,
        not applied yet: the room's next use applies them (see :meth:`follow`)."""
        self.cluster = is_cluster(client)
        self.batcher = None if self.cluster or durability.replicas else Batcher(client)
        """Commits of one event-loop turn sent as one write; none where a commit must wait
        for replicas on its own connection (see store.commit)."""
        self.counts = Coalesced(self._update_count, count_every, "spectator count")
        self.presence = room_presence.RoomPresence(
            client, process_id, self.current, self.command, self.counts.every, presence_lease
        )
        """The leases of this process's seated sockets (who is here, over every process)."""
        self.on_commit = on_commit
        """Told of every change this process commits, at once (a hint: the outbox, not this,
        is what makes the lobby follow)."""
        self.clock: Callable[[], float] = time.time
        """The commit time moves are charged at (seconds since the epoch; tests replace it)."""

    async def room(self, room_id: RoomId) -> Loaded:
        """The room, from the cache or Redis; raises UnknownRoomError."""
        loaded = self.cached(room_id)
        if loaded is not None:
            return loaded
        loaded = await _storage(store.load_room(self.client, room_id))
        if loaded is None:
            raise UnknownRoomError(f"no room {room_id!r}")
        self._remember(loaded)
        return loaded

    async def current(self, room_id: RoomId) -> Loaded:
        """The room as Redis has it now: the cached one if no commit came since, else read
        again; raises UnknownRoomError."""
        cached = self.cached(room_id)
        if cached is not None:
            version = await _storage(store.current_version(self.client, room_id))
            if version == cached.room.version:
                return cached
            self._forget(room_id)
        return await self.room(room_id)

    def cached(self, room_id: RoomId) -> Loaded | None:
        """The room as this process last read or committed it, brought forward by the diffs
        relayed since, if it still holds it."""
        loaded = self._cache.get(room_id)
        if loaded is None or room_id not in self._relayed:
            return loaded
        frames = self._relayed.pop(room_id)
        doc = loaded.doc
        try:
            for version, frame in frames:
                if version <= doc["version"]:
                    continue  # this process's own commit, heard before its reply came
                body = store.unpack(frame)
                if body["version"] != version or version != doc["version"] + 1:
                    raise ValueError(f"diff {body['version']} after version {doc['version']}")
                doc = apply_copy(doc, body["ops"])
            if doc is loaded.doc:
                return loaded
            room = room_from_doc(doc)
        except (ValueError, KeyError, TypeError) as error:
            log.warning("room %s read again: relayed diffs did not apply (%s)", room_id, error)
            self._forget(room_id)
            return None
        # The whole document Redis keeps may be newer than ``doc_version`` says: this process
        # then writes its next one a little early, which costs a write and nothing else.
        # Relayed diffs come from processes of this release: the data stays as described.
        loaded = Loaded(room, doc, loaded.doc_version, loaded.described)
        self._cache[room_id] = loaded
        return loaded

    def follow(self, room_id: RoomId, version: int, frame: bytes | None) -> None:
        """Another process committed ``version`` of a room (``frame``: its diff, None when
        only the version is known).  A cached room one diff behind keeps the diff to apply
        at its next use, so that a game whose players sit on two processes costs no read of
        the room per move; after a gap it is dropped, and read again when next used."""
        loaded = self._cache.get(room_id)
        if loaded is None:
            return
        waiting = self._relayed.get(room_id, [])
        known = waiting[-1][0] if waiting else loaded.room.version
        if version <= known:
            return
        if frame is None or version != known + 1 or len(waiting) >= RELAYED_KEPT:
            self._forget(room_id)
            return
        self._relayed.setdefault(room_id, []).append((version, frame))

    def forget_older(self, room_id: RoomId, version: int) -> None:
        """Drop the cached room if a diff to ``version`` was committed elsewhere."""
        self.follow(room_id, version, None)

    def _forget(self, room_id: RoomId) -> None:
        self._cache.pop(room_id, None)
        self._relayed.pop(room_id, None)

    async def command(
        self,
        room_id: RoomId,
        command: Command,
        request_id: RequestId | None = None,
        author: Author | None = None,
    ) -> int:
        """Apply ``command``; returns the room's version after it.

        Moves and resigns carry a request id: a resend of a committed request (same player,
        id, version and move) returns the version it committed instead of applying again.
        ``author``, the socket that sent the request, gets the committed diff with the request
        id as its reply (see :meth:`Fanout.deliver`).
        Raises ClientError or a rules error, and then nothing changed.
        """
        ack = ""
        if isinstance(command, Move | Resign | Abort | Draw | Takeback) and request_id is not None:
            # Two sockets of one player may use the same request ids: the request itself is
            # part of what makes a resend the same request.
            what = _request_text(command)
            ack = f"{command.version}:{command.player}:{request_id}:{what}"
        if type(command) is Move:  # the usual command, built directly (replace is slow)
            command = Move(command.player, command.version, command.text, self.clock(), command.lag)
        elif isinstance(command, Claim | Presence | Takeback):
            command = replace(command, now=self.clock())
        for _ in range(COMMIT_ATTEMPTS):
            loaded = self.cached(room_id)  # the usual case, without a coroutine
            cached = loaded is not None
            if loaded is None:
                loaded = await self.room(room_id)
            try:
                transition = decide(loaded.room, command)
            except StaleVersionError:
                sent = getattr(command, "version", -1)
                if cached and sent > loaded.room.version:
                    # The client has seen a version this process's cache has not (a diff from
                    # another process overtook our own commit's reply): read the room again.
                    self._forget(room_id)
                    continue
                if ack:
                    done = await _storage(store.find_ack(self.client, room_id, ack))
                    if done is not None:
                        return done
                raise
            if not transition.events:
                return loaded.room.version
            new = transition.room
            if RematchAgreed in map(type, transition.events):
                # The rematch's room exists before any client can read its id.
                rematch = rematch_room(new, self.clock())
                await _storage(store.create_room(self.client, rematch, self.idle_limits))
            old = loaded.room
            timed = new.clock is not None and (new.clock, new.outcome) != (old.clock, old.outcome)
            # On one Redis the commit sets the flag time itself; a cluster keeps it on another
            # slot, with a step before the commit and one after (see clock_store).
            deadline = clock_store.deadline(new) if timed and not self.cluster else None
            stepped = timed and self.cluster
            if stepped:
                await _storage(clock_store.lower(self.client, new))
            doc, ops = room_changes(old, loaded.doc, new, loaded.described)
            frame = encode_diff(room_id, new.version, ops)
            whole = new.version - loaded.doc_version >= self.snapshot_every
            listed = listing.is_listed(transition.events)
            mark = listing.mark(new, self.idle_limits) if listed else b""
            started = time.perf_counter()
            committed = Loaded(new, doc, new.version if whole else loaded.doc_version)
            published = partial(
                self._publish, committed, frame, transition.events, author, request_id
            )
            try:  # as _storage does, without its coroutine: this runs on every move
                result = await store.commit(
                    self.client,
                    room_id,
                    loaded.room.version,
                    new.version,
                    store.pack(doc) if whole else None,
                    frame,
                    ack,
                    self.history,
                    self.fanout.is_subscribed(room_id),
                    self.batcher,
                    published,
                    mark,
                    self.durability,
                    deadline,
                )
            except _STORAGE_ERRORS as error:
                raise _unavailable(error) from error
            self.metrics.observe_commit(time.perf_counter() - started)
            if result.applied:  # and published
                if isinstance(command, Move):
                    self.metrics.moves += 1
                if stepped:
                    await _storage(clock_store.settle(self.client, new))
                return new.version
            if result.duplicate:
                return result.version
            current = self.cached(room_id)
            if current is None or current.room.version != result.version:
                self._forget(room_id)  # someone else committed first: read again
            # else another command of this process committed first (a spectator count during
            # a move, say) and the cache holds what it committed: decide again from there.
        raise BusyError("the room kept changing; try again")

    def _publish(
        self,
        committed: Loaded,
        frame: bytes,
        events: tuple[Event, ...],
        author: Author | None,
        request_id: RequestId | None,
        result: store.CommitResult,
    ) -> None:
        """Once a commit is read back applied: cache the room and hand its diff to the local
        sockets, before the command's task gets its turn again (under load, a wait of one
        whole pass over every socket's work)."""
        if not result.applied:
            return
        self._remember(committed)
        room = committed.room
        if author is not None and request_id is not None:
            reply = diff_reply(frame, request_id)
            self.fanout.deliver(room.id, room.version, frame, author, reply)
        else:
            self.fanout.deliver(room.id, room.version, frame)
        if self.on_commit is not None:
            self.on_commit(room, events)

    async def aclose(self) -> None:
        """Stop committing: presence and counts stop (the leases held lapse), what is
        unanswered fails, and the batcher's connection goes back."""
        await self.presence.stop()
        await self.counts.aclose()
        if self.batcher is not None:
            await self.batcher.aclose()

    async def catch_up(self, room_id: RoomId, version: int | None) -> tuple[int, list[bytes]]:
        """The frames that bring a client from ``version`` to now: diffs, or a snapshot."""
        if version is not None:
            current, frames = await _storage(store.diffs_since(self.client, room_id, version))
            if current < 0:
                raise UnknownRoomError(f"no room {room_id!r}")
            if frames is not None:
                return current, frames
        doc = await self._current_doc(room_id)
        snapshot = ServerSnapshot(room=room_id, version=doc["version"], state=doc)
        return int(doc["version"]), [encode(snapshot)]

    async def seat_moves(
        self, room_id: RoomId, player: PlayerId, seat: int
    ) -> tuple[int, list[PlainData]]:
        """The position version of the room as this process holds it and the moves ``seat``
        could make there (see :func:`rules.api.GameRules.seat_moves`), for ``player``, who
        must hold that seat; raises NotAPlayerError or UnknownRoomError.

        Only the seat's own player asks, once per position, so the lists are made here and
        not in the room's data, which every spectator and every process follows."""
        room = (await self.room(room_id)).room
        if seat not in (Seat.FIRST, Seat.SECOND) or Seat(seat) not in room.seats_of(player):
            raise NotAPlayerError(f"seat {seat} of room {room_id} is not yours")
        return room.position_version, room.rules.seat_moves(room.state, Seat(seat))

    async def _current_doc(self, room_id: RoomId) -> dict[str, Any]:
        """The room's document as Redis has it now; from the cache when that is current."""
        cached = self.cached(room_id)
        if cached is not None:
            version = await _storage(store.current_version(self.client, room_id))
            if version == cached.room.version:
                return cached.doc
        doc = await _storage(store.load_doc(self.client, room_id))
        if doc is None:
            raise UnknownRoomError(f"no room {room_id!r}")
        return doc

    async def change_spectators(self, room_id: RoomId, delta: int) -> None:
        """Count a spectator in or out; the room's count follows soon after (at once, and
        then at most every ``count_every`` seconds: changes meanwhile fold into one commit)."""
        await _storage(store.change_watchers(self.client, room_id, self.process_id, delta))
        self.counts.request(room_id)

    async def _update_count(self, room_id: RoomId) -> None:
        # Another process may commit an older total after ours; whoever changes the count
        # last reads the total again, so the room ends with the right one.
        total = await _storage(store.change_watchers(self.client, room_id, self.process_id, 0))
        try:
            await self.command(room_id, SetSpectators(total))
        except BusyError:
            # Moves kept winning the race for the room's version; the count can wait a
            # moment, but it must not stay wrong.
            self.counts.request(room_id)
            return
        again = await _storage(store.change_watchers(self.client, room_id, self.process_id, 0))
        if again != total:
            self.counts.request(room_id)

    def _remember(self, loaded: Loaded) -> None:
        waiting = self._relayed.get(loaded.room.id)
        if waiting:  # what the room now holds is no longer waiting
            later = [(v, frame) for v, frame in waiting if v > loaded.room.version]
            if later:
                self._relayed[loaded.room.id] = later
            else:
                del self._relayed[loaded.room.id]
        self._cache[loaded.room.id] = loaded
        self._cache.move_to_end(loaded.room.id)
        if len(self._cache) > CACHE_SIZE:
            dropped, _ = self._cache.popitem(last=False)
            self._relayed.pop(dropped, None)


def _request_text(command: Move | Resign | Abort | Draw | Takeback) -> str:
    match command:
        case Takeback():
            return f"takeback {command.action}"
        case Move():
            return command.text
        case Draw():
            return f"draw {command.action}"
        case Abort():
            return "abort"
        case Resign():
            return "resign"


_STORAGE_ERRORS = (
    RedisConnectionError,
    RedisTimeoutError,
    OSError,
    OutOfMemoryError,
    ClusterError,
    TryAgainError,
    ReadOnlyError,
    SlotNotCoveredError,
)
"""What a lost or silent Redis raises, or a full one (``maxmemory`` reached: Redis refuses the
write and runs none of it), or a cluster in a failover (down, or a master that became a
replica): the client may resend (UnavailableError)."""


async def _storage(awaitable: Awaitable[T]) -> T:
    """Await a Redis call, turning a lost connection or a full Redis into an error the client
    can retry."""
    try:
        return await awaitable
    except _STORAGE_ERRORS as error:
        raise _unavailable(error) from error


def _unavailable(error: Exception) -> UnavailableError:
    if isinstance(error, OutOfMemoryError):
        return UnavailableError("storage is full; try again later")
    return UnavailableError(f"storage unavailable: {error}")
