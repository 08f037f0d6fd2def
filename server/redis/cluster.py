"""What differs on a Redis Cluster: the client, slots, and waiting for replicas.

A deployment on Redis Cluster (``REDIS_URL`` naming a node of one, or ``REDIS_CLUSTER=1``)
uses redis-py's asyncio cluster client, which routes each command to the master of its key's
slot and follows the cluster through a failover.  Every script and transaction keeps its keys
on one slot: a room's keys share the tag ``{<room id>}``, the lobby's ``{lobby}``, and the
few steps that join a room to a global key are split (see deploy/README.md).

:func:`slot_tag` names, for any slot, a short hash tag that lands on it, so that a room's
script can write a key of the lobby's outbox on the room's own slot.

:class:`Durability` says what a commit waits for before it is acknowledged: with
``replicas`` at 0, nothing more than the master's reply (fsynced first under ``appendfsync
always``); with ``replicas`` at N, ``WAITAOF 1 N`` on the connection that committed (the
master's append-only file fsynced and N replicas' too), or ``WAIT N`` on a Redis without
WAITAOF (before 7.2: N replicas received it).  A commit that is not confirmed in
``timeout`` seconds is reported unavailable: the client sends it again, and the resend finds
it committed and waits again.  No decisions; imports redis only.
"""

from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

SLOTS = 16384


class NotDurableError(RedisConnectionError):
    """A commit was written but not confirmed on as many replicas as asked, in time: it is
    not acknowledged (a resend finds it and waits again)."""


@dataclass(frozen=True, slots=True)
class Durability:
    """How many replicas must hold a commit before it is acknowledged, and how long to wait
    for them (seconds)."""

    replicas: int = 0
    timeout: float = 1.0
    waitaof: bool = True
    """Whether the Redis has WAITAOF (7.2 and later); else the weaker WAIT is used."""

    def __post_init__(self) -> None:
        if self.replicas < 0:
            raise ValueError(f"replicas must be 0 or more, not {self.replicas}")
        if self.timeout <= 0:
            raise ValueError(f"the replica timeout must be positive, not {self.timeout}")


def is_cluster(client: object) -> bool:
    """Whether ``client`` is a cluster client."""
    return isinstance(client, RedisCluster)


async def cluster_enabled(url: str) -> bool:
    """Whether the Redis at ``url`` is a node of a cluster (``INFO cluster``)."""
    client = aioredis.Redis.from_url(url)
    try:
        info = await client.info("cluster")
    finally:
        await client.aclose()
    return bool(int(info.get("cluster_enabled", 0)))


def cluster_client(url: str, pool_size: int) -> aioredis.Redis:
    """A cluster client starting from the node at ``url``.  Typed as the single-node client:
    it answers the same commands, and the adapters that must tell them apart ask
    :func:`is_cluster`."""
    client: Any = RedisCluster.from_url(url, max_connections=pool_size)
    return client  # type: ignore[no-any-return]


def key_slot(key: str) -> int:
    """The slot of ``key`` (its hash tag's, when it has one)."""
    data = key.encode()
    start = data.find(b"{")
    if start > -1:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    return crc_hqx(data, 0) % SLOTS


def slot_tag(slot: int) -> str:
    """A short text whose hash tag lands on ``slot``."""
    if not _TAGS:
        number = 0
        while len(_TAGS) < SLOTS:
            _TAGS.setdefault(crc_hqx(b"%d" % number, 0) % SLOTS, str(number))
            number += 1
    return _TAGS[slot]


_TAGS: dict[int, str] = {}


def wait_for_replicas(pipe: Any, durability: Durability, node: object = None) -> None:
    """Queue, on ``pipe`` after the commit it holds, the wait that ``durability`` asks for
    (on ``node``, the commit's master, for a cluster pipeline)."""
    if durability.replicas == 0:
        return
    milliseconds = max(1, round(durability.timeout * 1000))
    target = {} if node is None else {"target_nodes": node}
    if durability.waitaof:
        pipe.execute_command("WAITAOF", 1, durability.replicas, milliseconds, **target)
    else:
        pipe.execute_command("WAIT", durability.replicas, milliseconds, **target)


def check_replicas(reply: Any, durability: Durability) -> None:
    """Raises NotDurableError unless the wait's ``reply`` shows the commit where
    ``durability`` asks."""
    if durability.replicas == 0:
        return
    if isinstance(reply, Exception):
        raise NotDurableError(f"waiting for the replicas failed: {reply}") from reply
    if isinstance(reply, list):  # WAITAOF: [local fsyncs, replica fsyncs]
        local, replicas = int(reply[0]), int(reply[1])
    else:  # WAIT: replicas that received it
        local, replicas = 1, int(reply)
    if local < 1 or replicas < durability.replicas:
        raise NotDurableError(
            f"the commit reached {replicas} of {durability.replicas} replicas"
            + ("" if local else " and was not fsynced")
            + f" in {durability.timeout} s"
        )


async def has_waitaof(client: aioredis.Redis) -> bool:
    """Whether the Redis behind ``client`` knows WAITAOF (Redis 7.2 and later; Valkey says
    it is 7.2-compatible)."""
    info: Any = await client.info("server")
    if is_cluster(client):  # one answer per node: every node must have it
        infos = list(info.values()) if all(isinstance(v, dict) for v in info.values()) else [info]
    else:
        infos = [info]
    return all(_version(i.get("redis_version", "0")) >= (7, 2) for i in infos)


def _version(text: object) -> tuple[int, ...]:
    return tuple(int(part) for part in str(text).split(".") if part.isdigit())
