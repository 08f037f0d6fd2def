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
(:mod:`server.outbox`) in that same step, so no committed change can miss the lobby (the
outbox is not a room key: on Redis Cluster the two would have to share a slot).  Nothing the
script publishes leaves Redis before the write is in the append-only file: with
``appendfsync always`` Redis fsyncs before it writes any reply or pushed message back out.
No decisions here; the Redis client is always an argument.  Imports redis, msgpack, rooms,
diff, listing and outbox.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import Any

import hiredis
import msgpack
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection as TcpConnection
from redis.asyncio.connection import UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol.diff import apply
from server import listing
from server.outbox import OUTBOX_KEY
from server.redis import lua
from server.rooms import DEFAULT_IDLE_LIMITS, IdleLimits, Room, RoomId, room_doc, room_from_doc

DIFF_HISTORY = 100
"""Diffs kept per room to answer small gaps; older gaps get a snapshot."""
SNAPSHOT_EVERY = 32
"""A commit rewrites the whole document once this many diffs were kept since the last one;
the others send only their diff, which is usually a small part of the document."""


log = logging.getLogger(__name__)


def redis_client(url: str, pool_size: int) -> aioredis.Redis:
    """A client whose pool waits for a free connection instead of raising under load, and
    whose connections report a write to a closed transport as a lost connection."""
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
    """

    _reader: Any
    _writer: Any

    @property
    def is_connected(self) -> bool:
        writer = self._writer
        return self._reader is not None and writer is not None and not writer.is_closing()

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        try:
            await super().send_packed_command(command, check_health)  # type: ignore[misc]
        except RuntimeError as error:
            raise RedisConnectionError(f"writing to a closed connection: {error}") from error


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
class Loaded:
    """A room, the plain document it was read from (what the next diff starts from), and the
    version of the last whole document stored in Redis."""

    room: Room
    doc: dict[str, Any]
    doc_version: int


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
    created = await _run(
        client,
        _CREATE,
        [room_key(room.id), OUTBOX_KEY],
        [str(room.version), doc, room.id, listing.mark(room, limits)],
    )
    if created:
        return room
    loaded = await load_room(client, room.id)
    assert loaded is not None
    return loaded.room


async def load_room(client: aioredis.Redis, room_id: RoomId) -> Loaded | None:
    """The room as stored, or None if there is no such room."""
    doc_version, doc = await _load(client, room_id)
    if doc is None:
        return None
    return Loaded(room_from_doc(doc), doc, doc_version)


async def load_doc(client: aioredis.Redis, room_id: RoomId) -> dict[str, Any] | None:
    """The room's current plain document (for snapshots), or None."""
    return (await _load(client, room_id))[1]


