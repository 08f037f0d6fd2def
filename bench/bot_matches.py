"""Bot strength matches: levels against random play and against each other, and their ratings.

``python -m bench.bot_matches [GAME...] [--games N] [--workers W] [--matches L4-random,...]``
plays, for every registered game (or those named), level 4 and level 1 against a uniformly
random player (50 games each) and each level against the one below (40 games each), with
colours alternated, in W worker processes.  It prints each match's score (a draw counts half,
so does a game cut at :data:`MAX_PLIES`) with a 95% Wilson interval, its wins, draws and
losses, and its target: against random, level 4 wins 45/50 and level 1 30/50, both without a
loss (a draw is not a win there); a level scores 60% against the one below.  A swap exchanges
the players' colours, as in a room.  A level's time cap counts the worker's CPU time, not the
wall clock, so that a match on a shared machine plays as it would on a quiet one (and
repeats, seed for seed, where the playout caps bind).  The column ``as 1st`` counts the
points won in the games the player started as FIRST.

Then it rates every level and random play from all the games it played, with the lobby's
Glicko-2 (:mod:`lobby.ratings`): each starts at 1500 and each game is a rating period of its
own, as on the site, taken in turn from every match so that no match comes first.  It prints
each rating with a 95% interval (two deviations) and writes them, with the date and the
command line, to ``bots/strength.json`` (``--ratings-file``; ``--no-write`` leaves it alone),
where the lobby reads them to say how strong each level is ("level 3, about 1,600").  Only the
games measured are replaced in the file; a game's ratings are written only when all five
matches were played.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing
import random
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.levels import LEVELS, Level, find_level
from bots.mcts import choose_move
from lobby.ratings import Rating, rate_game
from rules import GAMES, find_game
from rules.api import GameRules, Seat
from rules.pie import is_swap

RANDOM = 0
"""The uniformly random player, written as level 0."""
MAX_PLIES = 3000
"""A game that lasts longer is stopped and counted as a draw (no registered game should)."""


STRENGTH_FILE = Path(__file__).resolve().parent.parent / "bots" / "strength.json"
"""Where the measured ratings go, for the lobby (see :func:`strength_data`)."""


@dataclass(frozen=True, slots=True)
class Match:
    """``player`` against ``opponent`` (levels; 0 is random) over ``games`` games, passed at a
    score of ``target`` or better, or where ``lossless`` (against random) with ``target`` of
    the games won and none lost."""

    player: int
    opponent: int
    target: float
    games: int
    lossless: bool = False

    @property
    def label(self) -> str:
        return f"L{self.player} vs {_name(self.opponent)}"


MATCHES = (
    Match(4, RANDOM, 45 / 50, 50, lossless=True),
    Match(1, RANDOM, 30 / 50, 50, lossless=True),
    Match(2, 1, 0.6, 40),
    Match(3, 2, 0.6, 40),
    Match(4, 3, 0.6, 40),
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

    @property
    def score(self) -> float:
        """The match player's points: 1 a win, 0.5 a draw, 0 a loss."""
        return 1.0 if self.won else 0.5 if self.drawn else 0.0


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


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for z = 1.96); draws count half a win."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def measured_ratings(results: Sequence[Result]) -> dict[int, Rating]:
    """Glicko-2 ratings of the players (levels, 0 for random) from one game's match results.

    Everyone starts at the lobby's 1500; each game is its own rating period, as on the site.
    The games are taken in turn from each match (every match's first game, then every second
    one...), so that the order of the matches does not favour anyone.
    """
    ratings: dict[int, Rating] = {}
    by_match: dict[Match, list[Result]] = defaultdict(list)
    for result in sorted(results, key=lambda r: r.task.index):
        by_match[result.task.match].append(result)
    rounds = max((len(played) for played in by_match.values()), default=0)
    for number in range(rounds):
        for match in MATCHES:
            played = by_match.get(match, [])
            if number >= len(played):
                continue
            player, opponent = match.player, match.opponent
            ratings[player], ratings[opponent] = rate_game(
                ratings.get(player, Rating()),
                ratings.get(opponent, Rating()),
                played[number].score,
            )
    return ratings


