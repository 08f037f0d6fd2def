"""HTTP routes: one-click guests, health, metrics, the static client, 401 for bad
credentials, and the websocket's Origin check."""

from __future__ import annotations

import asyncio
import copy
import json
import urllib.error
import urllib.request
from types import ModuleType

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from bench.loopback.http import request
from client import Client, guest
from lobby.identity import issue_token, new_guest
from tests.conftest import RedisServer
from tests.e2e.conftest import (
    SECRET,
    RunningServer,
    connect,
    make_room,
    start_server,
    token_for,
)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def test_a_guest_gets_a_token_that_opens_the_websocket(app_server: RunningServer) -> None:
    player, token = await asyncio.to_thread(guest, app_server.base_url)
    assert player["guest"] is True and player["name"].startswith("Guest-")
    client = await Client.connect(app_server.ws_url, token)
    assert client.player == player
    await client.close()


async def test_healthz_answers_when_redis_does(app_server: RunningServer) -> None:
    assert await asyncio.to_thread(get, f"{app_server.base_url}/healthz") == (200, "ok\n")


async def test_metrics_count_connections_moves_and_errors(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca = await connect(app_server, a)
    await ca.join(room)
    await ca.move(room, "a1")
    with pytest.raises(Exception):  # noqa: B017 - any refusal will do
        await ca.move(room, "b1")
    status, text = await asyncio.to_thread(get, f"{app_server.base_url}/metrics")
    assert status == 200
    values = {
        name: float(value)
        for name, value in (
            line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#")
        )
    }
    assert values["browne_connections"] == 1
    assert values["browne_moves_total"] == 1
    assert values['browne_errors_total{code="not_your_turn"}'] == 1
    assert values["browne_commit_seconds_count"] == 1
    await ca.close()


async def test_the_static_client_is_served_at_the_root(app_server: RunningServer) -> None:
    status, text = await asyncio.to_thread(get, f"{app_server.base_url}/protocol.js")
    assert status == 200 and "export const MsgType" in text
    status, _ = await asyncio.to_thread(get, f"{app_server.base_url}/no-such-file.js")
    assert status == 404


async def test_websocket_compression_is_refused(app_server: RunningServer) -> None:
    """permessage-deflate costs more CPU than it saves on small msgpack diffs."""
    url = f"{app_server.ws_url}?token={token_for(new_guest())}"
    async with ws_connect(url) as socket:  # offers permessage-deflate by default
        assert socket.protocol.extensions == []


async def test_bad_or_missing_bearer_tokens_answer_401_with_a_bearer_challenge(
    app_server: RunningServer,
) -> None:
    url = f"{app_server.base_url}/api/tournaments/tnothing/join"
    missing = await request(url, {})
    assert (missing.status, missing.json["code"]) == (401, "bad_credentials")
    assert missing.headers["www-authenticate"] == "Bearer"
    expired = issue_token(SECRET, new_guest(), 0, ttl=1)
    forged = issue_token(b"another secret", new_guest(), 0, ttl=10**10)
    headers = ("Bearer not-a-token", "Bearer a.b", "Basic dXNlcjpwdw==")
    for header in (*headers, f"Bearer {expired}", f"Bearer {forged}"):
        for path in ("/api/tournaments/tnothing/join", "/api/tournaments"):
            bad = await request(app_server.base_url + path, {}, headers={"Authorization": header})
            assert (bad.status, bad.json["code"]) == (401, "bad_credentials"), (path, header)
            assert bad.headers["www-authenticate"].startswith("Bearer")
    good = await request(url, {}, headers={"Authorization": f"Bearer {token_for(new_guest())}"})
    assert good.json["code"] == "unknown_tournament"


async def test_the_websocket_refuses_pages_of_other_origins(app_server: RunningServer) -> None:
    """A page of another site may not open a socket in its visitor's name; the server's own
    pages and clients that send no Origin (bots, command lines) may."""
    url = f"{app_server.ws_url}?token={token_for(new_guest())}"
    for origin in (None, f"http://127.0.0.1:{app_server.port}"):
        async with ws_connect(url, origin=origin) as socket:  # type: ignore[arg-type]
            await socket.recv()  # the welcome
    for origin in (
        "http://evil.example",
        f"http://127.0.0.1:{app_server.port}.evil.example",
        "null",
    ):
        with pytest.raises(InvalidStatus) as caught:
            async with ws_connect(url, origin=origin):  # type: ignore[arg-type]
                pass
        assert caught.value.response.status_code == 403


async def test_the_websocket_accepts_the_configured_origins(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    server = await start_server(redis_server.url, allowed_origins=("https://friends.example",))
    try:
        url = f"{server.ws_url}?token={token_for(new_guest())}"
        async with ws_connect(url, origin="https://friends.example") as socket:  # type: ignore[arg-type]
            await socket.recv()
        with pytest.raises(InvalidStatus):
            async with ws_connect(url, origin="https://enemies.example"):  # type: ignore[arg-type]
                pass
    finally:
        await server.stop()


async def test_a_position_by_move_number_replays_the_record(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second)
    ann, bob = await connect(app_server, first), await connect(app_server, second)
    try:
        views = [await ann.join(room), await bob.join(room)]
        shown = [copy.deepcopy(views[0].doc["data"])]  # type: ignore[index]
        for client, text in ((ann, "b2"), (bob, "a1"), (ann, "c3")):
            version = await client.move(room, text, version=views[0].version)
            await ann.wait_version(room, version)
            shown.append(copy.deepcopy(views[0].doc["data"]))  # type: ignore[index]
    finally:
        await ann.close()
        await bob.close()
    base = f"{app_server.base_url}/api/rooms/{room}/positions"
    for ply, data in enumerate(shown):
        status, body = await asyncio.to_thread(get, f"{base}/{ply}")
        assert status == 200
        answer = json.loads(body)
        assert answer["data"] == data and answer["ply"] == ply and answer["plies"] == 3
    status, body = await asyncio.to_thread(get, f"{base}/4")
    assert status == 400 and json.loads(body)["code"] == "bad_request"
    status, body = await asyncio.to_thread(get, f"{app_server.base_url}/api/rooms/nope/positions/0")
    assert status == 404 and json.loads(body)["code"] == "unknown_room"
