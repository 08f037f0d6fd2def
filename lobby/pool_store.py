"""Quick-pairing pools in Redis: joining pairs or waits in one atomic script, so two server
processes can never pair one waiting player twice.

Keys: ``lobby:pool:queue`` (zset: waiting player ids, scored by when they first joined their
pool, so the longest waiting is paired first) and ``lobby:pool:entries`` (hash: player id to
the :class:`lobby.pools.Entry` JSON, whose ``pool`` names the pool).  Every pool shares the two
keys, so a player waits in one pool at most, and the script sees the whole queue: lapsed
entries are dropped as it passes them.  The paired game's accepted challenge is stored and
announced like a rematch's (:func:`lobby.store.store_accepted`).
Imports redis and :mod:`lobby.pools`.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from lobby.errors import LimitReachedError
from lobby.identity import PlayerId
from lobby.pools import MAX_WAITING, RATING_RANGE, Entry

Redis = aioredis.Redis

QUEUE_KEY = "lobby:pool:queue"
ENTRIES_KEY = "lobby:pool:entries"

# ARGV: player id, entry JSON, pool, rating ('' when none), rating range, now, max waiting.
# Returns {0} waiting, {1, partner entry JSON} paired, {2} the pools are full.
_JOIN_LUA = """
local queue, entries = KEYS[1], KEYS[2]
local me, entry, pool = ARGV[1], ARGV[2], ARGV[3]
local rating, range = tonumber(ARGV[4]), tonumber(ARGV[5])
local now, most = tonumber(ARGV[6]), tonumber(ARGV[7])
local joined = now
local old = redis.call('HGET', entries, me)
if old then
  local held = cjson.decode(old)
  if held.pool == pool then joined = tonumber(redis.call('ZSCORE', queue, me)) or now end
  redis.call('ZREM', queue, me)
  redis.call('HDEL', entries, me)
end
for _, id in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
  local raw = redis.call('HGET', entries, id)
  local other = raw and cjson.decode(raw)
  if not other or other.expires <= now then
    redis.call('ZREM', queue, id)
    redis.call('HDEL', entries, id)
  elseif other.pool == pool then
    local theirs = other.rating
    local near = rating == nil or theirs == cjson.null
      or math.abs(theirs - rating) <= math.min(range, other.range or range)
    if near then
      redis.call('ZREM', queue, id)
      redis.call('HDEL', entries, id)
      return {1, raw}
    end
  end
end
if redis.call('ZCARD', queue) >= most then return {2} end
redis.call('ZADD', queue, joined, me)
redis.call('HSET', entries, me, entry)
return {0}
"""

# ARGV: player id, connection id ('' for any).  Returns 1 when an entry was taken away.
_LEAVE_LUA = """
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
if ARGV[2] ~= '' and cjson.decode(raw).connection ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


async def join(
    redis: Redis, entry: Entry, now: float, max_waiting: int = MAX_WAITING
) -> Entry | None:
    """Pair ``entry``'s player with the first compatible player waiting in its pool (taking
    them out of it) and return their entry, or leave ``entry`` waiting (a renewal when it
    waits there already, keeping its place) and return None.  Raises LimitReachedError when
    ``max_waiting`` players wait already."""
    data = entry.to_data()
    data["range"] = RATING_RANGE
    kind, *rest = await redis.eval(
        _JOIN_LUA,
        2,
        QUEUE_KEY,
        ENTRIES_KEY,
        entry.player.id,
        json.dumps(data, separators=(",", ":")),
        entry.pool,
        "" if entry.rating is None else repr(entry.rating),
        repr(RATING_RANGE),
        repr(now),
        max_waiting,
    )
    if int(kind) == 2:
        raise LimitReachedError(f"{max_waiting} players are waiting already: try again soon")
    if int(kind) == 0:
        return None
    return Entry.from_data(json.loads(rest[0]))


async def leave(redis: Redis, player_id: PlayerId, connection: str = "") -> bool:
    """Take the player out of their pool (only if ``connection`` holds the entry, when given);
    returns whether they were waiting."""
    return bool(await redis.eval(_LEAVE_LUA, 2, QUEUE_KEY, ENTRIES_KEY, player_id, connection))


async def waiting(redis: Redis, now: float) -> dict[str, int]:
    """How many players wait in each pool now (lapsed entries not counted)."""
    counts: dict[str, int] = {}
    for raw in (await redis.hgetall(ENTRIES_KEY)).values():
        data: dict[str, Any] = json.loads(raw)
        if float(data["expires"]) > now:
            counts[data["pool"]] = counts.get(data["pool"], 0) + 1
    return counts