async def _load(client: aioredis.Redis, room_id: RoomId) -> tuple[int, dict[str, Any] | None]:
    async with client.pipeline(transaction=True) as pipe:
        pipe.hmget(room_key(room_id), "version", "doc", "doc_version")
        pipe.lrange(diffs_key(room_id), 0, -1)
        (version, data, doc_version), frames = await pipe.execute()
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
        doc = apply(doc, body["ops"])
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
) -> CommitResult:
    """Keep the diff (and the whole new document, when given), record the ack, leave
    ``mark`` in the lobby's outbox (when given) and publish, all only if the room is still at
    ``expected_version`` and ``ack_field`` never committed.  ``then`` gets the result first:
    with a batcher, as soon as Redis's reply is read, before the caller's task gets its turn
    to resume."""
    keys = [room_key(room_id), diffs_key(room_id), acks_key(room_id), OUTBOX_KEY]
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
    ]
    if batcher is not None:
        # Read as a CommitResult, and told, by _told; the batcher adds the tag.
        result: CommitResult = await batcher.run(_COMMIT, keys, args, partial(_told, then))
        return result
    return _told(then, await _run(client, _COMMIT, keys, [*args, b""]))


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
    :mod:`server.fanout`), so the commands are packed by hiredis and their replies read under
    one timeout, for a sixth of the CPU of a redis-py pipeline.  A failure drops the
    connection, so that no reply is left for its next user.
    """
    pool = client.connection_pool
    connection: Any = await pool.get_connection()  # type: ignore[no-untyped-call]
    try:
        async with asyncio.timeout(connection.socket_timeout or READ_TIMEOUT):
            packed = [hiredis.pack_command(_version_of(room_id)) for room_id in room_ids]
            await connection.send_packed_command(b"".join(packed), check_health=False)
            values = [await connection.read_response(timeout=math.inf) for _ in room_ids]
    except BaseException:
        await connection.disconnect(nowait=True)
        raise
    finally:
        await pool.release(connection)
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
    async with client.pipeline(transaction=True) as pipe:
        pipe.hget(room_key(room_id), "version")
        pipe.lrange(diffs_key(room_id), 0, -1)
        current_raw, frames = await pipe.execute()
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
    return int(await _run(client, _WATCHERS, [watchers_key(room_id)], [process_id, str(delta)]))


class Batcher:
    """Sends the scripts issued during one event-loop turn as one write on a connection of
    its own, and reads their replies in order as they come.  Each script stays atomic.

    Under load each turn of the event loop runs a long queue of ready steps (every socket's
    moves), and whenever a commit waits for a step of its own it waits for that whole queue,
    several milliseconds.  So a commit waits for as few steps as can be: the batch's write,
    then the reader's, which answers each reply as it is read and runs the commit's ``then``
    right there, so that the move's frames go out before its task resumes.
    The connection is held, not checked out per batch: a checkout reads the socket to check
    its health, and a write under the pool's socket timeout runs as a task of its own
    (``asyncio.wait_for``); each of those was one more wait for the loop.  The replies of a
    batch are read under one timeout instead, the pool's socket timeout: a timer per reply
    costs several times the CPU.  hiredis packs the commands, for a fraction of what a
    redis-py pipeline costs.
    A lost connection is retried as the client retries its own commands: the commands not
    answered yet are sent again in order on a new connection (a retried commit that did commit
    finds its version taken, and the service then finds its acknowledgement).
    """

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        pool = client.connection_pool
        self.timeout: float = pool.connection_kwargs.get("socket_timeout") or READ_TIMEOUT
        self._pending: list[_Call] = []
        self._in_flight: deque[deque[_Call]] = deque()
        """Batches written, oldest first, each holding its calls not answered yet."""
        self._connection: Any = None
        self._pool_timeout: float | None = None
        self._ready: asyncio.Task[None] | None = None
        """Checking out the connection, or sending the unanswered calls again after a loss:
        batches wait for it, so that nothing is written in between."""
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._tags = 0

    def run(
        self,
        script: _Script,
        keys: list[str],
        args: list[Any],
        then: Callable[[Any], Any] | None = None,
    ) -> asyncio.Future[Any]:
        """Queue the script for this turn's batch; the future gets its reply (or error), or,
        given ``then``, what ``then`` makes of the reply, called as soon as it is read.

        The batcher passes the script one more argument, a tag of its own, which the script
        must return as the last element of its reply: a reply is taken as the answer to a
        call only when it names that call.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closed:
            future.set_exception(RedisConnectionError("the commit batcher is closed"))
            return future
        self._tags += 1
        tag = b"%d" % self._tags
        self._pending.append(_Call(script, keys, [*args, tag], tag, future, then))
        if len(self._pending) == 1:
            # The task's first step runs after the callbacks already due in this turn,
            # so the commits they issue join the batch.
            self._spawn(self._send())
        return future

    async def aclose(self) -> None:
        """Stop, failing what is unanswered, and give the connection back to the pool."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        unanswered = [call for batch in self._in_flight for call in batch] + self._take_pending()
        self._in_flight.clear()
        self._fail(unanswered, RedisConnectionError("the commit batcher is closed"))
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.disconnect()
            connection.socket_timeout = self._pool_timeout
            await self.client.connection_pool.release(connection)

    async def _send(self) -> None:
        while self._ready is not None or not self._connected():
            if self._ready is None:
                self._ready = self._spawn(self._connect())
            try:
                await asyncio.shield(self._ready)
            except Exception as error:
                self._fail(self._take_pending(), error)
                return
        batch = self._take_pending()
        if not batch:
            return
        connection = self._connection
        self._in_flight.append(deque(batch))  # before the write: no other write comes between
        try:
            # Connected, without a socket timeout: written at once, never waiting.
            await connection.send_packed_command(_packed(batch), check_health=False)
        except Exception as error:
            # Whatever the failure, the batch is listed and unanswered: send it again on a
            # new connection, never leave it waiting for replies that belong to others.
            self._lost(error)
            return
        if self._reader is None:
            self._reader = self._spawn(self._read(connection))

    def _connected(self) -> bool:
        return self._connection is not None and self._connection.is_connected

    async def _connect(self) -> None:
        try:
            async with asyncio.timeout(self.timeout):
                if self._connection is None:
                    pool = self.client.connection_pool
                    connection = await pool.get_connection()  # type: ignore[no-untyped-call]
                    self._pool_timeout = connection.socket_timeout
                    connection.socket_timeout = None  # this batcher times its reads itself
                    self._connection = connection
                await self._connection.connect()
        finally:
            self._ready = None

    async def _read(self, connection: Any) -> None:
        try:
            while self._in_flight:
                calls = self._in_flight[0]
                async with asyncio.timeout(self.timeout):
                    while calls:
                        try:
                            # No timer of its own: the batch's timeout above covers it.
                            result = await connection.read_response(timeout=math.inf)
                        except ResponseError as error:
                            result = error
                        _check_answers(calls[0], result)
                        self._answer(calls.popleft(), result)
                self._in_flight.popleft()
        except Exception as error:  # lost, silent, or out of step: start again, in order
            self._lost(error)
        finally:
            self._reader = None

    def _lost(self, error: BaseException) -> None:
        """The connection failed: send what is unanswered again, once the reader has
        stopped (the first to notice starts it; the others find it under way)."""
        if self._ready is None:
            self._ready = self._spawn(self._resend(error))

    async def _resend(self, error: BaseException) -> None:
        connection = self._connection
        try:
            reader = self._reader
            if reader is not None and reader is not asyncio.current_task():
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
            calls = [call for batch in self._in_flight for call in batch]
            self._in_flight.clear()
            await connection.disconnect(nowait=True)
            if not calls:
                return
            try:
                results = await connection.retry.call_with_retry(
                    partial(self._exchange, connection, _packed(calls), len(calls)),
                    partial(_disconnect, connection),
                )
            except Exception as failure:
                self._fail(calls, failure)
                return
            for call, result in zip(calls, results, strict=True):
                try:
                    _check_answers(call, result)
                except _OutOfStepError as failure:
                    self._fail([call], failure)
                    continue
                self._answer(call, result)
        finally:
            self._ready = None

    async def _exchange(self, connection: Any, packed: bytes, count: int) -> list[Any]:
        """Send ``count`` packed commands at once and read their replies (errors as values),
        all within the batch timeout; a timeout drops the connection."""
        await connection.send_packed_command(packed, check_health=False)
        results: list[Any] = []
        try:
            async with asyncio.timeout(self.timeout):
                for _ in range(count):
                    try:
                        results.append(await connection.read_response(timeout=math.inf))
                    except ResponseError as error:
                        results.append(error)
        except TimeoutError as error:
            await connection.disconnect(nowait=True)
            raise RedisTimeoutError(f"Timeout reading from {connection.host}") from error
        return results

    def _answer(self, call: _Call, result: Any) -> None:
        if isinstance(result, NoScriptError):  # Redis restarted: not run, so run it now
            self._spawn(self._run_again(call))
            return
        if call.future.done():
            return
        if isinstance(result, Exception):
            call.future.set_exception(result)
            return
        if call.then is not None:
            try:
                result = call.then(result)
            except Exception as error:
                call.future.set_exception(error)
                return
        call.future.set_result(result)

    async def _run_again(self, call: _Call) -> None:
        try:
            result = await _run(self.client, call.script, call.keys, call.args)
        except Exception as error:
            result = error
        self._answer(call, result)

    def _take_pending(self) -> list[_Call]:
        batch, self._pending = self._pending, []
        return batch

    @staticmethod
    def _fail(calls: list[_Call], error: BaseException) -> None:
        for call in calls:
            if not call.future.done():
                call.future.set_exception(error)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


@dataclass(slots=True)
class _Call:
    """One script queued in a batch, with the tag its reply must end with and what to make
    of the reply."""

    script: _Script
    keys: list[str]
    args: list[Any]
    tag: bytes
    future: asyncio.Future[Any]
    then: Callable[[Any], Any] | None


class _OutOfStepError(RedisConnectionError):
    """A reply that does not name the call it would answer: the connection's replies are out
    of step with its calls, and nothing more read from it can be trusted."""


def _check_answers(call: _Call, reply: Any) -> None:
    """Raises _OutOfStepError unless ``reply`` is an error or ends with ``call``'s tag."""
    if isinstance(reply, Exception):
        return
    if not isinstance(reply, list) or not reply or reply[-1] != call.tag:
        raise _OutOfStepError(f"a reply {reply!r:.80} does not answer call {call.tag!r}")


READ_TIMEOUT = 5.0
"""How long a batch's replies may take when the client sets no socket timeout."""


async def _disconnect(connection: Any, error: Exception) -> None:
    await connection.disconnect()


def _packed(calls: list[_Call]) -> bytes:
    """The calls as EVALSHA commands in the Redis protocol, one buffer for one write (packed
    by hiredis, in C)."""
    return b"".join(
        [
            hiredis.pack_command(
                (b"EVALSHA", call.script.sha, str(len(call.keys)), *call.keys, *call.args)
            )
            for call in calls
        ]
    )


class _Script:
    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()


async def _run(client: aioredis.Redis, script: _Script, keys: list[str], args: list[Any]) -> Any:
    try:
        return await client.evalsha(script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await client.eval(script.source, len(keys), *keys, *args)


_CREATE = _Script(lua("create_room"))

_COMMIT = _Script(lua("commit"))

_WATCHERS = _Script(lua("change_watchers"))
