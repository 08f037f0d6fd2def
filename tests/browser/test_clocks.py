"""The room page shows the clocks and they tick; a player who left is marked away."""

from __future__ import annotations

import re
from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from lobby.identity import new_guest
from rules import find_game
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.browser.conftest import Opener
from tests.e2e.conftest import RunningServer, token_for


async def test_the_running_clock_ticks_and_an_absent_player_is_marked_away(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    seats = (SeatHolder(ann.id, ann.name), SeatHolder(bob.id, bob.name))
    await store.create_room(redis_client, new_room("b-clock", "boche", "", seats, "5+0"))
    rules = find_game("boche")
    first = rules.move_text(next(iter(rules.legal_moves(rules.new_game(rules.parse_options(""))))))
    client = await Client.connect(server.ws_url, token_for(ann))
    await client.join("b-clock")
    await client.move("b-clock", first)  # Bob's clock runs from here

    page = await open_page("/#/room/b-clock", bob)
    clocks = page.locator(".player .clock")
    await expect(clocks).to_have_count(2)
    await expect(clocks.nth(0)).to_have_text("5:00")  # the free first move cost nothing
    running = clocks.nth(1)
    await expect(running).to_have_text(re.compile(r"^4:[45]\d$"))
    shown = await running.inner_text()
    await expect(running).not_to_have_text(shown)  # it ticks without a message
    await expect(page.locator(".time-control")).to_have_text("Time control: 5 min + 0 s per move")
    await expect(page.locator(".player .away")).to_have_count(0)

    await client.close()  # Ann leaves: Bob sees her away, and may claim once the grace is over
    await expect(page.locator('.player[data-seat="0"] .away')).to_be_visible()
    claim = page.locator("button.claim")  # counting down to the end of the grace period
    await expect(claim).to_contain_text("Claim the win in")
    await expect(claim).to_be_disabled()


async def test_clocks_fit_in_their_boxes_on_a_desktop_and_a_phone(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    """A running live clock and a correspondence clock ("1 day") stay on one line, inside the
    window, at 1280x800 and on a phone."""
    ann, bob = new_guest(), new_guest()
    seats = (SeatHolder(ann.id, ann.name), SeatHolder(bob.id, bob.name))
    await store.create_room(redis_client, new_room("b-live", "osbox", "", seats, "10+5"))
    await store.create_room(redis_client, new_room("b-post", "osbox", "", seats, "1d"))
    client = await Client.connect(server.ws_url, token_for(ann))
    for room in ("b-live", "b-post"):
        await client.join(room)
        await client.move(room, "a16")
    for room, phone in (("b-live", False), ("b-post", False), ("b-post", True)):
        page = await open_page(f"/#/room/{room}", bob, phone=phone)
        clocks = page.locator(".player .clock")
        await expect(clocks).to_have_count(2)
        if room == "b-post":
            await expect(clocks.nth(0)).to_have_text("1 day")  # Ann's, stopped: a day per move
            await expect(clocks.nth(1)).to_have_text("23 h 59 min")  # Bob's, running
        await expect(page.locator(".player .clock.running")).to_have_count(1)
        width = page.viewport_size["width"] if page.viewport_size else 0
        for box in await clocks.evaluate_all(
            "(es) => es.map((e) => e.getBoundingClientRect().toJSON())"
        ):
            assert box["right"] <= width and box["left"] >= 0, box
            assert box["height"] < 50, f"the clock wraps: {box}"
        name = f"clock-{room}{'-phone' if phone else ''}.png"
        await page.screenshot(path=artifacts / name)
    await client.close()
