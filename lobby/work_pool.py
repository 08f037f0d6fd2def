"""Bounded work pools: slow work that a request asks for runs in a few threads of its own, never
in the event loop, and never more of it than the pool holds.

A password hash takes about 0.16 s of CPU (``hashlib.scrypt`` releases the GIL, so the event
loop keeps serving sockets meanwhile), which makes hashing the cheapest way to load a server;
replaying an imported record through the rules takes up to a tenth of a second.  So at most
``workers`` jobs of a pool run at once, at most ``waiting`` more wait their turn, and a
request beyond that is refused at once (RateLimitedError with the pool's ``busy`` words, retry
in a second) instead of queueing without bound.
Standard library and :mod:`protocol.errors` only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from types import TracebackType
from typing import ParamSpec, TypeVar

from protocol.errors import RateLimitedError

P = ParamSpec("P")
T = TypeVar("T")

BUSY_RETRY_SECONDS = 1.0
"""What a request refused for a full pool is told to wait."""


class WorkPool:
    """At most ``workers`` jobs at once and ``waiting`` more queued, per process; ``busy``
    is what a request refused for a full pool is told."""

    def __init__(
        self,
        workers: int = 1,
        waiting: int = 8,
        busy: str = "the server is busy checking passwords: try again in a second",
        name: str = "password-hash",
    ) -> None:
        if workers < 1 or waiting < 0:
            raise ValueError("a work pool needs a worker and no negative queue")
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix=name
        )
        self._free = workers + waiting
        self._busy = busy

    @property
    def free(self) -> int:
        """Places not taken: requests that may still run or wait to."""
        return self._free

    def reserve(self) -> Reservation:
        """A place in the pool, held until the reservation is left and its work is done;
        raises RateLimitedError at once when every place is taken."""
        if self._free <= 0:
            raise RateLimitedError(
                self._busy,
                BUSY_RETRY_SECONDS,
            )
        self._free -= 1
        return Reservation(self)

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args)`` in the pool, with a place reserved for it alone."""
        with self.reserve() as place:
            return await place.run(function, *args, **kwargs)

    def shutdown(self) -> None:
        """Stop the threads once their current job is done; queued jobs are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _submit(
        self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        return self._executor.submit(function, *args, **kwargs)

    def _release(self) -> None:
        self._free += 1


class Reservation:
    """A place in a :class:`WorkPool`: its jobs run one after another.

    Leaving it gives the place back, or, when a job is still running in its thread (the
    request was cancelled), once that job ends: the bound counts threads' work, not
    requests still waiting.
    """

    def __init__(self, pool: WorkPool) -> None:
        self._pool = pool
        self._running: concurrent.futures.Future[object] | None = None

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args, **kwargs)`` in one of the pool's threads."""
        future = self._pool._submit(function, *args, **kwargs)
        self._running = future  # type: ignore[assignment]
        return await asyncio.wrap_future(future)

    def __enter__(self) -> Reservation:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        running = self._running
        if running is None or running.done():
            self._pool._release()
            return
        loop = asyncio.get_running_loop()

        def release(_: object) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._pool._release)

        running.add_done_callback(release)


DEFAULT_POOL = WorkPool()
"""The pool of callers that bring none (tools, tests); the server sizes its own."""
