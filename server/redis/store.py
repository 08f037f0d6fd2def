"""Rooms in Redis: create, load, commit-if-version, recent diffs, idempotency records.

Every key of a room shares the hash tag ``{<room id>}`` so one Lua script touches them all,
ready for Redis Cluster:

* ``room:{id}:room``      hash: ``version``; ``doc``, the msgpack of :func:`rooms.room_doc` at
                          version ``doc_version`` (rewritten every few versions, not every move)
* ``room:{id}:diffs``     list: the last diff frames, the newest at the end; the document at
                          ``version`` is ``doc`` with the diffs after ``doc_version`` applied
* ``room:{id}:acks``      hash: ``<version>:<player>:<request id>`` -> version committed
* ``room:{id}:watchers``  hash: server process id -> spectators watching through it
* channel ``room:{id}``   diff frames, each behind its 8-byte version

The commit script checks the version, writes, trims and publishes in one step (publishing
only when a process other than the committing one is subscribed).  A process that subscribes
reads the room after subscribing, so it misses nothing: a commit either sees its
subscription or happens before its read.  A commit that changes what the lobby lists, and
every room's creation, also leaves the room's mark in the lobby's outbox
(:mod:`server.outbox`) in that same step, so no committed change can miss the lobby (on
Redis Cluster, the outbox of the room's own slot).  Nothing the
script publishes leaves Redis before the write is in the append-only file: with
``appendfsync always`` Redis fsyncs before it writes any reply or pushed message back out.
No decisions here; the Redis client is always an argument.  Imports redis, msgpack, rooms,
diff, listing, outbox and the batcher.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection as TcpConnection
from redis.asyncio.connection import UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from lobby.store.common import lua
from protocol.diff import apply_copy, diff
from protocol.messages import VERSION_PREFIX
from server import listing, outbox
from server.redis.batcher import Batcher, Script, read_packed, run_script
from server.redis.cluster import (
    Durability,
    check_replicas,
    cluster_client,
    is_cluster,
    wait_for_replicas,
)
from server.rooms import DEFAULT_IDLE_LIMITS, IdleLimits, Room, RoomId, room_doc, room_from_doc

DIFF_HISTORY = 100
"""Diffs kept per room to answer small gaps; older gaps get a snapshot."""
NO_REPLICAS = Durability()
"""Commits acknowledged once the master replied (fsynced first under appendfsync always)."""
SNAPSHOT_EVERY = 32
"""A commit rewrites the whole document once this many diffs were kept since the last one;
the others send only their diff, which is usually a small part of the document."""


log = logging.getLogger(__name__)


def redis_client(url: str, pool_size: int, cluster: bool = False) -> aioredis.Redis:
    """A client whose pool waits for a free connection instead of raising under load, and
    whose connections report a write to a closed transport as a lost connection; with
    ``cluster``, the cluster client (see :mod:`server.redis.cluster`)."""
    if cluster:
        return cluster_client(url, pool_size)
    unix = url.startswith("unix:")
    connection_class = _UnixConnection if unix else _TcpConnection
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=pool_size, timeout=10, connection_class=connection_class
    )
    if unix:  # the URL's own connection class wins over the argument: put ours back
        pool.connection_class = _UnixConnection
    return aioredis.Redis(connection_pool=pool)


class _ClosedWrites:
    """A connection that a reset closed while it sat idle counts as not connected, so the
    pool and the batcher connect again before using it, instead of writing into it.

    redis-py's check on checkout looks for buffered data or an end of file, and a reset
    leaves neither (the stream holds the error instead).  A write there fails: under uvloop
    with RuntimeError ("the handler is closed"), which redis-py passes on as it is; every
    caller here handles a lost connection (the client resends, the batcher sends again), so
    that is reported as one: nothing was written, and nothing else may be read as its reply.
    A write on a connected socket goes out without redis-py's task per write (see
    ``_writes_at_once``).
    """

    _reader: Any
    _writer: Any

    @property
    def is_connected(self) -> bool:
        writer = self._writer
        return self._reader is not None and writer is not None and not writer.is_closing()

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        try:
            if self._writes_at_once(check_health):
                await self._write(command)
            else:
                await super().send_packed_command(command, check_health)  # type: ignore[misc]
        except RuntimeError as error:
            raise RedisConnectionError(f"writing to a closed connection: {error}") from error

    socket_timeout: float | None
    health_check_interval: float

    def _writes_at_once(self, check_health: bool) -> bool:
        # redis-py times each write with asyncio.wait_for, a task of its own per command:
        # most of a small command's cost.  A connected socket takes the bytes at once (the
        # transport buffers them), so only a full buffer's drain needs the timeout.
        return (
            bool(self.socket_timeout)
            and self.is_connected
            and not (check_health and self.health_check_interval)
        )

    async def _write(self, command: Any) -> None:
        """redis-py's write, timed by a timeout scope around the drain, and only when the
        transport holds bytes back (a drain of an empty buffer returns at once)."""
        if isinstance(command, str):
            command = command.encode()
        writer = self._writer
        try:
            if isinstance(command, bytes):
                writer.write(command)
            else:
                writer.writelines(command)
            if writer.transport.get_write_buffer_size():
                async with asyncio.timeout(self.socket_timeout):
                    await writer.drain()
            else:
                await writer.drain()  # raises if the connection was lost
        except TimeoutError:
            # Dropped with what it holds: a close would still send the rest, and Redis would
            # run a command reported as failed.
            writer.transport.abort()
            await self.disconnect(nowait=True)  # type: ignore[attr-defined]
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)  # type: ignore[attr-defined]
            raise RedisConnectionError(f"Error while writing to socket: {error}") from error
        except BaseException:
            # A write cut short leaves no way to know what went out: never use it again.
            await self.disconnect(nowait=True)  # type: ignore[attr-defined]
            raise


class _TcpConnection(_ClosedWrites, TcpConnection):
    pass


class _UnixConnection(_ClosedWrites, UnixDomainSocketConnection):
    pass


def room_key(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}:room"


def diffs_key(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}:diffs"


def acks_key(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}:acks"


def watchers_key(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}:watchers"


def channel(room_id: RoomId) -> str:
    return f"room:{{{room_id}}}"


def room_of_channel(name: str) -> RoomId:
    return name[len("room:{") : -1]


@dataclass(frozen=True, slots=True)
class Deadline:
    """A room's entry in the sorted set ``key`` as a commit leaves it: ``due`` as its score,
    or removed when None."""

    key: str
    due: float | None


@dataclass(frozen=True, slots=True)
class Loaded:
    """A room, the plain document it was read from (what the next diff starts from), and the
    version of the last whole document stored in Redis."""

    room: Room
    doc: dict[str, Any]
    doc_version: int
    described: bool = True
    """The document's game data is what these rules write for the room's position, so that
    the rules may say what a move changes in it (``rooms.room_changes``); False for a
    document another release stored, until a commit has brought it up to date."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    """``applied``; or ``duplicate`` (this request was committed before, as ``version``);
    or neither: the room had moved on to ``version`` and nothing was written."""

    applied: bool
    duplicate: bool
    version: int


def pack(doc: Any) -> bytes:
    packed: bytes = msgpack.packb(doc, use_bin_type=True)
    return packed


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


async def create_room(
    client: aioredis.Redis, room: Room, limits: IdleLimits = DEFAULT_IDLE_LIMITS
) -> Room:
    """Store ``room`` unless a room with its id exists, marked for the lobby to list (with
    the idle ``limits``); returns the stored one (idempotent)."""
    doc = pack(room_doc(room))
    key = room_key(room.id)
    created = await run_script(
        client,
        _CREATE,
        [key, outbox.outbox_key(client, key)],
        [str(room.version), doc, room.id, listing.mark(room, limits)],
    )
    if created:
        await outbox.list_slot(client, key)
        return room
    loaded = await load_room(client, room.id)
    assert loaded is not None
    return loaded.room


async def load_room(client: aioredis.Redis, room_id: RoomId) -> Loaded | None:
    """The room as stored, or None if there is no such room."""
    doc_version, doc = await _load(client, room_id)
    if doc is None:
        return None
    room = room_from_doc(doc)
    return Loaded(room, doc, doc_version, not diff(doc["data"], room.rules.to_data(room.state)))


async def load_doc(client: aioredis.Redis, room_id: RoomId) -> dict[str, Any] | None:
    """The room's current plain document (for snapshots), or None."""
    return (await _load(client, room_id))[1]


