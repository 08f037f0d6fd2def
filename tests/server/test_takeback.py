"""Takebacks as room commands: asked, granted or declined, as a move is committed; what goes
back, who may ask, and the clocks."""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

import pytest

from protocol.errors import (
    CannotTakeBackError,
    GameOverError,
    NoOfferError,
    NotAPlayerError,
    StaleVersionError,
)
from rules.api import Seat
from server.rooms import (
    Move,
    MovesTakenBack,
    Resign,
    Room,
    SeatHolder,
    Takeback,
    TakebackOffered,
    decide,
    new_room,
    room_doc,
    room_from_doc,
)

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")


@pytest.fixture
def room(ttt: ModuleType) -> Room:
    return new_room("r1", "tictactoe", "", (ANN, BOB))


def play(room: Room, *moves: str, now: float = 0.0) -> Room:
    for text in moves:
        player = room.seats[room.rules.to_move(room.state)].id  # type: ignore[index]
        room = decide(room, Move(player, room.version, text, now)).room
    return room


def ask(room: Room, player: str, action: str, now: float = 0.0) -> Room:
    return decide(room, Takeback(player, room.version, action, now)).room


def test_a_granted_takeback_undoes_the_askers_move_while_the_opponent_thinks(room: Room) -> None:
    room = play(room, "a1", "b2", "c3")
    asked = decide(room, Takeback(ANN.id, room.version, "offer"))
    assert asked.events == (TakebackOffered(ANN.id),)
    assert asked.room.position_version == room.position_version  # Bob's move stays valid
    granted = decide(asked.room, Takeback(BOB.id, asked.room.version, "accept"))
    assert granted.events == (TakebackOffered(None), MovesTakenBack(2))
    back = granted.room
    assert back.record == ("a1", "b2")
    assert back.rules.to_move(back.state) is Seat.FIRST
    assert back.position_version == back.version == asked.room.version + 1
    assert back.takeback_offer is None
    fresh = play(new_room("r1", "tictactoe", "", (ANN, BOB)), "a1", "b2")
    assert room_doc(back)["data"] == room_doc(fresh)["data"]


def test_after_the_opponents_reply_both_moves_go_back(room: Room) -> None:
    room = play(room, "a1", "b2", "c3", "a2")  # Ann asks with Bob's reply on the board
    room = ask(room, ANN.id, "offer")
    back = ask(room, BOB.id, "accept")
    assert back.record == ("a1", "b2")
    assert back.rules.to_move(back.state) is Seat.FIRST


def test_the_opponent_may_decline_and_the_game_goes_on(room: Room) -> None:
    room = play(room, "a1")
    asked = ask(room, ANN.id, "offer")
    declined = decide(asked, Takeback(BOB.id, asked.version, "decline"))
    assert declined.events == (TakebackOffered(None),)
    assert declined.room.record == ("a1",) and declined.room.takeback_offer is None
    with pytest.raises(NoOfferError):
        ask(declined.room, BOB.id, "accept")


def test_a_move_ends_the_asking(room: Room) -> None:
    room = ask(play(room, "a1"), ANN.id, "offer")
    moved = decide(room, Move(BOB.id, room.version, "b2"))
    assert TakebackOffered(None) in moved.events
    assert moved.room.takeback_offer is None


def test_who_may_ask_and_answer(room: Room) -> None:
    with pytest.raises(CannotTakeBackError):
        ask(room, ANN.id, "offer")  # no move yet
    room = play(room, "a1")
    with pytest.raises(CannotTakeBackError):
        ask(room, BOB.id, "offer")  # Bob has not moved
    with pytest.raises(NotAPlayerError):
        ask(room, "p:eve", "offer")
    asked = ask(room, ANN.id, "offer")
    with pytest.raises(NoOfferError):
        ask(asked, ANN.id, "accept")  # one's own asking
    with pytest.raises(NotAPlayerError):
        ask(asked, "p:eve", "accept")
    with pytest.raises(StaleVersionError):
        decide(asked, Takeback(BOB.id, room.position_version - 1, "accept"))
    assert decide(asked, Takeback(ANN.id, asked.version, "offer")).events == ()  # asked already


def test_rated_and_finished_games_have_no_takebacks(room: Room) -> None:
    rated = play(replace(room, rated=True), "a1")
    with pytest.raises(CannotTakeBackError):
        ask(rated, ANN.id, "offer")
    over = decide(play(room, "a1"), Resign(BOB.id, 1)).room
    with pytest.raises(GameOverError):
        ask(over, ANN.id, "offer")


def test_the_clocks_keep_their_times_and_the_player_to_move_runs_from_now(
    ttt: ModuleType,
) -> None:
    room = new_room("r1", "tictactoe", "", (ANN, BOB), time_control="5+0", now=0.0)
    room = play(room, "a1", now=10.0)  # the first move is free: Bob's clock runs from 10
    room = play(room, "b2", now=40.0)  # Bob used 30 s; Ann's clock runs from 40
    room = ask(room, BOB.id, "offer", now=45.0)
    back = ask(room, ANN.id, "accept", now=50.0)
    assert back.record == ("a1",)
    assert back.clock is not None
    assert back.clock.running is Seat.SECOND and back.clock.since == 50.0
    assert back.clock.remaining == (290.0, 270.0)  # Ann's 10 s thinking stays spent
    first_only = ask(ask(back, ANN.id, "offer", now=55.0), BOB.id, "accept", now=56.0)
    assert first_only.record == () and first_only.clock is not None
    assert first_only.clock.running is None  # back at the start: no clock runs


def test_the_asking_survives_the_plain_data(room: Room) -> None:
    room = ask(play(room, "a1"), ANN.id, "offer")
    assert room_doc(room)["takeback_offer"] == ANN.id
    assert room_from_doc(room_doc(room)).takeback_offer == ANN.id


def test_taking_back_a_swap_gives_the_seats_back(ttt: ModuleType) -> None:
    room = play(new_room("r1", "tictactoe", "-swap", (ANN, BOB)), "a1")
    swapped = decide(room, Move(BOB.id, room.version, "swap")).room
    assert swapped.seats == (BOB, ANN)
    back = ask(ask(swapped, BOB.id, "offer"), ANN.id, "accept")
    assert back.record == ("a1",) and back.seats == (ANN, BOB)
