"""The password hashing pool: scrypt runs in a few threads of its own, never in the event loop.

A password hash takes about 0.16 s of CPU (``hashlib.scrypt`` releases the GIL, so the event
loop keeps serving sockets meanwhile), which makes hashing the cheapest way to load a server:
so at most ``workers`` hashes run at once, at most ``waiting`` more wait their turn, and a
request beyond that is refused at once (RateLimitedError, retry in a second) instead of
queueing without bound.
Standard library and :mod:`lobby.errors` only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from types import TracebackType
from typing import ParamSpec, TypeVar

from lobby.errors import RateLimitedError

P = ParamSpec("P")
T = TypeVar("T")

BUSY_RETRY_SECONDS = 1.0
"""What a request refused for a full pool is told to wait."""


class HashPool:
    """At most ``workers`` hashes at once and ``waiting`` more queued, per process."""

    def __init__(self, workers: int = 1, waiting: int = 8) -> None:
        if workers < 1 or waiting < 0:
            raise ValueError("a hash pool needs a worker and no negative queue")
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="password-hash"
        )
        self._free = workers + waiting

    @property
    def free(self) -> int:
        """Places not taken: requests that may still hash or wait to."""
        return self._free

    def reserve(self) -> Reservation:
        """A place in the pool, held until the reservation is left and its hashing is done;
        raises RateLimitedError at once when every place is taken."""
        if self._free <= 0:
            raise RateLimitedError(
                "the server is busy checking passwords: try again in a second",
                BUSY_RETRY_SECONDS,
            )
        self._free -= 1
        return Reservation(self)

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``function(*args)`` in the pool, with a place reserved for it alone."""
        with self.reserve() as hashing:
            return await hashing.run(function, *args, **kwargs)

    def shutdown(self) -> None:
        """Stop the threads once their current hash is done; queued hashes are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _submit(
        self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[T]:
        return self._executor.submit(function, *args, **kwargs)

    def _release(self) -> None:
        self._free += 1


class Reservation:
    """A place in a :class:`HashPool`: hashes run one after another in it.

    Leaving it gives the place back, or, when a hash is still running in its thread (the
    request was cancelled), once that hash ends: the bound counts threads' work, not
    requests still waiting.
    """

    def __init__(self, pool: HashPool) -> None:
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


DEFAULT_POOL = HashPool()
"""The pool of callers that bring none (tools, tests); the server sizes its own."""
