"""The finished games page in the browser: filters by game, player and days, cards with both
players, ratings and their change, the ending in words, and pages of older games; and the
site's header, which stays one line on a phone.  Screenshots go to ``artifacts/browser/``."""

from __future__ import annotations

import time
from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from lobby.games import FinishedGame
from lobby.identity import Player, new_guest
from lobby.store import games as game_store
from rules.api import Seat
from tests.browser.conftest import Opener
from tests.e2e.conftest import RunningServer
from tests.e2e.test_site import finished_rated_game


async def casual_games(
    client: aioredis.Redis, count: int, players: tuple[Player, Player] | None = None
) -> tuple[Player, Player]:
    """``count`` casual Che games between two players (new guests unless given), a minute
    apart an hour ago, each won by the first seat after some moves, kept as the lobby keeps a
    finished game."""
    ann, bob = players or (new_guest(), new_guest())
    start = time.time() - 3600
    for number in range(count):
        game = FinishedGame(
            room_id=f"casual{number:02}-{ann.id[2:8]}",
            game="che",
            options="-placements=2",
            players=(ann, bob),
            rated=False,
            started=start + 60 * number - 30,
            finished=start + 60 * number,
            record=("a1",) * (number + 1),
            winner=Seat.FIRST,
            reason="the largest region wins",
        )
        assert await game_store.finish_game(client, game)
    return ann, bob


