"""The commit batcher: the scripts one event-loop turn issues, sent as one write.

:class:`Batcher` holds one connection of its own and pipelines scripts (the room commits)
over it, reading each reply as it comes and checking that it answers the call it is read
for; :class:`Script` and :func:`run_script` run one script on any client.  It reaches below
redis-py's public API (a held connection, hiredis-packed commands, replies read under one
timeout) because that is where a move's commit spends its time; nothing else in the server
does.  Holds no decisions.  Imports redis and hiredis.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


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
        script: Script,
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
            result = await run_script(self.client, call.script, call.keys, call.args)
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

    script: Script
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


async def read_packed(client: aioredis.Redis, commands: list[tuple[Any, ...]]) -> list[Any]:
    """The replies of ``commands`` sent as one hiredis-packed write on a connection of the
    pool and read under one timeout (the pool's socket timeout, else :data:`READ_TIMEOUT`),
    for a fraction of the CPU of a redis-py pipeline.  A failure drops the connection, so
    that no reply is left for its next user."""
    pool = client.connection_pool
    connection: Any = await pool.get_connection()  # type: ignore[no-untyped-call]
    try:
        async with asyncio.timeout(connection.socket_timeout or READ_TIMEOUT):
            packed = b"".join([hiredis.pack_command(command) for command in commands])
            await connection.send_packed_command(packed, check_health=False)
            return [await connection.read_response(timeout=math.inf) for _ in commands]
    except BaseException:
        await connection.disconnect(nowait=True)
        raise
    finally:
        await pool.release(connection)


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


class Script:
    """A Lua script and its SHA-1, by which Redis runs a script it holds (EVALSHA)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()


async def run_script(
    client: aioredis.Redis, script: Script, keys: list[str], args: list[Any]
) -> Any:
    """Run ``script`` by its hash, sending its source only when Redis does not hold it."""
    try:
        return await client.evalsha(script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await client.eval(script.source, len(keys), *keys, *args)
