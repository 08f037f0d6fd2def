"""Whole games of every game played on the page by pointer only, with a spectator following.

One player uses a desktop (1280x800: hover, the wheel, clicks), the other a phone (390x844:
taps, the palette's pictures); each picks a random move among those the page offers, so the
server refusing any of them fails the test.  At the end the result is said in words and
drawn on the board, and the finished game replays by arrow keys.  Screenshots of every board
(start, mid-game, the end, the phone) go to ``artifacts/browser/``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from lobby.identity import new_guest
from tests.browser.conftest import Opener, room_for
from tests.browser.gestures import click_a_move, mover

GAMES = {
    "boche": "-size=4",
    "che": "-num_tiles=16",
    "osbox": "",
    "ankor": "-size=3",
    "marque": "-any_2",
}
"""Options that keep a whole random game short; the rules are the same at every size."""
MAX_PLIES = 160


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_whole_game_by_pointer_with_a_spectator(
    game: str, redis_client: aioredis.Redis, open_page: Opener, artifacts: Path
) -> None:
    room, first, second = await room_for(redis_client, game, GAMES[game])
    path = f"/#/room/{room}"
    desktop = await open_page(path, first)
    phone = await open_page(path, second, phone=True)
    watcher = await open_page(path)
    players = [desktop, phone]
    for page in [*players, watcher]:
        await expect(page.locator(".player")).to_have_count(2)
    await expect(watcher.locator("svg.board .targets [data-target]")).to_have_count(0)
    await desktop.locator("svg.board").screenshot(path=artifacts / f"{game}-start.png")

    rng = random.Random(game)
    plies = 0
    while not await over(watcher) and plies < MAX_PLIES:
        page = await mover(players, plies)
        await click_a_move(page, rng, phone=page is phone)
        plies += 1
        await expect(watcher.locator(".moves .move")).to_have_count(plies)
        assert await page.locator(".errors .error").count() == 0, await page.locator(
            ".errors"
        ).inner_text()
        if plies == 6:
            await desktop.screenshot(path=artifacts / f"{game}-midgame-desktop.png")
    assert await over(watcher), f"no result after {plies} moves"

    words = await watcher.locator(".turn").inner_text()
    assert words.endswith(".") and ("wins" in words or "Draw" in words), words
    for page in [*players, watcher]:
        await expect(page.locator(".turn")).to_have_text(words)
    if "wins" in words and game != "osbox":  # Osbox shows a knot only if the last push scored
        await expect(
            watcher.locator("svg.board .explained-cell, svg.board .explained-point").first
        ).to_be_attached()
    records = [await page.locator(".moves .move").all_inner_texts() for page in [*players, watcher]]
    assert records[0] == records[1] == records[2] and len(records[0]) == plies
    await desktop.screenshot(path=artifacts / f"{game}-end.png")
    await desktop.locator("svg.board").screenshot(path=artifacts / f"{game}-end-board.png")
    await phone.screenshot(path=artifacts / f"{game}-phone.png", full_page=True)
    await replay_by_arrow_keys(desktop, plies, artifacts / f"{game}-replay.png")


async def over(page: Page) -> bool:
    return await page.locator('.turn[data-over="true"]').count() > 0


async def replay_by_arrow_keys(page: Page, plies: int, screenshot: Path) -> None:
    """Home shows the start, the arrows step through the moves, End comes back to the end."""
    # Pieces taken by the last move fade out for a moment; they are not on the board.
    pieces = page.locator("svg.board").locator(
        ":is(.face, .cube, .tile, .die:not(.trace), .piece):not(.fading)"
    )
    live_pieces = await pieces.count()
    await page.locator("h1").click()  # the keys step through moves outside the board
    await page.keyboard.press("Home")
    await expect(page.locator(".moves .move.current")).to_have_count(0)
    await expect(pieces).to_have_count(0)
    await expect(page.locator(".replay-banner")).to_contain_text("Before the first move")
    await page.keyboard.press("ArrowRight")
    await expect(page.locator(".moves .move.current")).to_have_attribute("data-ply", "1")
    await expect(page.locator("svg.board .last").first).to_be_attached()
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowLeft")
    await expect(page.locator(".moves .move.current")).to_have_attribute("data-ply", "1")
    await page.screenshot(path=screenshot)
    await page.keyboard.press("End")
    await expect(page.locator(".replay-banner")).to_be_hidden()
    await expect(page.locator(".moves .move.current")).to_have_attribute("data-ply", str(plies))
    await expect(pieces).to_have_count(live_pieces)


async def test_a_bad_typed_move_shows_the_servers_error(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")
    await page.get_by_text("Type a move").click()
    await page.get_by_label("Move in the game's notation").fill("z99")
    await page.get_by_role("button", name="Play", exact=True).click()
    error = page.locator(".errors .error")
    await expect(error).to_have_attribute("data-code", "invalid_move")
    await expect(error).to_contain_text("Not a move")
    await expect(page.locator(".moves .move")).to_have_count(0)


async def test_resigning_takes_two_clicks_and_ends_the_game_for_both(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, second = await room_for(redis_client, "marque")
    resigner = await open_page(f"/#/room/{room}", first)
    winner = await open_page(f"/#/room/{room}", second)
    await expect(winner.locator(".turn")).to_contain_text("to move")
    await resigner.locator(".resign").click()
    await expect(resigner.locator(".resign")).to_have_text("Really resign?")
    await resigner.locator(".resign").click()
    await expect(winner.locator(".turn")).to_have_text("White resigned: Black wins.")
    await expect(winner.locator(".player.winner .you")).to_be_visible()
    await expect(resigner.locator(".resign")).to_be_hidden()
    await expect(resigner.locator("svg.board .targets [data-target]")).to_have_count(0)


async def test_an_unknown_room_is_reported_on_the_page(open_page: Opener) -> None:
    page = await open_page("/#/room/no-such-room", new_guest())
    error = page.locator(".errors .error")
    await expect(error).to_have_attribute("data-code", "unknown_room")
    await expect(error).to_contain_text("No such game")