async def _load(client: aioredis.Redis, room_id: RoomId) -> tuple[int, dict[str, Any] | None]:
    stored, frames = await run_script(client, _READ, [room_key(room_id), diffs_key(room_id)], ["1"])
    version, data, doc_version = stored
    if data is None:
        return -1, None
    doc = unpack(data)
    base = int(doc_version or 0)
    missing = int(version) - base
    if missing > len(frames):
        raise ValueError(f"room {room_id}: diff history does not reach the document")
    for frame in frames[len(frames) - missing :] if missing else []:
        body = unpack(frame)
        if body["version"] != doc["version"] + 1:
            raise ValueError(f"room {room_id}: diff history does not follow the document")
        # Both were just read: the operations' values are taken as they are, not copied.
        doc = apply_copy(doc, body["ops"])
    if doc["version"] != int(version):
        raise ValueError(f"room {room_id}: stored version {version} but document {doc['version']}")
    return base, doc


async def commit(
    client: aioredis.Redis,
    room_id: RoomId,
    expected_version: int,
    new_version: int,
    doc: bytes | None,
    diff_frame: bytes,
    ack_field: str = "",
    history: int = DIFF_HISTORY,
    subscribed: bool = False,
    batcher: Batcher | None = None,
    then: Callable[[CommitResult], None] | None = None,
    mark: bytes = b"",
    durability: Durability = NO_REPLICAS,
    deadline: Deadline | None = None,
) -> CommitResult:
    """Keep the diff (and the whole new document, when given), record the ack, leave
    ``mark`` in the lobby's outbox (when given) and publish, all only if the room is still at
    ``expected_version`` and ``ack_field`` never committed.  ``then`` gets the result first:
    with a batcher, as soon as Redis's reply is read, before the caller's task gets its turn
    to resume.  ``deadline``, on one Redis, sets the room's entry in a sorted set of
    deadlines in the same script (the clocks' flag times), so that no step of its own follows
    the commit; on a cluster the entry is on another slot, and the caller keeps it.

    On a cluster, or when ``durability`` asks for replicas, the commit and the wait for the
    replicas go on one connection (a wait covers that connection's writes), then the result
    is told, and only then published (``SPUBLISH`` on a cluster): no other process sees a
    change that a failover could still lose.  Raises NotDurableError when the replicas did
    not confirm in time (the commit may stand: a resend finds it)."""
    key = room_key(room_id)
    keys = [key, diffs_key(room_id), acks_key(room_id), outbox.outbox_key(client, key)]
    args: list[Any] = [
        str(expected_version),
        str(new_version),
        b"" if doc is None else doc,
        diff_frame,
        ack_field,
        str(history),
        channel(room_id),
        "1" if subscribed else "0",
        mark,
        room_id,
        "",
    ]
    if deadline is not None:
        if is_cluster(client):
            raise ValueError("a cluster keeps deadlines on slots of their own, not in a commit")
        keys.append(deadline.key)
        args[10] = "-" if deadline.due is None else repr(deadline.due)
    if is_cluster(client) or durability.replicas:
        args[6] = ""  # the script does not publish: this does, once the commit is durable
        reply = await _commit_waiting(client, keys, [*args, b""], durability)
        waited = _told(then, reply)
        if waited.applied:
            await _publish(client, room_id, new_version, diff_frame)
            if mark:
                await outbox.list_slot(client, key)
        return waited
    if batcher is not None:
        # Read as a CommitResult, and told, by _told; the batcher adds the tag.
        result: CommitResult = await batcher.run(_COMMIT, keys, args, partial(_told, then))
        return result
    return _told(then, await run_script(client, _COMMIT, keys, [*args, b""]))


