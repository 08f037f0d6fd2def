"""Tournaments in Redis: durable state, and every transition committed once, whatever races.

A thin adapter over :mod:`lobby.tournaments`, which makes every decision: each operation
loads the tournament, applies the pure transition and commits the result only if the stored
version is still the one it read (a Lua compare-and-set), else reloads and decides again. So
two processes racing to start an event or pair a round commit one set of games, a join for
the last seat admits one player, a retried result changes nothing, and a refusal (a
:class:`~protocol.errors.TournamentError`) writes nothing.

Keys, all of one tournament under the hash tag ``{<id>}`` so they share a cluster slot:

- ``tournament:{<id>}:state``    the tournament as JSON (:func:`lobby.tournaments.model.to_data`)
- ``tournament:{<id>}:version``  its version, the compare-and-set guard

and, outside it, an index the lobby lists from and the scheduler polls (updated after each
commit, and repaired by the next one if a process dies in between):
``tournaments:<status>`` sorted sets (created by start time, running by start, finished by end).

Every commit is announced on the ``tournaments`` channel as the event's :func:`summary` in
JSON (small whatever the field's size), so each server process can push the change to the
sockets following the list or the event there.

The client is an argument (``redis.asyncio.Redis``); imports redis and :mod:`lobby`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import redis.asyncio as aioredis

from lobby.identity import Player, PlayerId
from lobby.store.common import lua
from lobby.tournaments import lifecycle, model
from lobby.tournaments.model import Format, Game, Settings, Status, Tournament
from protocol.errors import ErrorCode, TournamentError

log = logging.getLogger(__name__)

_COMMIT = lua("commit_tournament")

CHANNEL = "tournaments"
"""The channel every committed change is announced on."""


@dataclass(frozen=True, slots=True)
class Change:
    """The tournament after an operation, whether this call changed it, and the games this
    call created that need a room (the caller opens them; room creation is idempotent on the
    game id, so a crash between commit and rooms is repaired by opening them again)."""

    tournament: Tournament
    changed: bool
    new_games: list[Game] = field(default_factory=list)


async def create(
    client: aioredis.Redis, tournament_id: str, creator: Player, settings: Settings, now: float
) -> Tournament:
    """Store a new tournament. Raises TournamentError as :func:`lobby.tournaments.lifecycle.create`
    does, and ValueError if the id is taken."""
    t = lifecycle.create(tournament_id, creator, settings, now)
    if not await commit_if_version(client, None, t):
        raise ValueError(f"tournament {tournament_id} exists")
    await _index(client, t)
    await _announce(client, t)
    return t


async def load(client: aioredis.Redis, tournament_id: str) -> Tournament | None:
    """The stored tournament, or None; raises ValueError if what is stored cannot be read."""
    raw = await client.get(_key(tournament_id, "state"))
    return None if raw is None else model.from_data(json.loads(raw))


async def commit_if_version(
    client: aioredis.Redis, before: Tournament | None, after: Tournament
) -> bool:
    """Store ``after`` if the stored version is ``before``'s (or absent when ``before`` is
    None); False if another process committed first."""
    expected = "" if before is None else str(before.version)
    script = client.register_script(_COMMIT)
    done = await script(
        keys=[_key(after.id, "state"), _key(after.id, "version")],
        args=[expected, str(after.version), json.dumps(model.to_data(after), allow_nan=False)],
    )
    return bool(done)


async def update(
    client: aioredis.Redis, tournament_id: str, decide: Callable[[Tournament], Tournament]
) -> Change:
    """Apply ``decide`` (a pure transition) to the stored tournament and commit, once.

    ``decide`` returning its argument (or a value of the same version) means nothing to do.
    Raises TournamentError from ``decide`` (nothing is written) or unknown-tournament.
    """
    while True:
        before = await load(client, tournament_id)
        if before is None:
            raise TournamentError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id}")
        after = decide(before)
        if after.version == before.version:
            return Change(before, False)
        if await commit_if_version(client, before, after):
            await _index(client, after)
            await _announce(client, after)
            return Change(after, True, lifecycle.games_to_open(before, after))


async def join(
    client: aioredis.Redis, tournament_id: str, player: Player, rating: float, now: float
) -> Change:
    """Enter ``player``; the maximum holds even when joins race. Raises TournamentError."""
    return await update(client, tournament_id, lambda t: lifecycle.join(t, player, rating, now))


async def withdraw(
    client: aioredis.Redis, tournament_id: str, player: PlayerId, now: float
) -> Change:
    """Withdraw ``player`` (forfeits once running). Raises TournamentError."""
    return await update(client, tournament_id, lambda t: lifecycle.withdraw(t, player, now))


async def start(client: aioredis.Redis, tournament_id: str, now: float) -> Change:
    """Start the event and pair its first round, exactly once: a process that finds it
    started by another gets ``changed=False``. Raises TournamentError (too-early,
    too-few-players...)."""

    def decide(t: Tournament) -> Tournament:
        return t if t.status is not Status.CREATED else lifecycle.start(t, now)

    return await update(client, tournament_id, decide)


async def pair_round(
    client: aioredis.Redis, tournament_id: str, round_number: int, now: float
) -> Change:
    """Pair round ``round_number``, exactly once: a process that finds it paired by another
    gets ``changed=False``. For an arena, pair its waiting players. Raises TournamentError."""

    def decide(t: Tournament) -> Tournament:
        if t.settings.format is not Format.ARENA and t.round >= round_number:
            return t
        return lifecycle.pair_round(t, now)

    return await update(client, tournament_id, decide)


async def record_result(
    client: aioredis.Redis, tournament_id: str, game_id: str, first_score: float, now: float
) -> Change:
    """Record a game's result, idempotently on the game id. Raises TournamentError."""
    return await update(
        client, tournament_id, lambda t: lifecycle.record_result(t, game_id, first_score, now)
    )


