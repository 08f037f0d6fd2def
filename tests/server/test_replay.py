"""Earlier positions replayed from the record: the same data the room showed then, and who
moved each time."""

from __future__ import annotations

import random

import pytest

from protocol.errors import BadRequestError
from server.replay import position_data
from server.rooms import Move, SeatHolder, decide, new_room, replay, room_doc

SEATS = (SeatHolder("a", "Ann"), SeatHolder("b", "Bob"))


@pytest.mark.parametrize("game", ["boche", "marque", "osbox"])
def test_every_earlier_position_is_the_one_the_room_showed(game: str) -> None:
    room = new_room("r", game, "", SEATS)
    shown = [room_doc(room)["data"]]
    movers = []
    rng = random.Random(game)
    for _ in range(12):
        doc = room_doc(room)
        if doc["outcome"] is not None:
            break
        holder = room.seats[doc["to_move"]]
        movers.append(doc["to_move"])
        legal = room.rules.legal_moves(room.state)
        texts = [room.rules.move_text(move) for move in legal]
        room = decide(room, Move(holder.id, room.version, rng.choice(texts))).room
        shown.append(room_doc(room)["data"])
    for ply, data in enumerate(shown):
        answer = position_data(room, ply)
        assert answer["data"] == data
        assert answer["ply"] == ply and answer["plies"] == len(room.record)
        assert answer["move"] == (room.record[ply - 1] if ply else None)
        assert answer["mover"] == (movers[ply - 1] if ply else None)


@pytest.mark.parametrize("ply", [-1, 1])
def test_a_move_number_the_game_has_not_reached_is_refused(ply: int) -> None:
    room = new_room("r", "marque", "", SEATS)
    with pytest.raises(BadRequestError):
        replay(room, ply)
