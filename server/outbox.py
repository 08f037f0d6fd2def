"""The lobby's outbox in Redis: rooms whose listed state changed, until the lobby follows.

``{lobby}:dirty`` is a hash: room id -> the mark of its last listed change
(:func:`server.listing.mark`).  The room's create script and commit script write the mark in
the same script as the room itself (:mod:`server.redis.store`), so a committed change is never
without its mark, whatever crashes after.  The lobby's drainer (in every process) reads the
marks, brings the lobby in step, and then clears each mark only if it is still the one it
read: a change committed meanwhile leaves its own mark, which the next pass handles.

On a Redis Cluster the mark cannot go to one hash beside every room's keys: it goes to the
outbox of the room's slot, ``lobby-outbox:{<tag>}`` (a tag that lands on that slot,
:func:`server.redis.cluster.slot_tag`), in the same script as the room, and the slot is then
added to ``{lobby}:dirty-slots``, the set of slots whose outbox may hold marks, which the
drainer reads.  A process that dies between the two leaves a mark no slot lists: every
:data:`REINDEX_EVERY` seconds, and at start, the drainer counts every slot's outbox (one
pipelined HLEN per slot) and lists the slots that hold marks, so such a mark waits at most
that long.  A drained slot leaves the set first and is listed again if its outbox still holds
marks, so a mark written meanwhile is never left unlisted by a live process.

One process drains at a time: ``{lobby}:outbox-lease`` holds a random token with an expiry, so
a drainer that dies holds it no longer than the lease, and the passes of several processes
never work on the same marks at once (were a lease to lapse mid-pass, every step is
idempotent all the same).  No decisions here; the Redis client is an argument.  Imports
redis only.
"""

from __future__ import annotations

from typing import Any, cast

import redis.asyncio as aioredis

from server.redis.cluster import SLOTS, is_cluster, key_slot, slot_tag

OUTBOX_KEY = "{lobby}:dirty"
LEASE_KEY = "{lobby}:outbox-lease"
DIRTY_SLOTS_KEY = "{lobby}:dirty-slots"
REINDEX_EVERY = 30.0
"""Seconds between two counts of every slot's outbox on a cluster (see above)."""

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


def outbox_key(client: aioredis.Redis, room_key: str) -> str:
    """Where the mark of the room with key ``room_key`` goes: the outbox, or on a cluster
    the outbox of the room's slot."""
    if not is_cluster(client):
        return OUTBOX_KEY
    return slot_outbox_key(key_slot(room_key))


def slot_outbox_key(slot: int) -> str:
    return f"lobby-outbox:{{{slot_tag(slot)}}}"


async def list_slot(client: aioredis.Redis, room_key: str) -> None:
    """After a mark was written on a cluster: list the room's slot as one to drain (nothing
    to do on a single Redis)."""
    if is_cluster(client):
        await client.sadd(DIRTY_SLOTS_KEY, key_slot(room_key))


async def reindex(client: aioredis.Redis) -> int:
    """On a cluster, list every slot whose outbox holds marks (a mark written by a process
    that died before listing its slot); returns how many slots hold marks."""
    if not is_cluster(client):
        return 0
    counts = await _slot_counts(client, range(SLOTS))
    holding = [slot for slot, count in counts.items() if count]
    if holding:
        await client.sadd(DIRTY_SLOTS_KEY, *holding)
    return len(holding)


async def marks(client: aioredis.Redis, limit: int) -> dict[str, bytes]:
    """About ``limit`` marks (room id -> mark); more wait for the next pass."""
    if is_cluster(client):
        return await _cluster_marks(client, limit)
    found: dict[str, bytes] = {}
    cursor = 0
    while True:
        cursor, page = await client.hscan(OUTBOX_KEY, cursor, count=limit)
        _add_page(found, page)
        if cursor == 0 or len(found) >= limit:
            return found


async def clear(client: aioredis.Redis, done: dict[str, bytes]) -> None:
    """Remove the marks of ``done`` (room id -> the mark handled), each only if unchanged."""
    if not done:
        return
    if not is_cluster(client):
        args = [item for pair in done.items() for item in pair]
        await client.eval(_CLEAR, 1, OUTBOX_KEY, *args)
        return
    by_slot: dict[int, list[Any]] = {}
    for room_id, mark in done.items():
        by_slot.setdefault(key_slot(f"{{{room_id}}}"), []).extend((room_id, mark))
    for slot, args in by_slot.items():
        await client.eval(_CLEAR, 1, slot_outbox_key(slot), *args)
    # Unlisted first, listed again if marks remain: a mark written meanwhile stays listed.
    await client.srem(DIRTY_SLOTS_KEY, *by_slot)
    remaining = [slot for slot, count in (await _slot_counts(client, by_slot)).items() if count]
    if remaining:
        await client.sadd(DIRTY_SLOTS_KEY, *remaining)


async def pending(client: aioredis.Redis) -> int:
    """How many rooms wait in the outbox (a metric; tests wait for none)."""
    if is_cluster(client):
        return sum((await _slot_counts(client, range(SLOTS))).values())
    return int(await client.hlen(OUTBOX_KEY))


async def _cluster_marks(client: aioredis.Redis, limit: int) -> dict[str, bytes]:
    slots = sorted(int(slot) for slot in await client.smembers(DIRTY_SLOTS_KEY))
    found: dict[str, bytes] = {}
    for slot in slots:
        cursor = 0
        while True:
            cursor, page = await client.hscan(slot_outbox_key(slot), cursor, count=limit)
            _add_page(found, page)
            if cursor == 0 or len(found) >= limit:
                break
        if len(found) >= limit:
            break
    return found


async def _slot_counts(client: aioredis.Redis, slots: Any) -> dict[int, int]:
    """How many marks each slot's outbox holds (one pipelined HLEN per slot)."""
    slots = list(slots)
    async with client.pipeline(transaction=False) as pipe:
        for slot in slots:
            pipe.hlen(slot_outbox_key(slot))
        counts = await pipe.execute()
    return {slot: int(count) for slot, count in zip(slots, counts, strict=True)}


def _add_page(found: dict[str, bytes], page: object) -> None:
    for room_id, raw in cast(dict[bytes, bytes], page).items():
        found[room_id.decode() if isinstance(room_id, bytes) else str(room_id)] = raw
