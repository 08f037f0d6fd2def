"""The tournament's values, shared by every format: settings, entrants, games, the
tournament itself, and its plain data (:func:`to_data`, :func:`from_data`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from lobby.identity import PlayerId

MAX_PLAYERS = 10_000


Pairing = tuple[PlayerId, PlayerId | None]
"""(first player, second player) of one game, or (player, None) for a bye."""


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ARENA = "arena"


class Status(StrEnum):
    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Step(StrEnum):
    """What a scheduler should do next with a tournament (see :func:`next_step`)."""

    START = "start"
    CANCEL = "cancel"
    PAIR = "pair"
    FINISH = "finish"


@dataclass(frozen=True, slots=True)
class Settings:
    """What the creator chose. ``rounds`` is for Swiss only, ``double`` for round robin only,
    ``duration`` (seconds) for arena only."""

    game: str
    format: Format
    starts_at: float
    max_players: int
    rated: bool = True
    options: str = ""
    clock_seconds: int = 300
    increment_seconds: int = 0
    rounds: int = 0
    double: bool = False
    duration: float = 0.0
    name: str = ""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in the event; ``seed`` is 1 for the best rated, fixed at the start."""

    id: PlayerId
    name: str
    rating: float
    seed: int = 0
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the event. ``score`` is the first player's (1, 0.5, 0) once it is over."""

    id: str
    round: int
    board: int
    first: PlayerId
    second: PlayerId | None
    score: float | None = None
    forfeit: bool = False
    replay: int = 0

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def is_over(self) -> bool:
        return self.score is not None

    @property
    def is_played(self) -> bool:
        """Whether the game was really played over the board (not a bye, not a forfeit)."""
        return self.second is not None and self.score is not None and not self.forfeit

    @property
    def pairing(self) -> Pairing:
        return (self.first, self.second)

    def score_of(self, player: PlayerId) -> float:
        assert self.score is not None
        return self.score if player == self.first else 1.0 - self.score

    def opponent_of(self, player: PlayerId) -> PlayerId | None:
        return self.second if player == self.first else self.first


@dataclass(frozen=True, slots=True)
class Tournament:
    id: str
    creator: PlayerId
    settings: Settings
    status: Status = Status.CREATED
    entrants: tuple[Entrant, ...] = ()
    games: tuple[Game, ...] = ()
    round: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    version: int = 1

    def entrant(self, player: PlayerId) -> Entrant | None:
        return next((e for e in self.entrants if e.id == player), None)

    @property
    def active(self) -> tuple[Entrant, ...]:
        return tuple(e for e in self.entrants if not e.withdrawn)

    @property
    def ends_at(self) -> float | None:
        """The close of an arena's window (from its start); None for other formats."""
        if self.settings.format is not Format.ARENA:
            return None
        return (self.started_at or self.settings.starts_at) + self.settings.duration

    def game(self, game_id: str) -> Game | None:
        return next((g for g in self.games if g.id == game_id), None)


def to_data(tournament: Tournament) -> dict[str, Any]:
    """Plain JSON-safe data that :func:`from_data` turns back into the same value."""
    t, s = tournament, tournament.settings
    return {
        "id": t.id,
        "creator": t.creator,
        "settings": {
            "game": s.game,
            "format": s.format.value,
            "starts_at": s.starts_at,
            "max_players": s.max_players,
            "rated": s.rated,
            "options": s.options,
            "clock_seconds": s.clock_seconds,
            "increment_seconds": s.increment_seconds,
            "rounds": s.rounds,
            "double": s.double,
            "duration": s.duration,
            "name": s.name,
        },
        "status": t.status.value,
        "entrants": [[e.id, e.name, e.rating, e.seed, e.withdrawn] for e in t.entrants],
        "games": [
            [g.id, g.round, g.board, g.first, g.second, g.score, g.forfeit, g.replay]
            for g in t.games
        ],
        "round": t.round,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "version": t.version,
    }


def from_data(data: Mapping[str, Any]) -> Tournament:
    """The tournament that :func:`to_data` wrote; raises ValueError for anything else
    (a number that is not finite included: no event may hold one)."""
    try:
        raw = data["settings"]
        settings = Settings(
            game=str(raw["game"]),
            format=Format(raw["format"]),
            starts_at=_finite(raw["starts_at"]),
            max_players=int(raw["max_players"]),
            rated=bool(raw["rated"]),
            options=str(raw["options"]),
            clock_seconds=int(raw["clock_seconds"]),
            increment_seconds=int(raw["increment_seconds"]),
            rounds=int(raw["rounds"]),
            double=bool(raw["double"]),
            duration=_finite(raw["duration"]),
            name=str(raw["name"]),
        )
        return Tournament(
            id=str(data["id"]),
            creator=str(data["creator"]),
            settings=settings,
            status=Status(data["status"]),
            entrants=tuple(
                Entrant(str(i), str(n), _finite(r), int(s), bool(w))
                for i, n, r, s, w in data["entrants"]
            ),
            games=tuple(
                Game(
                    str(i),
                    int(r),
                    int(b),
                    str(f),
                    None if s is None else str(s),
                    None if sc is None else _finite(sc),
                    bool(ff),
                    int(rp),
                )
                for i, r, b, f, s, sc, ff, rp in data["games"]
            ),
            round=int(data["round"]),
            started_at=None if data["started_at"] is None else _finite(data["started_at"]),
            finished_at=None if data["finished_at"] is None else _finite(data["finished_at"]),
            version=int(data["version"]),
        )
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"not a tournament: {error}") from error


def bump(t: Tournament, **changes: Any) -> Tournament:
    """``t`` with ``changes`` and the next version (every transition that changes it)."""
    return replace(t, version=t.version + 1, **changes)


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{number} is not a finite number")
    return number
