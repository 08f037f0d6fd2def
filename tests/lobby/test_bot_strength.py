"""The bots' measured strength: the bench's ratings file as the lobby reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lobby.bot_strength import (
    DEFAULT_LEVEL,
    STRENGTH_FILE,
    matching_level,
    parse_strength,
    read_strength,
    strength_to_match,
)
from lobby.ratings import Rating

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


LEVELS = {"1": 1444, "2": 1608, "3": 1678, "4": 1959}


@pytest.mark.parametrize(
    ("rating", "level"),
    [(1000, 1), (1500, 1), (1530, 2), (1640, 2), (1650, 3), (1800, 3), (1830, 4), (2600, 4)],
)
def test_the_matching_level_is_the_one_measured_nearest_the_rating(
    rating: float, level: int
) -> None:
    assert matching_level(LEVELS, rating) == level


def test_two_levels_as_near_give_the_lower_and_no_figures_give_the_default() -> None:
    assert matching_level({"1": 1400, "2": 1600}, 1500) == 1
    assert matching_level({}, 1900) == DEFAULT_LEVEL


def test_a_player_is_matched_by_their_rating_against_the_computer_once_they_have_one() -> None:
    strong_in_game = Rating(1900, 80)
    assert strength_to_match(strong_in_game, Rating()) == 1900  # never played the computer
    assert strength_to_match(strong_in_game, Rating(1620, 150)) == 1620
    assert strength_to_match(Rating(), Rating()) == 1500  # a newcomer
