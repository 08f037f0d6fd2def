"""Sharded pub/sub on a Redis Cluster: each room's channel on the master of its slot.

A room's channel ``room:{id}`` shares the room's hash tag, so with ``SSUBSCRIBE`` and
``SPUBLISH`` (Redis 7) its messages travel only through the shard that holds the room, not
the whole cluster bus.  This process holds one subscriber connection per master that serves
a channel it watches, each with a reader task.

When a master fails, its connection is lost: the reader tells the owner (``on_lost``), asks
the cluster client for the new topology, subscribes each of that connection's channels on
the master that serves its slot now (retrying until the cluster answers), and tells the
owner again (``on_restored``) so the sockets catch up on what was published meanwhile.  A
master that gives a slot away unsubscribes its channels itself (``sunsubscribe`` with no
request): those are moved the same way.  redis-py's own cluster pub/sub reads its nodes in
turn, each under a timeout, which would hold a message on one master while it waits on
another; here every master is read at once.

The lobby's and the tournaments' channels are classic ones, which a cluster broadcasts to
every node: :class:`FollowingPubSub` reads them from one node and, when it fails, from the
master that serves the channel's slot then.  No decisions; imports redis only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

RETRY_PAUSE = 0.2
"""Seconds between two attempts to subscribe a moved channel while the cluster fails over."""


async def as_received(message: Any) -> Any:
    """The push handler of every pub/sub connection of the server: each message is handed on
    as Redis sent it.  redis-py's own handler makes a debug text of every message, the whole
    diff on a room's channel, even with debug logging off: a tenth of the CPU that a diff
    relayed from another process cost."""
    return message


@dataclass
class _Connection:
    """One master's subscriber connection, the channels subscribed there, and its reader."""

    name: str
    client: aioredis.Redis
    pubsub: PubSub
    channels: set[str] = field(default_factory=set)
    reader: asyncio.Task[None] | None = None


