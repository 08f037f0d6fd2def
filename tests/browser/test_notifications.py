"""Notifications on the game page: turned on and off in its "Notifications" settings, shown
by the service worker when the server pushes, and in the tab when it is in the background.

Headless Chromium has no push service to subscribe with (``pushManager.subscribe`` is
refused there), so the page's ``subscribe`` is given a subscription to the test's own push
service on loopback, with keys the test holds; everything after it is real: the page hands it
to the server, the server encrypts and posts the notice there, the test decrypts it and
delivers it to the page's service worker through Chromium's DevTools protocol, as a push
service would, and the notification the worker shows is read back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from playwright.async_api import Browser as Chromium
from playwright.async_api import BrowserContext, Page, expect

from client import Client
from lobby.identity import Player
from rules import find_game
from server.redis import push_store
from tests.browser.conftest import TIMEOUT_MS, TOKEN_KEY, room_for
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, start_server, token_for
from tests.e2e.push_service import Browser, PushServiceOnLoopback, loopback_push_service

FAKE_SUBSCRIBE = """
(() => {
  const endpoint = %(endpoint)s, keys = %(keys)s;
  let current = null;
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.subscribedWith = btoa(String.fromCharCode(...key))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    current = {
      endpoint,
      options: { applicationServerKey: key.buffer },
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      unsubscribe: async () => { current = null; return true; },
    };
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
  let hidden = false;
  Object.defineProperty(document, "hidden", { get: () => hidden });
  window.hideTab = (value) => {
    hidden = value;
    document.dispatchEvent(new Event("visibilitychange"));
  };
})();
"""
"""The browser's push service and the tab's visibility, as the test decides them."""


@pytest.fixture
async def push_service() -> AsyncIterator[PushServiceOnLoopback]:
    async with loopback_push_service() as service:
        yield service


@pytest.fixture
async def push_server(
    redis_server: RedisServer, redis_client: aioredis.Redis, push_service: PushServiceOnLoopback
) -> AsyncIterator[RunningServer]:
    running = await start_server(
        redis_server.url,
        push_services=(f"127.0.0.1:{push_service.port}",),
        count_commit_seconds=0.01,
    )
    yield running
    await running.stop()


async def open_player_page(
    chromium: Chromium, server: RunningServer, path: str, player: Player, keys: Browser, url: str
) -> tuple[BrowserContext, Page]:
    context = await chromium.new_context(
        viewport={"width": 1280, "height": 800},
        base_url=server.base_url,
        permissions=["notifications"],
    )
    context.set_default_timeout(TIMEOUT_MS)
    await context.add_init_script(f"localStorage.setItem({TOKEN_KEY!r}, {token_for(player)!r});")
    subscription = keys.subscription(url)
    script = FAKE_SUBSCRIBE % {
        "endpoint": json.dumps(subscription["endpoint"]),
        "keys": json.dumps(subscription["keys"]),
    }
    await context.add_init_script(script)
    page = await context.new_page()
    await page.goto(path)
    return context, page


def legal(doc: dict[str, Any]) -> list[str]:
    """The legal moves' texts in the room's position."""
    rules = find_game(doc["game"])
    return [rules.move_text(move) for move in rules.legal_moves(rules.from_data(doc["data"]))]


async def shown_notifications(page: Page) -> list[dict[str, str]]:
    titles: list[dict[str, str]] = await page.evaluate(
        """async () => {
          const registration = await navigator.serviceWorker.getRegistration("/");
          if (!registration) return [];
          const shown = await registration.getNotifications();
          return shown.map((n) => ({ title: n.title, body: n.body }));
        }"""
    )
    return titles


async def test_a_player_turns_push_on_is_pushed_their_move_and_turns_it_off(
    chromium: Chromium,
    push_server: RunningServer,
    push_service: PushServiceOnLoopback,
    redis_client: aioredis.Redis,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, "marque")
    keys = Browser()
    endpoint = push_service.url("/push/phone")
    context, page = await open_player_page(
        chromium, push_server, f"/#/room/{room}", second, keys, endpoint
    )
    ann = await Client.connect(push_server.ws_url, token_for(first))
    try:
        view = await ann.join(room)
        await expect(page.locator(".player")).to_have_count(2)
        await page.locator(".notify-settings summary").click()
        closed = page.get_by_label("Notify me on this device when the site is closed")
        await closed.check()
        await expect(page.locator(".notify-status")).to_contain_text("On: this device")
        await page.locator(".notify-settings").screenshot(path=artifacts / "notifications-on.png")
        await page.screenshot(path=artifacts / "notifications-page.png", full_page=True)
        devices = await push_store.subscriptions(redis_client, second.id)
        assert [device.endpoint for device in devices] == [endpoint]
        server_key = await page.evaluate("fetch('/api/push/key').then((r) => r.json())")
        assert await page.evaluate("window.subscribedWith") == server_key["key"]

        await page.goto("/#/lobby")  # Bob leaves the game's page
        while view.doc is None or view.doc["away"][1] is None:
            await ann.wait_version(room, view.version + 1)
        await ann.move(room, legal(view.doc)[0])
        async with asyncio.timeout(10):
            arrival = await push_service.arrivals.get()
        payload = keys.read(arrival.body)
        assert payload["title"] == f"Your move in Marque against {first.name}"

        cdp = await context.new_cdp_session(page)
        registrations: list[dict[str, object]] = []
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda event: registrations.extend(event["registrations"]),
        )
        await cdp.send("ServiceWorker.enable")
        async with asyncio.timeout(5):
            while not registrations:
                await asyncio.sleep(0.05)
        await page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # active now
        async with asyncio.timeout(10):
            # A push that reaches a worker still starting may be dropped, as a push service
            # would retry: deliver again until the notification shows (one tag: one notice).
            while not (shown := await shown_notifications(page)):
                await cdp.send(
                    "ServiceWorker.deliverPushMessage",
                    {
                        "origin": push_server.base_url,
                        "registrationId": str(registrations[0]["registrationId"]),
                        "data": json.dumps(payload),
                    },
                )
                await asyncio.sleep(0.5)
        assert shown == [{"title": payload["title"], "body": payload["body"]}]

        await page.goto(f"/#/room/{room}")
        await page.locator(".notify-settings summary").click()
        await expect(closed).to_be_checked()
        await closed.uncheck()
        await expect(page.locator(".notify-status")).to_have_text("Off for this device.")
        assert await push_store.subscriptions(redis_client, second.id) == []
    finally:
        await ann.close()
        await context.close()


async def test_a_tab_in_the_background_notifies_and_marks_its_title_unless_turned_off(
    chromium: Chromium,
    push_server: RunningServer,
    push_service: PushServiceOnLoopback,
    redis_client: aioredis.Redis,
) -> None:
    room, first, second = await room_for(redis_client, "marque")
    context, page = await open_player_page(
        chromium, push_server, f"/#/room/{room}", second, Browser(), push_service.url("/p/1")
    )
    ann = await Client.connect(push_server.ws_url, token_for(first))
    bob = await Client.connect(push_server.ws_url, token_for(second))  # Bob in another tab
    try:
        view = await ann.join(room)
        await expect(page.locator(".player")).to_have_count(2)
        await page.evaluate("navigator.serviceWorker.register('/sw.js')")
        await page.evaluate("window.hideTab(true)")
        assert view.doc is not None
        version = await ann.move(room, legal(view.doc)[0])
        await expect(page).to_have_title("● Your move: Marque")
        async with asyncio.timeout(5):
            while not (shown := await shown_notifications(page)):
                await asyncio.sleep(0.05)
        assert shown[0]["title"] == f"Your move in Marque against {first.name}"
        await page.evaluate("window.hideTab(false)")
        await expect(page).not_to_have_title("● Your move: Marque")

        await page.locator(".notify-settings summary").click()
        await page.get_by_label("Mark the tab when it is my move").uncheck()
        await page.get_by_label("Notify me while the site is open in another tab").uncheck()
        await page.evaluate(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                .forEach((n) => n.close())"""
        )
        turn = page.locator(".turn")
        await expect(turn).to_contain_text("Your turn")
        view = await bob.join(room)
        assert view.doc is not None
        version = await bob.move(room, legal(view.doc)[0])
        await expect(turn).not_to_contain_text("Your turn")
        await page.evaluate("window.hideTab(true)")
        view = await ann.wait_version(room, version)
        assert view.doc is not None
        await ann.move(room, legal(view.doc)[0])
        await expect(turn).to_contain_text("Your turn")
        await asyncio.sleep(0.3)  # what would have been shown has had its moment
        assert await shown_notifications(page) == []
        assert not (await page.title()).startswith("●")
        assert push_service.arrivals.empty()  # Bob was on the page: nothing was pushed
    finally:
        await ann.close()
        await bob.close()
        await context.close()
