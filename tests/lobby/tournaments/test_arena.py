"""Arena: points on fire, pairing of finishers, and the window closing."""

from __future__ import annotations

from lobby.tournaments import arena, lifecycle, standings
from lobby.tournaments.arena import ArenaPlayer
from lobby.tournaments.model import Format, Step
from tests.lobby.tournaments.helpers import START, event, player


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