class ShardedSubscriptions:
    """SSUBSCRIBE per master, following the cluster's topology; messages are handed to
    ``on_message`` as plain pub/sub messages (``type`` ``subscribe`` or ``message``,
    ``channel``, ``data``)."""

    def __init__(
        self,
        cluster: Any,
        on_message: Callable[[dict[str, Any]], None],
        on_lost: Callable[[], None] | None = None,
        on_restored: Callable[[], None] | None = None,
    ) -> None:
        self._cluster = cluster
        self._on_message = on_message
        self._on_lost = on_lost
        self._on_restored = on_restored
        self._wanted: set[str] = set()
        self._connections: dict[str, _Connection] = {}
        self._moving: set[asyncio.Task[None]] = set()
        self._closed = False

    async def subscribe(self, channel: str) -> None:
        """Subscribe on the master of the channel's slot; raises what Redis raises."""
        self._wanted.add(channel)
        try:
            await self._subscribe_at_owner(channel)
        except BaseException:
            self._wanted.discard(channel)
            raise

    async def unsubscribe(self, channel: str) -> None:
        self._wanted.discard(channel)
        for connection in self._connections.values():
            if channel in connection.channels:
                connection.channels.discard(channel)
                with contextlib.suppress(RedisError, OSError):
                    await connection.pubsub.sunsubscribe(channel)

    async def aclose(self) -> None:
        self._closed = True
        tasks = [*self._moving]
        for connection in self._connections.values():
            if connection.reader is not None:
                tasks.append(connection.reader)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for connection in list(self._connections.values()):
            await _close(connection)
        self._connections.clear()

    async def _subscribe_at_owner(self, channel: str) -> None:
        node = self._cluster.get_node_from_key(channel)
        connection = self._connections.get(node.name)
        if connection is None:
            client = aioredis.Redis(host=node.host, port=node.port, **_options(self._cluster))
            connection = _Connection(
                node.name, client, client.pubsub(push_handler_func=as_received)
            )
            self._connections[node.name] = connection
        connection.channels.add(channel)
        await connection.pubsub.ssubscribe(channel)
        if connection.reader is None:
            connection.reader = asyncio.create_task(self._read(connection), name="sharded-pubsub")

    async def _read(self, connection: _Connection) -> None:
        while True:
            try:
                message = await connection.pubsub.get_message(timeout=None)
            except (RedisError, OSError) as error:
                log.warning("shard subscriber %s lost: %s", connection.name, error)
                self._move(connection, set(connection.channels))
                return
            if message is not None:
                self._hand(connection, message)

    def _hand(self, connection: _Connection, message: dict[str, Any]) -> None:
        kind = message["type"]
        name = message["channel"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        if kind == "smessage":
            self._on_message({"type": "message", "channel": name, "data": message["data"]})
        elif kind == "ssubscribe":
            self._on_message({"type": "subscribe", "channel": name, "data": message["data"]})
        elif kind == "sunsubscribe" and name in self._wanted and name in connection.channels:
            # Not asked for: the master gave the channel's slot away.
            connection.channels.discard(name)
            self._spawn(self._resubscribe({name}, None))

    def _move(self, connection: _Connection, channels: set[str]) -> None:
        self._connections.pop(connection.name, None)
        connection.reader = None
        if self._on_lost is not None:
            self._on_lost()
        self._spawn(self._resubscribe(channels, connection))

    async def _resubscribe(self, channels: set[str], lost: _Connection | None) -> None:
        if lost is not None:
            await _close(lost)
        pending = set(channels)
        while pending and not self._closed:
            with contextlib.suppress(RedisError, OSError):
                await self._cluster.nodes_manager.initialize()
            for channel in sorted(pending):
                if channel not in self._wanted:
                    pending.discard(channel)
                    continue
                try:
                    await self._subscribe_at_owner(channel)
                except (RedisError, OSError) as error:
                    log.debug("channel %s not subscribed yet: %s", channel, error)
                    continue
                pending.discard(channel)
            if pending:
                await asyncio.sleep(RETRY_PAUSE)
        if not self._closed:
            log.warning("shard subscriptions restored")
            if self._on_restored is not None:
                self._on_restored()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._moving.add(task)
        task.add_done_callback(self._moving.discard)


def _options(cluster: Any) -> dict[str, Any]:
    """The connection options the cluster client was given (password, timeouts)."""
    kwargs = cluster.get_default_node().connection_kwargs
    wanted = ("username", "password", "socket_connect_timeout", "ssl", "ssl_ca_certs")
    return {key: kwargs[key] for key in wanted if key in kwargs}


async def _close(connection: _Connection) -> None:
    with contextlib.suppress(RedisError, OSError):
        await connection.pubsub.aclose()  # type: ignore[no-untyped-call]
    with contextlib.suppress(RedisError, OSError):
        await connection.client.aclose()


class FollowingPubSub:
    """Classic pub/sub (``SUBSCRIBE``) on a cluster, for the lobby's and the tournaments'
    channels, which every process reads whole: a cluster broadcasts those messages to every
    node, so one connection to any node will do, and when that node fails the next read
    connects to the master now serving the channel's slot and subscribes again (the
    confirmations tell :func:`server.fanout.read_pubsub` that the feed is restored).  The
    part of redis-py's PubSub that the feeds use: subscribe, get_message, aclose."""

    def __init__(self, cluster: Any) -> None:
        self._cluster = cluster
        self._channels: set[str] = set()
        self._client: aioredis.Redis | None = None
        self._pubsub: PubSub | None = None

    async def subscribe(self, *channels: str) -> None:
        fresh = self._pubsub is None
        self._channels.update(channels)
        pubsub = await self._current()  # a new connection subscribes to them all
        if fresh:
            return
        try:
            await pubsub.subscribe(*channels)
        except (RedisError, OSError):
            await self._discard()
            raise

    async def get_message(
        self, ignore_subscribe_messages: bool = False, timeout: float | None = 0.0
    ) -> dict[str, Any] | None:
        """The next message; raises what a lost connection raises (the next call connects
        again, to the slot's master as the cluster now has it)."""
        pubsub = await self._current()
        try:
            message: dict[str, Any] | None = await pubsub.get_message(
                ignore_subscribe_messages=ignore_subscribe_messages, timeout=timeout
            )
        except (RedisError, OSError):
            await self._discard()
            raise
        return message

    async def aclose(self) -> None:
        await self._discard()

    async def _current(self) -> PubSub:
        if self._pubsub is not None:
            return self._pubsub
        with contextlib.suppress(RedisError, OSError):
            await self._cluster.nodes_manager.initialize()
        channel = min(self._channels) if self._channels else "lobby"
        node = self._cluster.get_node_from_key(channel)
        client = aioredis.Redis(host=node.host, port=node.port, **_options(self._cluster))
        pubsub = client.pubsub(push_handler_func=as_received)
        self._client, self._pubsub = client, pubsub
        if self._channels:
            try:
                await pubsub.subscribe(*sorted(self._channels))
            except (RedisError, OSError):
                await self._discard()
                raise
        return pubsub

    async def _discard(self) -> None:
        pubsub, client = self._pubsub, self._client
        self._pubsub = self._client = None
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
        if client is not None:
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()
