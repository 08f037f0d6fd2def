"""The room's chats in the page: the two players talk in their chat and spectators in theirs,
neither sees the other's; the lines are still there after a reload; muting hides a user's
lines on this browser; a report reaches the operators' list.  On a desktop and a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import Page, expect

from client import Client
from server.redis import chat_store
from tests.browser.conftest import Opener, room_for
from tests.e2e.conftest import RunningServer, token_for


async def say(page: Page, text: str) -> None:
    await page.locator(".chat-form input").fill(text)
    await page.locator(".chat-form button").click()
    await expect(page.locator(".chat-form input")).to_have_value("")


async def watch(open_page: Opener, room: str, phone: bool) -> Page:
    page = await open_page(f"/#/room/{room}", phone=phone)
    await expect(page.locator(".chat-tab")).to_have_text(["Spectators' chat"])
    return page


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_players_and_spectators_chat_apart_and_the_lines_stay(
    phone: bool,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, "che")
    light = await open_page(f"/#/room/{room}", first, phone=phone)
    dark = await open_page(f"/#/room/{room}", second, phone=phone)
    for page in (light, dark):
        await expect(page.locator(".chat-tab")).to_have_text(["Players' chat"])
    await say(light, "Good luck!")
    await expect(dark.locator(".chat-line .chat-text")).to_have_text(["Good luck!"])
    await say(dark, "Have fun")
    await expect(light.locator(".chat-line .chat-text")).to_have_text(["Good luck!", "Have fun"])

    eve = await watch(open_page, room, phone)
    max_ = await watch(open_page, room, phone)
    await say(eve, "Che is such a tense game")
    await expect(max_.locator(".chat-line .chat-text")).to_have_text(["Che is such a tense game"])
    await say(max_, "Light's opening looks odd")
    await expect(eve.locator(".chat-line .chat-text")).to_have_text(
        ["Che is such a tense game", "Light's opening looks odd"]
    )
    # Neither side sees the other's chat.
    await expect(light.locator(".chat-line .chat-text")).to_have_text(["Good luck!", "Have fun"])
    await expect(eve.locator(".chat-tab")).to_have_count(1)
    suffix = "-phone" if phone else ""
    await light.screenshot(path=artifacts / f"chat-player{suffix}.png", full_page=True)
    await eve.screenshot(path=artifacts / f"chat-spectator{suffix}.png", full_page=True)

    # A reload shows the same lines.
    await dark.reload()
    await expect(dark.locator(".chat-line .chat-text")).to_have_text(["Good luck!", "Have fun"])
    await max_.reload()
    await expect(max_.locator(".chat-line .chat-text")).to_have_text(
        ["Che is such a tense game", "Light's opening looks odd"]
    )

    # Eve mutes Max: his lines are hidden from her, and stay hidden after a reload.
    line = eve.locator(".chat-line", has_text="Light's opening looks odd")
    await line.hover()
    await line.locator(".chat-mute").click()
    await expect(eve.locator(".chat-line .chat-text")).to_have_text(["Che is such a tense game"])
    await expect(eve.locator(".chat-muted-list")).to_contain_text("Muted:")
    await eve.reload()
    await expect(eve.locator(".chat-line .chat-text")).to_have_text(["Che is such a tense game"])

    # Dark reports Light's line: the operators' list has it.
    reported = dark.locator(".chat-line", has_text="Good luck!")
    await reported.hover()
    await reported.locator(".chat-report").click()
    await expect(reported.locator(".chat-report")).to_have_text("Reported")
    (report,) = await chat_store.reports(redis_client)
    assert report["room"] == room and report["channel"] == "players"
    assert report["line"]["text"] == "Good luck!" and report["line"]["player"] == first.id
    assert report["reporter"]["id"] == second.id
    await dark.screenshot(path=artifacts / f"chat-reported{suffix}.png", full_page=True)


async def test_after_the_game_the_players_may_read_the_spectators_or_turn_it_off(
    redis_client: aioredis.Redis, server: RunningServer, open_page: Opener, artifacts: Path
) -> None:
    room, first, second = await room_for(redis_client, "osbox")
    eve = await watch(open_page, room, phone=False)
    await say(eve, "well played both")
    light = await open_page(f"/#/room/{room}", first)
    await expect(light.locator(".chat-tab")).to_have_text(["Players' chat"])
    client = await Client.connect(server.ws_url, token_for(second))
    try:
        await client.join(room)
        await client.resign(room)
    finally:
        await client.close()
    await expect(light.locator(".chat-tab")).to_have_text(["Players", "Spectators"])
    await light.locator(".chat-tab", has_text="Spectators").click()
    await expect(light.locator(".chat-line .chat-text")).to_have_text(["well played both"])
    await say(light, "thank you")
    await expect(eve.locator(".chat-line .chat-text")).to_have_text(
        ["well played both", "thank you"]
    )
    await light.screenshot(path=artifacts / "chat-after-the-game.png", full_page=True)
    await light.locator(".chat-spectators-switch").uncheck()
    await expect(light.locator(".chat-tab")).to_have_text(["Players' chat"])
    await light.reload()
    await expect(light.locator(".chat-switch")).to_be_visible()
    await expect(light.locator(".chat-tab")).to_have_text(["Players' chat"])
