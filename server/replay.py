"""Earlier positions of a game, replayed from its record through the rules.

The room keeps only its current position; any earlier one is its record's first moves
played again from the options, which costs a few milliseconds even for a long game and needs
nothing more kept in Redis (:func:`server.rooms.replay`, which takebacks use too).  Names no
game.  Imports rooms; no I/O.
"""

from __future__ import annotations

from typing import Any

from server.rooms import Room, replay


def position_data(room: Room, ply: int) -> dict[str, Any]:
    """What the game page draws of the position after ``ply`` moves: the rules' plain data,
    the move that led to it and the seat that made it."""
    state, movers = replay(room, ply)
    return {
        "room": room.id,
        "ply": ply,
        "plies": len(room.record),
        "move": room.record[ply - 1] if ply > 0 else None,
        "mover": None if ply == 0 or movers[-1] is None else int(movers[-1]),
        "data": room.rules.to_data(state),
    }
