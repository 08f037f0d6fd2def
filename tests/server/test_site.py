"""The site's rules pages and front-page positions: rendered from the project's own Markdown,
with links kept inside the site, figures served, raw HTML escaped; a position per game."""

from __future__ import annotations

import re

import pytest

from rules import GAMES, find_game
from server.site import (
    PAGES,
    example_steps,
    heading_slug,
    page_html,
    render_markdown,
    showcase_positions,
    site_href,
)


def md(page: str) -> str:
    """The file name of a page, as the pages link to each other."""
    return f"{page}.md"


@pytest.mark.parametrize("page", PAGES)
def test_every_rules_page_renders_with_its_figures_and_only_site_links(page: str) -> None:
    title, html = page_html(page)
    assert title and "<h1" in html and "<table>" in html
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith("#/rules/"), href  # nothing outside the site
    for src in re.findall(r'<img src="([^"]*)"', html):
        assert re.fullmatch(r"/rules/figures/[a-z-]+\.svg", src), src


def test_links_between_pages_keep_their_section() -> None:
    _, html = page_html("boche")
    assert 'href="#/rules/pyramid/11-holes-cubes-and-the-pyramid"' in html
    _, pyramid = page_html("pyramid")
    assert 'id="pyramid-11-holes-cubes-and-the-pyramid"' in pyramid


def test_links_out_of_the_site_become_text_and_raw_html_is_escaped() -> None:
    _, html = render_markdown(
        "# T\n\nSee [the cases](../../tests/x/) and [a site](http://example.org/) "
        f"and [§2](#2-moves) and [Che]({md('che')}).\n\n<script>alert(1)</script>\n",
        "ankor",
    )
    assert "the cases" in html and "a site" in html
    assert "../../tests" not in html and "example.org" not in html
    assert 'href="#/rules/ankor/2-moves"' in html and 'href="#/rules/che"' in html
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        (md("pyramid"), "#/rules/pyramid"),
        ("#31-players", "#/rules/boche/31-players"),
        (md("nowhere"), None),
        ("https://x.org/a.md", None),
        ("boche-example.svg", None),
    ],
)
def test_site_href(href: str, expected: str | None) -> None:
    assert site_href(href, "boche") == expected


def test_heading_slugs_are_those_the_pages_link_to() -> None:
    assert heading_slug("1.1 Holes, cubes and the pyramid") == "11-holes-cubes-and-the-pyramid"
    assert heading_slug("3.0 In brief") == "30-in-brief"


def test_each_game_has_a_front_page_position_under_way() -> None:
    positions = dict(showcase_positions())
    assert set(positions) == set(GAMES)
    for name, data in positions.items():
        rules = find_game(name)
        state = rules.from_data(data)
        empty = rules.to_data(rules.new_game(rules.parse_options("")))
        assert rules.outcome(state) is None and data != empty, name


@pytest.mark.parametrize("game", ["boche", "che", "osbox", "ankor", "marque"])
def test_each_games_worked_example_replays_to_its_figure(game: str) -> None:
    """The steps start before the example's moves and each later one follows its move."""
    steps = example_steps(game)
    assert len(steps) >= 2 and steps[0]["move"] is None
    rules = find_game(game)
    for before, after in zip(steps, steps[1:], strict=False):
        state = rules.from_data(before["data"])
        played = rules.play(state, rules.parse_move(state, after["move"]))
        expected = rules.to_data(played)
        assert expected == after["data"]
