"""The game page's behaviours beyond a plain move: premoves, the keyboard, no dead ends,
what the page says of an abort, messages too large, the claim countdown, the way back to a
game, the turn alert in the tab title and the sound switch."""

from __future__ import annotations

import random
import re
from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from client import Client
from lobby.identity import new_guest
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.browser.conftest import Opener, room_for
from tests.browser.gestures import click_a_move, play_moves, random_moves
from tests.e2e.conftest import RunningServer, token_for

BOARD_TARGET = 'svg.board .targets [data-target="{}"]'


async def hover_click(page: Page, key: str) -> None:
    target = page.locator(BOARD_TARGET.format(key))
    await target.hover()
    await target.click()


async def test_a_premove_is_sent_when_the_turn_comes_or_dropped_if_illegal(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener, artifacts: Path
) -> None:
    room, first, second = await room_for(redis_client, "boche", "-size=3")
    light = Client.connect(server.ws_url, token_for(first))
    client = await light
    await client.join(room)
    dark = await open_page(f"/#/room/{room}", second)
    await expect(dark.locator(".turn")).to_have_text("Light to move: your opponent is thinking.")

    # Dark queues a cube on c2 while Light thinks: it shows as a ghost, and is sent at once.
    await hover_click(dark, "c2")
    await expect(dark.locator(".hint")).to_have_text("Premove queued: a:c2. Escape cancels it.")
    await expect(dark.locator("svg.board .ghost.premove")).to_have_count(1)
    await dark.locator("svg.board").screenshot(path=artifacts / "premove.png")
    await client.move(room, "a:a1")
    await expect(dark.locator(".moves .move")).to_have_count(2)
    await expect(dark.locator(".moves .move").nth(1)).to_have_text("a:c2")

    # Escape takes a queued premove back.
    await hover_click(dark, "c3")
    await expect(dark.locator("svg.board .ghost.premove")).to_have_count(1)
    await dark.keyboard.press("Escape")
    await expect(dark.locator("svg.board .ghost.premove")).to_have_count(0)

    # A premove that the opponent's move makes illegal is dropped, with a word why.
    await hover_click(dark, "c3")
    await client.move(room, "a:c3")
    await expect(dark.locator(".notice")).to_have_text("Premove a:c3 dropped: it is not legal now.")
    await expect(dark.locator(".moves .move")).to_have_count(3)
    await expect(dark.locator(".turn")).to_have_text("Your turn (Dark).")
    await client.close()


