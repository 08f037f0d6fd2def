"""Replaying a finished game from its first move: a page opened after the game has seen only
the last position, and the arrow keys step back through every earlier one (asked of the
server, which replays the record)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from rules import find_game
from tests.browser.conftest import Opener, room_for
from tests.e2e.conftest import RunningServer, token_for

PIECES = "svg.board :is(.face, .cube, .tile, .die, .piece):not(.fading)"
"""The pieces on the board: those a step took away fade out for a moment, and are not."""
PLIES = 6


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_a_finished_game_replays_to_its_first_move_by_the_arrow_keys(
    phone: bool,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, "boche", "-size=4")
    clients = [
        await Client.connect(server.ws_url, token_for(first)),
        await Client.connect(server.ws_url, token_for(second)),
    ]
    rules = find_game("boche")
    try:
        views = [await client.join(room) for client in clients]
        rng = random.Random(7)
        for _ in range(PLIES):
            doc = views[0].doc
            assert doc is not None
            holder = doc["seats"][doc["to_move"]]["id"]
            mover = clients[0] if holder == first.id else clients[1]
            state = rules.from_data(doc["data"])
            texts = [rules.move_text(m) for m in rules.legal_moves(state)]
            version = await mover.move(room, rng.choice([t for t in texts if t != "swap"]))
            await clients[0].wait_version(room, version)
        await clients[0].resign(room)
    finally:
        for client in clients:
            await client.close()

    page = await open_page(f"/#/room/{room}", first, phone=phone)
    await expect(page.locator(".moves .move")).to_have_count(PLIES)
    pieces_at_end = await page.locator(PIECES).count()
    banner = page.locator(".replay-banner")
    await expect(banner).to_be_hidden()
    for ply in range(PLIES - 1, -1, -1):
        await page.keyboard.press("ArrowLeft")
        where = "Before the first move" if ply == 0 else f"Move {ply} of {PLIES}"
        await expect(banner).to_have_text(f"{where}: back to the game (End) ▸")
    await expect(page.locator(".moves .move.current")).to_have_count(0)
    await expect(page.locator(".replay-first")).to_be_disabled()
    pieces_at_start = await page.locator(PIECES).count()
    assert pieces_at_start < pieces_at_end  # every Boche move adds a cube
    suffix = "-phone" if phone else ""
    await page.screenshot(path=artifacts / f"replay-start{suffix}.png", full_page=True)
    await page.keyboard.press("ArrowRight")
    await expect(banner).to_have_text(f"Move 1 of {PLIES}: back to the game (End) ▸")
    await expect(page.locator(".moves .move.current")).to_have_attribute("data-ply", "1")
    assert await page.locator(PIECES).count() > pieces_at_start
    await page.screenshot(path=artifacts / f"replay-move-1{suffix}.png", full_page=True)
    await page.keyboard.press("End")
    await expect(banner).to_be_hidden()
    assert await page.locator(PIECES).count() == pieces_at_end
