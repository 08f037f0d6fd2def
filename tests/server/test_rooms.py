"""Rooms as values: who may move, versions, swap, resign, spectators, plain data."""

from __future__ import annotations

from types import ModuleType

import pytest

from protocol.errors import (
    BadOptionsError,
    BadRequestError,
    CannotAbortError,
    GameNotOverError,
    GameOverError,
    NoOfferError,
    NotAPlayerError,
    NotYourTurnError,
    StaleVersionError,
    UnknownGameError,
)
from rules.api import IllegalMoveError, InvalidMoveError, Seat
from server.rooms import (
    ABORTED,
    IDLE,
    Abort,
    Draw,
    DrawOffered,
    GameEnded,
    Idle,
    IdleLimits,
    Move,
    MovePlayed,
    Rematch,
    RematchAgreed,
    Resign,
    Room,
    SeatHolder,
    SeatsSwapped,
    SetSpectators,
    SpectatorsChanged,
    decide,
    idle_deadline,
    new_room,
    rematch_room,
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
    assert "legal" not in doc["data"]  # only the seat's player asks for its moves
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


# --- abort, draw, rematch --------------------------------------------------------------------


def test_abort_ends_without_a_winner_until_both_players_moved(room: Room) -> None:
    one = play(room, "a1")
    aborted = decide(one, Abort(BOB.id, one.version)).room
    assert aborted.outcome is not None and aborted.outcome.winner is None
    assert aborted.outcome.reason == "aborted"
    two = play(room, "a1", "b1")
    with pytest.raises(CannotAbortError):
        decide(two, Abort(ANN.id, two.version))
    with pytest.raises(NotAPlayerError):
        decide(one, Abort("p:eve", one.version))


def test_a_draw_offer_lapses_when_the_opponent_moves(room: Room) -> None:
    offered = decide(room, Draw(ANN.id, 0, "offer")).room
    assert offered.draw_offer == ANN.id
    assert offered.position_version == 0  # an offer does not make the opponent's move stale
    with pytest.raises(NoOfferError):
        decide(offered, Draw(ANN.id, offered.version, "accept"))  # not one's own
    still = play(offered, "a1")  # the offerer moved: the offer stands
    assert still.draw_offer == ANN.id
    lapsed = decide(still, Move(BOB.id, still.version, "b1"))
    assert lapsed.room.draw_offer is None and DrawOffered(None) in lapsed.events


def test_a_draw_accepted_or_offered_back_ends_the_game_drawn(room: Room) -> None:
    offered = decide(room, Draw(ANN.id, 0, "offer")).room
    for action in ("accept", "offer"):
        drawn = decide(offered, Draw(BOB.id, offered.version, action)).room
        assert drawn.outcome is not None
        assert (drawn.outcome.winner, drawn.outcome.reason) == (None, "agreement")
    declined = decide(offered, Draw(BOB.id, offered.version, "decline")).room
    assert declined.draw_offer is None and declined.outcome is None
    with pytest.raises(NoOfferError):
        decide(declined, Draw(BOB.id, declined.version, "decline"))


def test_a_rematch_needs_both_players_and_reverses_the_first_move(room: Room) -> None:
    with pytest.raises(GameNotOverError):
        decide(room, Rematch(ANN.id))
    over = decide(play(room, "a1"), Resign(BOB.id, 1)).room
    asked = decide(over, Rematch(BOB.id)).room
    assert asked.rematch is None and asked.rematch_offers == (BOB.id,)
    assert decide(asked, Rematch(BOB.id)).events == ()
    with pytest.raises(NotAPlayerError):
        decide(asked, Rematch("p:eve"))
    agreed = decide(asked, Rematch(ANN.id))
    assert agreed.room.rematch is not None
    assert RematchAgreed(agreed.room.rematch) in agreed.events
    new = rematch_room(agreed.room)
    assert new.seats == (BOB, ANN) and new.id == agreed.room.rematch
    assert room_from_doc(room_doc(agreed.room)) == agreed.room


def test_a_rematch_after_a_swap_still_gives_the_first_move_to_the_other(ttt: ModuleType) -> None:
    room = new_room("r2", "tictactoe", "-swap", (ANN, BOB))
    swapped = play(room, "a1", "swap")
    assert swapped.seats == (BOB, ANN)
    over = decide(swapped, Resign(ANN.id, swapped.version)).room
    agreed = decide(decide(over, Rematch(ANN.id)).room, Rematch(BOB.id)).room
    assert rematch_room(agreed).seats == (BOB, ANN)  # ann moved first before; bob now


def test_rooms_stored_before_draws_and_rematches_still_read(room: Room) -> None:
    doc = room_doc(room)
    del doc["draw_offer"], doc["rematch"]
    assert room_from_doc(doc) == room


def test_rooms_stored_before_ratings_and_times_were_kept_still_read(ttt: ModuleType) -> None:
    room = new_room("r5", "tictactoe", "", (ANN, BOB), rated=True, now=100.0)
    assert room_from_doc(room_doc(room)) == room
    doc = room_doc(room)
    del doc["rated"], doc["created"], doc["moved_at"]
    old = room_from_doc(doc)
    assert (old.rated, old.created, old.moved_at) == (False, None, None)
    assert idle_deadline(old, LIMITS) is None  # no idle limit for what is not known


def test_a_rematch_keeps_the_rating_and_is_made_when_agreed(ttt: ModuleType) -> None:
    rated = new_room("r6", "tictactoe", "", (ANN, BOB), rated=True, now=100.0)
    over = decide(rated, Resign(ANN.id, 0)).room
    agreed = decide(decide(over, Rematch(ANN.id)).room, Rematch(BOB.id)).room
    again = rematch_room(agreed, 200.0)
    assert (again.rated, again.created, again.moved_at) == (True, 200.0, 200.0)


LIMITS = IdleLimits(unstarted=600.0, unstarted_correspondence=7 * 86400.0, untimed=3600.0)


def test_a_game_nobody_started_is_aborted_at_its_idle_limit(ttt: ModuleType) -> None:
    room = new_room("r7", "tictactoe", "", (ANN, BOB), "5+3", now=100.0)
    assert idle_deadline(room, LIMITS) == 700.0
    assert decide(room, Idle(699.0, LIMITS)).events == ()
    ended = decide(room, Idle(700.0, LIMITS))
    assert [type(event) for event in ended.events] == [GameEnded]
    assert ended.room.outcome is not None and ended.room.outcome.reason == ABORTED
    assert ended.room.outcome.winner is None and idle_deadline(ended.room, LIMITS) is None
    assert decide(ended.room, Idle(10**9, LIMITS)).events == ()  # ends once


def test_a_correspondence_game_nobody_started_waits_longer(ttt: ModuleType) -> None:
    room = new_room("r8", "tictactoe", "", (ANN, BOB), "3d", now=100.0)
    assert idle_deadline(room, LIMITS) == 100.0 + 7 * 86400


def test_a_running_clock_ends_a_timed_game_not_the_idle_limit(ttt: ModuleType) -> None:
    room = new_room("r9", "tictactoe", "", (ANN, BOB), "5+3", now=100.0)
    moved = decide(room, Move(ANN.id, 0, "a1", now=150.0)).room
    assert moved.moved_at == 150.0 and idle_deadline(moved, LIMITS) is None
    assert decide(moved, Idle(10**9, LIMITS)).events == ()


def test_an_untimed_game_ends_idle_after_its_last_move(ttt: ModuleType) -> None:
    room = new_room("r10", "tictactoe", "", (ANN, BOB), now=100.0)
    one = decide(room, Move(ANN.id, 0, "a1", now=150.0)).room
    assert idle_deadline(one, LIMITS) == 150.0 + 3600
    aborted = decide(one, Idle(150.0 + 3600, LIMITS)).room.outcome
    assert aborted is not None and aborted.reason == ABORTED  # fewer than two moves
    two = decide(one, Move(BOB.id, 1, "b1", now=200.0)).room
    assert decide(two, Idle(150.0 + 3600, LIMITS)).events == ()
    idle = decide(two, Idle(200.0 + 3600, LIMITS)).room.outcome
    assert idle is not None and (idle.winner, idle.reason) == (None, IDLE)
