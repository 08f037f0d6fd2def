"""Quick-pairing pools in Redis: joining pairs or waits in one atomic script, so two server
processes can never pair one waiting player twice.

Keys: ``{lobby}:pool:queue`` (zset: waiting player ids, scored by when they first joined their
pool, so the longest waiting is paired first), ``{lobby}:pool:entries`` (hash: player id to
the :class:`lobby.pools.Entry` JSON, whose ``pool`` names the pool) and
``{lobby}:pool:paired`` (hash: a player paired while waiting to their room, for 30 s).  Every
pool shares the keys, so a player waits in one pool at most, and the script sees the whole
queue: lapsed entries are dropped as it passes them.  The paired game's accepted challenge
is stored and announced like a rematch's (:func:`lobby.store.challenges.store_accepted`).
Imports redis and :mod:`lobby.pools`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis

from lobby.identity import PlayerId
from lobby.pools import (
    ENTRY_SECONDS,
    MAX_WAITING,
    RANGE_WIDENS_PER_SECOND,
    RATING_RANGE,
    WIDEST_RATING_RANGE,
    Entry,
)
from protocol.errors import LimitReachedError

Redis = aioredis.Redis

QUEUE_KEY = "{lobby}:pool:queue"
ENTRIES_KEY = "{lobby}:pool:entries"
PAIRED_KEY = "{lobby}:pool:paired"


@dataclass(frozen=True, slots=True)
class Joined:
    """What a join did: ``room`` None means waiting; with ``partner`` it is the game just
    made with them (the caller creates it); without, the game the player was paired into
    while waiting (a renewal that came after the pairing: go there, nothing is made)."""

    room: str | None
    partner: Entry | None = None


# ARGV: player id, entry JSON, pool, rating ('' when none), rating range, now, max waiting,
# the room id a pairing would make, how long the waiting player's pairing is remembered, the
# range's widening per second waited and its widest (lobby.pools.rating_range).
# Returns {0} waiting, {1, partner entry JSON} paired, {2} the pools are full, {3, room} the
# player was paired while waiting.
_JOIN_LUA = """
local queue, entries, paired = KEYS[1], KEYS[2], KEYS[3]
local me, entry, pool = ARGV[1], ARGV[2], ARGV[3]
local rating, range = tonumber(ARGV[4]), tonumber(ARGV[5])
local now, most, room, remember = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9])
local widen, widest = tonumber(ARGV[10]), tonumber(ARGV[11])
local function reach(base, since)
  return math.min(widest, base + widen * math.max(0, now - since))
end
local earlier = redis.call('HGET', paired, me)
if earlier then
  redis.call('HDEL', paired, me)
  local held = cjson.decode(earlier)
  if held.expires > now then return {3, held.room} end
end
local joined = now
local old = redis.call('HGET', entries, me)
if old then
  local held = cjson.decode(old)
  if held.pool == pool then joined = tonumber(redis.call('ZSCORE', queue, me)) or now end
  redis.call('ZREM', queue, me)
  redis.call('HDEL', entries, me)
end
local waiting = redis.call('ZRANGE', queue, 0, -1, 'WITHSCORES')
for i = 1, #waiting, 2 do
  local id, since = waiting[i], tonumber(waiting[i + 1])
  local raw = redis.call('HGET', entries, id)
  local other = raw and cjson.decode(raw)
  if not other or other.expires <= now then
    redis.call('ZREM', queue, id)
    redis.call('HDEL', entries, id)
  elseif other.pool == pool then
    local theirs = other.rating
    local near = rating == nil or theirs == cjson.null or math.abs(theirs - rating)
      <= math.min(reach(range, joined), reach(other.range or range, since))
    if near then
      redis.call('ZREM', queue, id)
      redis.call('HDEL', entries, id)
      local flat = redis.call('HGETALL', paired)  -- forget pairings nobody came back for
      for i = 1, #flat, 2 do
        if cjson.decode(flat[i + 1]).expires <= now then redis.call('HDEL', paired, flat[i]) end
      end
      redis.call('HSET', paired, id, cjson.encode({room = room, expires = now + remember}))
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
if ARGV[2] == '' then redis.call('HDEL', KEYS[3], ARGV[1]) end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then return 0 end
if ARGV[2] ~= '' and cjson.decode(raw).connection ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


async def join(
    redis: Redis, entry: Entry, now: float, room: str, max_waiting: int = MAX_WAITING
) -> Joined:
    """Pair ``entry``'s player with the first compatible player waiting in its pool (taking
    them out of it, and remembering for :data:`lobby.pools.ENTRY_SECONDS` that they were
    paired into ``room``), or leave ``entry`` waiting (a renewal keeps its place).  A player
    paired while waiting is told the room instead, and not put back in a pool: a renewal
    sent just after the pairing never makes a second game.  Raises LimitReachedError when
    ``max_waiting`` players wait already."""
    data = entry.to_data()
    data["range"] = RATING_RANGE
    kind, *rest = await redis.eval(
        _JOIN_LUA,
        3,
        QUEUE_KEY,
        ENTRIES_KEY,
        PAIRED_KEY,
        entry.player.id,
        json.dumps(data, separators=(",", ":")),
        entry.pool,
        "" if entry.rating is None else repr(entry.rating),
        repr(RATING_RANGE),
        repr(now),
        max_waiting,
        room,
        repr(ENTRY_SECONDS),
        repr(RANGE_WIDENS_PER_SECOND),
        repr(WIDEST_RATING_RANGE),
    )
    if int(kind) == 2:
        raise LimitReachedError(f"{max_waiting} players are waiting already: try again soon")
    if int(kind) == 0:
        return Joined(None)
    if int(kind) == 3:
        return Joined(_text(rest[0]))
    return Joined(room, Entry.from_data(json.loads(rest[0])))


async def leave(redis: Redis, player_id: PlayerId, connection: str = "") -> bool:
    """Take the player out of their pool (only if ``connection`` holds the entry, when given;
    without one, their pairing is forgotten too); returns whether they were waiting."""
    keys = (QUEUE_KEY, ENTRIES_KEY, PAIRED_KEY)
    return bool(await redis.eval(_LEAVE_LUA, 3, *keys, player_id, connection))


async def waiting(redis: Redis, now: float) -> dict[str, int]:
    """How many players wait in each pool now (lapsed entries not counted)."""
    counts: dict[str, int] = {}
    for raw in (await redis.hgetall(ENTRIES_KEY)).values():
        data: dict[str, Any] = json.loads(raw)
        if float(data["expires"]) > now:
            counts[data["pool"]] = counts.get(data["pool"], 0) + 1
    return counts


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
