"""Knockout: seeded brackets, drawn games replayed, walkovers, and whole events."""

from __future__ import annotations

from lobby.tournaments import knockout, lifecycle, standings
from lobby.tournaments.model import Format, Step
from tests.lobby.tournaments.helpers import START, event


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
