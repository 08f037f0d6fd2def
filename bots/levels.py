"""The bot's levels and the share of a live clock it spends on one move.

Pure values and functions: no clock is read here (the caller passes the remaining time in), so
the time policy can be tested without waiting.  Imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass

SAFETY_MARGIN = 1.0
"""Seconds always left on the clock: network lag, process start-up and the search's overshoot."""
MIN_MOVES_LEFT = 10
"""The bot never plans for fewer moves than this, so one move never eats the clock."""
HORIZON = 40
"""Moves a game is expected to last for the bot when nothing else is known."""
INCREMENT_SHARE = 0.8
"""Share of the increment spent on top of the clock share (the rest absorbs lag)."""
MAX_CLOCK_SHARE = 0.25
"""One move never takes more than this share of the usable clock."""


@dataclass(frozen=True, slots=True)
class Level:
    """How hard the bot thinks: a playout cap, a time cap, or both (whichever ends first)."""

    number: int
    playouts: int | None
    seconds: float | None

    def __post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError(f"level {self.number} needs a playout cap or a time cap")


LEVELS: dict[int, Level] = {
    1: Level(1, playouts=100, seconds=0.04),
    2: Level(2, playouts=400, seconds=0.12),
    3: Level(3, playouts=1600, seconds=0.35),
    4: Level(4, playouts=None, seconds=1.0),
}
"""Each level searches about three to four times as much as the one below: by playouts where
the game is cheap (so those matches repeat on a loaded machine), by time where its playouts are
slow; level 4 thinks for a second.  A search's strength grows with the log of its effort, so an
even spacing gives each level a similar edge over the one below."""


def find_level(number: int) -> Level:
    """The level numbered ``number``; raises ValueError for an unknown one."""
    level = LEVELS.get(number)
    if level is None:
        known = ", ".join(map(str, sorted(LEVELS)))
        raise ValueError(f"unknown bot level {number!r} (levels: {known})")
    return level


def time_budget(
    remaining: float,
    increment: float = 0.0,
    move_number: int = 0,
    margin: float = SAFETY_MARGIN,
) -> float:
    """Seconds to think on this move under a live clock (0 means: answer at once).

    ``remaining`` is the bot's clock before the move, ``increment`` what each move adds, and
    ``move_number`` the plies played so far.  The clock is spread over the moves expected to
    remain, the increment is mostly spent, and the result never exceeds ``remaining - margin``
    (nor a quarter of it), so a bot with a legal move never loses on time.
    """
    usable = remaining - margin
    if usable <= 0:
        return 0.0
    moves_left = max(MIN_MOVES_LEFT, HORIZON - move_number // 2)
    share = usable / moves_left + INCREMENT_SHARE * max(0.0, increment)
    return max(0.0, min(share, MAX_CLOCK_SHARE * usable))
