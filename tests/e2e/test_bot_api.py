"""Someone's own engine as a bot account: the token, and the example program of
``docs/bots.md`` accepting a challenge and finishing a game through the real server."""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from bench.loopback.http import request
from client import Client
from lobby.identity import new_guest
from rules import find_game
from tests.conftest import RedisServer
from tests.e2e.conftest import ROOT, RunningServer, start_server, token_for

PASSWORD = "correct horse battery"


@pytest.fixture
async def site(redis_server: RedisServer, redis_client: aioredis.Redis) -> AsyncIterator[str]:
    running: RunningServer = await start_server(redis_server.url)
    yield running.base_url
    await running.stop()


async def register(site: str, name: str) -> str:
    answer = await request(f"{site}/api/register", {"name": name, "password": PASSWORD})
    assert answer.status == 200, answer.text
    token: str = answer.json["token"]
    return token


async def test_an_account_becomes_a_bot_for_good_and_gets_a_token_for_a_year(site: str) -> None:
    session = await register(site, "enginebot")
    answer = await request(f"{site}/api/bot", {}, {"Authorization": f"Bearer {session}"})
    assert answer.status == 200, answer.text
    assert answer.json["player"]["name"] == "enginebot"
    assert abs(answer.json["expires"] - (time.time() + 365 * 24 * 3600)) < 60
    again = await request(f"{site}/api/bot", {}, {"Authorization": f"Bearer {session}"})
    assert again.status == 200 and again.json["token"]  # a new token, the same bot
    page = await request(f"{site}/api/players/{answer.json['player']['id']}")
    assert page.json["bot"] is True

    guest = token_for(new_guest())
    refused = await request(f"{site}/api/bot", {}, {"Authorization": f"Bearer {guest}"})
    assert refused.status == 409 and refused.json["code"] == "cannot_be_bot"
    assert "register an account" in refused.json["message"]
    assert (await request(f"{site}/api/bot", {})).status == 401


async def test_an_account_that_has_played_cannot_become_a_bot(
    site: str, redis_client: aioredis.Redis
) -> None:
    session = await register(site, "annie")
    player_id = (await request(f"{site}/api/players/annie")).json["player"]["id"]
    await redis_client.lpush(f"{{lobby}}:history:{player_id}", "some-finished-game")
    refused = await request(f"{site}/api/bot", {}, {"Authorization": f"Bearer {session}"})
    assert refused.status == 409 and "has played games" in refused.json["message"]
    page = await request(f"{site}/api/players/{player_id}")
    assert page.json["bot"] is False


async def test_the_example_engine_accepts_a_challenge_and_finishes_the_game(site: str) -> None:
    session = await register(site, "randombot")
    bot_token = (await request(f"{site}/api/bot", {}, {"Authorization": f"Bearer {session}"})).json
    engine = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bots.example",
        site,
        bot_token["token"],
        "--games",
        "1",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    person = await Client.connect(
        site.replace("http", "ws", 1) + "/ws", await register(site, "bob")
    )
    try:
        await person.follow_lobby()
        made = await person.challenge("boche", "-size=3", colour="mine", target="randombot")
        room = made["id"]
        await person.wait_lobby(
            lambda lobby: any(g["room_id"] == room for g in lobby["mine"]), timeout=30
        )
        view = await person.join(room)
        rules = find_game("boche")
        rng = random.Random(5)
        while view.doc is not None and view.doc["outcome"] is None:
            version = view.version + 1
            if view.doc["seats"][view.doc["to_move"]]["name"] == "bob":
                state = rules.from_data(view.doc["data"])
                moves = [rules.move_text(m) for m in rules.legal_moves(state)]
                version = await person.move(room, rng.choice([m for m in moves if m != "swap"]))
            view = await person.wait_version(room, version, timeout=30)
        assert view.doc is not None and view.doc["outcome"] is not None
        plies = view.doc["record"]
        assert len(plies) >= 2  # both played
        try:
            async with asyncio.timeout(30):
                output, _ = await engine.communicate()
        except TimeoutError:
            engine.kill()
            output, _ = await engine.communicate()
        assert engine.returncode == 0, output.decode()
    finally:
        await person.close()
        if engine.returncode is None:
            engine.kill()
            await engine.wait()


def _docs_code() -> str:
    text = (ROOT / "docs/bots.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return "\n".join(blocks)


def test_the_docs_show_the_example_engine_as_it_is() -> None:
    example = (ROOT / "bots" / "example.py").read_text()
    start = example.index("async def play(")
    end = example.index("\n\n\ndef main(")
    assert example[start:end].strip() in _docs_code()