def strength_data(
    previous: Mapping[str, Any],
    measured: Mapping[str, Mapping[int, Rating]],
    date: str,
    command: str,
) -> dict[str, Any]:
    """The ratings file's content: ``previous`` with the games in ``measured`` replaced.

    ``{"games": {game: {"date", "command", "levels": {"1": {"rating", "deviation"}, ...},
    "random": {...}}}}``, ratings rounded to whole points.
    """
    games = dict(previous.get("games", {}))
    for name, ratings in measured.items():
        games[name] = {
            "date": date,
            "command": command,
            "levels": {
                str(level): _rating_data(ratings[level])
                for level in sorted(LEVELS)
                if level in ratings
            },
            "random": _rating_data(ratings[RANDOM]) if RANDOM in ratings else None,
        }
    return {"games": dict(sorted(games.items()))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_matches", description=__doc__)
    parser.add_argument("names", nargs="*", help="games to play (default: every registered one)")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games per match (default: 50 against random, 40 else)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="worker processes (default 2; 0: this one)"
    )
    parser.add_argument(
        "--matches",
        default=",".join(m.label.replace(" vs ", "-") for m in MATCHES),
        help="matches to play, e.g. L4-random,L2-L1 (default: all five)",
    )
    parser.add_argument("--options", default="", help="option flags for every game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ratings-file", type=Path, default=STRENGTH_FILE)
    parser.add_argument("--no-write", action="store_true", help="do not write the ratings file")
    args = parser.parse_args(argv)

    wanted = {label.strip().lower() for label in args.matches.split(",")}
    matches = [m for m in MATCHES if m.label.replace(" vs ", "-").lower() in wanted]
    names = [find_game(name).NAME for name in args.names] or list(GAMES)
    tasks = [
        Task(name, args.options, match, index, args.seed * 1_000_003 + 7919 * index + number)
        for name in names
        for number, match in enumerate(matches)
        for index in range(match.games if args.games is None else args.games)
    ]
    started = time.perf_counter()
    results: dict[tuple[str, Match], list[Result]] = defaultdict(list)
    if args.workers == 0:
        for result in map(run_task, tasks):
            results[result.task.game, result.task.match].append(result)
    else:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            for result in pool.imap_unordered(run_task, tasks):
                results[result.task.game, result.task.match].append(result)
    elapsed = time.perf_counter() - started

    print(f"{len(tasks)} games in {elapsed:.0f} s on {args.workers} workers")
    header = (
        f"{'game':8} {'match':16} {'score':>9} {'as 1st':>6} {'won':>4} {'drawn':>5} "
        f"{'lost':>4} {'rate':>5} {'95% CI':>13} {'target':>6} {'plies':>5} {'cpu s':>6}"
    )
    print(header)
    for name in names:
        for match in matches:
            played = results[name, match]
            points = sum(r.score for r in played)
            first = sum(r.score for r in played if r.task.index % 2 == 0)
            wins = sum(r.won for r in played)
            draws = sum(r.drawn for r in played)
            losses = len(played) - wins - draws
            low, high = wilson(points, len(played))
            rate = points / len(played) if played else 0.0
            passed = (
                wins >= match.target * len(played) and not losses
                if match.lossless
                else rate >= match.target
            )
            plies = sum(r.plies for r in played) / max(1, len(played))
            seconds = sum(r.seconds for r in played) / max(1, len(played))
            print(
                f"{name:8} {match.label:16} {points:>4g}/{len(played):<4} {first:6g} {wins:4} "
                f"{draws:5} {losses:4} {rate:5.2f} [{low:4.2f}, {high:4.2f}] {match.target:6.2f} "
                f"{plies:5.0f} {seconds:6.1f} {'ok' if passed else 'SHORT'}"
            )

    measured: dict[str, dict[int, Rating]] = {}
    print(f"\n{'game':8} " + " ".join(f"{_name(p):>15}" for p in (RANDOM, *sorted(LEVELS))))
    for name in names:
        ratings = measured_ratings([r for m in matches for r in results[name, m]])
        print(
            f"{name:8} "
            + " ".join(
                f"{_rating_text(ratings[p]):>15}" if p in ratings else f"{'-':>15}"
                for p in (RANDOM, *sorted(LEVELS))
            )
        )
        if len(matches) == len(MATCHES):
            measured[name] = ratings
    if measured and not args.no_write:
        path: Path = args.ratings_file
        previous = json.loads(path.read_text()) if path.exists() else {}
        date = datetime.date.today().isoformat()
        command = shlex.join(["python", "-m", "bench.bot_matches", *(argv or sys.argv[1:])])
        data = strength_data(previous, measured, date, command)
        path.write_text(json.dumps(data, indent=2) + "\n")
        print(f"ratings of {', '.join(sorted(measured))} written to {path}")
    return 0


def _level(player: int) -> Level | None:
    return None if player == RANDOM else find_level(player)


def _name(player: int) -> str:
    return "random" if player == RANDOM else f"L{player}"


def _rating_data(rating: Rating) -> dict[str, int]:
    return {"rating": round(rating.rating), "deviation": round(rating.deviation)}


def _rating_text(rating: Rating) -> str:
    """``1612 ± 104``: the rating with its 95% interval (two deviations)."""
    return f"{rating.rating:.0f} ± {2 * rating.deviation:.0f}"


if __name__ == "__main__":
    sys.exit(main())
