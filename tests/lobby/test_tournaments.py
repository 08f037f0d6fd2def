"""Tournaments as pure values: pairing rules on hand-built standings, tie-breaks worked by hand,
the life cycle and its coded refusals, and whole events played through the pure code."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations

import pytest

from lobby.identity import Player
from lobby.tournaments import arena, knockout, lifecycle, model, round_robin, standings, swiss
from lobby.tournaments.arena import ArenaPlayer
from lobby.tournaments.model import Entrant, Format, Game, Settings, Status, Step, Tournament
from lobby.tournaments.swiss import SwissPlayer
from protocol.errors import ErrorCode, TournamentError

HOST = Player("host", "Host", guest=False)
GUEST = Player("g:01", "Guest-BoldCube-0001", guest=True)
START = 1000.0


def player(n: int) -> Player:
    return Player(f"p{n}", f"P{n}", guest=False)


def event(fmt: Format, players: int, max_players: int = 16, **extra: object) -> Tournament:
    """A tournament created at time 0 with ``players`` joined, p1 the best rated."""
    settings = Settings("osbox", fmt, START, max_players, **extra)  # type: ignore[arg-type]
    t = lifecycle.create("t", HOST, settings, 0.0)
    for n in range(1, players + 1):
        t = lifecycle.join(t, player(n), 2000 - 10 * n, 0.0)
    return t


def refused(code: ErrorCode) -> pytest.RaisesExc[TournamentError]:
    return pytest.raises(TournamentError, check=lambda error: error.code is code)


def seat_balance(t: Tournament) -> Counter[str]:
    balance: Counter[str] = Counter()
    for g in t.games:
        if g.second is not None and not g.forfeit:
            balance[g.first] += 1
            balance[g.second] -= 1
    return balance


# --- Creating, joining, withdrawing: coded refusals --------------------------------------------


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


def test_data_round_trips_through_json() -> None:
    t = lifecycle.start(event(Format.KNOCKOUT, 5), START)
    t = lifecycle.record_result(t, lifecycle.pairings(t)[1].id, 0.5, START)
    assert model.from_data(json.loads(json.dumps(model.to_data(t)))) == t
    with pytest.raises(ValueError):
        model.from_data({"id": "t"})


@pytest.mark.parametrize(
    ("field", "value"),
    [("starts_at", float("inf")), ("duration", float("nan")), ("clock_seconds", float("inf"))],
)
def test_data_with_a_number_that_is_not_finite_is_not_a_tournament(
    field: str, value: float
) -> None:
    """What an older server may have stored reads as an error, not as an event that cannot
    be written out as JSON again."""
    data = model.to_data(event(Format.KNOCKOUT, 4))
    data["settings"][field] = value
    with pytest.raises(ValueError):
        model.from_data(json.loads(json.dumps(data)))


# --- Round robin ----------------------------------------------------------------------------


def test_berger_table_of_six_matches_the_published_table() -> None:
    """FIDE's Berger table for 6: rounds 1 to 5, first-named plays first."""
    assert [round_robin.berger_round(6, r) for r in range(1, 6)] == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("n", [2, 4, 6, 8, 10, 12, 16])
def test_berger_table_meets_everyone_once_with_seats_balanced(n: int) -> None:
    games = [pair for r in range(1, n) for pair in round_robin.berger_round(n, r)]
    assert sorted(tuple(sorted(p)) for p in games) == list(combinations(range(1, n + 1), 2))
    firsts = Counter(a for a, _ in games)
    assert all(abs(2 * firsts[s] - (n - 1)) == 1 for s in range(1, n + 1))


