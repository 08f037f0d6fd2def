"""The site's HTTP routes end to end: rules pages and their figures, the front page's
positions, the option check, and players' pages."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import redis.asyncio as aioredis

from bench.loopback.http import request
from client import Client
from lobby.identity import Player, new_guest
from lobby.store import accounts as account_store
from lobby.store import games as game_store
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.e2e.conftest import RunningServer, make_room, token_for
from tests.e2e.test_lobby import http


async def get(server: RunningServer, path: str) -> tuple[int, Any]:
    return await asyncio.to_thread(http, server.base_url + path)


async def test_rules_pages_and_their_figures_are_served(app_server: RunningServer) -> None:
    status, page = await get(app_server, "/api/rules/osbox")
    assert status == 200 and page["title"] == "Osbox" and "<h1" in page["html"]
    assert '<img src="/rules/figures/osbox-board.svg"' in page["html"]
    status, figure = await get(app_server, "/rules/figures/osbox-board.svg")
    assert status == 200 and figure.startswith("<svg")
    assert (await get(app_server, "/rules/figures/nothing.svg"))[0] == 404
    assert (await get(app_server, "/rules/figures/..%2Fserver%2Fsite.svg"))[0] == 404
    status, refused = await get(app_server, "/api/rules/chess")
    assert status == 404 and refused["code"] == "unknown_page"
    status, index = await get(app_server, "/api/rules")
    assert [p["page"] for p in index["pages"]][:5] == ["boche", "che", "osbox", "ankor", "marque"]


async def test_the_option_check_gives_the_canonical_text_or_the_reason(
    app_server: RunningServer,
) -> None:
    status, body = await get(app_server, "/api/games/boche/options?text=-KILL=3%20-size=4")
    assert status == 200 and body["options"] == "-size=4 -kill=3"
    status, body = await get(app_server, "/api/games/che/options?text=-single%20-adjacent")
    assert status == 400 and body["code"] == "bad_options" and "-adjacent" in body["message"]
    status, body = await get(app_server, "/api/games/go/options?text=")
    assert status == 404 and body["code"] == "unknown_game"


async def test_the_showcase_has_a_position_of_every_game(app_server: RunningServer) -> None:
    status, body = await get(app_server, "/api/showcase")
    assert status == 200
    assert {g["name"] for g in body["games"]} >= {"boche", "che", "osbox", "ankor", "marque"}


async def test_a_players_page_lists_their_games_now_and_finished(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    done = await make_room(redis_client, ann, bob, game="osbox", room_id="done")
    going = await make_room(redis_client, ann, bob, game="che", room_id="going")
    client = await Client.connect(app_server.ws_url, token_for(ann))
    try:
        await client.join(done)
        await client.resign(done)
        await client.wait_for(done, lambda v: v.doc is not None and v.doc["outcome"] is not None)
        async with asyncio.timeout(10):
            while True:  # the lobby follows the rooms in passes
                status, page = await get(app_server, f"/api/players/{ann.id}")
                if status == 200 and page["recent"] and page["playing"]:
                    break
                await asyncio.sleep(0.1)
    finally:
        await client.close()
    assert page["player"] == {"id": ann.id, "name": ann.name, "guest": True}
    assert [g["room_id"] for g in page["playing"]] == [going]
    [finished] = page["recent"]
    assert finished["room_id"] == done and finished["winner_id"] == bob.id
    assert set(page["ratings"]) >= {"boche", "che", "osbox", "ankor", "marque"}
    assert page["ratings"]["osbox"]["games"] == 0
    status, refused = await get(app_server, "/api/players/g:nobody")
    assert status == 404 and refused["code"] == "unknown_player"


async def test_the_pools_say_how_many_wait(app_server: RunningServer) -> None:
    client = await Client.connect(app_server.ws_url, token_for(new_guest()))
    try:
        assert (await get(app_server, "/api/pools"))[1] == {"waiting": {}}
        assert await client.join_pool("ankor", "1d") is None
        status, body = await get(app_server, "/api/pools")
        assert status == 200 and body == {"waiting": {"ankor/1d/casual": 1}}
    finally:
        await client.close()


async def finished_rated_game(
    server: RunningServer,
    client: aioredis.Redis,
    room_id: str,
    game: str = "osbox",
    players: tuple[Player, Player] | None = None,
) -> tuple[Player, Player]:
    """A rated game between two accounts (new ones unless given) that the first seat resigns
    before moving, once the lobby has it among the finished games."""
    if players is None:
        now = time.time()
        register = account_store.register
        ann = (await register(client, f"ann{room_id}", "a long password", now)).player
        bob = (await register(client, f"bob{room_id}", "a long password", now)).player
    else:
        ann, bob = players
    seats = (SeatHolder(ann.id, ann.name), SeatHolder(bob.id, bob.name))
    await store.create_room(client, new_room(room_id, game, "", seats, rated=True))
    resigner = await Client.connect(server.ws_url, token_for(ann))
    try:
        await resigner.join(room_id)
        await resigner.resign(room_id)
    finally:
        await resigner.close()
    async with asyncio.timeout(10):
        while room_id not in {g.room_id for g in await game_store.finished_games(client, ann.id)}:
            await asyncio.sleep(0.05)  # the lobby follows the rooms in passes
    return ann, bob


async def test_finished_games_are_searched_by_player_game_and_day(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = await finished_rated_game(app_server, redis_client, "rated1")
    await finished_rated_game(app_server, redis_client, "rated2", game="che")
    status, page = await get(app_server, f"/api/games/finished?player={ann.name.upper()}")
    assert status == 200 and page["next"] is None
    [line] = page["games"]
    assert line["room_id"] == "rated1" and line["game"] == "osbox" and line["moves"] == 0
    assert line["winner_id"] == bob.id and line["reason"] == "resignation"
    assert "record" not in line
    ann_rating, bob_rating = line["ratings"][ann.id], line["ratings"][bob.id]
    assert ann_rating["before"] == "1500?" and ann_rating["change"] < 0 < bob_rating["change"]
    today = time.strftime("%Y-%m-%d", time.gmtime())
    status, page = await get(app_server, f"/api/games/finished?from={today}&limit=1")
    assert status == 200 and [g["room_id"] for g in page["games"]] == ["rated2"]
    status, page = await get(app_server, f"/api/games/finished?limit=1&before={page['next']}")
    assert [g["room_id"] for g in page["games"]] == ["rated1"] and page["next"] is None
    status, page = await get(app_server, "/api/games/finished?game=che&to=2020-01-01")
    assert status == 200 and page == {"games": [], "next": None}


async def test_a_search_that_means_nothing_is_refused_with_the_reason(
    app_server: RunningServer,
) -> None:
    status, refused = await get(app_server, "/api/games/finished?limit=500")
    assert status == 400 and refused["code"] == "bad_request"
    assert "1 to 50" in refused["message"]
    status, refused = await get(app_server, "/api/games/finished?from=26/11/2026")
    assert status == 400 and "YYYY-MM-DD" in refused["message"]
    status, refused = await get(app_server, "/api/games/finished?player=nobody-at-all")
    assert status == 404 and refused["code"] == "unknown_player"


async def test_an_account_made_from_a_guest_keeps_the_guests_finished_games(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    guest, other = new_guest(), new_guest()
    done = await make_room(redis_client, guest, other, game="osbox", room_id="as-guest")
    client = await Client.connect(app_server.ws_url, token_for(guest))
    try:
        await client.join(done)
        await client.resign(done)
    finally:
        await client.close()
    async with asyncio.timeout(10):
        while done not in {
            g.room_id for g in await game_store.finished_games(redis_client, guest.id)
        }:
            await asyncio.sleep(0.05)  # the lobby follows the rooms in passes

    body = {"name": "annie", "password": "a long password"}
    made = await request(
        f"{app_server.base_url}/api/register", body, {"Authorization": f"Bearer {token_for(guest)}"}
    )
    assert made.status == 200, made.text
    account = made.json["player"]
    status, page = await get(app_server, f"/api/players/{account['id']}")
    [kept] = page["recent"]
    assert kept["room_id"] == done and kept["winner_id"] == other.id
    assert {p["name"] for p in kept["players"]} == {"annie", other.name}
    status, found = await get(app_server, "/api/games/finished?player=annie")
    assert [g["room_id"] for g in found["games"]] == [done]
    status, left = await get(app_server, f"/api/games/finished?player={guest.id}")
    assert left["games"] == []
    status, theirs = await get(app_server, f"/api/players/{other.id}")  # the opponent's too
    assert {p["name"] for p in theirs["recent"][0]["players"]} == {"annie", other.name}

    # A registration without a guest's session takes nothing.
    plain = await request(
        f"{app_server.base_url}/api/register", {"name": "bobby", "password": "a long password"}
    )
    status, page = await get(app_server, f"/api/players/{plain.json['player']['id']}")
    assert page["recent"] == []
