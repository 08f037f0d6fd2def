"""Every game played in the browser: two players click moves on the board, a third page watches.

Moves are chosen the way a player chooses them: a highlighted target on the board, then a
palette button when the page offers one; the first move of each game is made with the
keyboard only (focus, Enter).  Screenshots of each board go to ``artifacts/browser/``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from lobby.identity import new_guest
from tests.browser.conftest import Opener, room_for

GAMES = ["boche", "che", "osbox", "ankor", "marque"]
MOVES = 6


async def choose_move(page: Page, keyboard: bool, rng: random.Random) -> None:
    """Builds and sends one move on ``page`` by choosing targets, then a palette entry."""
    for _ in range(8):
        palette = page.locator(".palette:not([hidden]) button[data-move]")
        if await palette.count() > 0:
            await press(page, palette.nth(rng.randrange(await palette.count())), keyboard)
            return
        targets = page.locator("svg.board .target-legal")
        await press(page, targets.nth(rng.randrange(await targets.count())), keyboard)
        still_building = page.locator("svg.board .target-pending")
        if await still_building.count() == 0 and await palette.count() == 0:
            return  # one target was the whole move: it has been sent
    raise AssertionError("no move was completed after 8 choices")


async def play_a_move(page: Page, ply: int, rng: random.Random) -> None:
    """Chooses moves until the server takes one: offered moves are a superset where the
    server sent no legal list (Che's larger turns), so a refusal is possible and is shown."""
    errors = page.locator(".errors .error")
    for _ in range(10):
        await choose_move(page, ply == 0, rng)
        moved = page.locator(".moves li").nth(ply)
        await expect(moved.or_(errors.first)).to_be_attached()
        if await moved.count() > 0:
            return
        assert await errors.first.get_attribute("data-code") == "illegal_move"
        await page.locator(".errors .dismiss").first.click()
    raise AssertionError("the server refused ten moves in a row")


async def press(page: Page, locator: object, keyboard: bool) -> None:
    if keyboard:
        await locator.focus()  # type: ignore[attr-defined]
        await page.keyboard.press("Enter")
    else:
        await locator.click()  # type: ignore[attr-defined]


async def mover(pages: list[Page]) -> Page:
    """The player page whose turn it is (its turn line says so)."""
    for _ in range(2):
        for page in pages:
            if (await page.locator(".turn").inner_text()).startswith("Your turn"):
                return page
        await expect(pages[0].locator(".turn")).not_to_have_text("Joining…")
    texts = [await page.locator(".turn").inner_text() for page in pages]
    errors = [await page.locator(".errors").inner_text() for page in pages]
    raise AssertionError(f"neither player page says it is their turn: {texts} {errors}")


async def move_texts(page: Page) -> list[str]:
    return await page.locator(".moves li").all_inner_texts()


@pytest.mark.parametrize("game", GAMES)
async def test_two_players_click_moves_and_a_spectator_sees_them(
    game: str, redis_client: aioredis.Redis, open_page: Opener, artifacts: Path
) -> None:
    room, first, second = await room_for(redis_client, game)
    path = f"/#/room/{room}"
    players = [await open_page(path, first), await open_page(path, second)]
    watcher = await open_page(path, phone=True)
    await watcher.get_by_role("button", name="Play as a guest").click()
    for page in [*players, watcher]:
        await expect(page.locator(".players li")).to_have_count(2)
    await expect(watcher.locator(".turn")).to_contain_text("to move")
    for page in players:
        await expect(page.locator(".spectators")).to_have_text("1 watching")
    await expect(watcher.locator("svg.board .target")).to_have_count(0)
    assert await watcher.locator(".resign").is_hidden()

    rng = random.Random(game)
    for ply in range(MOVES):
        if (await watcher.locator(".turn").inner_text()).startswith("Game over"):
            break
        page = await mover(players)
        other = players[1 - players.index(page)]
        await expect(other.locator("svg.board .target")).to_have_count(0)
        if ply == 1 and await page.locator(".swap").is_visible():
            names = await watcher.locator(".players .name").all_inner_texts()
            await page.locator(".swap").click()
            await expect(watcher.locator(".players .name")).to_have_text(names[::-1])
        else:
            await play_a_move(page, ply, rng)
        for each in [*players, watcher]:
            await expect(each.locator(".moves li")).to_have_count(ply + 1)
        if (await move_texts(watcher))[-1] != "swap":
            await expect(watcher.locator("svg.board .last").first).to_be_attached()

    record = await move_texts(watcher)
    assert len(record) >= 3
    assert record == await move_texts(players[0]) == await move_texts(players[1])
    await players[0].locator("svg.board").screenshot(path=artifacts / f"{game}-board.png")
    await watcher.screenshot(path=artifacts / f"{game}-phone.png", full_page=True)


async def test_a_bad_typed_move_shows_the_servers_error(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")
    await page.get_by_label("Move in the game's notation").fill("z99")
    await page.get_by_role("button", name="Play").click()
    error = page.locator(".errors .error")
    await expect(error).to_have_attribute("data-code", "invalid_move")
    await expect(error).to_contain_text("Not a move")
    await expect(page.locator(".moves li")).to_have_count(0)


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
    await expect(winner.locator(".turn")).to_have_text("Game over: you win (resignation).")
    await expect(resigner.locator(".resign")).to_be_hidden()
    await expect(resigner.locator("svg.board .target")).to_have_count(0)


async def test_an_unknown_room_is_reported_on_the_page(open_page: Opener) -> None:
    page = await open_page("/#/room/no-such-room", new_guest())
    error = page.locator(".errors .error")
    await expect(error).to_have_attribute("data-code", "unknown_room")
    await expect(error).to_contain_text("No such game")
