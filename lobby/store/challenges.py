"""Challenges in Redis: create, accept exactly once, decline, cancel, expire lazily, and store
the challenges accepted as they are made (rematches, quick pairings).

Keys:

=====================================  ======  ===============================================
``{lobby}:challenge:{id}``             string  Challenge JSON; closed ones expire after a day
``{lobby}:challenges:open``            zset    ids of open challenges, scored by expiry
``{lobby}:challenges:from:{player_id}`` set     ids of a player's open challenges
``{lobby}:challenges:to:{player_id}``  set     ids of open direct challenges to a player
=====================================  ======  ===============================================

Each change is announced as a ``challenge`` event (see :mod:`lobby.store.common`); the
decisions are :mod:`lobby.challenges`'.  The limits on making them are counted by
:mod:`lobby.store.creations`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lobby import challenges
from lobby.challenges import DEFAULT_LIMITS, Challenge, ChallengeLimits, Colour, Status
from lobby.identity import Player, PlayerId
from lobby.store import games
from lobby.store.accounts import find_player
from lobby.store.common import Redis, dump, load, optimistic, publish, texts
from protocol.errors import ChallengeExpiredError, UnknownChallengeError

CLOSED_CHALLENGE_TTL = 24 * 3600
"""Seconds a closed challenge stays readable, so a server that restarts between accepting and
creating the room can still read the seats by the challenge id."""

_OPEN_KEY = "{lobby}:challenges:open"


@dataclass(frozen=True, slots=True)
class PlayerChallenges:
    """A player's open challenges: the direct ones made to them, and their own."""

    incoming: list[Challenge]
    outgoing: list[Challenge]


async def create_challenge(
    redis: Redis,
    challenger: Player,
    target: str | None,
    game: str,
    options: str,
    colour: Colour,
    rated: bool,
    now: float,
    limits: ChallengeLimits = DEFAULT_LIMITS,
    time_control: str | None = None,
    id: str | None = None,
) -> Challenge:
    """Store and announce a new challenge; ``target`` is a player's name or id, or None.

    Raises UnknownPlayerError and everything :func:`lobby.challenges.create` raises; the
    per-account limit holds even when one player creates challenges from two processes.
    """
    target_player = None if target is None else await find_player(redis, target, now)
    challenge_id = id if id is not None else secrets.token_urlsafe(9)
    from_key = _from_key(challenger.id)

    async def attempt(pipe: Any) -> Challenge:
        await pipe.watch(from_key, _challenge_key(challenge_id))
        if await pipe.exists(_challenge_key(challenge_id)):
            raise ValueError(f"a challenge with id {challenge_id!r} exists already")
        mine = texts(await pipe.smembers(from_key))
        deadlines = await pipe.zmscore(_OPEN_KEY, mine) if mine else []
        open_count = sum(1 for deadline in deadlines if deadline is not None and deadline > now)
        challenge = challenges.create(
            challenge_id,
            challenger,
            target_player,
            game,
            options,
            colour,
            rated,
            now,
            open_count,
            limits,
            time_control,
        )
        pipe.multi()
        _queue_challenge(pipe, challenge)
        await pipe.execute()
        return challenge

    created = await optimistic(redis, attempt)
    await publish(redis, {"t": "challenge", "challenge": created.to_data()})
    return created


async def get_challenge(redis: Redis, challenge_id: str) -> Challenge:
    """The stored challenge as it is (an overdue one may still say open); raises
    UnknownChallengeError."""
    raw = await redis.get(_challenge_key(challenge_id))
    if raw is None:
        raise UnknownChallengeError(f"no challenge {challenge_id!r}")
    return Challenge.from_data(load(raw))


async def accept_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float, seed: int | None = None
) -> Challenge:
    """Accept a challenge exactly once, even when several processes try at the same moment.

    Returns the accepted challenge with its seats: the server creates the room from it, with
    room id = challenge id.  ``seed`` resolves a random colour (a fresh one if None).  Raises
    UnknownChallengeError and everything :func:`lobby.challenges.accept` raises.
    """
    chosen = seed if seed is not None else secrets.randbits(32)
    return await _transition(
        redis, challenge_id, now, lambda c: challenges.accept(c, player, now, chosen)
    )


async def decline_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float
) -> Challenge:
    """Decline a direct challenge; raises as :func:`lobby.challenges.decline` does."""
    return await _transition(redis, challenge_id, now, lambda c: challenges.decline(c, player, now))


async def cancel_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float
) -> Challenge:
    """Cancel one's own challenge; raises as :func:`lobby.challenges.cancel` does."""
    return await _transition(redis, challenge_id, now, lambda c: challenges.cancel(c, player, now))


async def open_challenges(redis: Redis, now: float) -> list[Challenge]:
    """Open challenges anyone may accept, oldest first (overdue ones are expired first)."""
    await sweep_challenges(redis, now)
    ids = texts(await redis.zrange(_OPEN_KEY, 0, -1))
    found = await _challenges(redis, ids)
    return sorted((c for c in found if c.is_open), key=lambda c: (c.created, c.id))


