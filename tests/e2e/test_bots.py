"""A guest against the bots through the real server: challenge, play, finish, replay, takeover.

The server runs in the test process; the bot pool (``python -m bots``: its acceptor and one
worker process) runs as a subprocess on the same Redis, so the bots connect over websockets
like anyone else.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bots.accounts import bot_player
from client import Client, RoomView
from lobby.identity import Player, new_guest
from lobby.store import ratings as rating_store
from rules import GAMES, find_game
from tests.conftest import RedisServer
from tests.e2e.conftest import ROOT, SECRET, RunningServer, start_server, token_for

GAME_OPTIONS = {"boche": "-size=3", "che": "", "osbox": "", "ankor": "", "marque": ""}
"""Small boards where the game has them, so a game to the end stays short."""


@dataclass
class BotPool:
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    started: threading.Condition = field(default_factory=threading.Condition)

    def worker_pids(self) -> list[int]:
        started = [int(line.split()[2]) for line in self.output if line.endswith("started\n")]
        exited = {int(line.split()[2]) for line in self.output if line.endswith("exited\n")}
        return [pid for pid in started if pid not in exited]

    def wait_for_workers(self, count: int, timeout: float = 20) -> list[int]:
        with self.started:
            if not self.started.wait_for(lambda: len(self.worker_pids()) >= count, timeout):
                raise TimeoutError("".join(self.output))
            return self.worker_pids()


@pytest.fixture
async def server(redis_server: RedisServer, redis_client: Any) -> AsyncIterator[RunningServer]:
    running = await start_server(redis_server.url)
    yield running
    await running.stop()


@pytest.fixture
async def pool(server: RunningServer, redis_server: RedisServer) -> AsyncIterator[BotPool]:
    env = {**os.environ, "SESSION_SECRET": SECRET.decode(), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bots", "--workers", "1", "--server", server.base_url]
    command += ["--redis", redis_server.url, "--claim-idle", "1", "--rematch-wait", "5"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    pool = BotPool(process)

    def drain() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with pool.started:
                pool.output.append(line)
                pool.started.notify_all()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    await asyncio.to_thread(pool.wait_for_workers, 1)
    yield pool
    process.send_signal(signal.SIGTERM)  # the server runs in this loop: wait off it
    try:
        await asyncio.to_thread(process.wait, 15)
    except subprocess.TimeoutExpired:
        process.kill()
        await asyncio.to_thread(process.wait, 5)
    await asyncio.to_thread(reader.join, 5)
    assert process.stdout is not None
    process.stdout.close()
    print("".join(pool.output))  # shown when a test fails


async def challenge_bot(
    guest: Client, game: str, options: str, level: int = 1, rated: bool = False
) -> tuple[str, RoomView]:
    """Challenge ``bot-<level>`` (the guest moves first); the room once the bot accepted."""
    bot = bot_player(level)
    await guest.wait_lobby(lambda lobby: bot.id in [p["player"]["id"] for p in lobby["online"]])
    made = await guest.challenge(game, options, colour="mine", target=bot.name, rated=rated)
    await guest.wait_lobby(
        lambda lobby: any(
            e["t"] == "challenge"
            and e["challenge"]["id"] == made["id"]
            and e["challenge"]["status"] == "accepted"
            for e in guest.lobby_events
        ),
        timeout=20,
    )
    return made["id"], await guest.join(made["id"])


async def guest_move(guest: Client, room: str, rng: random.Random) -> None:
    """Wait for the guest's turn and play a random legal move (found through the rules)."""
    me = guest.player
    assert me is not None
    view = await guest.wait_for(
        room,
        lambda v: (
            v.doc is not None
            and (v.doc["outcome"] is not None or v.doc["seats"][v.doc["to_move"]]["id"] == me["id"])
        ),
        timeout=30,
    )
    doc = view.doc
    assert doc is not None
    if doc["outcome"] is not None:
        return
    rules = find_game(doc["game"])
    state = rules.new_game(rules.parse_options(doc["options"]))
    for text in doc["record"]:
        state = rules.play(state, rules.parse_move(state, text))
    move = rng.choice(list(rules.legal_moves(state)))
    await guest.move(room, rules.move_text(move), version=view.version)


