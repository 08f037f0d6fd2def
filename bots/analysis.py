"""Computer analysis of a finished game: each position's winning chance, the move the search
preferred, and how much each move played cost its player.

A game's record is replayed through the rules; every position gets a search of a fixed number
of playouts (the tree search of :mod:`bots.mcts`, whose root is set up here as its
``choose_move`` does), which estimates the chance of the player to move: their share of the
wins over all the root's playouts, smoothed as (wins + 1) / (playouts + 2), so that no
estimate claims a certainty it has not proved.  (The visited-most move's own share, read
from a few playouts each, gave the side to move the best of several noisy readings: every
position looked better for its mover than the next, and every move a blunder.  The mean
over the search leans the other way, so drops are if anything understated.)  The move it
prefers is still the visited-most one.  Only proofs give 1 or 0: a move that wins at once
is worth 1, and a position where every move loses at once, or lets the opponent win at
once, is worth 0.
Chances are the *players'*, not the colours' (the swap exchanges colours, not players): the
graph shows the chance of the player who made the first move.

A move's drop is its player's chance before it (what the best move keeps) less their chance
after it (the next position's estimate, seen from the other side); a move the search itself
preferred has no drop.  The drops mark the move as in :data:`THRESHOLDS`.  Deterministic for
a given seed: each position's search has a generator of its own, seeded by the seed and the
ply.  Pure: imports ``rules`` and the search helpers of :mod:`bots.mcts`; no I/O.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bots.mcts import SAMPLED_AT_ROOT, _iterate, _Node, _reward_seat, _Search
from rules import find_game
from rules.api import GameRules
from rules.pie import is_swap

PLAYOUTS = 200
"""Playouts per position: about the budget of the bots' easy levels, enough to tell a won
position from a lost one; a finer reading would cost every game many times longer."""
POSITION_SECONDS = 1.0
"""Time one position's search may take at most, whatever its playouts (the analysts pass it):
a playout of Ankor's default board, whose cubes wander for hundreds of plies, costs many
times one of Osbox.  Where it binds, the analysis is no longer the same from run to run."""
MAX_PLIES = 400
"""Plies analysed at most (the first ones); longer games are rare and cost the most."""
THRESHOLDS = (("blunder", 0.30), ("mistake", 0.20), ("inaccuracy", 0.10))
"""A move that cost its player at least this much winning chance (out of 1) is marked so.
Lichess marks chess moves by drops of 0.15, 0.10 and 0.05 in the same terms; these are
twice as large because a few hundred playouts read a chance only to a few hundredths."""
MARK_SYMBOLS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What a search says of one position: the chance of the player to move (0..1), and the
    move it preferred (None once the game is over)."""

    chance: float
    best: Any


@dataclass(frozen=True, slots=True)
class PlyAnalysis:
    """One move of the game as the analysis judges it.

    ``chance`` is the winning chance of the player who made the first move, after this
    move; ``best`` the text of the move the search preferred instead (None when it
    preferred the move played); ``drop`` what the move cost its player; ``mark`` one of
    :data:`THRESHOLDS`' names or None.
    """

    ply: int
    move: str
    mover: int
    chance: float
    best: str | None
    drop: float
    mark: str | None

    def to_data(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.move,
            "mover": self.mover,
            "chance": round(self.chance, 4),
            "best": self.best,
            "drop": round(self.drop, 4),
            "mark": self.mark,
        }


