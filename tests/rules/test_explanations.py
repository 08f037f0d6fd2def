"""Why a finished game ended, as ``to_data`` explains it for the board to draw (data-driven).

Each case in ``cases/explanations/`` plays a game to its end (from a set-up position where the
spec's example starts from one) and names the outcome, the words of its reason and the groups
the explanation must show: their colour, size, sides, and where given their cells, points and
number of links.  A game still going on explains nothing.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rules import GAMES, ankor, find_game
from rules.api import GameRules, Seat

CASES = sorted((Path(__file__).parent / "cases" / "explanations").glob("*.json"))


def set_up(game: GameRules, options: str, setup: dict[str, Any]) -> Any:
    """The start position of a case: a set-up where the spec's example has one."""
    if game.NAME == "ankor":
        return ankor.set_up(
            ankor.parse_options(options),
            setup["white"],
            setup["blue"],
            Seat(ankor.SEAT_NAMES.index(setup["to_move"])),
        )
    data = game.to_data(game.new_game(game.parse_options(options)))
    if game.NAME == "osbox":
        size = data["size"]
        data["dice"] = [
            {"cell": int(k.split(",")[0]) * size + int(k.split(",")[1]), "die": die}
            for k, die in setup["dice"].items()
        ]
        data["to_move"] = setup["to_move"]
        data["scores"] = dict(zip(game.SEAT_NAMES, setup["scores"], strict=True))
    elif game.NAME == "marque":
        data["pieces"] = {"white": setup["white"], "black": setup["black"]}
        data["turn"] = setup["to_move"]
        data["ply"] = len(setup["white"]) + len(setup["black"])
    else:
        raise AssertionError(f"no set-up for {game.NAME}")
    return game.from_data(data)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_the_explanation_shows_why_the_game_ended(path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text())
    game = find_game(case["game"])
    state = (
        set_up(game, case["options"], case["setup"])
        if "setup" in case
        else game.new_game(game.parse_options(case["options"]))
    )
    for text in case["moves"]:
        state = game.play(state, game.parse_move(state, text))
    outcome = game.outcome(state)
    assert outcome is not None
    winner = None if outcome.winner is None else game.SEAT_NAMES[outcome.winner]
    assert winner == case["winner"]
    assert case["words"] in outcome.reason
    groups = game.to_data(state)["explanation"]["groups"]
    assert len(groups) == len(case["groups"]), groups
    for shown, expected in zip(groups, case["groups"], strict=True):
        assert shown["colour"] == expected["colour"]
        if "size" in expected:
            assert shown["size"] == expected["size"]
        if "sides" in expected:
            assert shown["sides"] == expected["sides"]
        if "cells" in expected:
            assert sorted(map(str, shown["cells"])) == sorted(map(str, expected["cells"]))
        if "points" in expected:
            rounded = sorted((round(x, 3), round(y, 3)) for x, y in shown["points"])
            assert rounded == sorted((round(x, 3), round(y, 3)) for x, y in expected["points"])
        if "links" in expected:
            assert len(shown["links"]) == expected["links"]


def test_every_game_has_an_explained_case() -> None:
    assert {json.loads(p.read_text())["game"] for p in CASES} == set(GAMES)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_explains_only_once_it_is_over(name: str) -> None:
    """Random games to their end: no explanation before, one with words after (and a win
    shows at least one group)."""
    game = find_game(name)
    rng = random.Random(name)
    for _ in range(3):
        state = game.new_game(game.parse_options(""))
        for _ in range(2000):
            legal = list(game.legal_moves(state))
            if not legal:
                break
            assert game.to_data(state)["explanation"] is None
            state = game.play(state, rng.choice(legal))
        outcome = game.outcome(state)
        if outcome is None:
            continue
        groups = game.to_data(state)["explanation"]["groups"]
        assert outcome.reason
        if outcome.winner is not None and name != "osbox":
            assert groups, f"{name}: {outcome.reason} shows nothing"
