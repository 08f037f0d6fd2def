"""The worker's reading of a room: the position from its record, whose turn, the clock's share."""

from __future__ import annotations

import pytest

from bots.levels import time_budget
from bots.worker import BadPositionError, Position, bot_seat, clock_seconds, is_bot_turn, ws_url
from lobby import clocks
from rules import find_game
from rules.api import Seat


def room_doc(record: list[str], **changes: object) -> dict[str, object]:
    doc: dict[str, object] = {
        "room": "r1",
        "game": "boche",
        "options": "-size=3",
        "record": record,
        "seats": [{"id": "g:ann", "name": "Ann"}, {"id": "u:bot-1", "name": "bot-1"}],
        "to_move": len(record) % 2,
        "outcome": None,
    }
    doc.update(changes)
    return doc


def test_the_position_replays_the_record_and_then_only_new_moves() -> None:
    rules = find_game("boche")
    state = rules.new_game(rules.parse_options("-size=3"))
    first = rules.move_text(next(iter(rules.legal_moves(state))))
    position = Position.of(room_doc([first]))
    assert position.plies == 1
    after_first = rules.play(state, rules.parse_move(state, first))
    assert position.state == after_first
    later = rules.move_text(next(iter(rules.legal_moves(after_first))))
    position.catch_up(room_doc([first, later]))
    assert position.plies == 2
    with pytest.raises(BadPositionError):
        position.catch_up(room_doc([first]))


@pytest.mark.parametrize(
    "doc",
    [room_doc(["zz9"]), room_doc([], game="no-such-game"), room_doc([], options="-size=99")],
)
def test_a_record_the_rules_refuse_is_a_bad_position(doc: dict[str, object]) -> None:
    with pytest.raises(BadPositionError):
        Position.of(doc)


def test_the_bots_seat_and_turn_follow_the_seats_now() -> None:
    doc = room_doc(["a1"])
    assert bot_seat(doc, "u:bot-1") == 1 and is_bot_turn(doc, "u:bot-1")
    swapped = room_doc(["a1", "swap"], seats=list(reversed(doc["seats"])))  # type: ignore[call-overload]
    assert bot_seat(swapped, "u:bot-1") == 0 and is_bot_turn(swapped, "u:bot-1")
    over = room_doc(["a1"], outcome={"winner": 0, "reason": "resignation"}, to_move=None)
    assert not is_bot_turn(over, "u:bot-1")
    assert bot_seat(doc, "u:bot-2") is None


def test_the_clock_share_counts_the_running_clock_down_to_now() -> None:
    control = clocks.parse_time_control("1+2")
    assert control is not None
    clock = clocks.start(clocks.new_clock(control), Seat.SECOND, now=1000.0)
    doc = room_doc(["a1"], clock=clocks.clock_data(clock))
    seconds = clock_seconds(doc, 1, now=1030.0)
    assert seconds == pytest.approx(time_budget(30.0, 2.0, 1))
    assert clock_seconds(doc, 0, now=1030.0) == pytest.approx(time_budget(60.0, 2.0, 1))
    flagged = clock_seconds(doc, 1, now=1061.0)
    assert flagged == 0.0
    assert clock_seconds(room_doc(["a1"]), 1) is None
    assert clock_seconds(room_doc(["a1"], clock={"remaining": "?"}), 1) is None


def test_the_server_address_becomes_its_websocket() -> None:
    assert ws_url("http://h:1") == "ws://h:1/ws"
    assert ws_url("https://h/") == "wss://h/ws"
    assert ws_url("ws://h:1/ws") == "ws://h:1/ws"
