"""The lobby in the browser: one page makes a challenge, another sees it appear and accepts,
both land in the room and play, and a third sees the live game appear and watches it.
Screenshots of the lobby (wide and phone-sized) go to ``artifacts/browser/``."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from playwright.async_api import expect

from lobby.bot_strength import read_strength
from lobby.identity import new_guest
from tests.browser.conftest import Opener
from tests.browser.gestures import click_a_move, mover

LOBBY_EVENTS = Path(__file__).resolve().parents[1] / "client" / "fixtures" / "lobby_events.json"


async def test_a_challenge_made_in_one_page_is_accepted_in_another_and_watched(
    open_page: Opener, artifacts: Path
) -> None:
    ann, bob = new_guest(), new_guest()
    ann_page = await open_page("/#/lobby", player=ann)
    bob_page = await open_page("/#/lobby", player=bob, phone=True)
    eve_page = await open_page("/#/lobby")

    # Ann makes an open Boche challenge on a smaller board, with the keyboard-reachable form.
    await ann_page.get_by_label("Game", exact=True).select_option("boche")
    size = ann_page.locator("#option-size")
    await expect(size).to_have_value("6")  # the form starts from the game's defaults
    await size.fill("4")
    await ann_page.get_by_label("I move first").check()
    await expect(ann_page.get_by_label("Rated")).to_be_disabled()  # a guest plays casual games
    await ann_page.get_by_role("button", name="Challenge").click()
    mine = ann_page.locator(".outgoing li.challenge")
    await expect(mine).to_have_count(1)
    await expect(mine).to_contain_text("Board size: 4 holes per side")  # options in words

    # Bob sees it appear in the open list, and accepts it.
    offered = bob_page.locator(".open-challenges li.challenge")
    await expect(offered).to_have_count(1)
    await expect(offered).to_contain_text(ann.name)
    await artifacts_shot(bob_page, artifacts / "lobby-phone.png")
    await artifacts_shot(ann_page, artifacts / "lobby.png")
    challenge = await offered.get_attribute("data-challenge")
    assert challenge is not None
    await offered.get_by_role("button", name="Accept").click()

    # Both pages land in the room; Ann moves first, then Bob.
    for page in (ann_page, bob_page):
        await expect(page).to_have_url(f"{page.url.split('#')[0]}#/room/{challenge}")
        await expect(page.locator(".turn")).not_to_have_text("Joining…")
    rng = random.Random(4)
    assert await mover([ann_page, bob_page], 0) is ann_page
    await expect(ann_page.locator("button.abort")).to_be_visible()
    await expect(ann_page.locator("button.draw-offer")).to_be_visible()
    await click_a_move(ann_page, rng, phone=False)
    await expect(bob_page.locator(".moves .move")).to_have_count(1)

    # Eve sees the live game in the list, then watches it.
    game = eve_page.locator(f'.live-games li[data-room="{challenge}"]')
    await expect(game).to_contain_text("move 1")
    await expect(game).to_contain_text(ann.name)
    await game.get_by_role("link", name="Watch").click()
    await expect(eve_page.locator(".moves .move")).to_have_count(1)
    await expect(eve_page.locator("button.abort")).to_be_hidden()  # a spectator has no actions
    await expect(ann_page.locator(".spectators")).to_have_text("1 watching")
    assert await mover([ann_page, bob_page], 1) is bob_page
    await click_a_move(bob_page, rng, phone=True)
    await expect(eve_page.locator(".moves .move")).to_have_count(2)


async def test_an_account_registers_and_offers_a_draw_that_is_accepted(
    open_page: Opener, artifacts: Path
) -> None:
    ann_page = await open_page("/#/lobby")  # a guest at once; the header's link signs in
    guest_name = ann_page.locator("#player")
    await expect(guest_name).to_contain_text("Guest-")
    guest = await guest_name.inner_text()
    await ann_page.get_by_role("link", name="Sign in").click()
    await expect(ann_page.locator(".keeps-games")).to_have_text(
        f"Registering now keeps the finished games you played as {guest}."
    )
    await ann_page.get_by_label("Name").fill("annie")
    await ann_page.get_by_label("Password").fill("a long password")
    await ann_page.get_by_role("button", name="Register").click()
    await expect(ann_page.locator("#player")).to_have_text("annie")
    await ann_page.get_by_role("link", name="Lobby", exact=True).click()
    bob_page = await open_page("/#/lobby")
    bob_name = bob_page.locator("#player")
    await expect(bob_name).not_to_have_text("")
    # A direct challenge to the guest by name; only he sees it.
    await ann_page.get_by_label("Opponent").fill(await bob_name.inner_text())
    await ann_page.get_by_role("button", name="Challenge").click()
    incoming = bob_page.locator(".incoming li.challenge")
    await expect(incoming).to_have_count(1)
    await incoming.get_by_role("button", name="Accept").click()
    await expect(ann_page.locator(".turn")).not_to_have_text("Joining…")
    await ann_page.locator("button.draw-offer").click()
    await expect(bob_page.locator(".offer")).to_have_text("Your opponent offers a draw.")
    await artifacts_shot(bob_page, artifacts / "room-draw-offer.png")
    await bob_page.locator("button.draw-accept").click()
    await expect(ann_page.locator(".turn")).to_have_text("Draw by agreement.")
    await ann_page.locator("button.rematch").click()
    await expect(bob_page.locator(".offer")).to_have_text("Your opponent asks for a rematch.")
    old = bob_page.url
    await bob_page.locator("button.rematch").click()
    for page in (ann_page, bob_page):
        await expect(page).not_to_have_url(old)
        await expect(page.locator(".moves .move")).to_have_count(0)
        await expect(page.locator(".turn")).not_to_have_text("Joining…")


async def artifacts_shot(page: object, path: Path) -> None:
    await page.screenshot(path=path, full_page=True)  # type: ignore[attr-defined]


async def test_connection_js_applies_lobby_events_as_the_python_client_does(
    open_page: Opener,
) -> None:
    cases = json.loads(LOBBY_EVENTS.read_text())["cases"]
    page = await open_page("/")
    results = await page.evaluate(
        """async (cases) => {
            const { applyLobbyEvent } = await import("/connection.js");
            return cases.map((c) => {
                const lobby = structuredClone(c.before);
                for (const event of c.events) applyLobbyEvent(lobby, event, c.me);
                return lobby;
            });
        }""",
        cases,
    )
    assert results == [case["after"] for case in cases]


async def test_che_can_be_challenged_with_its_defaults_and_an_unlimited_pool(
    open_page: Opener,
) -> None:
    """Options that default to 'off' start empty (the form used to block them), and the
    unlimited pool is a box to tick."""
    page = await open_page("/#/lobby", player=new_guest())
    await page.get_by_label("Game", exact=True).select_option("che")
    area = page.locator("#option-group_area")
    await expect(area).to_have_value("")
    await expect(area).to_have_attribute("placeholder", "off")
    await page.get_by_role("button", name="Challenge").click()
    mine = page.locator(".outgoing li.challenge")
    await expect(mine).to_have_count(1)
    await expect(mine.locator(".game")).to_have_text("Che")
    await expect(mine.locator(".options")).to_have_count(0)  # the defaults: no flags
    await page.get_by_label("unlimited").check()
    await expect(page.locator("#option-num_tiles")).to_be_disabled()
    await page.get_by_role("button", name="Challenge").click()
    await expect(mine).to_have_count(2)
    await expect(mine.nth(1)).to_contain_text("Tiles in the pool: unlimited")


async def test_the_challenge_form_names_options_in_words_and_refuses_bad_ones_with_why(
    open_page: Opener, artifacts: Path
) -> None:
    """Each option is named and explained in words, starts at the rules page's default, and a
    combination the rules refuse is refused with the reason before anything is sent."""
    page = await open_page("/#/lobby", player=new_guest())
    await page.get_by_label("Game", exact=True).select_option("boche")
    kill = page.get_by_label("Enclosure size")
    await expect(kill).to_have_value("4")  # the rules page's default (§3.1)
    option = page.locator('.option[data-field="kill"]')
    await expect(option).to_contain_text("blobs")
    await expect(option.locator(".option-help")).to_contain_text("surrounded by the other")
    await expect(page.get_by_label("Enclosures")).to_have_value("")  # the default: no flag
    await expect(page.get_by_role("link", name="How to play")).to_have_attribute(
        "href", "#/rules/boche"
    )
    await kill.fill("0")
    error = page.locator(".options-error")
    await expect(error).to_contain_text("Enclosure size")
    await expect(page.get_by_role("button", name="Challenge")).to_be_disabled()
    await kill.fill("5")
    await expect(error).to_be_hidden()
    await expect(page.get_by_role("button", name="Challenge")).to_be_enabled()

    # Che: one tile per turn, and the tiles of a turn touching, cannot go together.
    await page.get_by_label("Game", exact=True).select_option("che")
    await page.get_by_label("Tiles per turn").fill("1")
    await page.get_by_label("Tiles of one turn").select_option(label="must touch each other")
    await expect(error).to_contain_text("needs more than one tile per turn")
    await expect(error).to_contain_text("“Tiles of one turn: must touch each other”")
    await expect(page.get_by_role("button", name="Challenge")).to_be_disabled()
    await artifacts_shot(page, artifacts / "lobby-options-refused.png")
    await page.get_by_label("Tiles per turn").fill("2")
    await expect(error).to_be_hidden()
    await page.get_by_role("button", name="Challenge").click()
    mine = page.locator(".outgoing li.challenge")
    await expect(mine).to_contain_text("Tiles of one turn: must touch each other")


async def test_the_computer_levels_say_how_strong_they_play_the_chosen_game(
    open_page: Opener, artifacts: Path
) -> None:
    """Each level's label carries its rating measured by the match bench (bots/strength.json),
    rounded to ten, for the game chosen; a game the bench has not measured shows none."""
    strength = read_strength()
    measured = sorted(game for game, levels in strength.items() if levels)
    assert measured, "bots/strength.json holds no measured game"
    page = await open_page("/#/lobby")
    game = measured[0]
    await page.get_by_label("Game", exact=True).select_option(game)
    for level, rating in strength[game].items():
        about = f"{math.floor(rating / 10 + 0.5) * 10:,}"  # half up, as the page rounds
        option = page.locator(f'#challenge-computer option[value="bot-{level}"]')
        await expect(option).to_contain_text(f"level {level}")
        await expect(option).to_contain_text(f", about {about}")
    await page.get_by_label("Play the computer").select_option("bot-3")
    await artifacts_shot(page, artifacts / "lobby-computer-levels.png")
    unmeasured = [
        name for name in ("boche", "che", "osbox", "ankor", "marque") if name not in measured
    ]
    if unmeasured:
        await page.get_by_label("Game", exact=True).select_option(unmeasured[0])
        option = page.locator('#challenge-computer option[value="bot-3"]')
        await expect(option).to_have_text("computer, level 3")