async def _commit_waiting(
    client: aioredis.Redis, keys: list[str], args: list[Any], durability: Durability
) -> list[Any]:
    """The commit script's reply, once the wait ``durability`` asks for confirmed it (for a
    commit applied or found done before); raises NotDurableError or what Redis raised."""
    node = client.get_node_from_key(keys[0]) if is_cluster(client) else None  # type: ignore[attr-defined]
    async with client.pipeline(transaction=False) as pipe:
        # EVAL, not EVALSHA: a master that just took over may not hold the script yet.
        pipe.eval(_COMMIT.source, len(keys), *keys, *args)
        waits = wait_for_replicas(pipe, durability, node)
        replies = await pipe.execute(raise_on_error=False)
    reply = replies[0]
    if isinstance(reply, Exception):
        raise reply
    if int(reply[0]) in (1, 2):
        check_replicas(replies[1 : 1 + waits], durability)
    return list(reply)


async def _publish(client: aioredis.Redis, room_id: RoomId, version: int, frame: bytes) -> None:
    """Publish a durable commit's diff to the other processes (on a cluster on the room's
    shard only); a failure is logged: their version checks find the diff all the same."""
    message = VERSION_PREFIX.pack(version) + frame
    try:
        if is_cluster(client):
            await client.spublish(channel(room_id), message)
        else:
            await client.publish(channel(room_id), message)
    except Exception:
        log.warning("the diff of room %s version %d was not published", room_id, version)


