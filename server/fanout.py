"""Fan-out across processes: one Redis subscription per room with local sockets.

Each server process holds one pub/sub connection; it subscribes to a room's channel while at
least one local socket watches the room, and hands every published diff frame (the same bytes
for every socket) to the local subscribers.  A process that commits a diff also hands it to
its own sockets at once (:meth:`Fanout.deliver`); subscribers drop versions they already have.
After the pub/sub connection is lost and restored, ``on_resubscribed`` lets the sockets catch
up on what was published meanwhile; :func:`read_pubsub` is the one loop that reads a
pub/sub connection through such losses (the lobby's and the tournaments' feeds use it too).

A publication can also be missed with no loss to notice: a commit that decided nobody else
listens while this process's subscription was being restored, a process that committed and
died before publishing, a Redis restarted from its append-only file.  So every
``check_every`` seconds the process reads the current version of each room it serves, and a
room that Redis has had ahead of what the sockets were given since the previous check is
handed to each subscriber's :meth:`Subscriber.behind`, which reads the missed diffs.  A
missed diff therefore reaches its sockets within two checks, without any client having to
wait for a move that never comes.

On a Redis Cluster the rooms' channels are sharded (``SSUBSCRIBE``, see
:mod:`server.redis.sharded_pubsub`), each on the master of its room's slot, and a failover
there is a lost and restored subscription like any other.

Chat lines travel on the same channels, marked by the version ``CHAT_MARK`` that no room
reaches, with a byte saying who reads them (see :func:`chat_publication`); they go to each
subscriber's :meth:`Subscriber.push_chat` and play no part in the versions.
Holds no decisions; the Redis client is an argument.
Imports redis, protocol, store, metrics and errors.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import ClusterError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol.errors import UnavailableError
from protocol.messages import VERSION_PREFIX
from server.metrics import Metrics
from server.redis.cluster import is_cluster
from server.redis.sharded_pubsub import ShardedSubscriptions, as_received
from server.redis.store import channel, current_versions, room_of_channel

log = logging.getLogger(__name__)

RECONNECT_PAUSE = 0.2
"""Seconds between attempts to read a lost pub/sub connection again."""
CHECK_EVERY = 0.5
"""Seconds between two reads of the served rooms' versions (see the module's docstring)."""
CHAT_MARK = 2**64 - 1
"""The version prefix of a chat publication (no room's version)."""
_SUBSCRIBE_ERRORS = (RedisConnectionError, RedisTimeoutError, OSError, ClusterError)
_FOR_PLAYERS = 1
_FOR_SPECTATORS = 2


def chat_publication(frame: bytes, players: bool, spectators: bool) -> bytes:
    """What a chat line's ``frame`` is published as: the mark, who reads it, the frame."""
    readers = (_FOR_PLAYERS if players else 0) | (_FOR_SPECTATORS if spectators else 0)
    return VERSION_PREFIX.pack(CHAT_MARK) + bytes([readers]) + frame


class Subscriber(Protocol):
    def push(self, room_id: str, version: int, frame: bytes) -> None:
        """Queue ``frame`` (the diff to ``version``) for sending; must not block."""

    def behind(self, room_id: str, version: int) -> None:
        """The room is at ``version`` in Redis: read whatever this subscriber is missing up
        to it (nothing if it has it already); must not block."""

    def push_chat(self, room_id: str, players: bool, spectators: bool, frame: bytes) -> None:
        """Queue a chat ``frame`` if this subscriber takes part in the room as one of the
        readers named (players, spectators); must not block."""


class Author(Subscriber, Protocol):
    def push_reply(self, room_id: str, version: int, frame: bytes, reply: bytes) -> None:
        """Queue ``reply``, the diff ``frame`` that also answers this subscriber's request,
        or ``frame`` if the subscriber had that version already; must not block."""


class Fanout:
    """Local subscribers per room, fed from Redis pub/sub and from this process's commits."""

    def __init__(
        self,
        client: aioredis.Redis,
        process_id: str,
        on_remote: Callable[[str, int, bytes | None], None] | None = None,
        on_resubscribed: Callable[[list[str]], Coroutine[object, object, None]] | None = None,
        check_every: float = CHECK_EVERY,
        metrics: Metrics | None = None,
    ) -> None:
        self._client = client
        self._sharded = (
            ShardedSubscriptions(client, self._on_message, self._confirmed_lost, self._restored)
            if is_cluster(client)
            else None
        )
        self._metrics = metrics
        """Counts the diffs relayed from other processes, where given."""
        self._pubsub = new_pubsub(client)
        self._control = f"server:{process_id}"
        self._rooms: dict[str, set[Subscriber]] = {}
        self._confirmed: set[str] = set()
        """Rooms whose subscription Redis has confirmed (and not yet been asked to drop)."""
        self._on_remote = on_remote
        self._on_resubscribed = on_resubscribed
        self._delivered: dict[str, int] = {}
        """The newest version handed to this process's sockets, per room served."""
        self._ahead: dict[str, int] = {}
        """Rooms whose version in Redis was newer than the one delivered, at the last check."""
        self.check_every = check_every
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def room_count(self) -> int:
        return len(self._rooms)

    async def start(self) -> None:
        if self._sharded is not None:
            self._tasks = [asyncio.create_task(self._check_loop(), name="fanout-versions")]
            return
        # A control channel keeps the connection subscribed when no room is watched.
        await self._pubsub.subscribe(self._control)
        self._tasks = [
            asyncio.create_task(self._read(), name="fanout"),
            asyncio.create_task(self._check_loop(), name="fanout-versions"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._sharded is not None:
            await self._sharded.aclose()
        await self._pubsub.aclose()  # type: ignore[no-untyped-call]

    async def subscribe(self, room_id: str, subscriber: Subscriber) -> None:
        """Deliver the room's diffs to ``subscriber``; raises UnavailableError."""
        local = self._rooms.get(room_id)
        if local is None:
            local = self._rooms[room_id] = set()
            local.add(subscriber)
            try:
                if self._sharded is not None:
                    await self._sharded.subscribe(channel(room_id))
                else:
                    await self._pubsub.subscribe(channel(room_id))
            except _SUBSCRIBE_ERRORS as error:
                self._rooms.pop(room_id, None)
                raise UnavailableError(f"storage unavailable: {error}") from error
        else:
            local.add(subscriber)

    async def unsubscribe(self, room_id: str, subscriber: Subscriber) -> None:
        local = self._rooms.get(room_id)
        if local is None:
            return
        local.discard(subscriber)
        if not local:
            del self._rooms[room_id]
            self._confirmed.discard(room_id)
            self._delivered.pop(room_id, None)
            self._ahead.pop(room_id, None)
            try:
                if self._sharded is not None:
                    await self._sharded.unsubscribe(channel(room_id))
                else:
                    await self._pubsub.unsubscribe(channel(room_id))
            except (RedisConnectionError, RedisTimeoutError):
                pass  # the subscription died with the connection

    def is_subscribed(self, room_id: str) -> bool:
        """Whether Redis certainly sends this process the room's channel."""
        return room_id in self._confirmed

    def subscribers(self, room_id: str) -> set[Subscriber]:
        return self._rooms.get(room_id, set())

    def deliver(
        self,
        room_id: str,
        version: int,
        frame: bytes,
        author: Author | None = None,
        reply: bytes = b"",
    ) -> None:
        """Hand a committed diff frame to every local socket watching the room; ``author``,
        whose request committed it, gets ``reply`` (the frame that also answers it)."""
        local = self._rooms.get(room_id)
        if local is None:
            return
        if version > self._delivered.get(room_id, -1):
            self._delivered[room_id] = version
        for subscriber in tuple(local):
            if subscriber is author:
                author.push_reply(room_id, version, frame, reply)
            else:
                subscriber.push(room_id, version, frame)

    async def check_versions(self) -> list[str]:
        """Read the served rooms' versions once, and hand every room that Redis has had ahead
        of its sockets since the previous check to its subscribers; returns those rooms."""
        rooms = list(self._rooms)
        versions = await current_versions(self._client, rooms) if rooms else []
        ahead: dict[str, int] = {}
        repaired = []
        for room_id, version in zip(rooms, versions, strict=True):
            delivered = self._delivered.get(room_id, -1)
            if version is None or version <= delivered:
                continue
            previous = self._ahead.get(room_id)
            if previous is not None and previous > delivered:
                # A version committed before the previous check still has not come.
                repaired.append(room_id)
                self._repair(room_id, version)
            else:
                ahead[room_id] = version
        self._ahead = ahead
        return repaired

    def _repair(self, room_id: str, version: int) -> None:
        log.info("room %s: version %d reached Redis but not this process", room_id, version)
        self._delivered[room_id] = version
        if self._on_remote is not None:
            self._on_remote(room_id, version, None)
        for subscriber in tuple(self._rooms.get(room_id, ())):
            subscriber.behind(room_id, version)

    async def _check_loop(self) -> None:
        while True:
            await asyncio.sleep(self.check_every)
            try:
                await self.check_versions()
            except _SUBSCRIBE_ERRORS as error:
                log.debug("room versions not read: %s", error)

    async def _read(self) -> None:
        await read_pubsub(
            self._pubsub,
            "pub/sub connection",
            self._on_message,
            self._confirmed.clear,
            self._restored,
        )

    def _confirmed_lost(self) -> None:
        self._confirmed.clear()

    def _restored(self) -> None:
        if self._on_resubscribed is not None:
            asyncio.create_task(self._on_resubscribed(list(self._rooms)))

    def _on_message(self, message: dict[str, Any]) -> None:
        name = message["channel"]
        name = name.decode() if isinstance(name, bytes) else name
        if message["type"] == "subscribe" and name.startswith("room:"):
            room_id = room_of_channel(name)
            if room_id in self._rooms:
                self._confirmed.add(room_id)
        if message["type"] != "message":
            return
        room_id = room_of_channel(name)
        data: bytes = message["data"]
        (version,) = VERSION_PREFIX.unpack_from(data)
        if version == CHAT_MARK:
            self._deliver_chat(room_id, data[VERSION_PREFIX.size :])
            return
        if version <= self._delivered.get(room_id, -1):
            # Every local socket has it or has it coming: this process committed it (Redis
            # sends a publication to every subscriber, its author too), or a later one.
            return
        if self._on_remote is not None:
            self._on_remote(room_id, version, data[VERSION_PREFIX.size :])
        if self._metrics is not None:
            self._metrics.relayed += 1
            self._metrics.relayed_bytes += len(data)
        self.deliver(room_id, version, data[VERSION_PREFIX.size :])

    def _deliver_chat(self, room_id: str, data: bytes) -> None:
        players, spectators = bool(data[0] & _FOR_PLAYERS), bool(data[0] & _FOR_SPECTATORS)
        for subscriber in tuple(self._rooms.get(room_id, ())):
            subscriber.push_chat(room_id, players, spectators, data[1:])


def new_pubsub(client: aioredis.Redis) -> PubSub:
    """A pub/sub connection of ``client`` that hands messages on as Redis sent them (see
    :func:`~server.redis.sharded_pubsub.as_received`); on a cluster, the feeds' connection
    that follows failovers (which does the same)."""
    if is_cluster(client):
        return client.pubsub()
    return client.pubsub(push_handler_func=as_received)


async def read_pubsub(
    pubsub: PubSub,
    name: str,
    on_message: Callable[[dict[str, Any]], None],
    on_lost: Callable[[], None] | None = None,
    on_restored: Callable[[], None] | None = None,
) -> None:
    """Hand every message of ``pubsub`` to ``on_message`` for ever, riding out lost
    connections: redis-py reconnects and subscribes again on the next read.  What was
    published meanwhile is gone, so ``on_restored`` runs once the subscription is back (to
    resend fresh state); ``on_lost`` runs on each failed read."""
    lost = False
    while True:
        try:
            message = await pubsub.get_message(timeout=None)
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            if not lost:
                log.warning("%s lost: %s", name, error)
            lost = True
            if on_lost is not None:
                on_lost()
            await asyncio.sleep(RECONNECT_PAUSE)
            continue
        if message is None:
            continue
        if lost and message["type"] == "subscribe":
            lost = False
            log.warning("%s restored", name)
            if on_restored is not None:
                on_restored()
        on_message(message)
