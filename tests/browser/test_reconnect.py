"""The page keeps its game across a cut socket and a server restart, without reloading."""

from __future__ import annotations

import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from tests.browser.conftest import Opener, room_for
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, start_server

MARK = "window.sameDocument = 'yes'"
HOLD_AND_CUT = """() => {
    const c = window.browneGames.connection;
    window.connectSocket = c.connectSocket;
    c.connectSocket = () => { window.reconnectHeld = true; };
    c.socket.close();
}"""
RELEASE = """() => {
    const c = window.browneGames.connection;
    c.connectSocket = window.connectSocket;
    c.connectSocket();
}"""


async def click_a_move(page: Page) -> None:
    """One Osbox move by clicking a side position: the face the preview shows is pushed."""
    target = page.locator("svg.board .targets [data-target]").first
    await target.hover()
    await target.click()


async def test_a_cut_socket_shows_reconnecting_then_catches_up_on_missed_moves(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, second = await room_for(redis_client, "osbox")
    horz = await open_page(f"/#/room/{room}", first)
    vert = await open_page(f"/#/room/{room}", second)
    await expect(horz.locator(".turn")).to_have_text("Your turn (Horz).")
    await click_a_move(horz)
    await expect(vert.locator(".turn")).to_have_text("Your turn (Vert).")
    await horz.evaluate(MARK)
    # Hold the reconnection until the other player has moved, so a move is surely missed;
    # the backoff timer still calls connectSocket, which the test then lets through.
    await horz.evaluate(HOLD_AND_CUT)
    badge = horz.locator("#connection")
    await expect(badge).to_have_attribute("data-status", "reconnecting")
    await expect(badge).to_contain_text("Reconnecting")
    await click_a_move(vert)
    await expect(vert.locator(".moves .move")).to_have_count(2)
    await horz.wait_for_function("window.reconnectHeld === true")
    assert await horz.locator(".moves .move").count() == 1
    await horz.evaluate(RELEASE)
    await expect(badge).to_have_attribute("data-status", "open")
    await expect(horz.locator(".moves .move")).to_have_count(2)
    assert (
        await horz.locator(".moves .move").all_inner_texts()
        == await vert.locator(".moves .move").all_inner_texts()
    )
    await click_a_move(horz)  # and it can play on
    await expect(vert.locator(".moves .move")).to_have_count(3)
    assert await horz.evaluate("window.sameDocument") == "yes"


async def test_pages_reconnect_after_the_server_restarts(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
) -> None:
    room, first, second = await room_for(redis_client, "osbox")
    horz = await open_page(f"/#/room/{room}", first)
    vert = await open_page(f"/#/room/{room}", second)
    watcher = await open_page(f"/#/room/{room}")
    await click_a_move(horz)
    await expect(watcher.locator(".moves .move")).to_have_count(1)
    for page in (horz, vert, watcher):
        await page.evaluate(MARK)

    await server.stop()
    for page in (horz, vert, watcher):
        await expect(page.locator("#connection")).to_have_attribute("data-status", "reconnecting")
    again = await start_server(redis_server.url, port=server.port)
    try:
        for page in (horz, vert, watcher):
            await expect(page.locator("#connection")).to_have_attribute(
                "data-status", "open", timeout=15_000
            )
        await click_a_move(vert)
        await expect(watcher.locator(".moves .move")).to_have_count(2)
        await expect(horz.locator(".turn")).to_have_text("Your turn (Horz).")
        for page in (horz, vert, watcher):
            assert await page.evaluate("window.sameDocument") == "yes"
    finally:
        await again.stop()


async def test_a_refused_token_signs_out_instead_of_retrying(open_page: Opener) -> None:
    page = await open_page("/")
    # A first visit is a guest at once: forge the token only once that one is in place.
    await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
    await page.evaluate("localStorage.setItem('browne-games.token', 'forged.token')")
    await page.reload()
    await expect(page.locator("#connection")).to_have_attribute("data-status", "signed-out")
    await expect(page.get_by_text("Your session ended")).to_be_visible()
    assert await page.evaluate("localStorage.getItem('browne-games.token')") is None
    await page.get_by_role("button", name="Play as a guest").click()
    await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
