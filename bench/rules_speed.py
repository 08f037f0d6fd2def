"""Rules speed per game: random playouts per second and the median time of one play() call.

A playout is random legal moves from the start until the game ends or the game's ply limit;
play() is timed on the mid-game positions those playouts pass through, and to_data() on the
position each of those play() calls returns (what the server sends after a move).  Describing
a move is what the server does with it: ``to_data`` of the new position and its diff from the
last data (protocol/diff.py), or, for a game with the describing hook
(:class:`rules.api.DataChanges`), that hook alone; both are timed on the same moves, each on
a position of its own, so that neither finds what the other cached.  Runs on one core.
Playouts per CPU second (this process's CPU time) say what a quiet core would do when other
work shares the machine; the targets are for wall-clock seconds on a quiet core.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

from bench import engine_build
from protocol.diff import diff
from rules import GAMES, find_game
from rules.api import GameRules, data_differ

PLY_LIMITS = {"marque": 400, "che": 200, "osbox": 300, "boche": 200, "ankor": 300}
"""The playout length of each game's speed target."""
TARGETS = {"marque": 300, "che": 300, "osbox": 1000, "boche": 200, "ankor": 100}
"""Target playouts per second; every game's play() target is a 100 µs median."""


def playout(game: GameRules, options: Any, rng: random.Random, limit: int) -> list[Any]:
    """One random game; returns the positions it passed through."""
    state = game.new_game(options)
    positions = [state]
    for _ in range(limit):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
        positions.append(state)
    return positions


def measure(game: GameRules, seconds: float) -> dict[str, float]:
    rng = random.Random(1)
    options = game.parse_options("")
    limit = PLY_LIMITS.get(game.NAME, 300)
    mid_game = []
    count = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    while time.perf_counter() - started < seconds:
        positions = playout(game, options, rng, limit)
        mid_game.extend(positions[len(positions) // 4 : 3 * len(positions) // 4 : 5])
        count += 1
    playouts_per_second = count / (time.perf_counter() - started)
    playouts_per_cpu_second = count / (time.process_time() - cpu_started)
    timings = []
    data_timings = []
    diffed_timings = []
    described_timings = []
    describe = data_differ(game)
    for state in mid_game[:2000]:
        legal = list(game.legal_moves(state))
        if not legal:
            continue
        move = rng.choice(legal)
        begin = time.perf_counter_ns()
        after = game.play(state, move)
        middle = time.perf_counter_ns()
        game.to_data(after)
        data_timings.append(time.perf_counter_ns() - middle)
        timings.append(middle - begin)
        state_data = game.to_data(state)  # the server holds it from the move before
        after = game.play(state, move)
        begin = time.perf_counter_ns()
        diff(state_data, game.to_data(after))
        diffed_timings.append(time.perf_counter_ns() - begin)
        if describe is not None:
            after = game.play(state, move)
            begin = time.perf_counter_ns()
            describe(state, after, state_data)
            described_timings.append(time.perf_counter_ns() - begin)
    return {
        "playouts_per_second": playouts_per_second,
        "playouts_per_cpu_second": playouts_per_cpu_second,
        "play_median_us": _median_us(timings),
        "play_samples": len(timings),
        "to_data_median_us": _median_us(data_timings),
        "diffed_median_us": _median_us(diffed_timings),
        "described_median_us": _median_us(described_timings),
    }


def _median_us(timings: list[int]) -> float:
    return statistics.median(timings) / 1000 if timings else float("nan")


def run(names: list[str], seconds: float) -> None:
    print(f"rules engines: {engine_build()}")
    print(
        f"{'game':8} {'playouts/s':>11} {'per CPU s':>10} {'target':>7} {'play() median µs':>17}"
        f" {'samples':>8} {'to_data() median µs':>20} {'to_data+diff µs':>16}"
        f" {'described µs':>13}"
    )
    for name in names or sorted(GAMES):
        game = find_game(name)
        figures = measure(game, seconds)
        print(
            f"{name:8} {figures['playouts_per_second']:11.1f}"
            f" {figures['playouts_per_cpu_second']:10.1f} {TARGETS.get(name, 0):7d}"
            f" {figures['play_median_us']:17.1f} {figures['play_samples']:8d}"
            f" {figures['to_data_median_us']:20.1f} {figures['diffed_median_us']:16.1f}"
            f" {_or_dash(figures['described_median_us']):>13}"
        )


def _or_dash(figure: float) -> str:
    """A figure, or a dash for a game without the describing hook."""
    return "-" if math.isnan(figure) else f"{figure:.1f}"
