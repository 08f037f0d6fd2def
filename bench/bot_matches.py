"""Bot strength matches: every level against random play and against the level below.

``python -m bench.bot_matches [GAME...] [--games N] [--workers W] [--matches L4-random,...]``
plays, for every registered game (or those named), level 4 and level 1 against a uniformly
random player and each level against the one below, with colours alternated, in W worker
processes; then it prints each match's win rate with a 95% Wilson interval next to the target
of issue 15 (48/50, 40/50 and 60%).  A swap exchanges the players' colours, as in a room.
Draws and games cut at :data:`MAX_PLIES` count as not won.  A level's time cap counts the
worker's CPU time, not the wall clock, so that a match on a shared machine plays as it would on
a quiet one (and repeats, seed for seed, where the playout caps bind).  The column ``as 1st``
counts the wins in the games the player started as FIRST (the even-numbered half).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots.levels import Level, find_level
from bots.mcts import choose_move
from rules import GAMES, find_game
from rules.api import GameRules, Seat
from rules.pie import is_swap

RANDOM = 0
"""The uniformly random player, written as level 0."""
MAX_PLIES = 3000
"""A game that lasts longer is stopped and counted as a draw (no registered game should)."""


@dataclass(frozen=True, slots=True)
class Match:
    """``player`` against ``opponent`` (levels; 0 is random), won at ``target`` or better."""

    player: int
    opponent: int
    target: float

    @property
    def label(self) -> str:
        return f"L{self.player} vs {_name(self.opponent)}"


MATCHES = (
    Match(4, RANDOM, 48 / 50),
    Match(1, RANDOM, 40 / 50),
    Match(2, 1, 0.6),
    Match(3, 2, 0.6),
    Match(4, 3, 0.6),
)


@dataclass(frozen=True, slots=True)
class Task:
    game: str
    options: str
    match: Match
    index: int
    seed: int


@dataclass(frozen=True, slots=True)
class Result:
    task: Task
    won: bool
    drawn: bool
    plies: int
    seconds: float


def play_game(
    game: GameRules,
    options: Any,
    first: Level | None,
    second: Level | None,
    rng: random.Random,
) -> tuple[int | None, int]:
    """One game between the players (a level, None for random) who start as FIRST and SECOND.

    Returns which player won (0 the one who started FIRST, 1 the other, None for a draw) and
    the plies played.  A swap exchanges which player holds which colour, as in a room.
    """
    players = (first, second)
    holder = {Seat.FIRST: 0, Seat.SECOND: 1}
    state = game.new_game(options)
    plies = 0
    while plies < MAX_PLIES:
        seat = game.to_move(state)
        if seat is None:
            break
        level = players[holder[seat]]
        if level is None:
            move = rng.choice(list(game.legal_moves(state)))
        else:
            move = choose_move(game, state, level, rng, clock=time.process_time)
        state = game.play(state, move)
        plies += 1
        if is_swap(move):
            holder = {Seat.FIRST: holder[Seat.SECOND], Seat.SECOND: holder[Seat.FIRST]}
    outcome = game.outcome(state)
    if outcome is None or outcome.winner is None:
        return None, plies
    return holder[outcome.winner], plies


def run_task(task: Task) -> Result:
    """Play one game of a match; the match's player takes FIRST in even-numbered games."""
    game = find_game(task.game)
    options = game.parse_options(task.options)
    match = task.match
    player, opponent = _level(match.player), _level(match.opponent)
    first, second = (player, opponent) if task.index % 2 == 0 else (opponent, player)
    started = time.process_time()
    winner, plies = play_game(game, options, first, second, random.Random(task.seed))
    return Result(
        task, winner == task.index % 2, winner is None, plies, time.process_time() - started
    )


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for z = 1.96)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_matches", description=__doc__)
    parser.add_argument("names", nargs="*", help="games to play (default: every registered one)")
    parser.add_argument("--games", type=int, default=10, help="games per match (default 10)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--matches",
        default=",".join(m.label.replace(" vs ", "-") for m in MATCHES),
        help="matches to play, e.g. L4-random,L2-L1 (default: all five)",
    )
    parser.add_argument("--options", default="", help="option flags for every game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    wanted = {label.strip().lower() for label in args.matches.split(",")}
    matches = [m for m in MATCHES if m.label.replace(" vs ", "-").lower() in wanted]
    names = [find_game(name).NAME for name in args.names] or list(GAMES)
    tasks = [
        Task(name, args.options, match, index, args.seed * 1_000_003 + 7919 * index + number)
        for name in names
        for number, match in enumerate(matches)
        for index in range(args.games)
    ]
    started = time.perf_counter()
    results: dict[tuple[str, Match], list[Result]] = defaultdict(list)
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for result in pool.imap_unordered(run_task, tasks):
            results[result.task.game, result.task.match].append(result)
    elapsed = time.perf_counter() - started

    print(f"{len(tasks)} games in {elapsed:.0f} s on {args.workers} workers")
    header = (
        f"{'game':8} {'match':16} {'won':>7} {'as 1st':>6} {'draws':>5} {'rate':>5} "
        f"{'95% CI':>13} {'target':>6} {'plies':>5} {'cpu s':>6}"
    )
    print(header)
    for name in names:
        for match in matches:
            played = results[name, match]
            wins = sum(r.won for r in played)
            first = sum(r.won for r in played if r.task.index % 2 == 0)
            draws = sum(r.drawn for r in played)
            low, high = wilson(wins, len(played))
            rate = wins / len(played) if played else 0.0
            verdict = "ok" if rate >= match.target else "SHORT"
            plies = sum(r.plies for r in played) / max(1, len(played))
            seconds = sum(r.seconds for r in played) / max(1, len(played))
            print(
                f"{name:8} {match.label:16} {wins:>3}/{len(played):<3} {first:6} {draws:5} "
                f"{rate:5.2f} [{low:4.2f}, {high:4.2f}] {match.target:6.2f} {plies:5.0f} "
                f"{seconds:6.1f} {verdict}"
            )
    return 0


def _level(player: int) -> Level | None:
    return None if player == RANDOM else find_level(player)


def _name(player: int) -> str:
    return "random" if player == RANDOM else f"L{player}"


if __name__ == "__main__":
    sys.exit(main())
