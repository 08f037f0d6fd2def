"""A tournament's life as pure values: creating, joining, withdrawing, starting, results and
rounds, with their coded refusals."""

from __future__ import annotations

import pytest

from lobby.tournaments import lifecycle
from lobby.tournaments.model import Format, Settings, Status, Step
from protocol.errors import ErrorCode
from tests.lobby.tournaments.helpers import GUEST, HOST, START, event, player, refused


@pytest.mark.parametrize(
    "settings",
    [
        Settings("nosuchgame", Format.ARENA, START, 8, duration=600),
        Settings("osbox", Format.SWISS, START, 8, rounds=8),
        Settings("osbox", Format.SWISS, START, 9, rounds=10),
        Settings("osbox", Format.SWISS, START, 8, rounds=0),
        Settings("osbox", Format.KNOCKOUT, START, 1),
        Settings("osbox", Format.ARENA, START, 8),
        Settings("osbox", Format.ROUND_ROBIN, START, 33),
        Settings("osbox", Format.ROUND_ROBIN, START, 8, rounds=3),
        Settings("osbox", Format.KNOCKOUT, START, 8, clock_seconds=0),
        Settings("osbox", Format.KNOCKOUT, -1.0, 8),
        Settings("osbox", Format.KNOCKOUT, START, 8, clock_seconds=10**18),
        Settings("osbox", Format.KNOCKOUT, START, 8, increment_seconds=4 * 3600),
        Settings("osbox", Format.KNOCKOUT, float("inf"), 8),
        Settings("osbox", Format.KNOCKOUT, float("nan"), 8),
        Settings("osbox", Format.ARENA, START, 8, duration=float("inf")),
        Settings("osbox", Format.ARENA, START, 8, duration=7 * 24 * 3600.0),
    ],
    ids=[
        "unknown-game",
        "swiss-8-players-8-rounds",
        "swiss-9-players-10-rounds",
        "swiss-no-rounds",
        "knockout-of-one",
        "arena-without-duration",
        "round-robin-too-big",
        "rounds-outside-swiss",
        "no-clock",
        "start-in-the-past",
        "clock-beyond-the-longest",
        "increment-beyond-the-longest",
        "start-at-infinity",
        "start-not-a-number",
        "arena-for-ever",
        "arena-for-a-week",
    ],
)
def test_create_refuses_impossible_settings(settings: Settings) -> None:
    with refused(ErrorCode.IMPOSSIBLE_SETTINGS):
        lifecycle.create("t", HOST, settings, 0.0)


def test_create_accepts_the_largest_swiss_a_field_allows() -> None:
    assert lifecycle.create("t", HOST, Settings("osbox", Format.SWISS, START, 8, rounds=7), 0.0)
    assert lifecycle.create("t", HOST, Settings("osbox", Format.SWISS, START, 9, rounds=9), 0.0)


def test_create_refuses_a_guest() -> None:
    with refused(ErrorCode.GUEST_CREATOR):
        lifecycle.create("t", GUEST, Settings("osbox", Format.KNOCKOUT, START, 8), 0.0)


def test_join_refuses_full_guest_in_rated_twice_and_started() -> None:
    t = event(Format.KNOCKOUT, 2, max_players=2)
    with refused(ErrorCode.FULL):
        lifecycle.join(t, player(9), 1500, 0.0)
    with refused(ErrorCode.ALREADY_JOINED):
        lifecycle.join(event(Format.KNOCKOUT, 1), player(1), 1500, 0.0)
    with refused(ErrorCode.GUEST_IN_RATED):
        lifecycle.join(event(Format.KNOCKOUT, 1), GUEST, 1500, 0.0)
    with refused(ErrorCode.STARTED):
        lifecycle.join(lifecycle.start(t, START), player(9), 1500, START)


def test_a_guest_may_join_a_casual_event() -> None:
    t = event(Format.KNOCKOUT, 1, rated=False)
    assert [e.id for e in lifecycle.join(t, GUEST, 1500, 0.0).entrants] == ["p1", GUEST.id]


