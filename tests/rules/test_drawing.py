"""SVG drawings of positions, the figures of the rules pages (``docs/rules/*.svg``), and the
``draw`` and ``figures`` commands of ``python -m rules``."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from rules import GAMES, drawing, find_game
from rules.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "rules"
SVG = "{http://www.w3.org/2000/svg}"


def test_committed_figures_are_the_ones_the_engines_draw() -> None:
    """docs/rules/*.svg are stale: run `./dev rules figures`, which draws them again."""
    made = drawing.figures()
    assert sorted(p.name for p in FIGURES.glob("*.svg")) == sorted(made)
    for name, text in made.items():
        assert (FIGURES / name).read_text(encoding="utf-8") == text, name


def test_every_figure_is_shown_on_a_rules_page() -> None:
    pages = "".join(page.read_text(encoding="utf-8") for page in FIGURES.glob("*.md"))
    assert [name for name in drawing.figures() if f"]({name})" not in pages] == []


@pytest.mark.parametrize("name", sorted(drawing.figures()))
def test_figure_is_a_titled_svg_document(name: str) -> None:
    root = ElementTree.fromstring(drawing.figures()[name])
    assert root.tag == f"{SVG}svg"
    width, height = (float(v) for v in root.get("viewBox", "").split()[2:])
    assert width > 0 and height > 0
    title = root.find(f"{SVG}title")
    assert title is not None and title.text


def playout(name: str, moves: int, seed: int) -> Any:
    """A position after up to ``moves`` random legal moves from the start."""
    game = find_game(name)
    rng = random.Random(seed)
    state = game.new_game(game.parse_options(""))
    for _ in range(moves):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
    return state


def classes(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    return [element.get("class", "") for element in root.iter()]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_drawing_shows_every_piece_of_the_position(name: str) -> None:
    game = find_game(name)
    state = playout(name, 12, seed=3)
    data = game.to_data(state)
    drawn = classes(drawing.position_svg(game, state))
    if name == "boche":
        expected, shown = [f"face face-{f['face']}" for f in data["faces"] if f], drawn
    elif name == "ankor":
        expected = [f"cube cube-{p['owner']}" for p in data["positions"] if p["owner"]]
        shown = drawn
    elif name == "che":
        expected, shown = ["tile"] * len(data["tiles"]), drawn
    elif name == "osbox":
        expected, shown = ["die"] * len(data["dice"]), drawn
    else:
        pieces = data["pieces"]
        expected = ["piece piece-white"] * len(pieces["white"])
        expected += ["piece piece-black"] * len(pieces["black"])
        shown = [c.replace(" winning", "") for c in drawn]
    assert expected
    assert sorted(c for c in shown if c in set(expected)) == sorted(expected)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_labels_name_every_place_a_move_can_name(name: str) -> None:
    game = find_game(name)
    state = game.new_game(game.parse_options(""))
    plain = ElementTree.fromstring(drawing.position_svg(game, state))
    labelled = ElementTree.fromstring(drawing.position_svg(game, state, labels=True))
    texts = {element.text for element in labelled.iter(f"{SVG}text")}
    expected = {
        "boche": {"a1", "c3", "f6"},
        "ankor": {"a1", "c3", "f6"},
        "che": {"1"},
        "osbox": {"0,0", "3,3"},
        "marque": {"a1", "s30", "t24"},
    }[name]
    assert expected <= texts
    assert not expected & {element.text for element in plain.iter(f"{SVG}text")}


def test_drawing_an_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError, match="chess"):
        drawing.draw({"game": "chess"})


def test_draw_command_prints_the_position(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["draw", "marque", "d4", "e5,e6"]) == 0
    drawn = classes(capsys.readouterr().out)
    assert drawn.count("piece piece-white") == 1 and drawn.count("piece piece-black") == 2


def test_draw_command_reports_an_illegal_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["draw", "marque", "s6"]) == 1
    assert '"error": "illegal"' in capsys.readouterr().out


def test_figures_command_writes_and_checks_the_figures(tmp_path: Path) -> None:
    assert main(["figures", "--check", "--out", str(tmp_path)]) == 1
    assert list(tmp_path.iterdir()) == []
    assert main(["figures", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(drawing.figures())
    assert main(["figures", "--check", "--out", str(tmp_path)]) == 0
    stale = tmp_path / "che-tiles.svg"
    stale.write_text(stale.read_text(encoding="utf-8") + "<!-- edited -->", encoding="utf-8")
    assert main(["figures", "--check", "--out", str(tmp_path)]) == 1
