"""The bots' measured strength: the bench's ratings file as the lobby reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lobby.bot_strength import STRENGTH_FILE, parse_strength, read_strength

WRITTEN = {
    "games": {
        "osbox": {
            "date": "2026-11-26",
            "command": "python -m bench.bot_matches osbox",
            "levels": {
                "1": {"rating": 1412, "deviation": 60},
                "4": {"rating": 1688, "deviation": 58},
            },
            "random": {"rating": 1190, "deviation": 70},
        }
    }
}


def test_ratings_per_game_and_level_are_read() -> None:
    assert parse_strength(WRITTEN) == {"osbox": {"1": 1412, "4": 1688}}


@pytest.mark.parametrize("data", [[], {"games": {"osbox": {"levels": {"1": 1412}}}}, {"x": 1}])
def test_content_the_bench_did_not_write_is_refused(data: object) -> None:
    with pytest.raises(ValueError, match="not a bot strength file"):
        parse_strength(data)


def test_a_missing_or_broken_file_gives_no_figures(tmp_path: Path) -> None:
    assert read_strength(tmp_path / "absent.json") == {}
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert read_strength(broken) == {}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(WRITTEN))
    assert read_strength(good) == {"osbox": {"1": 1412, "4": 1688}}


def test_the_committed_file_holds_every_level_of_the_games_it_names() -> None:
    """The file the bench wrote is in the repository, and each game in it has all four levels."""
    strength = read_strength(STRENGTH_FILE)
    assert strength
    assert all(set(levels) == {"1", "2", "3", "4"} for levels in strength.values())