async def test_the_keyboard_moves_a_focus_over_the_board_and_plays(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")
    await page.locator(BOARD_TARGET.format("16")).focus()
    await page.keyboard.press("ArrowDown")
    focused = page.locator("svg.board .targets [data-target]:focus")
    await expect(focused).to_have_attribute("data-target", "15")
    await page.keyboard.press("ArrowRight")  # across the board, to Horz's other side
    await expect(focused).to_have_attribute("data-target", "6")
    pictures = page.locator(".palette .choice")
    await expect(pictures).to_have_count(5)  # the five faces, as they would enter from 6
    await expect(page.locator('.palette .choice[aria-pressed="true"]')).to_have_attribute(
        "data-choice", "a"
    )
    await page.keyboard.press("r")
    await expect(page.locator('.palette .choice[aria-pressed="true"]')).to_have_attribute(
        "data-choice", "b"
    )
    await expect(page.locator("svg.board .ghost.push")).to_have_count(1)
    await page.keyboard.press("Enter")
    await expect(page.locator(".moves .move")).to_have_text(["b6"])


async def test_escape_cancels_a_half_built_move(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener
) -> None:
    room, first, second = await room_for(redis_client, "che")
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    await play_moves(clients, (first, second), room, ["b(0,0)"])
    page = await open_page(f"/#/room/{room}", second)
    await expect(page.locator(".turn")).to_have_text("Your turn (Dark).")
    await page.locator(BOARD_TARGET.format("1,0")).focus()
    await page.keyboard.press("Enter")  # the first of two tiles
    await expect(page.locator("svg.board .target-pending")).to_have_count(1)
    await expect(page.locator("svg.board .target-next .mark").first).to_be_attached()
    await page.keyboard.press("Escape")
    await expect(page.locator("svg.board .target-pending")).to_have_count(0)
    await expect(page.locator(".moves .move")).to_have_count(1)
    for client in clients.values():
        await client.close()


async def test_ankor_offers_no_dead_end(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener
) -> None:
    """After a1 f1 b1 f2 b2 f3 c1 e1 every target leads on: a cube, then where it goes."""
    room, first, second = await room_for(redis_client, "ankor")
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    await play_moves(clients, (first, second), room, "a1 f1 b1 f2 b2 f3 c1 e1".split())
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (White).")
    targets = page.locator("svg.board .targets [data-target]")
    await expect(page.locator(BOARD_TARGET.format("1a1"))).to_have_count(
        0
    )  # not a cube, not a hole
    await page.locator(BOARD_TARGET.format("c1")).click()
    await expect(page.locator("svg.board .target-pending")).to_have_attribute("data-target", "c1")
    destinations = page.locator("svg.board .targets .target-next")
    assert "1a1" in await destinations.evaluate_all("(es) => es.map((e) => e.dataset.target)")
    await page.locator(BOARD_TARGET.format("1a1")).click()
    await expect(page.locator(".moves .move").last).to_have_text("c1-1a1")
    await expect(page.locator(".turn")).to_have_text("Blue to move: your opponent is thinking.")
    assert await targets.count() > 0  # White may queue a premove meanwhile
    assert await page.locator(".errors .error").count() == 0
    for client in clients.values():
        await client.close()


async def test_an_abort_is_said_as_such(redis_client: aioredis.Redis, open_page: Opener) -> None:
    room, first, second = await room_for(redis_client, "marque")
    page = await open_page(f"/#/room/{room}", first)
    other = await open_page(f"/#/room/{room}", second)
    await page.locator("button.abort").click()
    for each in (page, other):
        await expect(each.locator(".turn")).to_have_text("Game aborted.")


async def test_a_move_too_large_is_refused_before_it_is_sent_and_never_resent(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")
    await page.get_by_text("Type a move").click()
    await page.get_by_label("Move in the game's notation").fill("x" * 5000)
    await page.get_by_role("button", name="Play", exact=True).click()
    error = page.locator(".errors .error")
    await expect(error).to_have_attribute("data-code", "too_large")
    await expect(error).to_contain_text("Too long to send")
    await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
    await expect(page.locator(".turn")).to_have_text("Your turn (Horz).")

    # Had such a request reached the server (which closes with 1009), it is given up, not
    # sent again on every reconnection.
    refused = await page.evaluate(
        """async () => {
            const c = window.browneGames.connection;
            const body = { t: "move", room: "x", version: 0, move: "y".repeat(5000), id: 999999 };
            const answer = new Promise((resolve, reject) => {
                c.pending.set(body.id, { body, resolve, reject, resend: true });
            });
            c.send(body);
            try { await answer; return "answered"; } catch (error) { return error.code; }
        }"""
    )
    assert refused == "too_large"
    await expect(page.locator("#connection")).to_have_attribute("data-status", "open")
    target = page.locator("svg.board .targets [data-target]").first
    await target.hover()
    await target.click()  # and the page plays on
    await expect(page.locator(".moves .move")).to_have_count(1)


async def test_the_claim_button_counts_down_to_when_the_win_may_be_claimed(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    seats = (SeatHolder(ann.id, ann.name), SeatHolder(bob.id, bob.name))
    await store.create_room(redis_client, new_room("b-claim", "osbox", "", seats, "5+0"))
    client = await Client.connect(server.ws_url, token_for(ann))
    await client.join("b-claim")
    page = await open_page("/#/room/b-claim", bob)
    await expect(page.locator(".player .clock")).to_have_count(2)
    await client.close()  # Ann leaves
    claim = page.locator("button.claim")
    await expect(claim).to_have_text(re.compile(r"^Claim the win in (0:[0-5]\d|1:00)$"))
    await expect(claim).to_be_disabled()
    await page.evaluate("const real = Date.now; Date.now = () => real() + 61000;")  # a minute later
    await expect(claim).to_have_text("Claim the win")
    await expect(claim).to_be_enabled()


async def test_opening_the_site_goes_back_to_the_game_being_played(
    open_page: Opener, server: RunningServer
) -> None:
    ann, bob = new_guest(), new_guest()
    ann_client = await Client.connect(server.ws_url, token_for(ann))
    bob_client = await Client.connect(server.ws_url, token_for(bob))
    challenge = await ann_client.challenge("osbox")
    room = await bob_client.accept(challenge["id"])
    await ann_client.follow_lobby()  # the game is in play: the lobby lists it
    await ann_client.wait_lobby(lambda lobby: any(g["room_id"] == room for g in lobby["mine"]))
    page = await open_page("/", ann)
    await expect(page).to_have_url(f"{page.url.split('#')[0]}#/room/{room}")
    await expect(page.locator(".player")).to_have_count(2)
    lobby = await open_page("/#/lobby", ann)  # asking for a page stays there
    await expect(lobby.locator(".lobby h1")).to_have_text("Lobby")
    await expect(lobby.locator(".my-games li.live-game")).to_have_count(1)
    await ann_client.close()
    await bob_client.close()


async def test_a_hidden_tab_says_in_its_title_that_it_is_your_turn(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener
) -> None:
    room, first, second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", second)
    await expect(page.locator(".turn")).to_contain_text("to move")
    await page.evaluate(
        "Object.defineProperty(document, 'hidden', { configurable: true, get: () => true })"
    )
    client = await Client.connect(server.ws_url, token_for(first))
    await client.join(room)
    await client.move(room, "a16")
    await expect(page).to_have_title("● Your move: Osbox")
    await page.evaluate(
        "Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    await expect(page).to_have_title("Boche, Che, Osbox, Ankor, Marque")
    await client.close()


async def test_the_sound_switch_is_remembered(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "osbox")
    page = await open_page(f"/#/room/{room}", first)
    switch = page.locator("button.mute")
    await expect(switch).to_have_text("Sound on")
    await switch.click()
    await expect(switch).to_have_attribute("aria-pressed", "true")
    await page.reload()
    await expect(page.locator("button.mute")).to_have_text("Sound off")


async def test_a_phone_plays_with_every_target_on_screen_and_big_enough(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener, artifacts: Path
) -> None:
    """Che's open board on a 390 px phone: a tap on small cells zooms in on them first."""
    room, first, second = await room_for(redis_client, "che")
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    moves = random_moves("che", "", 5, seed=3)
    doc = await play_moves(clients, (first, second), room, moves)
    mover = first if doc["seats"][doc["to_move"]]["id"] == first.id else second
    page = await open_page(f"/#/room/{room}", mover, phone=True)
    await expect(page.locator(".turn")).to_contain_text("Your turn")
    boxes = await page.locator("svg.board .targets [data-target]").evaluate_all(
        "(es) => es.map((e) => e.getBoundingClientRect().toJSON())"
    )
    assert boxes and all(b["left"] >= 0 and b["right"] <= 390 for b in boxes), boxes
    await page.screenshot(path=artifacts / "che-phone-start.png")
    rng = random.Random(2)
    await click_a_move(page, rng, phone=True)
    await expect(page.locator(".moves .move")).to_have_count(len(moves) + 1)
    for client in clients.values():
        await client.close()


async def test_r_turns_the_cube_under_the_pointer_and_a_click_places_it(
    redis_client: aioredis.Redis, open_page: Opener
) -> None:
    room, first, _second = await room_for(redis_client, "boche", "-size=3")
    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".turn")).to_have_text("Your turn (Light).")
    hole = page.locator(BOARD_TARGET.format("b1"))
    await hole.hover()
    shown = page.locator('.palette .choice[aria-pressed="true"]')
    await expect(page.locator(".palette .choice")).to_have_count(8)  # every rotation, first
    await expect(shown).to_have_attribute("data-choice", "a")
    await page.keyboard.press("r")
    await page.keyboard.press("r")
    await page.keyboard.press("Shift+R")
    await expect(shown).to_have_attribute("data-choice", "b")
    await expect(page.locator("svg.board .ghost.hover")).to_have_count(1)
    await hole.click()
    await expect(page.locator(".moves .move")).to_have_text(["b:b1"])


async def test_a_turn_the_page_cannot_list_asks_for_the_move_in_words(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener
) -> None:
    """Che with three tiles a turn lists too many moves to send: the page says to type it."""
    room, first, second = await room_for(redis_client, "che", "-triples")
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    doc = await play_moves(clients, (first, second), room, random_moves("che", "-triples", 2, 1))
    mover = first if doc["seats"][doc["to_move"]]["id"] == first.id else second
    page = await open_page(f"/#/room/{room}", mover)
    await expect(page.locator(".hint")).to_contain_text("type yours below")
    await expect(page.get_by_label("Move in the game's notation")).to_be_visible()
    await expect(page.locator("svg.board .targets [data-target]")).to_have_count(0)
    for client in clients.values():
        await client.close()