async def finish(client: aioredis.Redis, tournament_id: str, now: float) -> Change:
    """Close the event once its games are over; repeated calls change nothing."""

    def decide(t: Tournament) -> Tournament:
        return t if t.status is Status.FINISHED else lifecycle.finish(t, now)

    return await update(client, tournament_id, decide)


async def cancel(client: aioredis.Redis, tournament_id: str) -> Change:
    """Cancel an event that could not start; repeated calls change nothing."""

    def decide(t: Tournament) -> Tournament:
        return t if t.status is Status.CANCELLED else lifecycle.cancel(t)

    return await update(client, tournament_id, decide)


async def listed(client: aioredis.Redis, status: Status, limit: int = 50) -> list[dict[str, Any]]:
    """Summaries of tournaments in ``status`` for the lobby, JSON-ready: upcoming soonest
    first, running and finished latest first.  An event that cannot be read is left out
    (and logged), so that it cannot break the list for everyone."""
    key = _index_key(status)
    if status is Status.CREATED:
        ids = await client.zrange(key, 0, limit - 1)
    else:
        ids = await client.zrevrange(key, 0, limit - 1)
    rows = []
    for raw in cast(list[bytes], ids):
        try:
            t = await load(client, raw.decode())
        except ValueError as error:
            log.warning("tournament %s left out of the list: %s", raw.decode(), error)
            continue
        if t is not None and t.status is status:
            rows.append(summary(t))
    return rows


async def due(client: aioredis.Redis, now: float) -> list[str]:
    """Ids a scheduler should look at: created ones whose start time has come, and every
    running one (:func:`lobby.tournaments.lifecycle.next_step` says what each needs)."""
    starting = await client.zrangebyscore(_index_key(Status.CREATED), "-inf", now)
    running = await client.zrange(_index_key(Status.RUNNING), 0, -1)
    return [raw.decode() for raw in cast(list[bytes], [*starting, *running])]


def summary(t: Tournament) -> dict[str, Any]:
    """A tournament in one line of the lobby's list, JSON-ready."""
    s = t.settings
    return {
        "id": t.id,
        "name": s.name,
        "game": s.game,
        "format": s.format.value,
        "status": t.status.value,
        "version": t.version,
        "rated": s.rated,
        "starts_at": s.starts_at,
        "players": len(t.active),
        "max_players": s.max_players,
        "round": t.round,
        "rounds": lifecycle.total_rounds(t) or s.rounds,
    }


async def _index(client: aioredis.Redis, t: Tournament) -> None:
    score = {
        Status.CREATED: t.settings.starts_at,
        Status.RUNNING: t.started_at or t.settings.starts_at,
        Status.FINISHED: t.finished_at or 0.0,
        Status.CANCELLED: t.settings.starts_at,
    }[t.status]
    async with client.pipeline(transaction=False) as pipe:
        for status in Status:
            if status is t.status:
                pipe.zadd(_index_key(status), {t.id: score})
            else:
                pipe.zrem(_index_key(status), t.id)
        await pipe.execute()


def decode_notice(raw: bytes | str) -> dict[str, Any]:
    """The summary announced on :data:`CHANNEL`; raises ValueError for anything else."""
    notice = json.loads(raw)
    if not isinstance(notice, dict) or not isinstance(notice.get("id"), str):
        raise ValueError(f"not a tournament notice: {raw!r}")
    if not isinstance(notice.get("version"), int):
        raise ValueError(f"not a tournament notice: {raw!r}")
    return notice


async def _announce(client: aioredis.Redis, t: Tournament) -> None:
    """Tell every process the event changed (after the commit and its index: a process
    reloading it on this notice reads at least this version)."""
    await client.publish(CHANNEL, json.dumps(summary(t)))


def _key(tournament_id: str, kind: str) -> str:
    return f"tournament:{{{tournament_id}}}:{kind}"


def _index_key(status: Status) -> str:
    return f"tournaments:{status.value}"
