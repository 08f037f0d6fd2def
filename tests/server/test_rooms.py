"""Rooms as values: who may move, versions, swap, resign, spectators, plain data."""

from __future__ import annotations

from types import ModuleType

import pytest

from rules.api import IllegalMoveError, InvalidMoveError, Seat
from server.errors import (
    BadOptionsError,
    BadRequestError,
    GameOverError,
    NotAPlayerError,
    NotYourTurnError,
    StaleVersionError,
    UnknownGameError,
)
from server.rooms import (
    GameEnded,
    Move,
    MovePlayed,
    Resign,
    Room,
    SeatHolder,
    SeatsSwapped,
    SetSpectators,
    SpectatorsChanged,
    decide,
    new_room,
    room_doc,
    room_from_doc,
    seat_role,
)

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")


@pytest.fixture
def room(ttt: ModuleType) -> Room:
    return new_room("r1", "tictactoe", "", (ANN, BOB))


def play(room: Room, *moves: str) -> Room:
    for text in moves:
        player = room.seats[room.rules.to_move(room.state)].id  # type: ignore[index]
        room = decide(room, Move(player, room.version, text)).room
    return room


def test_a_move_bumps_the_version_and_joins_the_record(room: Room) -> None:
    transition = decide(room, Move(ANN.id, 0, "B2"))
    assert transition.room.version == 1
    assert transition.room.position_version == 1
    assert transition.room.record == ("b2",)  # canonical text
    assert transition.events == (MovePlayed(Seat.FIRST, "b2"),)
    assert room.version == 0  # values: the old room is unchanged


def test_only_the_player_to_move_may_move(room: Room) -> None:
    with pytest.raises(NotYourTurnError):
        decide(room, Move(BOB.id, 0, "a1"))


def test_a_spectator_can_never_move(room: Room) -> None:
    with pytest.raises(NotAPlayerError):
        decide(room, Move("p:eve", 0, "a1"))
    with pytest.raises(NotAPlayerError):
        decide(room, Resign("p:eve", 0))


@pytest.mark.parametrize("version", [0, 2])
def test_a_move_from_another_version_is_stale(room: Room, version: int) -> None:
    room = play(room, "a1")
    with pytest.raises(StaleVersionError):
        decide(room, Move(BOB.id, version, "b1"))


def test_spectator_counts_do_not_make_a_move_stale(room: Room) -> None:
    watched = decide(room, SetSpectators(3))
    assert watched.events == (SpectatorsChanged(3),)
    assert watched.room.version == 1
    moved = decide(watched.room, Move(ANN.id, 0, "a1"))  # seen before the count changed
    assert moved.room.version == 2 and moved.room.spectators == 3


def test_an_unchanged_spectator_count_changes_nothing(room: Room) -> None:
    assert decide(room, SetSpectators(0)).events == ()


def test_rules_errors_pass_through(room: Room) -> None:
    with pytest.raises(InvalidMoveError):
        decide(room, Move(ANN.id, 0, "zz"))
    room = play(room, "a1")
    with pytest.raises(IllegalMoveError):
        decide(room, Move(BOB.id, 1, "a1"))


def test_the_game_ends_with_its_outcome_and_refuses_more_moves(room: Room) -> None:
    room = play(room, "a1", "a2", "b1", "b2")
    transition = decide(room, Move(ANN.id, room.version, "c1"))
    assert isinstance(transition.events[-1], GameEnded)
    over = transition.room
    assert over.outcome is not None and over.outcome.winner is Seat.FIRST
    with pytest.raises(GameOverError):
        decide(over, Move(BOB.id, over.version, "c3"))
    with pytest.raises(GameOverError):
        decide(over, Resign(BOB.id, over.version))


def test_swap_exchanges_the_players_and_leaves_the_board(ttt: ModuleType) -> None:
    room = play(new_room("r2", "tictactoe", "-swap", (ANN, BOB)), "b2")
    transition = decide(room, Move(BOB.id, room.version, "swap"))
    swapped = transition.room
    assert transition.events[-1] == SeatsSwapped((BOB, ANN))
    assert swapped.seats == (BOB, ANN)
    assert room_doc(swapped)["data"]["cells"] == room_doc(room)["data"]["cells"]
    assert swapped.record == ("b2", "swap")
    # Bob now holds the first colour (the b2 stone); the second colour, Ann's, is to move.
    with pytest.raises(NotYourTurnError):
        decide(swapped, Move(BOB.id, swapped.version, "a1"))
    assert decide(swapped, Move(ANN.id, swapped.version, "a1")).room.version == 3


def test_resign_gives_the_game_to_the_other_player(room: Room) -> None:
    transition = decide(room, Resign(BOB.id, 0))  # resigning out of turn is allowed
    assert transition.room.outcome is not None
    assert transition.room.outcome.winner is Seat.FIRST
    assert transition.room.outcome.reason == "resignation"
    assert room_doc(transition.room)["to_move"] is None


def test_a_room_survives_its_plain_data(ttt: ModuleType) -> None:
    room = play(new_room("r3", "tictactoe", "-swap", (ANN, BOB)), "b2", "swap", "a1")
    room = decide(room, SetSpectators(2)).room
    assert room_from_doc(room_doc(room)) == room


def test_room_doc_carries_what_clients_draw(room: Room) -> None:
    doc = room_doc(play(room, "c3"))
    assert doc["game"] == "tictactoe" and doc["options"] == ""
    assert doc["seats"] == [{"id": "p:ann", "name": "Ann"}, {"id": "p:bob", "name": "Bob"}]
    assert doc["colours"] == ["cross", "nought"]
    assert (doc["version"], doc["to_move"], doc["record"]) == (1, 1, ["c3"])
    assert "b2" in doc["data"]["legal"] and "c3" not in doc["data"]["legal"]
    assert doc["outcome"] is None and doc["spectators"] == 0


def test_new_room_checks_the_game_options_and_id(ttt: ModuleType) -> None:
    with pytest.raises(UnknownGameError):
        new_room("r", "chess", "", (ANN, BOB))
    with pytest.raises(BadOptionsError):
        new_room("r", "tictactoe", "-size=99", (ANN, BOB))
    with pytest.raises(BadRequestError):
        new_room("room:{x}", "tictactoe", "", (ANN, BOB))
    assert new_room("r", "TicTacToe", "-size=3", (ANN, BOB)).options == ""


def test_seat_role_names_the_seat_or_none(room: Room) -> None:
    assert seat_role(room, BOB.id) is Seat.SECOND
    assert seat_role(room, "p:eve") is None
