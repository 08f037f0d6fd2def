"""Round robin: Berger tables, byes, double cycles, withdrawals and Sonneborn-Berger worked
by hand."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from lobby.tournaments import lifecycle, round_robin, standings
from lobby.tournaments.model import Format, Step
from tests.lobby.tournaments.helpers import START, event, seat_balance


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