async def header_lines(page: Page) -> int:
    """How many lines the header's visible items take."""
    tops = await page.evaluate(
        """() => [...document.querySelectorAll('header.top > *')]
              .map((e) => e.getBoundingClientRect())
              .filter((r) => r.width > 0)
              .map((r) => Math.round(r.top + r.height / 2))"""
    )
    return len({top // 8 for top in tops})


async def test_finished_games_are_found_filtered_and_paged(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    ann, bob = await casual_games(redis_client, 22)
    annie, bobby = await finished_rated_game(server, redis_client, "rated-osbox")
    page = await open_page("/#/lobby")
    await page.locator("header .games-link").click()
    await expect(page.locator(".games-page h1")).to_have_text("Finished games")
    cards = page.locator(".game-card")
    await expect(cards).to_have_count(20)
    rated = cards.first
    await expect(rated.locator(".card-title")).to_have_text("Osbox")
    await expect(rated.locator(f'.card-player[data-player="{annie.id}"]')).to_contain_text("1500?")
    await expect(
        rated.locator(f'.card-player[data-player="{annie.id}"] .change-down')
    ).to_be_visible()
    await expect(rated.locator(f'.card-player[data-player="{bobby.id}"]')).to_contain_text("won")
    await expect(rated.locator(".card-ending")).to_have_text(
        f"{annie.name} resigned before the first move."
    )
    await expect(rated.locator(".card-facts")).to_contain_text("rated")
    await expect(rated.get_by_role("link", name="Replay the game")).to_have_attribute(
        "href", "#/room/rated-osbox"
    )
    casual = cards.nth(1)
    await expect(casual.locator(".card-ending")).to_have_text(
        f"{ann.name} won after 22 moves: the largest region wins."
    )
    await expect(casual.locator(".card-facts")).to_contain_text("casual")
    await expect(casual.locator(".card-facts")).not_to_contain_text("-placements")
    await expect(page.locator(".games-summary")).to_contain_text("older ones below")
    await page.screenshot(path=artifacts / "games-search.png", full_page=True)
    await page.get_by_role("button", name="Older games").click()
    await expect(cards).to_have_count(23)
    await expect(page.get_by_role("button", name="Older games")).to_be_hidden()
    await expect(cards.last.locator(".card-ending")).to_contain_text("after 1 move:")

    # The filters: a game, a player by name, days; each search is in the address.
    await page.get_by_label("Game", exact=True).select_option("osbox")
    await page.get_by_role("button", name="Search").click()
    await expect(cards).to_have_count(1)
    await expect(page).to_have_url(f"{server.base_url}/#/games?game=osbox")
    await page.get_by_label("Game", exact=True).select_option("")
    await page.get_by_label("Player", exact=True).fill(bobby.name)
    await page.get_by_role("button", name="Search").click()
    await expect(cards).to_have_count(1)
    await expect(page.locator(".games-summary")).to_have_text(
        f"1 finished game played by {bobby.name}, newest first."
    )
    await page.get_by_label("Player", exact=True).fill("nobody-at-all")
    await page.get_by_role("button", name="Search").click()
    await expect(page.locator(".games-page .errors")).to_contain_text(
        "no player called 'nobody-at-all'"
    )
    await expect(cards).to_have_count(0)
    await page.get_by_label("Player", exact=True).fill("")
    await page.get_by_label("To", exact=True).fill("2020-01-31")
    await page.get_by_role("button", name="Search").click()
    await expect(page.locator(".games-summary")).to_have_text("No finished game until 31 Jan 2020.")
    await page.goto("/#/games?from=2026-02-30")
    await expect(page.locator(".games-page .errors")).to_contain_text("YYYY-MM-DD")

    # A card leads to the game's own page, which shows how it ended.
    await page.goto("/#/games?game=osbox")
    await cards.first.get_by_role("link", name="Replay the game").click()
    await expect(page).to_have_url(f"{server.base_url}/#/room/rated-osbox")
    await expect(page.locator(".turn")).to_contain_text("resigned")

    # A player's own games, from a link with their id: the box shows the name.
    await page.goto(f"/#/games?player={bob.id}&game=che")
    await expect(cards).to_have_count(20)
    await expect(page.get_by_label("Player", exact=True)).to_have_value(bob.name)


async def test_the_header_is_one_line_on_a_phone_with_the_pages_in_a_menu(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    ann, _ = await casual_games(redis_client, 3)
    for phone in (True, False):
        suffix = "-phone" if phone else ""
        page = await open_page("/#/games", player=ann, phone=phone)
        await expect(page.locator(".game-card")).to_have_count(3)
        await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
        assert await header_lines(page) == 1
        await page.screenshot(path=artifacts / f"games{suffix}.png", full_page=True)
        for path, ready, name in [
            ("/#/", ".front-tv", "front"),
            ("/#/lobby", ".lobby h1", "lobby"),
            (f"/#/player/{ann.id}", ".player-page h1", "player"),
        ]:
            await page.goto(path)
            await expect(page.locator(ready)).to_be_visible()
            assert await header_lines(page) == 1, name
            await page.screenshot(path=artifacts / f"header-{name}{suffix}.png")
        if phone:
            menu = page.get_by_role("button", name="Menu")
            await expect(page.locator("header .games-link")).to_be_hidden()
            await menu.click()
            await expect(menu).to_have_attribute("aria-expanded", "true")
            await page.screenshot(path=artifacts / "header-menu-phone.png")
            await page.locator("header .games-link").click()
            await expect(page.locator(".games-page h1")).to_be_visible()
            await expect(page.locator("header .games-link")).to_be_hidden()
        else:
            await expect(page.get_by_role("button", name="Menu")).to_be_hidden()
            # A narrower window, where the links would wrap, gets the menu too.
            await page.set_viewport_size({"width": 1100, "height": 700})
            assert await header_lines(page) == 1
            await page.set_viewport_size({"width": 900, "height": 700})
            await expect(page.get_by_role("button", name="Menu")).to_be_visible()
            assert await header_lines(page) == 1


async def test_a_players_page_draws_their_rating_and_pages_their_games(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    annie, bobby = await finished_rated_game(server, redis_client, "r1")
    await finished_rated_game(server, redis_client, "r2", players=(bobby, annie))
    await finished_rated_game(server, redis_client, "r3", players=(annie, bobby))
    carol = new_guest()
    await casual_games(redis_client, 12, players=(annie, carol))
    for phone in (False, True):
        page = await open_page(f"/#/player/{annie.id}", phone=phone)
        await expect(page.locator(".player-page h1")).to_have_text(annie.name)
        graph = page.locator('.rating-chart[data-game="osbox"]')
        await expect(graph.locator("circle")).to_have_count(3)
        await expect(graph.locator("figcaption")).to_contain_text("after 3 rated games")
        await expect(graph.locator("circle.score-lost")).to_have_count(2)
        await expect(page.locator(".rating-chart")).to_have_count(1)
        rows = page.locator(".player-opponents tbody tr")
        await expect(rows).to_have_count(2)
        await expect(rows.first).to_have_text(f"{carol.name}1200")
        await expect(rows.nth(1)).to_have_text(f"{bobby.name}102")
        recent = page.locator(".player-recent li")
        await expect(recent).to_have_count(10)
        await expect(recent.first).to_contain_text(
            f"lost · {annie.name} resigned before the first move"
        )
        await expect(recent.first).to_contain_text("(−")
        suffix = "-phone" if phone else ""
        await page.screenshot(path=artifacts / f"player-history{suffix}.png", full_page=True)
        await page.get_by_role("button", name="Older games").click()
        await expect(recent).to_have_count(15)
        await expect(page.get_by_role("button", name="Older games")).to_be_hidden()
    await page.get_by_role("link", name="Search all their games").click()
    await expect(page.locator(".game-card")).to_have_count(15)
