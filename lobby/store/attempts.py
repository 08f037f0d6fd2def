"""Attempt limits in Redis: each attempt is checked against its limits and counted in one step.

A *gate* limits one kind of attempt by one key: a :class:`Window` allows ``limit`` attempts
within ``seconds`` (per client address: logins, registrations, guests); a :class:`Delay`
spaces attempts by a growing wait (per username or known device: logins).  :func:`take`
runs one Lua script that checks every gate of an attempt and, only if all allow it, counts
it in each, so that concurrent attempts cannot all pass a limit checked before any of them
was counted.  A refused attempt counts nowhere.  :func:`give_back` undoes the count of an
attempt that turned out well (a login that succeeded).

Keys (all under ``{lobby}:attempts:`` ): ``{kind}:{id}``, a zset of attempt times for a window
or a hash ``{n, next}`` (attempts counted, earliest time of the next) for a delay; each
expires when it no longer limits anything.
Imports redis and :mod:`protocol.errors`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis

from protocol.errors import RateLimitedError

_PREFIX = "{lobby}:attempts:"

# KEYS: one per gate; ARGV[1]: now, ARGV[2]: this attempt's member in the windows, ARGV[3]:
# the gates as JSON ({limit, seconds} or {schedule, reset}).  Returns "0" once the attempt
# is counted in every gate, else the seconds to wait (and nothing is counted).
_TAKE_LUA = """
local now = tonumber(ARGV[1])
local gates = cjson.decode(ARGV[3])
local wait = 0
for i, gate in ipairs(gates) do
  if gate.limit then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - gate.seconds)
    local count = redis.call('ZCARD', KEYS[i])
    if count >= gate.limit then
      local oldest = redis.call('ZRANGE', KEYS[i], count - gate.limit, count - gate.limit,
        'WITHSCORES')
      wait = math.max(wait, tonumber(oldest[2]) + gate.seconds - now)
    end
  else
    local due = tonumber(redis.call('HGET', KEYS[i], 'next') or '0')
    if due > now then wait = math.max(wait, due - now) end
  end
end
if wait > 0 then return tostring(wait) end
for i, gate in ipairs(gates) do
  if gate.limit then
    redis.call('ZADD', KEYS[i], now, ARGV[2])
    redis.call('EXPIRE', KEYS[i], math.ceil(gate.seconds) + 1)
  else
    local n = redis.call('HINCRBY', KEYS[i], 'n', 1)
    local delay = gate.schedule[math.min(n, #gate.schedule)]
    redis.call('HSET', KEYS[i], 'next', string.format('%.6f', now + delay))
    redis.call('EXPIRE', KEYS[i], math.ceil(delay + gate.reset) + 1)
  end
end
return '0'
"""


@dataclass(frozen=True, slots=True)
class Window:
    """At most ``limit`` attempts of one kind by one id within any ``seconds``."""

    kind: str
    id: str
    limit: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Delay:
    """Attempts of one kind by one id spaced by ``schedule``: after the n-th counted attempt
    the next waits ``schedule[n-1]`` seconds (the last entry for every later one); the count
    is forgotten ``reset`` seconds after the wait is over."""

    kind: str
    id: str
    schedule: tuple[float, ...]
    reset: float


Gate = Window | Delay


@dataclass(frozen=True, slots=True)
class Ticket:
    """An attempt that passed its gates and is counted in each."""

    gates: tuple[Gate, ...]
    member: str


async def take(redis: aioredis.Redis, gates: Sequence[Gate], now: float) -> Ticket:
    """Count an attempt in every gate, or in none; raises RateLimitedError (with
    ``retry_after``, the longest wait of the gates that refused it)."""
    member = f"{now!r}:{secrets.token_hex(6)}"
    if not gates:
        return Ticket((), member)
    specs = [
        {"limit": g.limit, "seconds": g.seconds}
        if isinstance(g, Window)
        else {"schedule": list(g.schedule), "reset": g.reset}
        for g in gates
    ]
    keys = [_key(g) for g in gates]
    answer = await redis.eval(_TAKE_LUA, len(keys), *keys, repr(now), member, json.dumps(specs))
    wait = float(answer)
    if wait > 0:
        raise RateLimitedError(f"too many attempts: try again in {int(wait) + 1} s", wait)
    return Ticket(tuple(gates), member)


async def give_back(redis: aioredis.Redis, ticket: Ticket) -> None:
    """Forget an attempt that went well: the windows no longer count it, and the delays start
    afresh."""
    if not ticket.gates:
        return
    async with redis.pipeline(transaction=True) as pipe:
        for gate in ticket.gates:
            if isinstance(gate, Window):
                pipe.zrem(_key(gate), ticket.member)
            else:
                pipe.delete(_key(gate))
        await pipe.execute()


def _key(gate: Gate) -> str:
    return f"{_PREFIX}{gate.kind}:{gate.id}"
