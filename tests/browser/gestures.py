"""Playing through the game page as a person does: pointer and touch gestures only.

``click_a_move`` builds one random legal move by pointing at the board (desktop: hover, turn
the piece with the wheel, click; phone: tap, pick a picture from the palette, tap again),
choosing among the targets the page offers, so a test that plays whole games this way checks
that every move the page lets a player build is one the server accepts.  ``play_moves``
plays given moves through the server instead, to reach a position quickly.
"""

from __future__ import annotations

import random
from typing import Any

from playwright.async_api import Locator, Page, expect

from client import Client
from lobby.identity import Player
from rules import find_game

CHOICES = "svg.board .targets [data-target]:not(.target-pending)"
STATE = """([mine, played]) => {
    // Read at once, so that a diff arriving between two reads cannot fool the test.
    const turn = document.querySelector(".turn").textContent;
    const moves = document.querySelectorAll(".moves .move").length;
    const done = mine
        ? moves > played || turn.startsWith("Sending")
        : document.querySelector(".hint").textContent.startsWith("Premove queued");
    return {
        done,
        choices: document.querySelectorAll(CHOICES).length,
        pictures: document.querySelectorAll(".palette .choice").length,
        playNow: document.querySelectorAll(".palette .play-now").length,
    };
}""".replace("CHOICES", repr(CHOICES))


async def click_a_move(page: Page, rng: random.Random, phone: bool) -> None:
    """Builds and sends (or queues, while the opponent thinks) one random move by pointer."""
    mine = await my_turn(page)
    played = await page.locator(".moves .move").count()
    for _ in range(12):
        state = await page.evaluate(STATE, [mine, played])
        choices = page.locator(CHOICES)
        count = state["choices"]
        palette = page.locator(".palette .choice")
        play_now = page.locator(".palette .play-now")
        pictures = state["pictures"]
        if phone and pictures > 0 and (count == 0 or rng.random() < 0.5):
            await palette.nth(rng.randrange(pictures)).tap()
        elif state["playNow"] > 0 and (count == 0 or rng.random() < 0.3):
            await (play_now.tap() if phone else play_now.click())
        else:
            assert count > 0, "the page offers nothing to choose"
            target = choices.nth(rng.randrange(count))
            if phone:
                await tap(page, target)
            else:
                await target.hover()
                if await palette.count() > 1:  # several pieces may go there
                    if rng.random() < 0.3:
                        await palette.nth(rng.randrange(await palette.count())).click()
                    else:
                        for _ in range(rng.randrange(4)):
                            await page.mouse.wheel(0, 120)
                await target.click()
        if (await page.evaluate(STATE, [mine, played]))["done"]:
            return
    state = {
        "turn": await page.locator(".turn").inner_text(),
        "hint": await page.locator(".hint").inner_text(),
        "pending": await page.locator("svg.board .target-pending").evaluate_all(
            "(es) => es.map((e) => e.dataset.target)"
        ),
        "choices": await page.locator(CHOICES).evaluate_all(
            "(es) => es.map((e) => e.dataset.target)"
        ),
    }
    raise AssertionError(f"no move was completed after 12 gestures: {state}")


async def tap(page: Page, target: Locator) -> None:
    """A tap on a target; where the page zooms in first (small targets), tap it again."""
    key = await target.get_attribute("data-target")
    box = await target.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    await target.tap()
    if await page.locator(".unzoom").is_visible():
        again = page.locator(f'svg.board .targets [data-target="{key}"]')
        if await again.count() > 0:
            box = await again.bounding_box()
            assert box is not None and min(box["width"], box["height"]) >= 36, box
            await again.tap()
    else:
        assert min(box["width"], box["height"]) >= 36, f"{key}: {box} is small for a thumb"


async def my_turn(page: Page) -> bool:
    return (await page.locator(".turn").inner_text()).startswith("Your turn")


async def mover(pages: list[Page], plies: int) -> Page:
    """The player page whose turn it is, once every page shows ``plies`` moves (the turn line
    is drawn with the move list)."""
    for page in pages:
        await expect(page.locator(".moves .move")).to_have_count(plies)
    for page in pages:
        if await my_turn(page):
            return page
    texts = [await page.locator(".turn").inner_text() for page in pages]
    errors = [await page.locator(".errors").inner_text() for page in pages]
    raise AssertionError(f"neither player page says it is their turn: {texts} {errors}")


async def play_moves(
    clients: dict[str, Client], players: tuple[Player, Player], room: str, moves: list[str]
) -> dict[str, Any]:
    """Plays ``moves`` through the server, each by the player whose turn it is; the doc after."""
    first = clients[players[0].id]
    view = await first.join(room)
    for other in clients.values():
        if other is not first:
            await other.join(room)
    for text in moves:
        doc = view.doc
        assert doc is not None
        holder = doc["seats"][doc["to_move"]]["id"]
        version = await clients[holder].move(room, text, version=view.version)
        await first.wait_version(room, version)
    assert view.doc is not None
    return view.doc


def random_moves(game: str, options: str, count: int, seed: int) -> list[str]:
    """``count`` random legal moves from the start (no swap), for a position under way."""
    rules = find_game(game)
    rng = random.Random(seed)
    state = rules.new_game(rules.parse_options(options))
    texts = []
    for _ in range(count):
        legal = [m for m in rules.legal_moves(state) if rules.move_text(m) != "swap"]
        if not legal:
            break
        move = rng.choice(legal)
        texts.append(rules.move_text(move))
        state = rules.play(state, move)
    return texts