def test_round_robin_of_five_gives_each_one_bye_and_double_swaps_seats() -> None:
    t = lifecycle.start(event(Format.ROUND_ROBIN, 5, double=True), START)
    assert lifecycle.total_rounds(t) == 10
    while True:
        for g in lifecycle.pairings(t):
            if not g.is_over:
                t = lifecycle.record_result(t, g.id, 1.0, START)
        if lifecycle.next_step(t, START) is not Step.PAIR:
            break
        t = lifecycle.pair_round(t, START)
    byes = Counter(g.first for g in t.games if g.is_bye)
    assert byes == {f"p{n}": 2 for n in range(1, 6)}
    seated = Counter(g.pairing for g in t.games if not g.is_bye)
    assert len(seated) == 20 and set(seated.values()) == {1}
    assert all((b, a) in seated for a, b in seated)
    assert all(v == 0 for v in seat_balance(t).values())


def test_round_robin_withdrawal_forfeits_every_remaining_game() -> None:
    """p4 leaves during round 1 of a four-player round robin: that game and p4's games in
    rounds 2 and 3 go to the opponents by forfeit, without rooms, and stay out of tie-breaks."""
    t = lifecycle.start(event(Format.ROUND_ROBIN, 4), START)
    t = lifecycle.withdraw(t, "p4", START)
    for _round in (2, 3):
        for g in lifecycle.pairings(t):
            if not g.is_over:
                t = lifecycle.record_result(t, g.id, 0.5, START)
        before = t
        t = lifecycle.pair_round(t, START)
        forfeits = [g for g in lifecycle.pairings(t) if g.forfeit]
        assert len(forfeits) == 1 and forfeits[0].score_of("p4") == 0.0
        assert all("p4" not in g.pairing for g in lifecycle.games_to_open(before, t))
    for g in lifecycle.pairings(t):
        if not g.is_over:
            t = lifecycle.record_result(t, g.id, 0.5, START)
    table = {s.player: s for s in standings.standings(lifecycle.finish(t, START))}
    assert table["p4"].score == 0.0 and table["p4"].withdrawn
    assert {table[p].score for p in ("p1", "p2", "p3")} == {2.0}
    assert {dict(table[p].tiebreaks)["sonneborn_berger"] for p in ("p1", "p2", "p3")} == {2.0}


def test_sonneborn_berger_on_a_worked_round_robin() -> None:
    """Seeds A1 B2 C3 D4 play the Berger table of four:

    R1: A-D 1-0, B-C draw; R2: D-C 1-0, A-B draw; R3: B-D 1-0, C-A 1-0.
    Scores: A 1.5, B 2, C 1.5, D 1. Sonneborn-Berger adds the score of each beaten opponent
    and half of each drawn one: A = D 1 + B 2/2 = 2; B = C 1.5/2 + A 1.5/2 + D 1 = 2.5;
    C = B 2/2 + A 1.5 = 2.5; D = C 1.5. So C (SB 2.5) ranks above A (SB 2) at 1.5 points.
    """
    t = lifecycle.start(event(Format.ROUND_ROBIN, 4), START)
    results: dict[int, dict[tuple[str, str | None], float]] = {
        1: {("p1", "p4"): 1.0, ("p2", "p3"): 0.5},
        2: {("p4", "p3"): 1.0, ("p1", "p2"): 0.5},
        3: {("p2", "p4"): 1.0, ("p3", "p1"): 1.0},
    }
    for number in (1, 2, 3):
        if number > 1:
            t = lifecycle.pair_round(t, START)
        assert {g.pairing for g in lifecycle.pairings(t)} == set(results[number])
        for g in lifecycle.pairings(t):
            t = lifecycle.record_result(t, g.id, results[number][(g.first, g.second)], START)
    table = [
        (s.player, s.score, dict(s.tiebreaks)["sonneborn_berger"]) for s in standings.standings(t)
    ]
    assert table == [("p2", 2.0, 2.5), ("p3", 1.5, 2.5), ("p1", 1.5, 2.0), ("p4", 1.0, 1.5)]


# --- Swiss ----------------------------------------------------------------------------------


def test_swiss_pairs_equal_scores_top_half_against_bottom_half() -> None:
    players = [SwissPlayer(f"s{n}", 1.0 if n <= 4 else 0.0, n) for n in range(1, 9)]
    pairs = {frozenset(p) for p in swiss.swiss_pairings(players)}
    assert pairs == {frozenset(p) for p in (("s1", "s3"), ("s2", "s4"), ("s5", "s7"), ("s6", "s8"))}


