"""Computer analysis through the real server and a real analyst process: a finished game is
queued once, analysed in another process, and read back with its blunder marked."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.identity import Player, new_guest
from lobby.store import analyses
from rules import find_game
from tests.bots.test_analysis import planted_blunder
from tests.conftest import RedisServer
from tests.e2e.conftest import ROOT, SECRET, RunningServer, connect, make_room, token_for

GAME, OPTIONS = "boche", "-size=4"


def call(url: str, method: str = "GET", token: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    request = urllib.request.Request(
        url, method=method, headers=headers, data=b"" if method == "POST" else None
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@contextlib.contextmanager
def running_analyst(redis_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m bots.analyst`` on the test Redis, with a small budget, while in the block."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bots.analyst", "--redis", redis_url]
    command += ["--playouts", "30", "--parent", str(os.getpid())]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        yield process
    finally:
        process.terminate()
        process.wait(10)


async def play_record(
    server: RunningServer, room: str, players: list[Player], moves: list[str]
) -> None:
    """Play ``moves`` in ``room`` as its two players, over the websocket."""
    clients = [await connect(server, player) for player in players]
    try:
        views = [await client.join(room) for client in clients]
        for text in moves:
            doc = views[0].doc
            assert doc is not None
            holder = doc["seats"][doc["to_move"]]["id"]
            mover = clients[0] if holder == players[0].id else clients[1]
            version = await mover.move(room, text, version=views[0].version)
            await clients[0].wait_version(room, version)
    finally:
        for client in clients:
            await client.close()


@pytest.fixture
def analyst(redis_server: RedisServer) -> Iterator[subprocess.Popen[bytes]]:
    with running_analyst(redis_server.url) as process:
        yield process


async def test_a_finished_game_is_analysed_once_by_an_analyst(
    app_server: RunningServer,
    redis_client: aioredis.Redis,
    analyst: subprocess.Popen[bytes],
) -> None:
    moves, blunder_ply, winning = planted_blunder(find_game(GAME), OPTIONS)
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second, game=GAME, options=OPTIONS)
    url = f"{app_server.base_url}/api/rooms/{room}/analysis"
    token = token_for(first)
    await play_record(app_server, room, [first, second], moves[:1])
    status, answer = await asyncio.to_thread(call, url, "POST", token)
    assert status == 409 and answer["code"] == "game_not_over"  # a game under way
    await play_record(app_server, room, [first, second], moves[1:])

    assert await asyncio.to_thread(call, url) == (200, {"status": "none", "plies": []})
    status, answer = await asyncio.to_thread(call, url, "POST")
    assert status == 401
    status, answer = await asyncio.to_thread(call, url, "POST", token)
    assert status == 200 and answer["status"] in ("queued", "done")
    status, again = await asyncio.to_thread(call, url, "POST", token)
    assert status == 200 and again["status"] in ("queued", "done")
    assert await redis_client.llen(analyses.QUEUE) <= 1  # asked twice, queued once

    async with asyncio.timeout(60):
        while answer["status"] != "done":
            await asyncio.sleep(0.2)
            status, answer = await asyncio.to_thread(call, url)
            assert status == 200 and answer["status"] in ("queued", "done"), answer
    plies = answer["plies"]
    assert [p["move"] for p in plies] == moves
    blunder = plies[blunder_ply - 1]
    assert blunder["mark"] == "blunder" and blunder["best"] in winning
    assert max(p["drop"] for p in plies) == blunder["drop"]
    status, posted = await asyncio.to_thread(call, url, "POST", token)
    assert (status, posted) == (200, answer)  # kept: not analysed again
    assert await redis_client.llen(analyses.QUEUE) == 0


async def test_analysis_refuses_unknown_rooms_and_a_full_queue(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    token = token_for(new_guest())
    unknown = f"{app_server.base_url}/api/rooms/nope/analysis"
    assert (await asyncio.to_thread(call, unknown))[0] == 404
    assert (await asyncio.to_thread(call, unknown, "POST", token))[0] == 404

    for index in range(analyses.MAX_QUEUED):
        job = analyses.AnalysisJob(f"other-{index}", GAME, OPTIONS, ())
        assert await analyses.request(redis_client, job) == {"status": "queued"}
    moves, _, _ = planted_blunder(find_game(GAME), OPTIONS)
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second, game=GAME, options=OPTIONS)
    await play_record(app_server, room, [first, second], moves)
    url = f"{app_server.base_url}/api/rooms/{room}/analysis"
    status, answer = await asyncio.to_thread(call, url, "POST", token)
    assert status == 429 and answer["code"] == "rate_limited"
    assert await asyncio.to_thread(call, url) == (200, {"status": "none", "plies": []})
    assert await redis_client.llen(analyses.QUEUE) == analyses.MAX_QUEUED


async def test_the_bot_pool_runs_an_analyst(
    app_server: RunningServer, redis_server: RedisServer, redis_client: aioredis.Redis
) -> None:
    moves, blunder_ply, _ = planted_blunder(find_game(GAME), OPTIONS)
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second, game=GAME, options=OPTIONS)
    await play_record(app_server, room, [first, second], moves)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SESSION_SECRET": SECRET.decode()}
    command = [sys.executable, "-m", "bots", "--workers", "0", "--analysts", "1"]
    command += ["--server", app_server.base_url, "--redis", redis_server.url]
    pool = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        url = f"{app_server.base_url}/api/rooms/{room}/analysis"
        status, answer = await asyncio.to_thread(call, url, "POST", token_for(first))
        assert status == 200
        async with asyncio.timeout(60):
            while answer["status"] != "done":
                await asyncio.sleep(0.2)
                status, answer = await asyncio.to_thread(call, url)
        assert answer["plies"][blunder_ply - 1]["mark"] == "blunder"
    finally:
        pool.terminate()
        pool.wait(20)
