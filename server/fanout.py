"""Fan-out across processes: one Redis subscription per room with local sockets.

Each server process holds one pub/sub connection; it subscribes to a room's channel while at
least one local socket watches the room, and hands every published diff frame (the same bytes
for every socket) to the local subscribers.  A process that commits a diff also hands it to
its own sockets at once (:meth:`Fanout.deliver`); subscribers drop versions they already have.
After the pub/sub connection is lost and restored, ``on_resubscribed`` lets the sockets catch
up on what was published meanwhile; :func:`read_pubsub` is the one loop that reads a
pub/sub connection through such losses (the lobby's and the tournaments' feeds use it too).
Holds no decisions; the Redis client is an argument.
Imports redis, protocol, store and errors.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.errors import UnavailableError
from server.protocol import VERSION_PREFIX
from server.store import channel, room_of_channel

log = logging.getLogger(__name__)

RECONNECT_PAUSE = 0.2
"""Seconds between attempts to read a lost pub/sub connection again."""


class Subscriber(Protocol):
    def push(self, room_id: str, version: int, frame: bytes) -> None:
        """Queue ``frame`` (the diff to ``version``) for sending; must not block."""


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
        on_remote: Callable[[str, int], None] | None = None,
        on_resubscribed: Callable[[list[str]], Coroutine[object, object, None]] | None = None,
    ) -> None:
        self._client = client
        self._pubsub = client.pubsub()
        self._control = f"server:{process_id}"
        self._rooms: dict[str, set[Subscriber]] = {}
        self._confirmed: set[str] = set()
        """Rooms whose subscription Redis has confirmed (and not yet been asked to drop)."""
        self._on_remote = on_remote
        self._on_resubscribed = on_resubscribed
        self._task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()

    @property
    def room_count(self) -> int:
        return len(self._rooms)

    async def start(self) -> None:
        # A control channel keeps the connection subscribed when no room is watched.
        await self._pubsub.subscribe(self._control)
        self._task = asyncio.create_task(self._read(), name="fanout")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        await self._pubsub.aclose()

    async def subscribe(self, room_id: str, subscriber: Subscriber) -> None:
        """Deliver the room's diffs to ``subscriber``; raises UnavailableError."""
        local = self._rooms.get(room_id)
        if local is None:
            local = self._rooms[room_id] = set()
            local.add(subscriber)
            try:
                await self._pubsub.subscribe(channel(room_id))
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
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
            try:
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
        for subscriber in tuple(self._rooms.get(room_id, ())):
            if subscriber is author:
                author.push_reply(room_id, version, frame, reply)
            else:
                subscriber.push(room_id, version, frame)

    async def _read(self) -> None:
        await read_pubsub(
            self._pubsub,
            "pub/sub connection",
            self._on_message,
            self._confirmed.clear,
            self._restored,
        )

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
        if self._on_remote is not None:
            self._on_remote(room_id, version)
        self.deliver(room_id, version, data[VERSION_PREFIX.size :])


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
