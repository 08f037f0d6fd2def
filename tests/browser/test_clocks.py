"""The room page shows the clocks and they tick; a player who left is marked away."""

from __future__ import annotations

import re

import redis.asyncio as aioredis
from playwright.async_api import expect

from lobby.identity import new_guest
from rules import find_game
from server import store
from server.client import Client
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
    await expect(running).to_have_text(re.compile(r"^4:5\d$"), timeout=5_000)
    shown = await running.text_content()
    await expect(running).not_to_have_text(shown or "", timeout=5_000)  # ticks without a message
    await expect(running).to_have_text(re.compile(r"^4:5\d$"))
    await expect(page.locator(".time-control")).to_have_text("Time control: 5 min + 0 s per move")
    await expect(page.locator(".player .away")).to_have_count(0)

    await client.close()  # Ann leaves: Bob sees her away, and may claim once the grace is over
    await expect(page.locator('.player[data-seat="0"] .away')).to_be_visible()
    await expect(page.locator("button.claim")).to_be_hidden()
