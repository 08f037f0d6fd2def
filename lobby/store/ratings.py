"""Ratings in Redis: apply a finished rated game exactly once, history, leaderboards.

A thin adapter over :mod:`lobby.ratings`: it decides nothing, it reads, calls the pure update
and commits. Every key of one game's ratings shares the hash tag ``{<game>}``, so one
transaction may touch both players, the applied-game marker and the leaderboard, and the keys
stay in one slot on a cluster:

- ``rating:{<game>}:player:<id>``  hash: ``r``, ``rd``, ``vol``, ``games``, ``last``, ``name``
- ``rating:{<game>}:applied:<game id>``  the change a game made, as JSON (the exactly-once mark)
- ``rating:{<game>}:history:<id>``  list of JSON entries, oldest first
- ``rating:{<game>}:board``  sorted set of ids by rating
- ``rating:{<game>}:active``  sorted set of ids by the time of their last rated game

Applying a result WATCHes the mark and both players and commits in MULTI/EXEC, retrying when
another process got there first; a retry that finds the mark returns the recorded change.
The client is an argument (``redis.asyncio.Redis``); imports redis and :mod:`lobby`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from lobby.identity import Player, PlayerId
from lobby.ratings import Rating, age, can_be_rated, rate_game
from lobby.store.common import transaction_client

LEADERBOARD_DAYS = 30
"""A leaderboard lists players with a rated game in this many days."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated game did to both players' ratings."""

    game: str
    game_id: str
    at: float
    first: PlayerId
    second: PlayerId
    first_score: float
    first_before: Rating
    first_after: Rating
    second_before: Rating
    second_after: Rating

    def to_data(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "game_id": self.game_id,
            "at": self.at,
            "first": self.first,
            "second": self.second,
            "first_score": self.first_score,
            "first_before": self.first_before.to_data(),
            "first_after": self.first_after.to_data(),
            "second_before": self.second_before.to_data(),
            "second_after": self.second_after.to_data(),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RatingChange:
        return cls(
            game=str(data["game"]),
            game_id=str(data["game_id"]),
            at=float(data["at"]),
            first=str(data["first"]),
            second=str(data["second"]),
            first_score=float(data["first_score"]),
            first_before=Rating.from_data(data["first_before"]),
            first_after=Rating.from_data(data["first_after"]),
            second_before=Rating.from_data(data["second_before"]),
            second_after=Rating.from_data(data["second_after"]),
        )


class UnratedGameError(ValueError):
    """A game with a guest (or a player against themself) cannot change ratings."""


async def apply_result(
    client: aioredis.Redis,
    game: str,
    game_id: str,
    first: Player,
    second: Player,
    first_score: float,
    now: float,
) -> tuple[RatingChange, bool]:
    """Apply a finished rated game to both players, once; returns (change, applied now).

    Idempotent on ``game_id``: a second call, concurrent or later, changes nothing and returns
    the change the first one made with ``False``. Raises UnratedGameError if a player is a
    guest, ValueError for a score outside [0, 1].
    """
    if not can_be_rated(first, second):
        raise UnratedGameError(f"game {game_id} between {first.id} and {second.id} is not rated")
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game's score is 0, 0.5 or 1, not {first_score}")
    mark = _key(game, "applied", game_id)
    first_key, second_key = _key(game, "player", first.id), _key(game, "player", second.id)
    async with transaction_client(client, mark) as pinned:
        async with pinned.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(mark, first_key, second_key)
                    done = await pipe.get(mark)
                    if done is not None:
                        return RatingChange.from_data(json.loads(done)), False
                    first_before, first_last = _stored(await pipe.hgetall(first_key))
                    second_before, second_last = _stored(await pipe.hgetall(second_key))
                    first_before = _aged(first_before, first_last, now)
                    second_before = _aged(second_before, second_last, now)
                    first_after, second_after = rate_game(first_before, second_before, first_score)
                    change = RatingChange(
                        game,
                        game_id,
                        now,
                        first.id,
                        second.id,
                        first_score,
                        first_before,
                        first_after,
                        second_before,
                        second_after,
                    )
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(mark, json.dumps(change.to_data()))
                    for player, opponent, score, after, before in (
                        (first, second, first_score, first_after, first_before),
                        (second, first, 1.0 - first_score, second_after, second_before),
                    ):
                        key = _key(game, "player", player.id)
                        fields: dict[str, str | float] = {**_fields(after), "last": now}
                        fields["name"] = player.name
                        pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
                        pipe.hincrby(key, "games", 1)
                        entry = {
                            "game_id": game_id,
                            "at": now,
                            "opponent": opponent.id,
                            "opponent_name": opponent.name,
                            "score": score,
                            "rating": round(after.rating, 2),
                            "deviation": round(after.deviation, 2),
                            "provisional": after.is_provisional,
                            "change": round(after.rating - before.rating, 2),
                        }
                        pipe.rpush(_key(game, "history", player.id), json.dumps(entry))
                        pipe.zadd(_key(game, "board"), {player.id: after.rating})
                        pipe.zadd(_key(game, "active"), {player.id: now})
                    await pipe.execute()
                    return change, True
                except WatchError:
                    continue


async def get_rating(client: aioredis.Redis, game: str, player: PlayerId) -> Rating:
    """The player's current rating in ``game`` (a newcomer's if they have none)."""
    rating, _ = _stored(await client.hgetall(_key(game, "player", player)))
    return rating


async def history(
    client: aioredis.Redis, game: str, player: PlayerId, limit: int = 100
) -> list[dict[str, Any]]:
    """The player's last ``limit`` rated games in ``game``, oldest first, as JSON-ready dicts."""
    raw = await client.lrange(_key(game, "history", player), -limit, -1)
    return [json.loads(item) for item in raw]


async def changes(
    client: aioredis.Redis, pool: str, game_ids: list[str]
) -> dict[str, RatingChange]:
    """What each of these games did to ratings in ``pool``, by game id (games that changed
    none are left out)."""
    if not game_ids:
        return {}
    raws = await client.mget([_key(pool, "applied", game_id) for game_id in game_ids])
    return {
        game_id: RatingChange.from_data(json.loads(raw))
        for game_id, raw in zip(game_ids, raws, strict=True)
        if raw is not None
    }


async def leaderboard(
    client: aioredis.Redis,
    game: str,
    now: float,
    days: float = LEADERBOARD_DAYS,
    limit: int = 50,
    provisional: bool = False,
) -> list[dict[str, Any]]:
    """The top ``limit`` established players of ``game`` active in the last ``days`` days.

    Provisional ratings are left out, as their holders have not played enough to be ranked,
    unless ``provisional`` asks for them too (a young site has few established players).
    Each row: ``{"rank", "id", "name", "rating", "deviation", "games", "provisional",
    "text"}``, JSON-ready; ``text`` is the rating as shown, ``1500?`` while provisional.
    """
    since = now - days * 24 * 3600
    rows: list[dict[str, Any]] = []
    start, batch = 0, max(limit, 100)
    while len(rows) < limit:
        raw_ids = await client.zrevrange(_key(game, "board"), start, start + batch - 1)
        ids = [bytes(raw).decode() for raw in cast(list[bytes], raw_ids)]
        if not ids:
            break
        start += batch
        actives = await client.zmscore(_key(game, "active"), ids)
        for player, active in zip(ids, actives, strict=True):
            if active is None or active < since:
                continue
            fields = cast(dict[bytes, bytes], await client.hgetall(_key(game, "player", player)))
            rating, _ = _stored(fields)
            if rating.is_provisional and not provisional:
                continue
            rows.append(
                {
                    "rank": len(rows) + 1,
                    "id": player,
                    "name": fields.get(b"name", player.encode()).decode(),
                    "rating": round(rating.rating),
                    "deviation": round(rating.deviation),
                    "games": int(fields.get(b"games", b"0")),
                    "provisional": rating.is_provisional,
                    "text": rating.text(),
                }
            )
            if len(rows) == limit:
                break
    return rows


def _key(game: str, kind: str, name: str = "") -> str:
    suffix = f":{name}" if name else ""
    return f"rating:{{{game}}}:{kind}{suffix}"


def _stored(raw: object) -> tuple[Rating, float]:
    """The rating in a player hash and the time of its last game (0 for a newcomer)."""
    fields = cast(dict[bytes, bytes], raw)
    if not fields:
        return Rating(), 0.0
    rating = Rating(float(fields[b"r"]), float(fields[b"rd"]), float(fields[b"vol"]))
    return rating, float(fields.get(b"last", b"0"))


def _aged(rating: Rating, last: float, now: float) -> Rating:
    return age(rating, now - last) if last else rating


def _fields(rating: Rating) -> dict[str, float]:
    return {"r": rating.rating, "rd": rating.deviation, "vol": rating.volatility}
