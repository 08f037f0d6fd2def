"""Earlier positions of a game, replayed from its record through the rules.

The room keeps only its current position; any earlier one is its record's first moves
played again from the options, which costs a few milliseconds even for a long game and needs
nothing more kept in Redis.  :func:`positions` also says which seat made each move, which a
takeback needs (forced passes mean the seats do not simply alternate).  Names no game.
Imports rules, rooms and errors; no I/O.
"""

from __future__ import annotations

from typing import Any

from rules.api import Seat
from server.errors import BadRequestError
from server.rooms import Room


def positions(room: Room, plies: int) -> tuple[Any, list[Seat | None]]:
    """The rules state after the record's first ``plies`` moves, and the seat to move before
    each of them; raises BadRequestError for a number of moves the game does not have."""
    if not 0 <= plies <= len(room.record):
        raise BadRequestError(f"the game has moves 0 to {len(room.record)}, not {plies}")
    rules = room.rules
    state = rules.new_game(rules.parse_options(room.options))
    movers: list[Seat | None] = []
    for text in room.record[:plies]:
        movers.append(rules.to_move(state))
        state = rules.play(state, rules.parse_move(state, text))
    return state, movers


def position_data(room: Room, ply: int) -> dict[str, Any]:
    """What the game page draws of the position after ``ply`` moves: the rules' plain data,
    the move that led to it and the seat that made it."""
    state, movers = positions(room, ply)
    return {
        "room": room.id,
        "ply": ply,
        "plies": len(room.record),
        "move": room.record[ply - 1] if ply > 0 else None,
        "mover": None if ply == 0 or movers[-1] is None else int(movers[-1]),
        "data": room.rules.to_data(state),
    }