async def player_challenges(redis: Redis, player_id: PlayerId, now: float) -> PlayerChallenges:
    """The open challenges made to and by a player, oldest first."""
    await sweep_challenges(redis, now)
    incoming_ids = await redis.smembers(_to_key(player_id))
    outgoing_ids = await redis.smembers(_from_key(player_id))
    incoming = await _challenges(redis, texts(incoming_ids))
    outgoing = await _challenges(redis, texts(outgoing_ids))
    return PlayerChallenges(
        incoming=sorted(incoming, key=lambda c: (c.created, c.id)),
        outgoing=sorted(outgoing, key=lambda c: (c.created, c.id)),
    )


async def sweep_challenges(redis: Redis, now: float) -> list[Challenge]:
    """Expire every open challenge whose time has run out; returns them (each announced)."""
    due = texts(await redis.zrangebyscore(_OPEN_KEY, "-inf", now))
    expired = []
    for challenge_id in due:
        try:
            await _transition(redis, challenge_id, now, _refuse_unexpired)
        except ChallengeExpiredError:
            expired.append(await get_challenge(redis, challenge_id))
        except (UnknownChallengeError, _NotDueError):
            # Closed or gone meanwhile: drop the stale index entry.
            await redis.zrem(_OPEN_KEY, challenge_id)
    return expired


async def rematch_challenge(
    redis: Redis, room_id: str, by: Player, now: float, id: str | None = None
) -> Challenge:
    """An accepted rematch of a finished game, stored once under its id and announced.

    Idempotent on ``id`` (default :func:`lobby.challenges.rematch_id`): when both players ask
    at once, both get the one stored first.  Raises UnknownRoomError, NotAPlayerError.
    """
    finished = await games.finished_game(redis, room_id)
    challenge = challenges.rematch(finished, by, id or challenges.rematch_id(room_id), now)
    return await store_accepted(redis, challenge)


async def store_accepted(redis: Redis, challenge: Challenge) -> Challenge:
    """Store a challenge accepted as it was made (a rematch, a quick pairing) once under its
    id and announce it; returns the one stored first when the id was taken already."""
    stored = await redis.set(
        _challenge_key(challenge.id), dump(challenge.to_data()), nx=True, ex=CLOSED_CHALLENGE_TTL
    )
    if not stored:
        return await get_challenge(redis, challenge.id)
    await publish(redis, {"t": "challenge", "challenge": challenge.to_data()})
    return challenge


class _NotDueError(Exception):
    """Raised inside a sweep when a challenge is not (or no longer) due to expire."""


def _refuse_unexpired(challenge: Challenge) -> Challenge:
    raise _NotDueError(challenge.id)


async def _transition(
    redis: Redis, challenge_id: str, now: float, change: Callable[[Challenge], Challenge]
) -> Challenge:
    """Apply a pure transition atomically, or expire the challenge if its time has run out.

    An overdue challenge is stored as expired (and announced) before ChallengeExpiredError is
    raised, which is how expiry is cleaned lazily.
    """
    key = _challenge_key(challenge_id)

    async def attempt(pipe: Any) -> tuple[Challenge, bool]:
        await pipe.watch(key)
        raw = await pipe.get(key)
        if raw is None:
            raise UnknownChallengeError(f"no challenge {challenge_id!r}")
        current = Challenge.from_data(load(raw))
        overdue = challenges.is_expired(current, now)
        new = challenges.expire(current, now) if overdue else change(current)
        pipe.multi()
        _queue_challenge(pipe, new)
        await pipe.execute()
        return new, overdue

    new, overdue = await optimistic(redis, attempt)
    await publish(redis, {"t": "challenge", "challenge": new.to_data()})
    if overdue:
        raise ChallengeExpiredError("this challenge has expired")
    return new


def _queue_challenge(pipe: Any, challenge: Challenge) -> None:
    """Queue the writes that store a challenge and keep the indexes in step with its status."""
    key = _challenge_key(challenge.id)
    to_key = None if challenge.target is None else _to_key(challenge.target.id)
    if challenge.status is Status.OPEN:
        pipe.set(key, dump(challenge.to_data()))
        pipe.zadd(_OPEN_KEY, {challenge.id: challenge.expires})
        pipe.sadd(_from_key(challenge.challenger.id), challenge.id)
        if to_key is not None:
            pipe.sadd(to_key, challenge.id)
    else:
        pipe.set(key, dump(challenge.to_data()), ex=CLOSED_CHALLENGE_TTL)
        pipe.zrem(_OPEN_KEY, challenge.id)
        pipe.srem(_from_key(challenge.challenger.id), challenge.id)
        if to_key is not None:
            pipe.srem(to_key, challenge.id)


async def _challenges(redis: Redis, ids: list[str]) -> list[Challenge]:
    if not ids:
        return []
    raws = await redis.mget([_challenge_key(i) for i in ids])
    found = (Challenge.from_data(load(raw)) for raw in raws if raw is not None)
    return [c for c in found if c.status is Status.OPEN]


def _challenge_key(challenge_id: str) -> str:
    return f"{{lobby}}:challenge:{challenge_id}"


def _from_key(player_id: PlayerId) -> str:
    return f"{{lobby}}:challenges:from:{player_id}"


def _to_key(player_id: PlayerId) -> str:
    return f"{{lobby}}:challenges:to:{player_id}"