def analyse_record(
    game_name: str,
    options: str,
    moves: Sequence[str],
    seed: str = "",
    playouts: int = PLAYOUTS,
    seconds: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[PlyAnalysis]:
    """The analysis of each of the first :data:`MAX_PLIES` moves of a game's record, each
    position searched by ``playouts`` playouts or for ``seconds`` (if given), whichever
    ends first.

    Raises ValueError if the game is unknown, the options are invalid or a move does not
    replay (the message names the move).
    """
    game = find_game(game_name)
    state = game.new_game(game.parse_options(options))
    positions = [state]
    played = []
    for index, text in enumerate(moves[:MAX_PLIES]):
        try:
            move = game.parse_move(state, text)
            state = game.play(state, move)
        except ValueError as error:
            raise ValueError(f"move {index + 1} {text!r} does not replay: {error}") from error
        played.append(move)
        positions.append(state)
    evaluations = [
        evaluate(game, position, random.Random(f"{seed}:{ply}"), playouts, seconds, clock)
        for ply, position in enumerate(positions)
    ]
    holders = [0, 1]  # the player (0: the one who moved first) holding each colour
    plies = []
    for index, move in enumerate(played):
        before, after = positions[index], positions[index + 1]
        mover_seat = game.to_move(before)
        assert mover_seat is not None
        mover = holders[mover_seat]
        if is_swap(move):
            holders.reverse()
        kept = _player_chance(game, after, evaluations[index + 1], holders, mover)
        best = evaluations[index].best
        preferred = best is None or best == move
        drop = 0.0 if preferred else max(0.0, evaluations[index].chance - kept)
        first_chance = kept if mover == 0 else 1.0 - kept
        plies.append(
            PlyAnalysis(
                ply=index + 1,
                move=game.move_text(move),
                mover=mover,
                chance=first_chance,
                best=None if preferred else game.move_text(best),
                drop=drop,
                mark=mark_of(drop),
            )
        )
    return plies


def evaluate(
    game: GameRules,
    state: Any,
    rng: random.Random,
    playouts: int,
    seconds: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Evaluation:
    """The chance of the player to move in ``state`` and the move the search prefers.

    A finished game is worth its outcome to the seat that would move next (by convention
    the first seat; callers read it through :func:`_player_chance`).
    """
    deadline = math.inf if seconds is None else clock() + seconds
    mover = game.to_move(state)
    if mover is None:
        return Evaluation(0.5, None)
    search = _Search(game, rng)  # the game's evaluation, move priors and sampling
    legal = search.moves(state, SAMPLED_AT_ROOT)
    rng.shuffle(legal)
    candidates: list[tuple[Any, Any]] = []
    for move in legal:
        after = game.play(state, move)
        if game.to_move(after) is None:
            outcome = game.outcome(after)
            winner = None if outcome is None else outcome.winner
            if winner is _reward_seat(mover, move):
                return Evaluation(1.0, move)
            if winner is not None:
                continue
        candidates.append((move, after))
    if not candidates:
        return Evaluation(0.0, legal[0])
    root = _Node(None, state, None)
    root.pending = search.pending(state, candidates)
    for _ in range(playouts):
        if clock() >= deadline:
            break
        _iterate(search, root)
    sound = [child for child in root.children if not child.refuted]
    if not sound:
        if root.pending:  # moves never tried: nothing proved about them
            return Evaluation(0.5, root.pending[-1][0])
        return Evaluation(0.0, root.children[0].move)
    chosen = max(sound, key=lambda child: (child.visits, child.wins))
    wins = sum(child.wins for child in root.children)
    visits = sum(child.visits for child in root.children)
    return Evaluation((wins + 1) / (visits + 2), chosen.move)


def mark_of(drop: float) -> str | None:
    """The mark a move's drop earns (see :data:`THRESHOLDS`), or None."""
    return next((name for name, least in THRESHOLDS if drop >= least), None)


def _player_chance(
    game: GameRules, state: Any, evaluation: Evaluation, holders: list[int], player: int
) -> float:
    """``player``'s chance in ``state``, whoever moves there (``holders`` maps colours to
    players as they stand in ``state``)."""
    to_move = game.to_move(state)
    if to_move is None:
        outcome = game.outcome(state)
        if outcome is None or outcome.winner is None:
            return 0.5
        return 1.0 if holders[outcome.winner] == player else 0.0
    chance = evaluation.chance
    return chance if holders[to_move] == player else 1.0 - chance


__all__ = [
    "MARK_SYMBOLS",
    "MAX_PLIES",
    "PLAYOUTS",
    "THRESHOLDS",
    "Evaluation",
    "PlyAnalysis",
    "analyse_record",
    "evaluate",
    "mark_of",
]