def _told(then: Callable[[CommitResult], None] | None, reply: list[Any]) -> CommitResult:
    """The commit script's reply as a CommitResult, told to ``then`` first (a failure there
    is logged: the commit stands all the same)."""
    status, version = int(reply[0]), int(reply[1])
    result = CommitResult(applied=status == 1, duplicate=status == 2, version=version)
    if then is not None:
        try:
            then(result)
        except Exception:
            log.exception("handling the commit of version %d failed", version)
    return result


async def current_version(client: aioredis.Redis, room_id: RoomId) -> int | None:
    """The room's version, or None if there is no such room."""
    value = await client.hget(room_key(room_id), "version")
    return None if value is None else int(value)


async def current_versions(client: aioredis.Redis, room_ids: list[RoomId]) -> list[int | None]:
    """The versions of many rooms at once (None for a room that does not exist).

    Every process reads the versions of all the rooms it serves twice a second (see
    :mod:`server.fanout`): on one Redis the commands are packed by hiredis and their replies
    read under one timeout (:func:`~server.redis.batcher.read_packed`, a sixth of the CPU of
    a redis-py pipeline); on a cluster a cluster pipeline sends each to its slot's master.
    """
    if is_cluster(client):
        async with client.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                pipe.hget(room_key(room_id), "version")
            values = await pipe.execute()
    else:
        values = await read_packed(client, [_version_of(room_id) for room_id in room_ids])
    return [None if value is None else int(value) for value in values]


def _version_of(room_id: RoomId) -> tuple[Any, ...]:
    return (b"HGET", room_key(room_id), b"version")


async def find_ack(client: aioredis.Redis, room_id: RoomId, ack_field: str) -> int | None:
    """The version a request with this ack field committed, or None if it never did."""
    value = await client.hget(acks_key(room_id), ack_field)
    return None if value is None else int(value)


async def diffs_since(
    client: aioredis.Redis, room_id: RoomId, version: int
) -> tuple[int, list[bytes] | None]:
    """The room's version and the diff frames after ``version``, or None when the kept history
    does not reach back that far (or ``version`` is in the future): send a snapshot."""
    (current_raw,), frames = await run_script(
        client, _READ, [room_key(room_id), diffs_key(room_id)], ["0"]
    )
    if current_raw is None:
        return -1, None
    current = int(current_raw)
    missing = current - version
    if missing < 0 or missing > len(frames):
        return current, None
    return current, frames[len(frames) - missing :] if missing else []


async def change_watchers(
    client: aioredis.Redis, room_id: RoomId, process_id: str, delta: int
) -> int:
    """Add ``delta`` to this process's spectators of a room; returns the total over processes."""
    return int(
        await run_script(client, _WATCHERS, [watchers_key(room_id)], [process_id, str(delta)])
    )


_CREATE = Script(lua("create_room", "server.redis"))

_COMMIT = Script(lua("commit", "server.redis"))

_READ = Script(lua("read_room", "server.redis"))

_WATCHERS = Script(lua("change_watchers", "server.redis"))