def test_swiss_avoids_a_rematch_even_against_unequal_scores() -> None:
    """After A-C, B-D (A, B win) and A-B, C-D (A, D win): A 2, B 1, D 1, C 0. B-D would pair
    equal scores but is a rematch; the only rematch-free pairing is A-D and B-C."""
    players = [
        SwissPlayer("A", 2.0, 1, frozenset("CB"), 0, -1),
        SwissPlayer("B", 1.0, 2, frozenset("DA"), 0, 1),
        SwissPlayer("C", 0.0, 3, frozenset("AD"), 0, 1),
        SwissPlayer("D", 1.0, 4, frozenset("BC"), 0, -1),
    ]
    assert {frozenset(p) for p in swiss.swiss_pairings(players)} == {
        frozenset("AD"),
        frozenset("BC"),
    }


def test_swiss_pairs_a_rematch_only_when_it_cannot_be_avoided() -> None:
    players = [SwissPlayer("A", 1.0, 1, frozenset("B")), SwissPlayer("B", 0.0, 2, frozenset("A"))]
    assert swiss.swiss_pairings(players) == [("A", "B")]


def test_swiss_balances_seats_within_a_score_group() -> None:
    """s1 and s3 had the first seat, s2 and s4 the second: the Dutch order (1-3, 2-4) would
    give both games a clash, so each game joins one of each and seats them alternately."""
    players = [
        SwissPlayer(f"s{n}", 1.0, n, frozenset({f"x{n}"}), 1 if n % 2 else -1, 1 if n % 2 else -1)
        for n in range(1, 5)
    ]
    pairs = swiss.swiss_pairings(players)
    assert len(pairs) == 2
    for first, second in pairs:
        assert first in ("s2", "s4") and second in ("s1", "s3")


def test_swiss_gives_the_bye_to_the_lowest_ranked_player_without_one() -> None:
    players = [SwissPlayer(f"s{n}", 0.0, n) for n in range(1, 6)]
    assert swiss.swiss_pairings(players)[-1] == ("s5", None)
    players[4] = SwissPlayer("s5", 0.0, 5, had_bye=True)
    assert swiss.swiss_pairings(players)[-1] == ("s4", None)


def test_swiss_of_seven_players_and_three_rounds_to_final_standings() -> None:
    """The higher seed wins every game; byes go to three different players, nobody meets
    twice, seats end balanced within one, and the standings follow score then Buchholz."""
    t = lifecycle.start(event(Format.SWISS, 7, rounds=3), START)
    while True:
        for g in lifecycle.pairings(t):
            if not g.is_over:
                assert g.second is not None
                t = lifecycle.record_result(t, g.id, 1.0 if g.first < g.second else 0.0, START)
        if lifecycle.next_step(t, START) is not Step.PAIR:
            break
        t = lifecycle.pair_round(t, START)
    t = lifecycle.finish(t, START)
    byes = [g.first for g in t.games if g.is_bye]
    assert len(byes) == 3 == len(set(byes))
    met = [frozenset(g.pairing) for g in t.games if not g.is_bye]
    assert len(met) == 9 == len(set(met))
    assert all(abs(b) <= 1 for b in seat_balance(t).values())
    table = standings.standings(t)
    assert table[0].player == "p1" and table[0].score == 3.0
    keys = [(-s.score, *(-v for _, v in s.tiebreaks)) for s in table]
    assert keys == sorted(keys)
    assert sum(s.score for s in table) == 9 + 3


