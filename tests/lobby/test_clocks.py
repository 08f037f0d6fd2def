"""Time controls and clocks as values: parsing, charging at commit, lag credit, flag falls."""

from __future__ import annotations

import pytest

from lobby import clocks
from lobby.clocks import DAY, MAX_LAG_CREDIT, Kind, TimeControl
from rules.api import Seat

FIRST, SECOND = Seat.FIRST, Seat.SECOND


@pytest.mark.parametrize(
    ("text", "control", "canonical"),
    [
        ("5+3", TimeControl(Kind.LIVE, 300.0, 3.0), "5+3"),
        (" 0.5+0 ", TimeControl(Kind.LIVE, 30.0, 0.0), "0.5+0"),
        ("3d", TimeControl(Kind.CORRESPONDENCE, 3 * DAY, 3 * DAY), "3d"),
        ("2D/10d", TimeControl(Kind.CORRESPONDENCE, 2 * DAY, 2 * DAY, 10 * DAY), "2d/10d"),
    ],
)
def test_time_control_text_round_trips(text: str, control: TimeControl, canonical: str) -> None:
    assert clocks.parse_time_control(text) == control
    assert clocks.time_control_text(control) == canonical
    assert clocks.canonical_time_control(text) == canonical


@pytest.mark.parametrize("text", [None, "", "  "])
def test_no_time_control_is_no_clock(text: str | None) -> None:
    assert clocks.parse_time_control(text) is None
    assert clocks.describe(None) == "no clock"


@pytest.mark.parametrize("text", ["5", "0+3", "5+x", "999+0", "0d", "3d/2d", "31d", "3d/40d"])
def test_bad_time_controls_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(ValueError, match="time control|live|correspondence"):
        clocks.parse_time_control(text)


def test_describe_names_base_increment_and_bank() -> None:
    assert clocks.describe(clocks.parse_time_control("5+3")) == "5 min + 3 s per move"
    assert clocks.describe(clocks.parse_time_control("3d/10d")) == (
        "3 days per move, bank up to 10 days"
    )


def _live(text: str = "5+3") -> clocks.Clock:
    control = clocks.parse_time_control(text)
    assert control is not None
    return clocks.new_clock(control)


def test_the_first_move_is_free_and_starts_the_opponent() -> None:
    clock = clocks.charge(_live(), FIRST, now=1000.0)
    assert clock.remaining == (300.0, 300.0) and clock.running is None
    clock = clocks.start(clock, SECOND, 1000.0)
    assert clocks.deadline(clock) == 1300.0


def test_charge_takes_the_time_used_and_adds_the_increment() -> None:
    clock = clocks.start(_live(), SECOND, 1000.0)
    clock = clocks.charge(clock, SECOND, now=1010.0)
    assert clock.remaining == (300.0, 293.0)  # 300 - 10 + 3
    assert clock.running is None
    clock = clocks.charge(clocks.start(clock, FIRST, 1010.0), FIRST, now=1011.5)
    assert clock.remaining == (301.5, 293.0)  # fast moves gain time: no cap in live play


def test_lag_credit_is_bounded_by_the_maximum() -> None:
    clock = clocks.start(_live("1+0"), FIRST, 0.0)
    assert clocks.charge(clock, FIRST, 10.0, lag=0.25).remaining[FIRST] == 50.25
    capped = clocks.charge(clock, FIRST, 10.0, lag=30.0).remaining[FIRST]
    assert capped == 60.0 - 10.0 + MAX_LAG_CREDIT
    # The credit never makes a move cost less than nothing.
    assert clocks.charge(clock, FIRST, 0.1, lag=0.9).remaining[FIRST] == 60.0
    assert clocks.charge(clock, FIRST, 10.0, lag=-5.0).remaining[FIRST] == 50.0


def test_a_move_after_the_time_ran_out_leaves_no_time_and_no_increment() -> None:
    clock = clocks.start(_live("1+5"), FIRST, 0.0)
    late = clocks.charge(clock, FIRST, 62.0)
    assert clocks.is_out_of_time(late, FIRST)
    assert late.remaining[FIRST] == -2.0
    # The same move with a lag credit that brings it inside the time counts.
    in_time = clocks.charge(clock, FIRST, 60.5, lag=0.8)
    assert not clocks.is_out_of_time(in_time, FIRST)
    assert in_time.remaining[FIRST] == pytest.approx(5.3)