def test_withdraw_before_the_start_leaves_and_refuses_a_stranger() -> None:
    t = event(Format.SWISS, 3, rounds=3)
    left = lifecycle.withdraw(t, "p2", 0.0)
    assert [e.id for e in left.entrants] == ["p1", "p3"]
    assert left.version == t.version + 1
    with refused(ErrorCode.NOT_JOINED):
        lifecycle.withdraw(left, "p2", 0.0)


def test_start_refuses_too_early_too_few_and_twice() -> None:
    t = event(Format.SWISS, 4, rounds=5, max_players=8)
    with refused(ErrorCode.TOO_EARLY):
        lifecycle.start(t, START - 1)
    with refused(ErrorCode.TOO_FEW_PLAYERS):
        lifecycle.start(t, START)
    assert lifecycle.next_step(t, START) is Step.CANCEL
    assert lifecycle.cancel(t).status is Status.CANCELLED
    running = lifecycle.start(event(Format.KNOCKOUT, 2), START)
    with refused(ErrorCode.STARTED):
        lifecycle.start(running, START)


def test_start_seeds_by_rating_then_joining_order() -> None:
    settings = Settings("osbox", Format.KNOCKOUT, START, 8)
    t = lifecycle.create("t", HOST, settings, 0.0)
    for n, rating in ((1, 1500), (2, 1700), (3, 1500), (4, 1600)):
        t = lifecycle.join(t, player(n), rating, 0.0)
    seeds = {e.id: e.seed for e in lifecycle.start(t, START).entrants}
    assert seeds == {"p2": 1, "p4": 2, "p1": 3, "p3": 4}


def test_results_are_idempotent_and_conflicts_refused() -> None:
    t = lifecycle.start(event(Format.SWISS, 4, rounds=3), START)
    game = lifecycle.pairings(t)[0]
    once = lifecycle.record_result(t, game.id, 1.0, START)
    assert lifecycle.record_result(once, game.id, 1.0, START) is once
    with refused(ErrorCode.RESULT_CONFLICT):
        lifecycle.record_result(once, game.id, 0.0, START)
    with refused(ErrorCode.UNKNOWN_GAME):
        lifecycle.record_result(once, "t.9.9", 1.0, START)
    with refused(ErrorCode.BAD_RESULT):
        lifecycle.record_result(once, lifecycle.pairings(t)[1].id, 2.0, START)


def test_next_round_and_finish_wait_for_every_game() -> None:
    t = lifecycle.start(event(Format.SWISS, 4, rounds=1), START)
    with refused(ErrorCode.ROUND_UNFINISHED):
        lifecycle.pair_round(t, START)
    with refused(ErrorCode.NOT_OVER):
        lifecycle.finish(t, START)
    assert lifecycle.next_step(t, START) is None
    for g in lifecycle.pairings(t):
        t = lifecycle.record_result(t, g.id, 0.5, START)
    assert lifecycle.next_step(t, START) is Step.FINISH
    with refused(ErrorCode.NO_MORE_ROUNDS):
        lifecycle.pair_round(t, START)
    done = lifecycle.finish(t, START + 5)
    assert done.status is Status.FINISHED and done.finished_at == START + 5
    with refused(ErrorCode.FINISHED):
        lifecycle.join(done, player(9), 1500, START)


def test_withdrawing_during_a_swiss_forfeits_the_game_and_skips_later_rounds() -> None:
    t = lifecycle.start(event(Format.SWISS, 4, rounds=3), START)
    game = next(g for g in lifecycle.pairings(t) if "p1" in (g.first, g.second))
    t = lifecycle.withdraw(t, "p1", START)
    forfeited = t.game(game.id)
    assert forfeited is not None and forfeited.forfeit
    assert forfeited.score_of("p1") == 0.0
    for g in lifecycle.pairings(t):
        if not g.is_over:
            t = lifecycle.record_result(t, g.id, 1.0, START)
    t = lifecycle.pair_round(t, START)
    assert all("p1" not in g.pairing for g in lifecycle.pairings(t))
    assert [g.second is None for g in lifecycle.pairings(t)].count(True) == 1
