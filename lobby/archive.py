"""Searching finished games: the query a request asks, and its cursor.

Finished games are found newest first by the time they ended, filtered by a player, a game
and a range of days (UTC).  A page ends with a cursor naming its last game (the time it ended
and its room id); the next page starts just after it, so games finishing meanwhile never
shift the pages.  Pure; imports :mod:`rules` only for the names of the games.
"""

from __future__ import annotations

import calendar
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from rules import GAMES

PAGE_SIZE = 20
"""Finished games in a page when the request does not say."""
MAX_PAGE_SIZE = 50
"""The most finished games one page holds."""
MAX_PLAYER_LENGTH = 64
"""The longest player name or id a search accepts."""
DAY = 24 * 3600
_PARAMETERS = frozenset({"player", "game", "from", "to", "before", "limit"})


class BadQueryError(ValueError):
    """A search parameter that means nothing (its message says which and why)."""


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page ended: the last game's end time and room id (ties broken by the id)."""

    finished: float
    room_id: str

    def text(self) -> str:
        return f"{self.finished!r}/{self.room_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor:
        """A cursor from :meth:`text`; raises BadQueryError."""
        when, slash, room_id = text.partition("/")
        try:
            finished = float(when)
        except ValueError:
            finished = math.nan
        if not slash or not room_id or not math.isfinite(finished):
            raise BadQueryError(f"before={text!r} is not a cursor a page gave (time/room)")
        return cls(finished, room_id)

    def comes_after(self, finished: float, room_id: str) -> bool:
        """Whether a game ending at ``finished`` in ``room_id`` lists after this cursor (newest
        first; among games ending at the same time, room ids in reverse order, as Redis
        gives them)."""
        return finished < self.finished or (finished == self.finished and room_id < self.room_id)


@dataclass(frozen=True, slots=True)
class Query:
    """A search of finished games: each filter None when not asked."""

    player: str | None = None
    """A player's id (``u:``/``g:``) or name, as asked: the store resolves a name."""
    game: str | None = None
    since: float | None = None
    """The earliest end time (inclusive), seconds since the epoch."""
    until: float | None = None
    """The latest end time (exclusive)."""
    before: Cursor | None = None
    limit: int = PAGE_SIZE


def parse_query(params: Mapping[str, str]) -> Query:
    """A search from a request's parameters: ``player`` (id or name), ``game``, ``from`` and
    ``to`` (days ``YYYY-MM-DD`` in UTC, both included), ``before`` (a page's cursor) and
    ``limit`` (1 to :data:`MAX_PAGE_SIZE`).  Raises BadQueryError naming the parameter."""
    unknown = sorted(set(params) - _PARAMETERS)
    if unknown:
        known = ", ".join(sorted(_PARAMETERS))
        raise BadQueryError(f"unknown parameter {unknown[0]!r}: a search takes {known}")
    player = params.get("player", "").strip() or None
    if player is not None and len(player) > MAX_PLAYER_LENGTH:
        raise BadQueryError(f"player: a name or id of at most {MAX_PLAYER_LENGTH} characters")
    game = params.get("game", "").strip().lower() or None
    if game is not None and game not in GAMES:
        raise BadQueryError(f"game={game!r} is none of {', '.join(GAMES)}")
    since = _day(params, "from")
    until = _day(params, "to")
    if until is not None:
        until += DAY
    if since is not None and until is not None and since >= until:
        raise BadQueryError("from: the first day comes after the last (to)")
    before_text = params.get("before", "").strip()
    before = Cursor.parse(before_text) if before_text else None
    limit_text = params.get("limit", "").strip()
    limit = PAGE_SIZE
    if limit_text:
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= MAX_PAGE_SIZE:
            raise BadQueryError(f"limit={limit_text!r}: a page holds 1 to {MAX_PAGE_SIZE} games")
        limit = int(limit_text)
    return Query(player, game, since, until, before, limit)


def _day(params: Mapping[str, str], name: str) -> float | None:
    """The start of the day a parameter names (UTC), or None when it is absent."""
    text = params.get(name, "").strip()
    if not text:
        return None
    try:
        day = time.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise BadQueryError(f"{name}={text!r} is not a day written YYYY-MM-DD") from None
    return float(calendar.timegm(day))
