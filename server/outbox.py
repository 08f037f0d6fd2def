"""The lobby's outbox in Redis: rooms whose listed state changed, until the lobby follows.

``{lobby}:dirty`` is a hash: room id -> the mark of its last listed change
(:func:`server.listing.mark`).  The room's create script and commit script write the mark in
the same script as the room itself (:mod:`server.redis.store`), so a committed change is never
without its mark, whatever crashes after.  The lobby's drainer (in every process) reads the
marks, brings the lobby in step, and then clears each mark only if it is still the one it
read: a change committed meanwhile leaves its own mark, which the next pass handles.

One process drains at a time: ``{lobby}:outbox-lease`` holds a random token with an expiry, so
a drainer that dies holds it no longer than the lease, and the passes of several processes
never work on the same marks at once (were a lease to lapse mid-pass, every step is
idempotent all the same).  No decisions here; the Redis client is an argument.  Imports
redis only.
"""

from __future__ import annotations

from typing import cast

import redis.asyncio as aioredis

OUTBOX_KEY = "{lobby}:dirty"
LEASE_KEY = "{lobby}:outbox-lease"

_CLEAR = """
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


async def take_lease(client: aioredis.Redis, token: str, seconds: float) -> bool:
    """Hold the drainer's lease for ``seconds`` unless another process holds it."""
    return bool(await client.set(LEASE_KEY, token, nx=True, px=max(1, int(seconds * 1000))))


async def release_lease(client: aioredis.Redis, token: str) -> None:
    """Give the lease back, if it is still ours."""
    await client.eval(_RELEASE, 1, LEASE_KEY, token)


async def marks(client: aioredis.Redis, limit: int) -> dict[str, bytes]:
    """About ``limit`` marks (room id -> mark); more wait for the next pass."""
    found: dict[str, bytes] = {}
    cursor = 0
    while True:
        cursor, page = await client.hscan(OUTBOX_KEY, cursor, count=limit)
        for room_id, raw in cast(dict[bytes, bytes], page).items():
            found[room_id.decode() if isinstance(room_id, bytes) else str(room_id)] = raw
        if cursor == 0 or len(found) >= limit:
            return found


async def clear(client: aioredis.Redis, done: dict[str, bytes]) -> None:
    """Remove the marks of ``done`` (room id -> the mark handled), each only if unchanged."""
    if done:
        args = [item for pair in done.items() for item in pair]
        await client.eval(_CLEAR, 1, OUTBOX_KEY, *args)


async def pending(client: aioredis.Redis) -> int:
    """How many rooms wait in the outbox (a metric; tests wait for none)."""
    return int(await client.hlen(OUTBOX_KEY))
