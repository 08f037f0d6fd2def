"""What the lobby shows of a room, derived from the committed room alone.

A room's line in the live list, its finished game for both players' histories, the rating
result of a rated game, and the mark a commit leaves in the lobby's outbox (see
:mod:`server.outbox`): the live line and the idle deadline as of that commit, so the outbox
is drained without reading the rooms back (a finished room is read back once, for its record).
Everything here is a function of the room, so applying it twice gives the same thing.
Pure; imports msgpack, lobby (games, clocks, identity, ratings) and rooms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from lobby import clocks
from lobby.games import FinishedGame, LiveGame, LiveLine, finish
from lobby.identity import Player, is_guest_id, player_data
from lobby.ratings import can_be_rated, rating_pool
from server.rooms import (
    ABORTED,
    IDLE,
    Event,
    GameEnded,
    IdleLimits,
    MovePlayed,
    MovesTakenBack,
    Room,
    RoomId,
    SeatHolder,
    SeatsSwapped,
    SpectatorsChanged,
    idle_deadline,
    starting_seats,
)

LISTED_EVENTS = (MovePlayed, MovesTakenBack, SeatsSwapped, GameEnded, SpectatorsChanged)
"""The changes the live list shows (a move's number and who is to move, seats, the end,
spectators); presence, draw offers and rematch requests do not show there."""

UNRATED_ENDS = (ABORTED, IDLE)
"""Games that end this way change no rating: nobody really played them."""


@dataclass(frozen=True, slots=True)
class Mark:
    """A room's entry in the outbox: its version, and its live line, or None once over."""

    room_id: RoomId
    version: int
    live: LiveLine | None
    idle_at: float | None
    """When the room ends for want of moves (see :func:`server.rooms.idle_deadline`)."""


def is_listed(events: tuple[Event, ...]) -> bool:
    """Whether a commit with these events changes what the lobby shows of the room."""
    return any(isinstance(event, LISTED_EVENTS) for event in events)


def player(holder: SeatHolder) -> Player:
    return Player(holder.id, holder.name, is_guest_id(holder.id))


def live_entry(room: Room) -> LiveGame:
    """The room's line in the live list."""
    return LiveGame.from_data(live_data(room))


def live_data(room: Room) -> dict[str, Any]:
    """The room's line in the live list as plain data (:meth:`LiveGame.to_data`), made
    directly: every listed commit makes one for its outbox mark."""
    to_move = None if room.outcome is not None else room.rules.to_move(room.state)
    clock = room.clock
    first, second = room.seats
    return {
        "room_id": room.id,
        "game": room.game,
        "options": room.options,
        "players": [_player_data(first), _player_data(second)],
        "rated": room.rated,
        "started": room.created or 0.0,
        "move_number": len(room.record),
        "spectators": room.spectators,
        "time_control": None if clock is None else clocks.time_control_text(clock.control),
        "waiting_for": None if to_move is None else room.seats[to_move].id,
        "deadline": None if clock is None else clocks.deadline(clock),
        "version": room.version,
    }


def _player_data(holder: SeatHolder) -> dict[str, object]:
    return player_data(player(holder))


def finished_game(room: Room, now: float) -> FinishedGame:
    """The finished room as both players' histories keep it; raises ValueError while the game
    goes on."""
    outcome = room.outcome
    if outcome is None:
        raise ValueError(f"room {room.id} is still being played")
    first, second = starting_seats(room)
    return finish(
        live_entry(room),
        room.record,
        outcome.winner,
        outcome.reason,
        now,
        first_players=(player(first), player(second)),
    )


@dataclass(frozen=True, slots=True)
class RatingResult:
    """What a finished rated game does to ratings: in ``pool``, ``first`` (the first seat's
    holder at the end) scored ``first_score`` against ``second``."""

    pool: str
    first: Player
    second: Player
    first_score: float


def rating_result(room: Room) -> RatingResult | None:
    """The rating result of a finished room; None when it changes no rating (unrated, still
    going, aborted, idle, or a player who cannot be rated)."""
    outcome = room.outcome
    if not room.rated or outcome is None or outcome.reason in UNRATED_ENDS:
        return None
    first, second = player(room.seats[0]), player(room.seats[1])
    if not can_be_rated(first, second):
        return None
    score = 0.5 if outcome.winner is None else (1.0 if int(outcome.winner) == 0 else 0.0)
    return RatingResult(rating_pool(room.game, first, second), first, second, score)


def mark(room: Room, limits: IdleLimits) -> bytes:
    """The outbox mark of ``room`` as committed (msgpack: every listed commit makes one)."""
    data: dict[str, Any] = {
        "version": room.version,
        "live": None if room.outcome is not None else live_data(room),
        "idle_at": idle_deadline(room, limits),
    }
    packed: bytes = msgpack.packb(data, use_bin_type=True)
    return packed


def parse_mark(room_id: RoomId, raw: bytes | str) -> Mark:
    """The mark :func:`mark` wrote; raises ValueError on other data."""
    try:
        data = msgpack.unpackb(raw, raw=False)
        live = data["live"]
        idle_at = data["idle_at"]
        return Mark(
            room_id,
            int(data["version"]),
            None if live is None else LiveLine.from_data(live),
            None if idle_at is None else float(idle_at),
        )
    except (KeyError, TypeError, ValueError, msgpack.UnpackException) as error:
        raise ValueError(f"not an outbox mark of room {room_id}: {error!r}") from error
