"""The match bench's ratings: measured from its games with the lobby's Glicko-2, and stored so
that the lobby can show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bot_matches import MATCHES, RANDOM, Result, Task, main, measured_ratings, strength_data
from bots.levels import LEVELS, Level
from lobby.ratings import Rating


def results(score_of: dict[str, float], games: int = 20) -> list[Result]:
    """``games`` results per match, the player scoring ``score_of[label]`` on average."""
    played = []
    for number, match in enumerate(MATCHES):
        rate = score_of[match.label]
        for index in range(games):
            won = index < round(rate * games)
            task = Task("osbox", "", match, index, number * 1000 + index)
            played.append(Result(task, won, False, 16, 0.1))
    return played


def test_ratings_follow_the_ladder() -> None:
    """Each level beating the one below (and random) gives each a higher rating."""
    ladder = {"L4 vs random": 1.0, "L1 vs random": 0.8, "L2 vs L1": 0.7}
    ratings = measured_ratings(results({**ladder, "L3 vs L2": 0.7, "L4 vs L3": 0.7}))
    order = [ratings[player].rating for player in (RANDOM, 1, 2, 3, 4)]
    assert order == sorted(order) and order[0] < 1500 < order[-1]


def test_even_levels_rate_alike() -> None:
    """Levels that score half against each other end close together, far above random."""
    even = {"L4 vs random": 1.0, "L1 vs random": 1.0, "L2 vs L1": 0.5}
    ratings = measured_ratings(results({**even, "L3 vs L2": 0.5, "L4 vs L3": 0.5}))
    levels = [ratings[level].rating for level in (1, 2, 3, 4)]
    assert max(levels) - min(levels) < 150
    assert min(levels) - ratings[RANDOM].rating > 300


def test_strength_data_replaces_only_the_games_measured() -> None:
    previous = {"games": {"che": {"date": "2026-01-01", "command": "x", "levels": {}}}}
    measured = {"osbox": {RANDOM: Rating(1100.4, 80.2), 1: Rating(1600.6, 70.0)}}
    data = strength_data(previous, measured, "2026-11-26", "python -m bench.bot_matches osbox")
    assert data["games"]["che"] == previous["games"]["che"]
    assert data["games"]["osbox"] == {
        "date": "2026-11-26",
        "command": "python -m bench.bot_matches osbox",
        "levels": {"1": {"rating": 1601, "deviation": 70}},
        "random": {"rating": 1100, "deviation": 80},
    }


def test_bench_writes_the_ratings_of_a_full_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of every match (two games each, on Osbox's 3x3 board, in this process and with
    levels cut to a few playouts) writes the file."""
    for number in LEVELS:
        monkeypatch.setitem(LEVELS, number, Level(number, playouts=4 * number, seconds=None))
    path = tmp_path / "strength.json"
    argv = ["osbox", "--games", "2", "--workers", "0", "--options=-size=3"]
    assert main([*argv, "--ratings-file", str(path)]) == 0
    data = json.loads(path.read_text())
    entry = data["games"]["osbox"]
    assert set(entry["levels"]) == {"1", "2", "3", "4"}
    assert "--games 2" in entry["command"] and entry["date"]
    assert "L4 vs random" in capsys.readouterr().out
