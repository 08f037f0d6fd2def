"""The tournament pages in the browser: an account creates an event with the form, players
join and withdraw on its page, a spectator sees it in the list, the event starts and its page
shows standings, pairings, the crosstable and a link to the live game, and a result played
elsewhere reaches every open page pushed over the websocket: after a page has opened, it asks
the HTTP routes nothing more. Screenshots go to ``artifacts/browser/``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from playwright.async_api import Page, Request, expect

from client import Client
from lobby.identity import Player, new_guest
from lobby.store import accounts as account_store
from lobby.tournaments.model import Format, Settings, Status
from tests.browser.conftest import Opener
from tests.browser.test_reconnect import HOLD_AND_CUT, RELEASE
from tests.e2e.conftest import RunningServer, make_room, token_for
from tests.e2e.test_tournaments import scheduler


async def account(client: aioredis.Redis, name: str) -> Player:
    return (await account_store.register(client, name, "a long password", time.time())).player


def http_reads(page: Page, path: str) -> list[str]:
    """The GETs of ``path`` and below the page makes from now on."""
    seen: list[str] = []

    def record(request: Request) -> None:
        if request.method == "GET" and path in request.url:
            seen.append(request.url)

    page.on("request", record)
    return seen


async def test_a_tournament_is_made_joined_started_and_its_result_pushed_to_every_page(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    now = [time.time()]
    service = scheduler(server, now)
    ann, bob = await account(redis_client, "annie"), await account(redis_client, "bobby")
    ann_page = await open_page("/#/tournaments", player=ann)
    bob_page = await open_page("/#/lobby", player=bob)
    eve_page = await open_page("/#/tournaments")

    # Ann makes a two-player knockout of Boche with the form and lands on its page.
    await ann_page.get_by_label("Name").fill("Autumn cup")
    await expect(ann_page.get_by_label("Game")).to_contain_text("Boche")
    await ann_page.get_by_label("Game").select_option("boche")
    await ann_page.get_by_label("Format").select_option("knockout")
    await ann_page.get_by_label("Players").fill("2")
    await ann_page.get_by_label("Starts in minutes").fill("1")
    await ann_page.get_by_role("button", name="Create").click()
    await expect(ann_page.locator(".tournament-page h1")).to_have_text("Autumn cup")
    tid = ann_page.url.split("#/tournament/")[1]

    # Eve follows the list: the new event appears under Upcoming without a reload.
    row = eve_page.locator(f'.tournaments-created tr[data-tournament="{tid}"]')
    await expect(row).to_contain_text("Autumn cup")
    await expect(row).to_contain_text("0/2")
    await expect(row).to_contain_text("Boche")
    await expect(row).to_contain_text("Knockout · rated")

    # Eve, a guest, may not enter a rated event: no Join, and the page says why.
    await row.get_by_role("link", name="Autumn cup").click()
    await expect(eve_page.locator(".tournament-facts")).to_contain_text("Boche · Knockout · rated")
    await expect(eve_page.get_by_role("button", name="Join")).to_be_hidden()
    await expect(eve_page.locator(".join-note")).to_have_text(
        "A rated event: sign in with an account to join."
    )
    await eve_page.goto("/#/tournaments")

    # Ann joins; Bob, already on the event's page, sees her entered.
    bob_reads = http_reads(bob_page, f"/api/tournaments/{tid}")
    eve_reads = http_reads(eve_page, "/api/tournaments")
    await bob_page.goto(f"/#/tournament/{tid}")
    standings = bob_page.locator("table.standings tbody tr")
    await expect(bob_page.locator(".tournament-facts")).to_contain_text("0/2 players")
    await ann_page.get_by_role("button", name="Join").click()
    await expect(ann_page.get_by_role("button", name="Withdraw")).to_be_visible()
    await expect(standings).to_have_count(1)
    await expect(standings.first).to_contain_text("annie")
    await expect(row).to_contain_text("1/2")

    # Bob joins, withdraws and joins again; Ann's page follows each step.
    ann_standings = ann_page.locator("table.standings tbody tr")
    await bob_page.get_by_role("button", name="Join").click()
    await expect(ann_standings).to_have_count(2)
    await bob_page.get_by_role("button", name="Withdraw").click()
    await expect(ann_standings).to_have_count(1)
    await expect(bob_page.get_by_role("button", name="Join")).to_be_visible()
    await bob_page.get_by_role("button", name="Join").click()
    await expect(ann_standings).to_have_count(2)
    await expect(row).to_contain_text("2/2")

    # Its time comes: the event starts, pairs its one game, and every page shows it.
    now[0] += 120
    await service.step()
    await expect(row).to_be_hidden()
    running = eve_page.locator(f'.tournaments-running tr[data-tournament="{tid}"]')
    await expect(running).to_contain_text("1/1")
    event = await _followed(server, tid)
    (game,) = event["games"]
    # Both players are taken to their game; Bob goes back to the event's page.
    for page in (ann_page, bob_page):
        await expect(page).to_have_url(f"{server.base_url}/#/room/{game['room']}")
    await bob_page.go_back()
    await expect(bob_page.locator(".tournament-page h1")).to_have_text("Autumn cup")
    pairing = bob_page.locator(f'.pairings li[data-game="{game["id"]}"]')
    await expect(pairing).to_contain_text("playing")
    link = pairing.get_by_role("link")
    await expect(link).to_have_attribute("href", f"#/room/{game['room']}")
    await expect(bob_page.locator("table.crosstable tbody tr")).to_have_count(2)
    await expect(bob_page.locator("table.crosstable td a").first).to_have_attribute(
        "href", f"#/room/{game['room']}"
    )
    await bob_page.screenshot(path=artifacts / "tournament-running.png", full_page=True)

    # Eve opens the event, then watches its live game from the pairing's link.
    await eve_page.goto(f"/#/tournament/{tid}")
    await eve_page.locator(f'.pairings li[data-game="{game["id"]}"] a').click()
    await expect(eve_page).to_have_url(f"{server.base_url}/#/room/{game['room']}")
    await expect(eve_page.locator(".turn")).not_to_have_text("Joining…")
    await eve_page.go_back()
    await expect(eve_page.locator(".tournament-page h1")).to_have_text("Autumn cup")

    # The first seat resigns from another client: the result is pushed to the open pages.
    loser = ann if game["first"] == ann.id else bob
    winner = "bobby" if loser is ann else "annie"
    resigner = await Client.connect(server.ws_url, token_for(loser))
    try:
        await resigner.join(game["room"])
        await resigner.resign(game["room"])
    finally:
        await resigner.close()
    await ann_page.go_back()
    for page in (ann_page, bob_page, eve_page):
        await expect(page.locator(".tournament-facts")).to_contain_text("finished")
        await expect(page.locator("table.standings tbody tr").first).to_contain_text(winner)
        await expect(page.locator(f'.pairings li[data-game="{game["id"]}"]')).to_contain_text(
            "0–1" if game["first"] == loser.id else "1–0"
        )
    await bob_page.screenshot(path=artifacts / "tournament-finished.png", full_page=True)
    # Bob's page read the event once over HTTP only if ever: everything after came pushed.
    assert bob_reads == []
    assert [url for url in eve_reads if "/api/tournaments/" in url] == []


async def _followed(server: RunningServer, tournament_id: str) -> dict[str, Any]:
    """The event as a websocket follower receives it."""
    watcher = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        return await watcher.follow_tournament(tournament_id)
    finally:
        await watcher.close()


async def test_an_event_page_catches_up_on_a_change_missed_while_its_socket_was_cut(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis
) -> None:
    service = scheduler(server, [time.time()])
    ann = await account(redis_client, "annie")
    settings = Settings("che", Format.SWISS, time.time() + 600, 4, rounds=1)
    event = await service.create(ann, settings)
    page = await open_page(f"/#/tournament/{event.id}", player=ann)
    await expect(page.locator(".tournament-facts")).to_contain_text("0/4 players")
    await page.evaluate(HOLD_AND_CUT)
    await expect(page.locator("#connection")).to_have_attribute("data-status", "reconnecting")
    await service.join(ann, event.id)  # missed: nobody hears it on a cut socket
    await page.wait_for_function("window.reconnectHeld === true")
    await expect(page.locator(".tournament-facts")).to_contain_text("0/4 players")
    await page.evaluate(RELEASE)
    await expect(page.locator(".tournament-facts")).to_contain_text("1/4 players")
    await expect(page.get_by_role("button", name="Withdraw")).to_be_visible()


async def test_connection_js_keeps_the_newest_copy_of_an_event_and_of_the_list(
    open_page: Opener,
) -> None:
    """A push may overtake the reply it follows: the older copy that arrives later is dropped."""
    page = await open_page("/")
    result = await page.evaluate(
        """async () => {
            const { Connection } = await import("/connection.js");
            const seen = [];
            const c = new Connection("ws://unused", "token", {
                onTournament: (t) => seen.push(t.version),
                onTournaments: (list) => seen.push([...list.values()].map((t) => t.version)),
            });
            c.tournaments.set("t1", null);
            c.keepTournament({ id: "t1", version: 3 });
            c.keepTournament({ id: "t1", version: 2 });
            c.keepTournament({ id: "t2", version: 9 });  // not followed
            c.tournamentList = new Map([["t1", { id: "t1", version: 5 }]]);
            c.tournamentListSnapshot({
                created: [{ id: "t1", version: 4 }, { id: "t3", version: 1 }],
                running: [],
                finished: [],
            });
            const kept = c.tournaments.get("t1").version;
            return { seen, kept, followed: [...c.tournaments.keys()] };
        }"""
    )
    assert result == {"seen": [3, [5, 1]], "kept": 3, "followed": ["t1"]}


async def test_a_player_waiting_on_the_site_is_taken_to_each_rounds_game(
    open_page: Opener, server: RunningServer, redis_client: aioredis.Redis, artifacts: Path
) -> None:
    """In the lobby or on the tournaments page (the event's own page: the test above), a
    round's start takes a player to their game with a note; one still playing another game
    gets the note and a link."""
    now = [time.time()]
    service = scheduler(server, now)
    players = [await account(redis_client, name) for name in ("annie", "bobby", "cara", "dan")]
    ann = players[0]
    settings = Settings("osbox", Format.SWISS, now[0] + 600, 4, rounds=3)
    event = await service.create(ann, settings)
    for player in players:
        await service.join(player, event.id)
    casual = await make_room(redis_client, ann, new_guest(), game="che", room_id="b-casual")
    page = await open_page("/#/lobby", player=ann)
    await expect(page.locator(".lobby h1")).to_have_text("Lobby")
    notice = page.locator("#round-notice")
    await expect(notice).to_be_hidden()
    # Waiting on the site: the page holds the lobby before the round starts (a snapshot taken
    # after it would list the new game as one already known, and announce nothing).
    await page.wait_for_function("window.browneGames.connection.lobby !== null")
    now[0] += 700
    await service.step()
    # Between rounds Ann waits on the tournaments page, then plays a casual game.
    for round_number, waits_on in ((1, "/#/tournaments"), (2, f"/#/room/{casual}"), (3, "")):
        t = await service.get(event.id)
        (game,) = [g for g in t.games if g.round == round_number and ann.id in (g.first, g.second)]
        opponent = next(p for p in players if p.id in (game.first, game.second) and p is not ann)
        started = f"Round {round_number} started: your game against {opponent.name}"
        if round_number == 3:  # still in her casual game: the note links to the new one
            await expect(notice).to_have_text(f"{started} Go to it")
            await expect(page).to_have_url(f"{server.base_url}/#/room/{casual}")
            await page.screenshot(path=artifacts / "tournament-round-busy.png")
            await notice.get_by_role("link", name="Go to it").click()
        await expect(page).to_have_url(f"{server.base_url}/#/room/{game.id}")
        await expect(notice).to_contain_text(started)
        await expect(page.locator(".turn")).not_to_have_text("Joining…")
        await page.screenshot(path=artifacts / f"tournament-round-{round_number}.png")
        if waits_on:
            await page.goto(waits_on)
            await expect(notice).to_be_hidden()
            if round_number == 2:
                await expect(page.locator(".turn")).not_to_have_text("Joining…")
        # Every game of the round ends: the first seat resigns each.
        for board in [g for g in t.games if g.round == round_number and g.second is not None]:
            resigner = await Client.connect(
                server.ws_url, token_for(next(p for p in players if p.id == board.first))
            )
            try:
                await resigner.join(board.id)
                await resigner.resign(board.id)
            finally:
                await resigner.close()
        await service.wait_idle()
    finished = await service.get(event.id)
    assert finished.status is Status.FINISHED
