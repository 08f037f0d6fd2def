"""What differs on a Redis Cluster: the client, slots, and waiting for replicas.

A deployment on Redis Cluster (``REDIS_URL`` naming a node of one, or ``REDIS_CLUSTER=1``)
uses redis-py's asyncio cluster client, which routes each command to the master of its key's
slot and follows the cluster through a failover.  Every script and transaction keeps its keys
on one slot: a room's keys share the tag ``{<room id>}``, the lobby's ``{lobby}``, and the
few steps that join a room to a global key are split (see deploy/README.md).

:func:`slot_tag` names, for any slot, a short hash tag that lands on it, so that a room's
script can write a key of the lobby's outbox on the room's own slot.

:class:`Durability` says what a commit waits for before it is acknowledged (on the connection
that committed: a wait covers that connection's writes):

* ``replicas`` 0: the master's reply, which under ``appendfsync always`` comes after its
  fsync.  A failover may lose what the replica had not received yet.
* ``replicas`` N, ``received`` (the default): ``WAITAOF 1 0`` (the master's append-only file
  fsynced, whatever its ``appendfsync``) and ``WAIT N`` (N replicas received it).  A failover
  loses nothing acknowledged unless the master and those replicas all crash at once.
* ``replicas`` N, ``fsynced``: ``WAITAOF 1 N``, the master's and N replicas' files fsynced:
  nothing acknowledged is lost even if every node loses power.  Replicas report their fsyncs
  about once a second, so a move then takes up to a second.

A Redis without WAITAOF (before 7.2) gets ``WAIT N`` alone.  A commit that is not confirmed
in ``timeout`` seconds is reported unavailable: the client sends it again, and the resend
finds it committed and waits again.  No decisions; imports redis and the pub/sub that follows
a cluster (:mod:`server.redis.sharded_pubsub`).
"""

from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from server.redis.sharded_pubsub import FollowingPubSub

SLOTS = 16384


class NotDurableError(RedisConnectionError):
    """A commit was written but not confirmed on as many replicas as asked, in time: it is
    not acknowledged (a resend finds it and waits again)."""


REPLICA_WAITS = ("received", "fsynced")


@dataclass(frozen=True, slots=True)
class Durability:
    """How many replicas must hold a commit before it is acknowledged, how (``received`` or
    ``fsynced``), and how long to wait for them (seconds)."""

    replicas: int = 0
    timeout: float = 1.0
    replica_wait: str = "received"
    waitaof: bool = True
    """Whether the Redis has WAITAOF (7.2 and later)."""

    def __post_init__(self) -> None:
        if self.replicas < 0:
            raise ValueError(f"replicas must be 0 or more, not {self.replicas}")
        if self.timeout <= 0:
            raise ValueError(f"the replica timeout must be positive, not {self.timeout}")
        if self.replica_wait not in REPLICA_WAITS:
            raise ValueError(f"the replica wait is received or fsynced, not {self.replica_wait!r}")


def is_cluster(client: object) -> bool:
    """Whether ``client`` is a cluster client."""
    # Asked on every move: RedisCluster's metaclass is typing's Protocol one, whose
    # isinstance costs a microsecond; a client's type answers once.
    kind = type(client)
    known = _CLUSTER_TYPES.get(kind)
    if known is None:
        known = _CLUSTER_TYPES[kind] = issubclass(kind, RedisCluster)
    return known


_CLUSTER_TYPES: dict[type, bool] = {}


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
    client: Any = _FailoverSafeCluster.from_url(url, max_connections=pool_size)
    return client  # type: ignore[no-any-return]


class _FailoverSafeCluster(RedisCluster):
    """redis-py's cluster client, with one flaw of its failover handling reported as what it
    is.  When a node fails, the client disconnects all of that node's connections, those in
    use included; a command then connecting on one of them finds its writer gone and raises
    AttributeError.  That is a lost connection (the command was not sent), and the callers
    handle lost connections (the client resends), so it is raised as one."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().execute_command(*args, **kwargs)
        except AttributeError as error:
            raise RedisConnectionError(f"connection closed under a command: {error}") from error

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        """Close the connections to every node: what the single-node client's
        ``aclose(close_connection_pool=True)`` does, which a server calls as it stops."""
        await super().aclose()

    def pubsub(self, *args: Any, **kwargs: Any) -> Any:
        """Classic pub/sub that follows the cluster through a failover (the feeds' channels;
        the rooms' are sharded, :class:`~server.redis.sharded_pubsub.ShardedSubscriptions`)."""
        if args or kwargs:
            return super().pubsub(*args, **kwargs)
        return FollowingPubSub(self)

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)
        return _FailoverSafePipeline(self, transaction)  # type: ignore[abstract]


class _FailoverSafePipeline(ClusterPipeline):
    async def execute(self, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            return await super().execute(*args, **kwargs)
        except AttributeError as error:
            raise RedisConnectionError(f"connection closed under a pipeline: {error}") from error


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


def wait_for_replicas(pipe: Any, durability: Durability, node: object = None) -> int:
    """Queue, on ``pipe`` after the commit it holds, the waits that ``durability`` asks for
    (on ``node``, the commit's master, for a cluster pipeline); returns how many."""
    if durability.replicas == 0:
        return 0
    milliseconds = max(1, round(durability.timeout * 1000))
    target = {} if node is None else {"target_nodes": node}
    fsynced = durability.replica_wait == "fsynced"
    if durability.waitaof:
        on_replicas = durability.replicas if fsynced else 0
        pipe.execute_command("WAITAOF", 1, on_replicas, milliseconds, **target)
    if not (durability.waitaof and fsynced):
        pipe.execute_command("WAIT", durability.replicas, milliseconds, **target)
        return 1 + durability.waitaof
    return 1


def check_replicas(replies: list[Any], durability: Durability) -> None:
    """Raises NotDurableError unless the waits' ``replies`` show the commit where
    ``durability`` asks."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise NotDurableError(f"waiting for the replicas failed: {reply}") from reply
        if isinstance(reply, list):  # WAITAOF: [local fsyncs, replica fsyncs]
            local, replicas = int(reply[0]), int(reply[1])
            wanted = durability.replicas if durability.replica_wait == "fsynced" else 0
        else:  # WAIT: replicas that received it
            local, replicas, wanted = 1, int(reply), durability.replicas
        if local < 1 or replicas < wanted:
            raise NotDurableError(
                f"the commit reached {replicas} of {wanted} replicas"
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
