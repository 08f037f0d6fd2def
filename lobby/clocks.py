"""Time controls and game clocks as values: parse, describe, charge at commit, flag falls.

A :class:`TimeControl` is what a challenge chooses: none (``None``), live with a base time and
a Fischer increment (text ``"5+3"``: minutes + seconds), or correspondence with days per move
and an optional bank (text ``"3d"``, or ``"3d/10d"`` for a bank of at most 10 days).
A :class:`Clock` is part of a room: the time each seat has left, whose clock runs and since
when.  Every function takes the time as an argument; nothing here reads a clock.

Decisions where the issue is silent:

* Clocks start with the first move: the first player's first move is free, and until it is
  made the game can be aborted.  After that, each commit stops the mover's clock and starts
  the opponent's.
* Correspondence is the same clock with days as the unit: each move adds the days per move,
  and the time left after a move is capped at the bank (without a bank, at one move's days;
  so without a bank every move has exactly the days per move).
* Lag compensation: a move is charged for the time since the clock started less the mover's
  measured one-way lag, never more than :data:`MAX_LAG_CREDIT`.  The adjudicator waits the
  same credit past a deadline before it calls a flag fall, so that a move sent in time but
  still on its way is not refused.
* A flag fall always loses.  Boche, Che, Osbox, Ankor and Marque are placement games in which
  the opponent can nearly always still win, and none of them has a rule like chess's
  "insufficient material"; so no game needs a rules-level exception and the server names no
  game here.
* A move that arrives after its mover's time ran out is not played: the game ends on time.

Imports rules.api (Seat) only; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from rules.api import Seat

DAY = 86_400.0
MAX_LAG_CREDIT = 1.0
"""The most a move is credited for its mover's network lag, in seconds."""
AWAY_GRACE = 60.0
"""Seconds a live player may be away before the opponent may claim the win."""
MAX_LIVE_SECONDS = 3 * 3600.0
"""Longest live base time or increment a challenge may ask for."""
MAX_DAYS = 30
_LIVE_RE = re.compile(r"(\d+(?:\.\d+)?)\+(\d+)$")
_CORRESPONDENCE_RE = re.compile(r"(\d+)d(?:/(\d+)d)?$")


class Kind(Enum):
    LIVE = "live"
    CORRESPONDENCE = "correspondence"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``per_move`` is the Fischer increment (live) or the days per move in seconds
    (correspondence); ``bank`` caps the time left after a move (None: no cap)."""

    kind: Kind
    base: float
    per_move: float
    bank: float | None = None


@dataclass(frozen=True, slots=True)
class Clock:
    """The time each seat had left when its clock last stopped; ``running`` is the seat
    whose clock runs since ``since`` (None before the first move and after the game)."""

    control: TimeControl
    remaining: tuple[float, float]
    running: Seat | None = None
    since: float = 0.0


def parse_time_control(text: str | None) -> TimeControl | None:
    """The time control ``text`` names; None or "" for no clock; raises ValueError."""
    if text is None or not text.strip():
        return None
    text = text.strip().lower()
    live = _LIVE_RE.match(text)
    if live:
        base, increment = float(live.group(1)) * 60, float(live.group(2))
        if base <= 0 or base > MAX_LIVE_SECONDS or increment > MAX_LIVE_SECONDS:
            raise ValueError(
                f"a live time control needs 0 < minutes <= {MAX_LIVE_SECONDS / 60:g} "
                f"and an increment of at most {MAX_LIVE_SECONDS:g} seconds, not {text!r}"
            )
        return TimeControl(Kind.LIVE, base, increment)
    correspondence = _CORRESPONDENCE_RE.match(text)
    if correspondence:
        days = int(correspondence.group(1))
        bank = correspondence.group(2)
        if not 1 <= days <= MAX_DAYS or (bank is not None and not days <= int(bank) <= MAX_DAYS):
            raise ValueError(
                f"correspondence needs 1 to {MAX_DAYS} days per move and a bank between "
                f"the days per move and {MAX_DAYS} days, not {text!r}"
            )
        return TimeControl(
            Kind.CORRESPONDENCE,
            days * DAY,
            days * DAY,
            None if bank is None else int(bank) * DAY,
        )
    raise ValueError(
        f"a time control is minutes+increment (5+3) or days per move (3d, 3d/10d), not {text!r}"
    )


def time_control_text(control: TimeControl | None) -> str | None:
    """The text :func:`parse_time_control` reads back."""
    if control is None:
        return None
    if control.kind is Kind.LIVE:
        return f"{control.base / 60:g}+{control.per_move:g}"
    days = f"{control.per_move / DAY:g}d"
    return days if control.bank is None else f"{days}/{control.bank / DAY:g}d"


def describe(control: TimeControl | None) -> str:
    """Words for the lobby and the room."""
    if control is None:
        return "no clock"
    if control.kind is Kind.LIVE:
        return f"{control.base / 60:g} min + {control.per_move:g} s per move"
    text = f"{control.per_move / DAY:g} days per move"
    return text if control.bank is None else f"{text}, bank up to {control.bank / DAY:g} days"


def canonical_time_control(text: str | None) -> str | None:
    """``text`` written the one way rooms and lists show; raises ValueError."""
    return time_control_text(parse_time_control(text))


def new_clock(control: TimeControl) -> Clock:
    """Both seats at the base time, no clock running yet."""
    return Clock(control, (control.base, control.base))


def start(clock: Clock, seat: Seat, now: float) -> Clock:
    """``seat``'s clock runs from ``now``."""
    return replace(clock, running=seat, since=now)


