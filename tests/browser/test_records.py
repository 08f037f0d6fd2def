"""The game records page: a record saved from a game page (tags, then the moves) opens and
replays by buttons and arrow keys, with the end drawn; a record that does not replay is
refused with the move that fails.  Screenshots: ``records-<game>.png``, ``records-phone.png``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from playwright.async_api import expect

from lobby.games import view_record
from lobby.identity import new_guest
from rules import find_game
from rules.record import Record, record_text
from tests.browser.conftest import Opener


def finished_game(game: str, seed: int) -> list[str]:
    """The moves of the first random game of ``game`` (from ``seed`` on) that someone won."""
    rules = find_game(game)
    for attempt in range(seed, seed + 200):
        rng = random.Random(attempt)
        state = rules.new_game(rules.parse_options(""))
        moves: list[str] = []
        while rules.outcome(state) is None and len(moves) < 400:
            move = rng.choice(list(rules.legal_moves(state)))
            moves.append(rules.move_text(move))
            state = rules.play(state, move)
        outcome = rules.outcome(state)
        if outcome is not None and outcome.winner is not None:
            return moves
    raise AssertionError(f"no random game of {game} was won")


@pytest.mark.parametrize("game", ["osbox", "marque"])
async def test_a_saved_record_replays_to_its_end_and_back(
    game: str, open_page: Opener, artifacts: Path
) -> None:
    moves = finished_game(game, seed=3)
    rules = find_game(game)
    light, dark = (name.title() for name in rules.SEAT_NAMES)
    tags = (("Game", game), (light, "ann"), (dark, "bob"), ("Date", "2026.11.26"))
    page = await open_page("/#/records", player=new_guest())
    await page.get_by_label("The record's text").fill(record_text(Record(tags, tuple(moves))))
    await page.get_by_role("button", name="Show the game").click()
    board = page.locator(".record-view svg.board")
    await expect(board).to_be_visible()
    await expect(page.locator(".record-players")).to_have_text(
        f"ann ({light}) against bob ({dark})"
    )
    await expect(page.locator(".record-view .moves .move")).to_have_count(len(moves))
    await expect(page.locator(".record-view .move.current")).to_have_attribute(
        "data-ply", str(len(moves))
    )
    assert "wins" in (await page.locator(".record-board .turn").inner_text())
    text = record_text(Record(tags, tuple(moves)))
    if view_record(text)["data"]["explanation"]["groups"]:  # the end is drawn as it is in play
        drawn = board.locator(".explained-cell, .explained-link, .explained-point")
        await expect(drawn.first).to_be_attached()
    await board.screenshot(path=artifacts / f"records-{game}.png")
    await page.keyboard.press("Home")
    await expect(page.locator(".record-board .turn")).to_contain_text(
        f"After move 0 of {len(moves)}"
    )
    await page.keyboard.press("ArrowRight")
    await expect(page.locator(".record-view .move.current")).to_have_attribute("data-ply", "1")
    await page.get_by_role("button", name="Last position").click()
    await expect(page.locator(".record-view .move.current")).to_have_attribute(
        "data-ply", str(len(moves))
    )
    await page.screenshot(path=artifacts / f"records-page-{game}.png", full_page=True)


async def test_a_record_that_does_not_replay_says_which_move(
    open_page: Opener, artifacts: Path
) -> None:
    moves = finished_game("osbox", seed=4)
    broken = [*moves[:3], moves[2], *moves[4:]]  # the third move again: its place is taken
    page = await open_page("/#/records", player=new_guest(), phone=True)
    await page.get_by_label("The record's text").fill("\n".join(broken))
    await page.get_by_label("The game, if the record does not say").select_option("osbox")
    await page.get_by_role("button", name="Show the game").click()
    await expect(page.get_by_role("alert")).to_contain_text("move 4")
    await expect(page.locator(".record-view")).to_be_hidden()
    await page.get_by_label("The record's text").fill("\n".join(moves))
    await page.get_by_role("button", name="Show the game").click()
    await expect(page.locator(".record-view svg.board")).to_be_visible()
    await expect(page.get_by_role("alert")).to_have_text("")
    await page.screenshot(path=artifacts / "records-phone.png", full_page=True)
