"""Tournaments pushed live over the websocket, across server processes: a watcher following an
event on one process receives it afresh when a player joins through another and when a game of
it ends; a socket following the list receives each event's summary; following stops on
request and at most eight events are followed at once; after Redis restarts, followers get
fresh copies, as notices may have been lost. The scheduler's clock is injected."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from client import Client, ServerReplyError
from lobby.identity import new_guest
from server.tournament_service import MAX_FOLLOWED
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, start_server, token_for
from tests.e2e.test_tournaments import START, Field, api, create, enrol, scheduler


@pytest.fixture
async def two_servers(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: Any
) -> AsyncIterator[tuple[RunningServer, RunningServer]]:
    """Two server processes (in this process) on one Redis."""
    first = await start_server(redis_server.url)
    second = await start_server(redis_server.url)
    yield first, second
    await second.stop()
    await first.stop()


async def test_a_watcher_on_another_process_sees_a_join_and_a_result_pushed(
    two_servers: tuple[RunningServer, RunningServer],
) -> None:
    near, far = two_servers
    now = [time.time()]
    f = Field(near, scheduler(near, now), now)
    scheduler(far, now)  # both processes on the test's clock
    watcher = await Client.connect(far.ws_url, token_for(new_guest()))
    try:
        ann, bob = await enrol(f, 2, "feed")
        created = await create(f, f.players[ann][2], format="knockout", max_players=2)
        tid = created["id"]
        listing = await watcher.follow_tournaments()
        assert [t["id"] for t in listing["created"]] == [tid]
        followed = await watcher.follow_tournament(tid)
        assert followed["entrants"] == [] and followed["version"] == created["version"]

        status, joined = await api(near, f"/api/tournaments/{tid}/join", {}, f.players[ann][2])
        assert status == 200
        seen = await watcher.wait_tournament(tid, lambda t: len(t["entrants"]) == 1)
        assert seen["entrants"][0]["id"] == ann and seen["version"] == joined["version"]
        assert any(s["id"] == tid and s["players"] == 1 for s in watcher.listed)

        await api(near, f"/api/tournaments/{tid}/join", {}, f.players[bob][2])
        now[0] += START
        await f.service.step()
        running = await watcher.wait_tournament(tid, lambda t: t["status"] == "running")
        (game,) = running["games"]
        assert game["score"] is None and game["room"] is not None

        # The first seat resigns on the near process: the far watcher sees the final result.
        first = f.players[game["first"]][1]
        await first.join(game["room"])
        await first.resign(game["room"])
        done = await watcher.wait_tournament(tid, lambda t: t["status"] == "finished")
        assert done["games"][0]["score"] == 0.0
        assert done["standings"][0]["id"] == game["second"]
        assert watcher.listed[-1]["status"] == "finished"

        await watcher.unfollow_tournament(tid)
        assert tid not in watcher.tournaments
    finally:
        await watcher.close()
        for _, client, _ in f.players.values():
            await client.close()


async def test_following_refuses_an_unknown_event_and_a_ninth(app_server: RunningServer) -> None:
    now = [time.time()]
    f = Field(app_server, scheduler(app_server, now), now)
    (ann,) = await enrol(f, 1, "many")
    client = f.players[ann][1]
    try:
        with pytest.raises(ServerReplyError) as refused:
            await client.follow_tournament("tnothing")
        assert refused.value.code == "unknown_tournament"
        ids = [
            (await create(f, f.players[ann][2], format="swiss", rounds=1, max_players=4))["id"]
            for _ in range(MAX_FOLLOWED + 1)
        ]
        for tid in ids[:-1]:
            await client.follow_tournament(tid)
        with pytest.raises(ServerReplyError) as refused:
            await client.follow_tournament(ids[-1])
        assert refused.value.code == "bad_request"
        await client.unfollow_tournament(ids[0])
        assert (await client.follow_tournament(ids[-1]))["id"] == ids[-1]
    finally:
        await client.close()


async def test_followers_get_fresh_copies_after_the_feed_comes_back_from_a_redis_restart(
    app_server: RunningServer, redis_server: RedisServer
) -> None:
    now = [time.time()]
    f = Field(app_server, scheduler(app_server, now), now)
    (ann,) = await enrol(f, 1, "restart")
    tid = (await create(f, f.players[ann][2], format="knockout", max_players=4))["id"]
    watcher = f.players[ann][1]
    resent: set[str] = set()
    both = asyncio.Event()
    handle = watcher._handle

    def recording(body: dict[str, Any]) -> None:
        if body["t"] in ("tournaments", "tournament") and body.get("ref") is None:
            resent.add(body["t"])
            if len(resent) == 2:
                both.set()
        handle(body)

    watcher._handle = recording  # type: ignore[method-assign]
    try:
        await watcher.follow_tournaments()
        await watcher.follow_tournament(tid)
        redis_server.restart()
        await asyncio.wait_for(both.wait(), 20)
        assert watcher.tournaments[tid]["id"] == tid
    finally:
        await watcher.close()
