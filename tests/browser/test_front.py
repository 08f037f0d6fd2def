"""The site around the games, in the browser: a newcomer opens the front page (no form: a
guest at once), quick-pairs against a second browser, both land in the same game and play it
to the end, then find it among the finished games and replay it; every
rules page opens with its figures; the front page's live board follows a game as it is
played.  Desktop and 390×844 phone screenshots go to ``artifacts/browser/``."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from lobby import bot_strength
from lobby.identity import new_guest
from rules import find_game
from server.redis import store
from server.rooms import SeatHolder, new_room
from server.site import PAGES
from tests.browser.conftest import Opener, room_for
from tests.browser.gestures import click_a_move, mover
from tests.e2e import test_bots
from tests.e2e.conftest import RunningServer, make_room, token_for

GAMES = ("boche", "che", "osbox", "ankor", "marque")


async def test_a_newcomer_quick_pairs_from_the_front_page_against_another_browser(
    open_page: Opener, artifacts: Path
) -> None:
    ann = await open_page("/")
    bob = await open_page("/", phone=True)
    for page in (ann, bob):
        # No form first: the front page, each game drawn, the player a guest already.
        await expect(page.locator(".front h1")).to_be_visible()
        await expect(page.locator("#player")).to_contain_text("Guest-")
        await expect(page.locator(".game-card")).to_have_count(5)
        for game in GAMES:
            card = page.locator(f'.game-card[data-game="{game}"]')
            await expect(
                card.locator("svg.board :is(.face, .cube, .tile, .die, .piece)").first
            ).to_be_attached()
            await expect(card.get_by_role("link", name="How to play")).to_have_attribute(
                "href", f"#/rules/{game}"
            )
    await ann.screenshot(path=artifacts / "front.png", full_page=True)
    await bob.screenshot(path=artifacts / "front-phone.png", full_page=True)

    # Ann picks Che at 5+3 and waits; the button shows it is pressed, Cancel is offered.
    await ann.get_by_role("tab", name="Che", exact=True).click()
    await ann.locator('.pool-control[data-control="5+3"]').click()
    await expect(ann.locator(".pool-status")).to_contain_text(
        "Looking for an opponent: Che, 5 min + 3 s"
    )
    await expect(ann.get_by_role("button", name="Cancel")).to_be_visible()
    await ann.screenshot(path=artifacts / "front-waiting.png")

    # Bob, on a phone, picks the same: both are taken straight to one game.
    await bob.get_by_role("tab", name="Che", exact=True).click()
    await bob.locator('.pool-control[data-control="5+3"]').click()
    for page in (ann, bob):
        await expect(page).to_have_url(re.compile(r"#/room/qp-[0-9a-f]+$"))
        await expect(page.locator(".turn")).not_to_have_text("Joining…")
    assert ann.url.split("#")[1] == bob.url.split("#")[1]
    await expect(ann.locator(".player .clock").first).to_have_text("5:00")
    first = await mover([ann, bob], 0)
    await click_a_move(first, random.Random(2), phone=first is bob)
    await expect((bob if first is ann else ann).locator(".moves .move")).to_have_count(1)
    await bob.screenshot(path=artifacts / "quick-paired-phone.png")
    # The header's rules link follows the game shown.
    await expect(ann.locator("header .rules-link")).to_have_attribute("href", "#/rules/che")

    # They play it to the end; the finished game is then in the finished games, and its card
    # leads to its page, which replays it from the first move to the last.
    rng, plies = random.Random(3), 1
    while await ann.locator('.turn[data-over="true"]').count() == 0 and plies < 80:
        page = await mover([ann, bob], plies)
        await click_a_move(page, rng, phone=page is bob)
        plies += 1
        await expect(ann.locator(".moves .move")).to_have_count(plies)
    await expect(ann.locator('.turn[data-over="true"]')).to_be_attached()
    room = ann.url.split("#/room/")[1]
    await ann.goto("/#/games")
    card = ann.locator(".game-card, .finished-card, .card").filter(
        has=ann.locator(f'a[href="#/room/{room}"]')
    )
    await expect(card.first).to_be_visible()
    await card.first.get_by_role("link", name="Replay the game").click()
    await expect(ann).to_have_url(re.compile(f"#/room/{room}$"))
    await expect(ann.locator(".moves .move")).to_have_count(plies)
    await ann.locator("h1").click()
    await ann.keyboard.press("Home")
    await expect(ann.locator(".replay-banner")).to_contain_text("Before the first move")
    await ann.keyboard.press("End")
    await expect(ann.locator(".moves .move.current")).to_have_attribute("data-ply", str(plies))
    await ann.screenshot(path=artifacts / "quick-paired-finished.png")


async def test_cancelling_or_leaving_the_page_leaves_the_pool(
    open_page: Opener, server: RunningServer
) -> None:
    ann = await open_page("/")
    await ann.locator('.pool-control[data-control="3+2"]').click()
    await expect(ann.locator(".pool-status")).to_contain_text("Boche, 3 min + 2 s")
    await ann.get_by_role("button", name="Cancel").click()
    await expect(ann.locator(".pool-status")).to_be_hidden()
    await ann.locator('.pool-control[data-control="10+5"]').click()
    await expect(ann.locator(".pool-status")).to_contain_text("10 min + 5 s")
    await ann.get_by_role(
        "link", name="Lobby", exact=True
    ).click()  # leaving the page leaves the pool
    await expect(ann.locator(".lobby h1")).to_have_text("Lobby")
    client = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        assert await client.join_pool("boche", "3+2") is None  # nobody left waiting
        await client.leave_pool()
        assert await client.join_pool("boche", "10+5") is None
    finally:
        await client.close()


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_each_rules_page_opens_with_its_figures(
    open_page: Opener, artifacts: Path, phone: bool
) -> None:
    page = await open_page("/", phone=phone)
    await (
        page.locator('.game-card[data-game="osbox"]')
        .get_by_role("link", name="How to play")
        .click()
    )
    await expect(page.locator(".rules-text h1")).to_have_text("Osbox")
    for name in PAGES:
        nav = page.locator(".rules-nav")
        await nav.get_by_role("link", name=_title(name), exact=True).click()
        await expect(page).to_have_url(re.compile(f"#/rules/{name}$"))
        # The page drawn for this name: until it replaces the last one, that one still shows.
        current = f'.rules-nav a[aria-current="page"][href="#/rules/{name}"]'
        shown = page.locator(f".rules:has({current})")
        article = shown.locator(".rules-text")
        await expect(article.locator("h1")).to_be_visible()
        await expect(article).to_have_attribute("aria-busy", "false")
        figures = article.locator("img")
        await expect(figures.first).to_be_attached()
        for index in range(await figures.count()):
            figure = figures.nth(index)
            await figure.scroll_into_view_if_needed()
            await expect(figure).to_have_js_property("complete", True)
            assert await figure.evaluate("img => img.naturalWidth") > 0, name
        await expect(page.locator(f'.rules-nav a[href="#/rules/{name}"]')).to_have_attribute(
            "aria-current", "page"
        )
        if name in ("boche", "marque"):
            await page.evaluate("window.scrollTo(0, 0)")
            suffix = "-phone" if phone else ""
            await page.screenshot(path=artifacts / f"rules-{name}{suffix}.png")
    # A link to a section of another page opens that page at that section.
    await page.locator(".rules-nav").get_by_role("link", name="Boche", exact=True).click()
    await page.locator(
        '.rules-text a[href="#/rules/pyramid/11-holes-cubes-and-the-pyramid"]'
    ).first.click()
    await expect(page.locator("#pyramid-11-holes-cubes-and-the-pyramid")).to_be_in_viewport()
    # The game's Play button opens the front page with its quick pairing chosen.
    await page.locator(".rules-nav").get_by_role("link", name="Ankor", exact=True).click()
    await page.get_by_role("link", name="Play Ankor").click()
    await expect(page.get_by_role("tab", name="Ankor")).to_have_attribute("aria-selected", "true")


async def test_the_front_page_shows_the_most_watched_game_live(
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    quiet, _, _ = await room_for(redis_client, "osbox")
    first, second = new_guest(), new_guest()
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    timed = new_room("b-marque", "marque", "", seats, time_control="5+3")
    room = (await store.create_room(redis_client, timed)).id
    players = [await Client.connect(server.ws_url, token_for(p)) for p in (first, second)]
    watcher = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        views = [await client.join(room) for client in players]
        await watcher.join(room)  # one watcher: the most-watched game
        page = await open_page("/")
        tv = page.locator(".front-tv")
        await expect(tv.locator(".tv-title")).to_contain_text("Marque")
        await expect(tv.locator(".tv-title")).to_contain_text(first.name)
        await expect(tv.locator(f'.live-list li[data-room="{quiet}"]')).to_be_visible()
        await expect(page.locator(".front-counts")).to_contain_text("2 games in play")
        board = tv.locator(".tv-board")
        await expect(board).to_have_attribute("data-moves", "0")
        for ply in range(2):
            doc = views[0].doc
            assert doc is not None
            mover_client = players[_seat_to_move(doc, first.id)]
            marque = find_game("marque")
            legal = marque.legal_moves(marque.from_data(doc["data"]))
            move = random.Random(ply).choice([marque.move_text(m) for m in legal])
            version = await mover_client.move(room, move, version=views[0].version)
            await players[0].wait_version(room, version)
            await expect(board).to_have_attribute("data-moves", str(ply + 1))
            assert await board.locator(".piece").count() >= ply + 1
        await expect(tv.locator(".tv-title")).to_contain_text("move 2")
        # The players' clocks count down as on the game page; the one to move runs.
        clocks = tv.locator(".tv-clock")
        await expect(clocks).to_have_count(2)
        await expect(clocks.first).to_have_text(re.compile(r"^[45]:\d\d$"))
        await expect(tv.locator(".tv-clock.running")).to_have_count(1)
        await page.screenshot(path=artifacts / "front-live.png")
        await tv.get_by_role("link", name="Watch this game").click()
        await expect(page.locator(".moves .move")).to_have_count(2)
    finally:
        for client in (*players, watcher):
            await client.close()


async def test_a_reader_replays_each_games_worked_example(
    open_page: Opener, artifacts: Path
) -> None:
    page = await open_page("/#/rules/boche")
    example = page.locator(".rules-example")
    await expect(example.locator(".example-count")).to_have_text("position 1 of 21")
    await expect(example.get_by_role("button", name="Previous move")).to_be_disabled()
    await expect(example.locator("svg.board .face")).to_have_count(0)  # the empty board
    await example.get_by_role("button", name="Next move").click()
    await expect(example.locator(".example-caption")).to_contain_text("move 1:")
    assert await example.locator("svg.board .face").count() == 3  # one cube, three faces
    await example.get_by_role("button", name="Last position").click()
    await expect(example.locator(".example-caption")).to_contain_text("three sides")
    await expect(example.get_by_role("button", name="Next move")).to_be_disabled()
    await page.screenshot(path=artifacts / "rules-boche-example.png")
    for game in ("che", "osbox", "ankor", "marque"):
        await page.locator(".rules-nav").get_by_role("link", name=_title(game), exact=True).click()
        await expect(page.locator(".rules-text h1")).to_have_text(_title(game))
        await expect(example.locator(".example-count")).to_contain_text("position 1 of")
        before = await example.locator("svg.board").inner_html()
        await example.get_by_role("button", name="Next move").click()
        await expect(example.locator(".example-caption")).to_contain_text("move 1:")
        assert await example.locator("svg.board").inner_html() != before, game


def _title(page: str) -> str:
    return "The pyramid board (Boche, Ankor)" if page == "pyramid" else page.capitalize()


def _seat_to_move(doc: dict[str, object], first_id: str) -> int:
    seats = doc["seats"]
    assert isinstance(seats, list)
    holder = seats[int(doc["to_move"])]  # type: ignore[call-overload]
    return 0 if holder["id"] == first_id else 1


async def test_play_the_computer_takes_a_newcomer_to_a_game_against_a_bot(
    open_page: Opener, bot_pool: test_bots.BotPool, artifacts: Path
) -> None:
    page = await open_page("/")
    await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
    await (
        page.locator('.game-card[data-game="osbox"]')
        .get_by_role("button", name="Play the computer")
        .click()
    )
    await expect(page).to_have_url(re.compile(r"#/room/[^/]+$"), timeout=20_000)
    # A newcomer (1,500) plays the level measured nearest that in Osbox.
    level = bot_strength.matching_level(bot_strength.measured().get("osbox", {}), 1500)
    await expect(page.locator(".player .name", has_text=f"bot-{level}")).to_have_count(1)
    await expect(page.locator(".room-info h1")).to_contain_text("Osbox")
    await page.screenshot(path=artifacts / "front-computer-game.png")


bot_pool = test_bots.pool
"""The bot pool (``python -m bots``, one worker) beside the server."""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_names_link_to_player_pages_with_their_games(
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
    phone: bool,
) -> None:
    done, ann, bob = await room_for(redis_client, "osbox")
    going = await make_room(redis_client, ann, bob, game="che", room_id="b-going")
    client = await Client.connect(server.ws_url, token_for(ann))
    try:
        await client.join(done)
        await client.resign(done)
    finally:
        await client.close()
    page = await open_page("/", phone=phone)
    tv = page.locator(".front-tv .tv-title")
    await expect(tv).to_contain_text("Che")  # the finished game left the live list
    await tv.get_by_role("link", name=ann.name).click()
    await expect(page.locator(".player-page h1")).to_have_text(ann.name)
    await expect(page.locator(".player-ratings tbody tr")).to_have_count(5)
    playing = page.locator(".player-playing li")
    await expect(playing).to_have_count(1)
    await expect(playing).to_contain_text("Che against")
    recent = page.locator(".player-recent li")
    await expect(recent).to_have_count(1)
    await expect(recent).to_contain_text("lost")
    suffix = "-phone" if phone else ""
    await page.screenshot(path=artifacts / f"player{suffix}.png", full_page=True)
    # From the game page's player card to the opponent's page.
    await playing.get_by_role("link", name="Watch").click()
    await expect(page).to_have_url(re.compile(f"#/room/{going}$"))
    await page.locator(".player a.name", has_text=bob.name).click()
    await expect(page.locator(".player-page h1")).to_have_text(bob.name)
    await expect(page.locator(".player-recent li")).to_contain_text("won")


async def test_each_time_control_shows_how_many_wait_there(
    open_page: Opener, server: RunningServer
) -> None:
    client = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        assert await client.join_pool("che", "15+10") is None
        page = await open_page("/")
        await page.get_by_role("tab", name="Che", exact=True).click()
        tile = page.locator('.pool-control[data-control="15+10"]')
        await expect(tile.locator(".pool-count")).to_have_text("1 waiting")
        await expect(page.locator('.pool-control[data-control="3+2"] .pool-count')).to_have_text("")
        await page.get_by_role("tab", name="Boche", exact=True).click()
        await expect(tile.locator(".pool-count")).to_have_text("")
    finally:
        await client.close()
