"""Swiss: pairing rules on hand-built standings, whole events, and Buchholz worked by hand."""

from __future__ import annotations

from lobby.tournaments import lifecycle, standings, swiss
from lobby.tournaments.model import Entrant, Format, Game, Settings, Status, Step, Tournament
from lobby.tournaments.swiss import SwissPlayer
from tests.lobby.tournaments.helpers import START, event, seat_balance


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
