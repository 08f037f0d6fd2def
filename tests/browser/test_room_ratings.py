"""The players' ratings on the game page, and each one's change once a rated game is rated;
a guest's card shows none.  Screenshot: ``artifacts/browser/room-ratings.png``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from lobby.identity import Player
from lobby.store import accounts as account_store
from lobby.store import ratings as rating_store
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.browser.conftest import Opener, room_for
from tests.e2e.conftest import RunningServer, token_for


async def account(client: aioredis.Redis, name: str) -> Player:
    return (await account_store.register(client, name, "a long password", time.time())).player


async def test_the_cards_show_ratings_and_their_change_when_a_rated_game_ends(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    ann, bob = await account(redis_client, "annie"), await account(redis_client, "bobby")
    seats = (SeatHolder(ann.id, ann.name), SeatHolder(bob.id, bob.name))
    room = new_room("rated-1", "osbox", "", seats, rated=True, now=time.time())
    await store.create_room(redis_client, room)
    page = await open_page("/#/room/rated-1", ann)
    cards = page.locator(".player")
    await expect(cards.locator(".rating")).to_have_text(["1500?", "1500?"])
    await expect(cards.locator(".rating-change")).to_have_count(2)
    await expect(cards.locator(".rating-change:not(:empty)")).to_have_count(0)

    client = await Client.connect(server.ws_url, token_for(bob))
    try:
        await client.join("rated-1")
        await client.resign("rated-1")
    finally:
        await client.close()
    mine = page.locator(".player", has_text="annie")
    theirs = page.locator(".player", has_text="bobby")
    await expect(mine.locator(".rating-change")).to_have_text(re.compile(r"^\+\d+$"))
    await expect(theirs.locator(".rating-change")).to_have_text(re.compile(r"^−\d+$"))
    after = await rating_store.get_rating(redis_client, "osbox", ann.id)
    await expect(mine.locator(".rating")).to_have_text(after.text())
    await page.screenshot(path=artifacts / "room-ratings.png", full_page=True)


async def test_a_guest_card_shows_no_rating(
    open_page: Opener, redis_client: aioredis.Redis
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")
    await expect(page.locator(".player .rating:not(:empty)")).to_have_count(0)
