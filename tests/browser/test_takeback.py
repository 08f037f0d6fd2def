"""Takebacks on the game page: one player asks, the other accepts and both boards go back;
asked again, it is declined and nothing changes; a rated game offers none and says so.
On a desktop and a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from lobby.identity import new_guest
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.browser.conftest import Opener, room_for
from tests.e2e.conftest import RunningServer, token_for


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_a_takeback_is_asked_and_accepted_then_asked_and_declined(
    phone: bool,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, "boche", "-size=4")
    light = await open_page(f"/#/room/{room}", first, phone=phone)
    dark = await open_page(f"/#/room/{room}", second, phone=phone)
    moves = [await Client.connect(server.ws_url, token_for(p)) for p in (first, second)]
    try:
        for client in moves:
            await client.join(room)
        await moves[0].move(room, "a:a1")
        await moves[1].wait_version(room, moves[0].rooms[room].version)
        await moves[1].move(room, "b:c3")
        await expect(light.locator(".moves .move")).to_have_text(["a:a1", "b:c3"])
        await expect(dark.locator(".moves .move")).to_have_count(2)

        # Light asks to take back: Light's move and Dark's reply both go.
        await light.get_by_role("button", name="Ask to take back").click()
        await expect(light.locator(".takeback-line")).to_have_text(
            "You asked to take back your last move."
        )
        await expect(dark.locator(".takeback-line")).to_have_text(
            "Your opponent asks to take back their last move."
        )
        suffix = "-phone" if phone else ""
        await dark.screenshot(path=artifacts / f"takeback-asked{suffix}.png", full_page=True)
        await dark.get_by_role("button", name="Accept the takeback").click()
        for page in (light, dark):
            await expect(page.locator(".moves .move")).to_have_count(0)
            await expect(page.locator(".takeback-line")).to_have_text("")
        await expect(light.locator(".turn")).to_have_text("Your turn (Light).")
        await expect(dark.get_by_role("button", name="Ask to take back")).to_be_hidden()

        # Light plays again; Dark refuses the next asking, and the move stays.
        await light.locator('svg.board .targets [data-target="b2"]').hover()
        await light.locator('svg.board .targets [data-target="b2"]').click()
        await expect(dark.locator(".moves .move")).to_have_count(1)
        await light.get_by_role("button", name="Ask to take back").click()
        await dark.get_by_role("button", name="Decline the takeback").click()
        for page in (light, dark):
            await expect(page.locator(".takeback-line")).to_have_text("")
            await expect(page.locator(".moves .move")).to_have_count(1)
        await expect(dark.locator(".turn")).to_have_text("Your turn (Dark).")
        await light.screenshot(path=artifacts / f"takeback-declined{suffix}.png", full_page=True)
        if phone:
            return
        # A premove queued before a takeback answered a move that is gone: it is dropped.
        await dark.locator('svg.board .targets [data-target="c1"]').hover()
        await dark.locator('svg.board .targets [data-target="c1"]').click()
        await expect(light.locator(".moves .move")).to_have_count(2)
        await light.locator('svg.board .targets [data-target="a1"]').hover()
        await light.locator('svg.board .targets [data-target="a1"]').click()
        await expect(dark.locator(".moves .move")).to_have_count(3)
        await light.locator('svg.board .targets [data-target="d1"]').hover()
        await light.locator('svg.board .targets [data-target="d1"]').click()
        await expect(light.locator("svg.board .ghost.premove")).to_have_count(1)
        await light.get_by_role("button", name="Ask to take back").click()
        await dark.get_by_role("button", name="Accept the takeback").click()
        await expect(light.locator(".notice")).to_contain_text("dropped: moves were taken back")
        await expect(light.locator(".turn")).to_have_text("Your turn (Light).")
        await expect(light.locator(".moves .move")).to_have_count(2)
        await expect(light.locator("svg.board .ghost.premove")).to_have_count(0)
    finally:
        for client in moves:
            await client.close()


async def test_a_rated_game_offers_no_takeback_and_says_so(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    first, second = new_guest(), new_guest()
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    rated = new_room("rated-b", "boche", "-size=4", seats, rated=True)
    await store.create_room(redis_client, rated)
    light = await open_page("/#/room/rated-b", first)
    await light.locator('svg.board .targets [data-target="b2"]').hover()
    await light.locator('svg.board .targets [data-target="b2"]').click()
    await expect(light.locator(".moves .move")).to_have_count(1)
    await expect(light.locator(".takeback-line")).to_have_text("Rated game: no takebacks.")
    await expect(light.get_by_role("button", name="Ask to take back")).to_be_hidden()
