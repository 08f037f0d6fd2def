"""What the lobby's stores share: the event channel, JSON text, optimistic transactions, the
Lua scripts' loader and the keys that two stores write.

Keys:

=====================================  ======  ===============================================
``{lobby}:playing:{player_id}``        set     room ids of a player's live games (written by
                                               the games store, counted by creations)
``{lobby}:history:{player_id}``        list    room ids of a player's finished games, newest
                                               first (written by the games store; an account
                                               with one cannot become a bot)
``{lobby}:finished:{room_id}``         string  FinishedGame JSON (with the record)
=====================================  ======  ===============================================

Events are JSON objects published on the ``lobby`` channel after each commit, with ``t``:
``challenge`` (``challenge``: its data; ``status`` says what happened), ``presence``
(``player``: id, ``presence``: data or None once offline), ``live`` (``game``: LiveGame data,
new or changed), ``finished`` (``game``: FinishedGame data without its record).  The live
lines written together go out as one publication: a JSON array of their events.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from importlib.resources import files
from typing import Any, TypeVar, cast

import redis
import redis.asyncio as aioredis
import redis.cluster
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import WatchError

from lobby.identity import PlayerId

LOBBY_TAG = "{lobby}"
"""The hash tag of every key of the lobby's stores (one slot on a Redis Cluster)."""

CHANNEL = "lobby"
"""The pub/sub channel of lobby events (live lists of challenges, presence and games)."""

MAX_RETRIES = 50
"""Optimistic transactions retried this often under contention before giving up."""

Redis = aioredis.Redis
T = TypeVar("T")


def lua(name: str, package: str = "lobby.store") -> str:
    """The text of the script ``lua/<name>.lua`` of ``package`` (installed as package data,
    as every Lua script of the lobby's and the server's stores is); raises FileNotFoundError."""
    return (files(package) / "lua" / f"{name}.lua").read_text(encoding="utf-8")


def decode_events(raw: bytes | str) -> list[dict[str, Any]]:
    """The lobby events of one publication on :data:`CHANNEL` (one, or an array of them)."""
    data = load(raw)
    events = data if isinstance(data, list) else [data]
    if not all(isinstance(event, dict) and "t" in event for event in events):
        raise ValueError("not a lobby event")
    return events


async def publish(redis: Redis, event: dict[str, Any]) -> None:
    """Announce one event on :data:`CHANNEL`."""
    await redis.publish(CHANNEL, dump(event))


async def publish_all(redis: Redis, events: list[dict[str, Any]]) -> None:
    """Announce several events as one publication (a JSON array)."""
    await redis.publish(CHANNEL, dump(events))


async def publish_dumped(redis: Redis, events: list[str]) -> None:
    """:func:`publish_all` for events already made JSON by :func:`dump`."""
    await redis.publish(CHANNEL, f"[{','.join(events)}]")


async def optimistic(
    redis: Redis, attempt: Callable[[Any], Awaitable[T]], slot_key: str = LOBBY_TAG
) -> T:
    """Run ``attempt`` (WATCH, read, decide, MULTI, write) until no watched key changed; its
    keys share the slot of ``slot_key``."""
    async with transaction_client(redis, slot_key) as client:
        async with client.pipeline(transaction=True) as pipe:
            for _ in range(MAX_RETRIES):
                try:
                    return await attempt(pipe)
                except WatchError:
                    await pipe.reset()  # type: ignore[no-untyped-call]
    raise RuntimeError(f"lobby transaction still contended after {MAX_RETRIES} tries")


async def connect(url: str) -> Redis:
    """A client of the Redis at ``url``: redis-py's cluster client when it is a node of a
    Redis Cluster (for the bot and analyst processes, which take their Redis as a URL)."""
    probe = aioredis.Redis.from_url(url)
    try:
        info = await probe.info("cluster")
    finally:
        await probe.aclose()
    if int(info.get("cluster_enabled", 0)):
        cluster: Any = RedisCluster.from_url(url)
        return cast(Redis, cluster)
    return aioredis.Redis.from_url(url)


def connect_blocking(url: str) -> redis.Redis:
    """:func:`connect` for the blocking client (the analyst's)."""
    with redis.Redis.from_url(url) as probe:
        info: Any = probe.info("cluster")
    if int(info.get("cluster_enabled", 0)):
        cluster: Any = redis.cluster.RedisCluster.from_url(url)
        return cast(redis.Redis, cluster)
    return redis.Redis.from_url(url)


@contextlib.asynccontextmanager
async def transaction_client(redis: Redis, slot_key: str) -> AsyncIterator[Redis]:
    """The client a WATCH transaction on ``slot_key``'s slot runs on: ``redis`` itself, or on
    a Redis Cluster a client of the master serving that slot, for the transaction only
    (redis-py's asyncio cluster pipeline does not run the reads between WATCH and MULTI).
    Should the slot move meanwhile, Redis answers MOVED, which fails the transaction as a
    lost connection would."""
    if not isinstance(redis, RedisCluster):
        yield redis
        return
    node = redis.get_node_from_key(slot_key)
    if node is None:
        raise RedisConnectionError(f"no master serves the slot of {slot_key}")
    settings = node.connection_kwargs
    wanted = ("username", "password", "socket_timeout", "socket_connect_timeout")
    client = aioredis.Redis(
        host=node.host, port=node.port, **{k: settings[k] for k in wanted if k in settings}
    )
    try:
        yield client
    finally:
        await client.aclose()


def text(value: object) -> str:
    """A Redis reply as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def texts(values: Iterable[object]) -> list[str]:
    """Redis replies as text."""
    return [text(value) for value in values]


_COMPACT = json.JSONEncoder(separators=(",", ":"), sort_keys=True)
"""One encoder for every dump: ``json.dumps`` with options makes a new one each call, and the
lobby dumps a line for every move."""


def dump(data: object) -> str:
    """Plain data as compact JSON with sorted keys (the same value, the same text)."""
    return _COMPACT.encode(data)


def load(raw: bytes | str) -> Any:
    """Stored JSON back to plain data."""
    return json.loads(raw)


def playing_key(player_id: PlayerId) -> str:
    return f"{{lobby}}:playing:{player_id}"


def history_key(player_id: PlayerId) -> str:
    return f"{{lobby}}:history:{player_id}"


def finished_key(room_id: str) -> str:
    return f"{{lobby}}:finished:{room_id}"
