"""The computer analysis finds a planted blunder in each game and reads the rest sensibly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bots.analysis import THRESHOLDS, analyse_record, evaluate, mark_of
from bots.analyst import analyse_job
from lobby.store.analyses import AnalysisJob
from rules import find_game
from rules.api import GameRules

GAMES = {
    "boche": "-size=4",
    "che": "-num_tiles=16",
    "osbox": "-size=3 -thin_knots -no_capture",
    "ankor": "-size=4",
    "marque": "-any_2",
}
"""Small boards (Ankor's smallest offers two moves a turn); in random Osbox games knots close
so rarely that only these options give a last move that could win."""
PLAYOUTS = 40


def planted_blunder(game: GameRules, options: str) -> tuple[list[str], int, set[str]]:
    """A record of seeded random moves (none ending the game) up to the first position where
    the mover could win at once and has a move that loses (at once, or by letting the opponent
    win at once; else one that draws at once); there they play that move, and the opponent
    wins where they can.  A win missed earlier costs less than all: a
    search proves only wins at once, and the next position's mover has none.

    Returns the moves, the blunder's ply (1-based) and the texts of the winning moves missed.
    """
    for seed in range(500):
        rng = random.Random(seed)
        state = game.new_game(game.parse_options(options))
        moves: list[str] = []
        while game.to_move(state) is not None and len(moves) < 300:
            mover = game.to_move(state)
            legal = list(game.legal_moves(state))
            wins = [m for m in legal if _winner(game, game.play(state, m)) == mover]
            blunder = _losing_move(game, state, legal, wins) if len(moves) >= 2 else None
            if blunder is not None:
                after = game.play(state, blunder)
                record = [*moves, game.move_text(blunder)]
                if game.to_move(after) is not None:
                    reply = next(
                        m for m in game.legal_moves(after) if _wins_at_once(game, after, m)
                    )
                    record.append(game.move_text(reply))
                return record, len(moves) + 1, {game.move_text(m) for m in wins}
            going = [m for m in legal if game.to_move(game.play(state, m)) is not None]
            if not going:
                break
            move = rng.choice(going)
            moves.append(game.move_text(move))
            state = game.play(state, move)
    raise AssertionError(f"no planted blunder found in {game.NAME}")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_analysis_marks_the_planted_blunder_as_the_largest_drop(name: str) -> None:
    game = find_game(name)
    moves, blunder_ply, winning = planted_blunder(game, GAMES[name])
    plies = analyse_record(name, GAMES[name], moves, seed="test", playouts=PLAYOUTS)

    assert [p.move for p in plies] == moves
    blunder = plies[blunder_ply - 1]
    assert blunder.mark == "blunder"
    assert blunder.drop >= 0.5
    assert blunder.best in winning
    assert max(p.drop for p in plies) == blunder.drop
    if blunder.drop == 1.0:  # only a missed win at once that loses costs all
        assert [p.ply for p in plies if p.drop == blunder.drop] == [blunder_ply]
    # The game is decided once the blunder is played; the opponent's winning reply costs nothing.
    assert plies[-1].chance in (0.0, 0.5, 1.0)
    assert plies[-1].drop == 0.0 or plies[-1] is blunder
    assert all(0.0 <= p.chance <= 1.0 for p in plies)


def test_analysis_is_the_same_for_the_same_seed() -> None:
    moves, _, _ = planted_blunder(find_game("boche"), GAMES["boche"])
    first = analyse_record("boche", GAMES["boche"], moves, seed="a", playouts=PLAYOUTS)
    again = analyse_record("boche", GAMES["boche"], moves, seed="a", playouts=PLAYOUTS)
    assert first == again


def test_a_record_that_does_not_replay_is_refused_naming_the_move() -> None:
    with pytest.raises(ValueError, match="move 2 'zz9'"):
        analyse_record("osbox", "", ["a5", "zz9"], playouts=PLAYOUTS)


def test_marks_follow_the_thresholds() -> None:
    assert [mark_of(least) for _, least in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]
    assert mark_of(THRESHOLDS[-1][1] - 0.01) is None


def _winner(game: GameRules, state: Any) -> Any:
    outcome = game.outcome(state) if game.to_move(state) is None else None
    return None if outcome is None else outcome.winner


def _wins_at_once(game: GameRules, state: Any, move: Any) -> bool:
    mover = game.to_move(state)
    return _winner(game, game.play(state, move)) == mover


def _losing_move(game: GameRules, state: Any, legal: list[Any], wins: list[Any]) -> Any:
    """A move that ends the game with the opponent winning, or after which the opponent has a
    move that wins at once, else one that ends it in a draw (None if there are no wins to
    miss, or no such move)."""
    if not wins:
        return None
    mover = game.to_move(state)
    for move in legal:
        if move in wins:
            continue
        after = game.play(state, move)
        if game.to_move(after) is None and _winner(game, after) not in (None, mover):
            return move
        if game.to_move(after) in (None, mover):
            continue
        if any(_wins_at_once(game, after, reply) for reply in game.legal_moves(after)):
            return move
    draws = (m for m in legal if m not in wins and game.to_move(game.play(state, m)) is None)
    return next(draws, None)


def test_a_search_stops_at_its_time_limit_and_still_answers() -> None:
    """A position past its time gets no playout: an even chance and a legal move."""
    game = find_game("boche")
    state = game.new_game(game.parse_options(GAMES["boche"]))
    ticks = iter(range(1_000_000))
    found = evaluate(game, state, random.Random(1), 10_000, seconds=0.5, clock=lambda: next(ticks))
    assert found.chance == 0.5
    assert found.best in set(game.legal_moves(state))


def test_an_analyst_stores_a_record_that_does_not_replay_as_failed() -> None:
    job = AnalysisJob("r1", "osbox", "", ("a5", "zz9"))
    entry = analyse_job(job, PLAYOUTS)
    assert entry["status"] == "failed" and entry["plies"] == []
    assert "move 2 'zz9'" in str(entry["message"])
    done = analyse_job(AnalysisJob("r1", "osbox", "", ("a5",)), PLAYOUTS)
    assert done["status"] == "done" and len(done["plies"]) == 1  # type: ignore[arg-type]