def test_the_flag_falls_after_the_deadline_and_the_lag_credit() -> None:
    clock = clocks.start(_live("1+0"), SECOND, 100.0)
    assert clocks.deadline(clock) == 160.0
    assert clocks.flag_time(clock) == 160.0 + MAX_LAG_CREDIT
    assert clocks.flagged(clock, 160.0) is None
    assert clocks.flagged(clock, 160.0 + MAX_LAG_CREDIT) is SECOND
    assert clocks.flagged(clocks.new_clock(clock.control), 10_000.0) is None  # not running
    assert clocks.remaining_at(clock, SECOND, 130.0) == 30.0
    assert clocks.remaining_at(clock, FIRST, 130.0) == 60.0


def test_correspondence_without_a_bank_gives_each_move_its_days() -> None:
    control = clocks.parse_time_control("3d")
    assert control is not None
    clock = clocks.start(clocks.new_clock(control), FIRST, 0.0)
    assert clocks.deadline(clock) == 3 * DAY
    clock = clocks.charge(clock, FIRST, 1 * 3600.0)  # an hour: the unused days are not kept
    assert clock.remaining[FIRST] == 3 * DAY


def test_correspondence_bank_keeps_unused_days_up_to_the_maximum() -> None:
    control = clocks.parse_time_control("2d/5d")
    assert control is not None
    clock = clocks.start(clocks.new_clock(control), FIRST, 0.0)
    clock = clocks.charge(clock, FIRST, 0.5 * DAY)
    assert clock.remaining[FIRST] == 3.5 * DAY
    clock = clocks.charge(clocks.start(clock, FIRST, DAY), FIRST, DAY)
    assert clock.remaining[FIRST] == 5 * DAY  # 5.5 capped at the bank
    clock = clocks.start(clock, FIRST, 10 * DAY)
    assert clocks.deadline(clock) == 15 * DAY
    assert clocks.flagged(clock, 15 * DAY + MAX_LAG_CREDIT) is FIRST


def test_swap_moves_the_time_with_the_players() -> None:
    clock = clocks.Clock(_live().control, (10.0, 20.0), SECOND, 5.0)
    swapped = clocks.swap_seats(clock)
    assert swapped.remaining == (20.0, 10.0) and swapped.running is FIRST


def test_stop_keeps_what_was_left() -> None:
    clock = clocks.start(_live("1+0"), FIRST, 0.0)
    assert clocks.stop(clock, 45.0).remaining == (15.0, 60.0)
    assert clocks.stop(clock, 100.0).remaining == (0.0, 60.0)


def test_clock_data_round_trips_and_shows_the_deadline() -> None:
    clock = clocks.start(clocks.charge(_live(), FIRST, 5.0), SECOND, 5.0)
    data = clocks.clock_data(clock)
    assert data["deadline"] == 305.0 and data["running"] == 1 and data["kind"] == "live"
    assert clocks.clock_from_data(data) == clock
    with pytest.raises(ValueError):
        clocks.clock_from_data({"control": None, "remaining": [1, 2]})


def test_a_challenge_keeps_its_time_control_in_the_canonical_text() -> None:
    from lobby import challenges
    from lobby.identity import Player
    from protocol.errors import BadOptionsError

    ann = Player("g:ann", "Ann", guest=True)
    made = challenges.create(
        "c1",
        ann,
        None,
        "boche",
        "",
        challenges.Colour.MINE,
        False,
        0.0,
        0,
        time_control=" 5+3 ",
    )
    assert made.time_control == "5+3"
    with pytest.raises(BadOptionsError, match="time control"):
        challenges.create(
            "c2",
            ann,
            None,
            "boche",
            "",
            challenges.Colour.MINE,
            False,
            0.0,
            0,
            time_control="soon",
        )


def test_lag_is_half_the_round_trip_of_the_last_answered_ping() -> None:
    meter = clocks.LagMeter()
    n = meter.ping(10.0)
    meter.pong(n, 10.3)
    assert meter.lag == pytest.approx(0.15)
    meter.pong(n, 99.0)  # answered already: ignored
    meter.pong("forged", 99.0)
    assert meter.lag == pytest.approx(0.15)
    old = meter.ping(20.0)
    for i in range(4):
        meter.ping(21.0 + i)
    meter.pong(old, 20.1)  # too old to be remembered
    assert meter.lag == pytest.approx(0.15)