def stop(clock: Clock, now: float) -> Clock:
    """No clock runs; the running seat keeps what it had left at ``now`` (at least 0)."""
    if clock.running is None:
        return clock
    left = max(0.0, remaining_at(clock, clock.running, now))
    return replace(clock, remaining=_with(clock.remaining, clock.running, left), running=None)


def charge(clock: Clock, seat: Seat, now: float, lag: float = 0.0) -> Clock:
    """The clock after ``seat`` moved at ``now``: the time used (less the lag credit) taken
    off, then the increment added and the bank's cap applied, unless the time ran out (then
    the time left is 0 or below and no clock runs).  A seat whose clock was not running (the
    first move) is not charged."""
    if clock.running is not seat:
        return replace(clock, running=None)
    credit = min(max(lag, 0.0), MAX_LAG_CREDIT)
    used = max(0.0, now - clock.since - credit)
    left = clock.remaining[seat] - used
    if left > 0:
        left += clock.control.per_move
        cap = clock.control.bank
        if clock.control.kind is Kind.CORRESPONDENCE and cap is None:
            cap = clock.control.per_move
        if cap is not None:
            left = min(left, cap)
    return replace(clock, remaining=_with(clock.remaining, seat, left), running=None)


def is_out_of_time(clock: Clock, seat: Seat) -> bool:
    """Whether ``seat``'s last charge used up its time."""
    return clock.remaining[seat] <= 0


def remaining_at(clock: Clock, seat: Seat, now: float) -> float:
    """The time ``seat`` has left at ``now`` (negative once it ran out)."""
    if clock.running is seat:
        return clock.remaining[seat] - max(0.0, now - clock.since)
    return clock.remaining[seat]


def deadline(clock: Clock) -> float | None:
    """When the running seat's time runs out, or None if no clock runs."""
    if clock.running is None:
        return None
    return clock.since + clock.remaining[clock.running]


def flag_time(clock: Clock) -> float | None:
    """When the adjudicator may call a flag fall: the deadline plus the lag credit."""
    due = deadline(clock)
    return None if due is None else due + MAX_LAG_CREDIT


def flagged(clock: Clock, now: float) -> Seat | None:
    """The seat whose flag has fallen at ``now`` (past the deadline and the lag credit)."""
    due = flag_time(clock)
    if due is None or now < due:
        return None
    return clock.running


def swap_seats(clock: Clock) -> Clock:
    """The clock after the swap rule exchanged the players' seats: time follows the player."""
    running = None if clock.running is None else clock.running.other
    return replace(clock, remaining=(clock.remaining[1], clock.remaining[0]), running=running)


def clock_data(clock: Clock) -> dict[str, Any]:
    """Plain data for the room document: the control's text and words, each seat's time
    left when its clock last stopped, the running seat and since when (seconds since the
    epoch), and the deadline, so a client can tick without knowing any rule."""
    due = deadline(clock)
    return {
        "control": time_control_text(clock.control),
        "kind": clock.control.kind.value,
        "describe": describe(clock.control),
        "remaining": list(clock.remaining),
        "running": None if clock.running is None else int(clock.running),
        "since": clock.since,
        "deadline": due,
    }


def clock_from_data(data: dict[str, Any]) -> Clock:
    """The clock :func:`clock_data` described; raises ValueError."""
    try:
        control = parse_time_control(data["control"])
        if control is None:
            raise ValueError("a clock needs a time control")
        first, second = (float(x) for x in data["remaining"])
        running = data["running"]
        return Clock(
            control,
            (first, second),
            None if running is None else Seat(running),
            float(data["since"]),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not clock data: {error}") from error


def _with(remaining: tuple[float, float], seat: Seat, value: float) -> tuple[float, float]:
    return (value, remaining[1]) if seat is Seat.FIRST else (remaining[0], value)


class LagMeter:
    """One connection's lag, from the round trips of the server's pings (times are
    arguments).  The lag is half the last round trip; a client that answers slowly only
    raises its own figure, and no move is credited more than :data:`MAX_LAG_CREDIT`."""

    def __init__(self) -> None:
        self._sent: dict[int, float] = {}
        self._count = 0
        self.lag = 0.0

    def ping(self, now: float) -> int:
        """The number of a new ping sent at ``now``; only the last few are remembered."""
        self._count += 1
        self._sent[self._count] = now
        for old in [n for n in self._sent if n <= self._count - 4]:
            del self._sent[old]
        return self._count

    def pong(self, n: object, now: float) -> None:
        """The answer to ping ``n`` arrived at ``now``; unknown numbers are ignored."""
        sent = self._sent.pop(n, None) if isinstance(n, int) else None
        if sent is not None and now >= sent:
            self.lag = (now - sent) / 2
