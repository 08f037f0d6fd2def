"""Ratings in the lobby page: a game's leaderboard (rank, name, rating with ``?`` while
provisional, games), your own ratings with their history, another player's on a click, and
the leaderboard read again when a rated game ends. Screenshot: ``artifacts/browser/ratings.png``."""

from __future__ import annotations

import time
from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from lobby.identity import Player
from lobby.store import accounts as account_store
from lobby.store import ratings as rating_store
from tests.browser.conftest import Opener
from tests.e2e.conftest import RunningServer, token_for


async def account(client: aioredis.Redis, name: str) -> Player:
    return (await account_store.register(client, name, "a long password", time.time())).player


async def test_the_lobby_shows_a_leaderboard_and_rating_histories_that_follow_rated_games(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    ann, bob, cat = [await account(redis_client, n) for n in ("annie", "bobby", "catty")]
    now = time.time()
    for n, (first, second, score) in enumerate(
        [(ann, bob, 1.0), (ann, bob, 1.0), (bob, cat, 1.0), (ann, cat, 0.5)]
    ):
        await rating_store.apply_result(redis_client, "osbox", f"old{n}", first, second, score, now)

    page = await open_page("/#/lobby", player=ann)
    await page.get_by_label("Rankings in").select_option("osbox")
    rows = page.locator("table.leaderboard tbody tr")
    await expect(rows).to_have_count(3)
    await expect(rows.nth(0)).to_contain_text("annie")
    ann_rating = await rating_store.get_rating(redis_client, "osbox", ann.id)
    await expect(rows.nth(0).locator("td.rating")).to_have_text(ann_rating.text())
    assert ann_rating.text().endswith("?")  # four games leave a rating provisional
    await expect(rows.nth(0)).to_contain_text("3")  # rated games played
    assert [await r.get_attribute("data-player") for r in await rows.all()] == [
        ann.id,
        bob.id,
        cat.id,
    ]

    # Ann's own ratings: one row per game, osbox with a sparkline and its three games listed.
    mine = page.locator("section.player-ratings")
    await expect(mine.locator("h3")).to_have_text("Your ratings (annie)")
    osbox = mine.locator('tr[data-game="osbox"]')
    await expect(osbox.locator("td.rating")).to_have_text(ann_rating.text())
    await expect(osbox.locator("svg.sparkline polyline")).to_have_count(1)
    await expect(mine.locator('tr[data-game="che"] td.rating')).to_have_text("1500?")
    history = mine.locator(".rating-history li")
    await expect(history).to_have_count(3)
    await expect(history.first).to_contain_text("drew against catty")
    await expect(history.first.get_by_role("link")).to_have_attribute("href", "#/room/old3")

    # A click on Bob shows his.
    await rows.nth(1).get_by_role("button", name="bobby").click()
    await expect(mine.locator("h3")).to_have_text("bobby's ratings")
    await expect(history).to_have_count(3)
    await expect(history.first).to_contain_text("won against catty")
    await expect(history.last).to_contain_text("lost against annie")
    await page.screenshot(path=artifacts / "ratings.png", full_page=True)

    # Cat beats Bob in a rated game played elsewhere: the open page reads the board again.
    cat_client = await Client.connect(server.ws_url, token_for(cat))
    bob_client = await Client.connect(server.ws_url, token_for(bob))
    try:
        made = await cat_client.challenge("osbox", colour="mine", rated=True, target="bobby")
        room = await bob_client.accept(made["id"])
        await bob_client.join(room)
        await bob_client.resign(room)
    finally:
        await cat_client.close()
        await bob_client.close()
    await expect(history).to_have_count(4)
    await expect(history.first).to_contain_text("lost against catty")
    cat_row = page.locator(f'table.leaderboard tr[data-player="{cat.id}"]')
    await expect(cat_row.locator("td").nth(3)).to_have_text("3")