def test_buchholz_and_median_buchholz_on_a_worked_swiss() -> None:
    """Six players, three rounds, results chosen by hand:

    R1: A-D 1-0, B-E 1-0, C-F draw; R2: A-B 1-0, C-D 1-0, E-F 0-1; R3: A-C draw, B-F 1-0, D-E 1-0.
    Scores: A 2.5, B 2, C 2, D 1, E 0, F 1.5.
    Buchholz (sum of opponents' scores): A = D1 + B2 + C2 = 5; B = E0 + A2.5 + F1.5 = 4;
    C = F1.5 + D1 + A2.5 = 5; D = A2.5 + C2 + E0 = 4.5; E = B2 + F1.5 + D1 = 4.5;
    F = C2 + E0 + B2 = 4. Median Buchholz drops the best and worst opponent: A 2, B 1.5,
    C 1.5, D 2, E 1.5, F 2. C and B tie on 2 points; C's Buchholz 5 beats B's 4.
    """
    results = [
        ("A", "D", 1.0),
        ("B", "E", 1.0),
        ("C", "F", 0.5),
        ("A", "B", 1.0),
        ("C", "D", 1.0),
        ("E", "F", 0.0),
        ("A", "C", 0.5),
        ("B", "F", 1.0),
        ("D", "E", 1.0),
    ]
    games = tuple(
        Game(f"g{k}", k // 3 + 1, k % 3 + 1, first, second, score)
        for k, (first, second, score) in enumerate(results)
    )
    entrants = tuple(Entrant(name, name, 1500.0, seed) for seed, name in enumerate("ABCDEF", 1))
    t = Tournament(
        "t",
        "host",
        Settings("osbox", Format.SWISS, START, 8, rounds=3),
        Status.FINISHED,
        entrants,
        games,
        round=3,
    )
    table = [(s.player, s.score, *(v for _, v in s.tiebreaks)) for s in standings.standings(t)]
    assert table == [
        ("A", 2.5, 5.0, 2.0),
        ("C", 2.0, 5.0, 1.5),
        ("B", 2.0, 4.0, 1.5),
        ("F", 1.5, 4.0, 2.0),
        ("D", 1.0, 4.5, 2.0),
        ("E", 0.0, 4.5, 1.5),
    ]
    cross = standings.crosstable(t)
    rows = {row["id"]: row for row in cross["players"]}
    assert [(g["round"], g["opponent"], g["seat"], g["score"]) for g in rows["C"]["games"]] == [
        (1, "F", "first", 0.5),
        (2, "D", "first", 1.0),
        (3, "A", "second", 0.5),
    ]
    assert rows["C"]["games"][1]["opponent_rank"] == 5


# --- Knockout -------------------------------------------------------------------------------


def test_knockout_brackets_give_byes_to_the_top_seeds() -> None:
    assert knockout.knockout_bracket(5) == [(1, None), (4, 5), (2, None), (3, None)]
    assert knockout.knockout_bracket(8) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert knockout.knockout_bracket(13) == [
        (1, None),
        (8, 9),
        (4, 13),
        (5, 12),
        (2, None),
        (7, 10),
        (3, None),
        (6, 11),
    ]


def test_knockout_of_five_with_a_drawn_game_replayed_to_final_standings() -> None:
    """Round 1: seeds 1-3 have byes, 4 meets 5 and draws, then 5 wins the replay (colours
    swapped). Round 2: 1 beats 5, 2 loses to 3. Final: 3 beats 1."""
    t = lifecycle.start(event(Format.KNOCKOUT, 5), START)
    assert lifecycle.total_rounds(t) == 3
    assert [g.pairing for g in lifecycle.pairings(t)] == [
        ("p1", None),
        ("p4", "p5"),
        ("p2", None),
        ("p3", None),
    ]
    t = lifecycle.record_result(t, "t.1.2", 0.5, START)
    replay = t.game("t.1.2.1")
    assert replay is not None and replay.pairing == ("p5", "p4")
    assert lifecycle.next_step(t, START) is None
    t = lifecycle.record_result(t, "t.1.2.1", 1.0, START)
    t = lifecycle.pair_round(t, START)
    assert {frozenset(g.pairing) for g in lifecycle.pairings(t)} == {
        frozenset(("p1", "p5")),
        frozenset(("p2", "p3")),
    }
    for g in lifecycle.pairings(t):
        winner = "p1" if "p1" in g.pairing else "p3"
        t = lifecycle.record_result(t, g.id, 1.0 if g.first == winner else 0.0, START)
    t = lifecycle.pair_round(t, START)
    (final,) = lifecycle.pairings(t)
    t = lifecycle.record_result(t, final.id, 1.0 if final.first == "p3" else 0.0, START)
    assert lifecycle.next_step(t, START) is Step.FINISH
    t = lifecycle.finish(t, START)
    assert [(s.player, s.score) for s in standings.standings(t)] == [
        ("p3", 3.0),
        ("p1", 2.0),
        ("p2", 1.0),
        ("p5", 1.0),
        ("p4", 0.0),
    ]


def test_knockout_match_drawn_every_time_goes_to_the_higher_seed() -> None:
    t = lifecycle.start(event(Format.KNOCKOUT, 2), START)
    game_id = "t.1.1"
    for replay in range(knockout.KNOCKOUT_MAX_GAMES):
        t = lifecycle.record_result(t, game_id, 0.5, START)
        game_id = f"t.1.1.{replay + 1}"
    assert len(t.games) == knockout.KNOCKOUT_MAX_GAMES
    t = lifecycle.finish(t, START)
    assert standings.standings(t)[0].player == "p1"


def test_knockout_withdrawal_hands_the_opponent_a_walkover() -> None:
    t = lifecycle.start(event(Format.KNOCKOUT, 4), START)
    t = lifecycle.withdraw(t, "p4", START)
    walkover = next(g for g in lifecycle.pairings(t) if "p4" in g.pairing)
    assert walkover.forfeit and walkover.score_of("p1") == 1.0
    other = next(g for g in lifecycle.pairings(t) if not g.is_over)
    t = lifecycle.record_result(t, other.id, 1.0, START)
    t = lifecycle.pair_round(t, START)
    assert "p1" in lifecycle.pairings(t)[0].pairing


# --- Arena ----------------------------------------------------------------------------------


def test_arena_points_double_while_on_fire() -> None:
    """Win 2, win 2, then on fire: win 4, draw 2 (ends the streak), win 2, loss 0 = 12."""
    assert arena.arena_points([1.0, 1.0, 1.0, 0.5, 1.0, 0.0]) == 12
    assert arena.arena_points([0.5, 0.0, 1.0]) == 3


def test_arena_pairing_never_repeats_the_last_opponent() -> None:
    waiting = [
        ArenaPlayer("a", 10, 1, last_opponent="b"),
        ArenaPlayer("b", 9, 2, last_opponent="a"),
        ArenaPlayer("c", 2, 3),
    ]
    assert arena.arena_pairings(waiting) == [("a", "c")]
    assert arena.arena_pairings(waiting[:2]) == []


def test_arena_pairs_finishers_at_once_and_closes_with_the_window() -> None:
    t = lifecycle.start(event(Format.ARENA, 4, duration=600.0), START)
    first_games = lifecycle.pairings(t)
    assert len(first_games) == 2
    t = lifecycle.record_result(t, first_games[0].id, 1.0, START + 10)
    assert len(lifecycle.pairings(t)) == 2, "the two finishers met last: they wait"
    t = lifecycle.record_result(t, first_games[1].id, 1.0, START + 20)
    new = [g for g in lifecycle.pairings(t) if not g.is_over]
    assert len(new) == 2
    assert {frozenset(g.pairing) for g in new}.isdisjoint(
        {frozenset(g.pairing) for g in first_games}
    )
    late = lifecycle.join(t, player(5), 1500, START + 30)
    assert late.entrant("p5") is not None
    for g in new:
        t = lifecycle.record_result(t, g.id, 0.5, START + 700)
    assert all(g.is_over for g in t.games), "no game starts after the window closes"
    assert lifecycle.next_step(t, START + 700) is Step.FINISH
    t = lifecycle.finish(t, START + 700)
    table = standings.standings(t)
    assert [s.score for s in table] == sorted((s.score for s in table), reverse=True)
    assert table[0].score == 3.0 and dict(table[0].tiebreaks)["performance"] > 0