def replayed(base_url: str, room: str) -> dict[str, Any]:
    """The room's record, checked to replay through the rules to the same number of moves."""
    with urllib.request.urlopen(f"{base_url}/api/rooms/{room}/record.json", timeout=10) as r:
        record = json.loads(r.read())
    rules = find_game(record["game"])
    state = rules.new_game(rules.parse_options(record["options"]))
    for text in record["moves"]:
        state = rules.play(state, rules.parse_move(state, text))
    record["final"] = state
    return record


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_guest_plays_a_bot_in_every_game(
    server: RunningServer, pool: BotPool, game: str
) -> None:
    """Both sides move twice, the guest resigns, and the record replays."""
    guest = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        await guest.follow_lobby()
        room, view = await challenge_bot(guest, game, GAME_OPTIONS.get(game, ""))
        assert view.role == "player"
        rng = random.Random(7)
        for _ in range(2):
            await guest_move(guest, room, rng)
        me = guest.player
        assert me is not None
        # the bot answered twice: four moves at least (or the game ended on the way)
        view = await guest.wait_for(
            room,
            lambda v: (
                v.doc is not None and (len(v.doc["record"]) >= 4 or v.doc["outcome"] is not None)
            ),
            timeout=30,
        )
        assert view.doc is not None
        if view.doc["outcome"] is None:
            await guest.wait_for(
                room,
                lambda v: v.doc is not None and v.doc["seats"][v.doc["to_move"]]["id"] == me["id"],
                timeout=30,
            )
            await guest.resign(room)
        view = await guest.wait_for(room, lambda v: v.doc["outcome"] is not None)
        record = await asyncio.to_thread(replayed, server.base_url, room)
        assert len(record["moves"]) >= 3
        assert {s["id"] for s in record["seats"]} == {me["id"], bot_player(1).id}
    finally:
        await guest.close()


async def test_a_game_against_a_bot_reaches_its_end(server: RunningServer, pool: BotPool) -> None:
    """Boche on the smallest board, played out: the rules end it, and the record replays."""
    guest = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        await guest.follow_lobby()
        room, _ = await challenge_bot(guest, "boche", "-size=3")
        rng = random.Random(3)
        while True:
            await guest_move(guest, room, rng)
            view = guest.rooms[room]
            if view.doc is not None and view.doc["outcome"] is not None:
                break
            view = await guest.wait_for(
                room,
                lambda v: (
                    v.doc["outcome"] is not None
                    or v.doc["seats"][v.doc["to_move"]]["id"] == guest.player["id"]
                ),  # type: ignore[index]
                timeout=30,
            )
            if view.doc is not None and view.doc["outcome"] is not None:
                break
        assert view.doc is not None
        assert view.doc["outcome"]["reason"] != "resignation"
        record = await asyncio.to_thread(replayed, server.base_url, room)
        rules = find_game("boche")
        assert rules.outcome(record["final"]) is not None
    finally:
        await guest.close()


async def test_a_killed_worker_is_replaced_and_the_game_goes_on(
    server: RunningServer, pool: BotPool
) -> None:
    guest = await Client.connect(server.ws_url, token_for(new_guest()))
    try:
        await guest.follow_lobby()
        room, _ = await challenge_bot(guest, "marque", "")
        rng = random.Random(5)
        await guest_move(guest, room, rng)
        await guest.wait_for(room, lambda v: len(v.doc["record"]) >= 2, timeout=30)
        (doomed,) = pool.wait_for_workers(1)
        os.kill(doomed, signal.SIGKILL)
        await asyncio.to_thread(
            lambda: pool.wait_for_workers(1) and doomed not in pool.wait_for_workers(1)
        )
        await guest_move(guest, room, rng)
        view = await guest.wait_for(room, lambda v: len(v.doc["record"]) >= 4, timeout=30)
        assert view.doc is not None and view.doc["outcome"] is None
        assert view.doc["seats"][view.doc["to_move"]]["id"] == guest.player["id"]  # type: ignore[index]
    finally:
        await guest.close()


async def test_a_bot_accepts_a_rematch_and_a_rated_challenge_in_its_own_pool(
    server: RunningServer, pool: BotPool, redis_client: Any
) -> None:
    """Rated games against a bot move ratings in the game's computer pool, never people's."""
    guest = await Client.connect(server.ws_url, token_for(new_guest()))
    member = await Client.connect(server.ws_url, token_for(registered("Ann")))
    try:
        await guest.follow_lobby()
        room, _ = await challenge_bot(guest, "osbox", "", level=2)
        await guest_move(guest, room, random.Random(1))
        await guest.wait_for(room, lambda v: len(v.doc["record"]) >= 2, timeout=30)
        await guest.resign(room)
        await guest.rematch(room)
        view = await guest.wait_for(room, lambda v: v.doc["rematch"]["room"] is not None)
        rematch = view.doc["rematch"]["room"]  # type: ignore[index]
        again = await guest.join(rematch)
        assert again.doc is not None and again.doc["seats"][0]["id"] == bot_player(2).id
        # the bot moves first in the rematch, as the guest did in the first game
        await guest.wait_for(rematch, lambda v: len(v.doc["record"]) >= 1, timeout=30)

        await member.follow_lobby()
        rated_room, _ = await challenge_bot(member, "che", "", level=3, rated=True)
        await member.resign(rated_room)
        ann = registered("Ann").id
        async with asyncio.timeout(20):
            while not await rating_store.history(redis_client, "che:computer", ann):
                await asyncio.sleep(0.05)
        assert await rating_store.history(redis_client, "che", ann) == []
        bot_games = await rating_store.history(redis_client, "che:computer", bot_player(3).id)
        assert len(bot_games) == 1
    finally:
        await guest.close()
        await member.close()


def registered(name: str) -> Player:
    """A registered player (rated games need one); the token is all the server checks."""
    return Player(id=f"u:{name.lower()}", name=name, guest=False)
