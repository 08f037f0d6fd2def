"""Clocks end to end: a challenge's time control reaches the room and the live list, a flag
falls with two server programs running and nobody connected (once), and the claim after a
player goes away."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis

from client import Client, ServerReplyError
from lobby import clocks
from lobby.identity import new_guest
from protocol.messages import decode_server
from server.redis import clock_store, store
from server.redis.embedded_redis import free_port
from server.rooms import SeatHolder, new_room
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, ServerProcess, connect, token_for


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 15.0) -> None:
    """Poll Redis until ``check`` holds (the adjudicators run on their own schedule)."""
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.05)


async def test_a_challenges_time_control_reaches_the_room_and_the_live_list(
    app_server: RunningServer,
) -> None:
    ann, bob = await connect(app_server), await connect(app_server)
    await bob.follow_lobby()
    made = await ann.request(
        {"t": "challenge", "game": "tictactoe", "colour": "mine", "time_control": "5+3"}
    )
    assert made["challenge"]["time_control"] == "5+3"
    with pytest.raises(ServerReplyError) as refused:
        await ann.request({"t": "challenge", "game": "tictactoe", "time_control": "forever"})
    assert refused.value.code == "bad_options"
    room = await bob.accept(made["challenge"]["id"])
    await ann.join(room)
    view = await bob.join(room)
    assert view.doc is not None
    clock = view.doc["clock"]
    assert clock["control"] == "5+3" and clock["remaining"] == [300.0, 300.0]
    assert clock["running"] is None  # the first move is free
    await ann.move(room, "a1")
    view = await bob.wait_for(room, lambda v: v.doc is not None and v.doc["record"] == ["a1"])
    assert view.doc is not None and view.doc["clock"]["running"] == 1
    assert view.doc["clock"]["deadline"] == pytest.approx(view.doc["clock"]["since"] + 300.0)
    live = await bob.wait_lobby(lambda lobby: any(g["room_id"] == room for g in lobby["live"]))
    entry = next(g for g in live["live"] if g["room_id"] == room)
    assert entry["time_control"] == "5+3"
    # Bob's games that wait for him, and when his time runs out.
    live = await bob.wait_lobby(
        lambda lobby: any(g["waiting_for"] == bob.player["id"] for g in lobby["mine"])  # type: ignore[index]
    )
    entry = next(g for g in live["mine"] if g["room_id"] == room)
    assert entry["deadline"] == pytest.approx(view.doc["clock"]["deadline"])
    await ann.close()
    await bob.close()


async def test_a_flag_falls_once_with_two_programs_running_and_nobody_connected(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    subprocess_env: dict[str, str],
    ttt: object,
) -> None:
    env = {**subprocess_env, "REDIS_URL": redis_server.url}
    first, second = ServerProcess(env, free_port()), ServerProcess(env, free_port())
    await first.start()
    await second.start()
    try:
        a, b = new_guest(), new_guest()
        seats = (SeatHolder(a.id, a.name), SeatHolder(b.id, b.name))
        # 0.02 minutes: 1.2 seconds, so the test waits for a real flag fall briefly.
        await store.create_room(redis_client, new_room("r1", "tictactoe", "", seats, "0.02+0"))
        ca = await Client.connect(first.ws_url, token_for(a))
        await ca.join("r1")
        await ca.move("r1", "a1")
        await ca.close()  # nobody is connected from here on

        async def ended() -> bool:
            loaded = await store.load_room(redis_client, "r1")
            return loaded is not None and loaded.room.outcome is not None

        await _until(ended)
        loaded = await store.load_room(redis_client, "r1")
        assert loaded is not None and loaded.room.outcome is not None
        assert loaded.room.outcome.reason == "time" and int(loaded.room.outcome.winner) == 0

        async def settled() -> bool:
            return await clock_store.deadline_of(redis_client, "r1") is None

        await _until(settled)  # the sweeps are done with the room
        _, frames = await store.diffs_since(redis_client, "r1", 0)
        assert frames is not None
        endings = [
            frame
            for frame in frames
            if any(op[1] == ["outcome"] for op in decode_server(frame)["ops"])
        ]
        assert len(endings) == 1
    finally:
        first.terminate()
        second.terminate()


async def test_a_player_away_past_the_grace_period_can_be_claimed_against(
    app_server: RunningServer, redis_client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clocks, "AWAY_GRACE", 0.0)
    a, b = new_guest(), new_guest()
    seats = (SeatHolder(a.id, a.name), SeatHolder(b.id, b.name))
    await store.create_room(redis_client, new_room("r1", "tictactoe", "", seats, "1+0"))
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    watcher = await connect(app_server)
    for c in (ca, cb, watcher):
        await c.join("r1")
    await ca.move("r1", "a1")
    with pytest.raises(ServerReplyError) as refused:
        await ca.request({"t": "claim", "room": "r1", "version": ca.rooms["r1"].version})
    assert refused.value.code == "cannot_claim"
    await cb.close()
    view = await watcher.wait_for(
        "r1", lambda v: v.doc is not None and v.doc["away"][1] is not None
    )
    assert view.doc is not None and view.doc["away"][0] is None
    await ca.wait_version("r1", view.version)
    await ca.request({"t": "claim", "room": "r1", "version": ca.rooms["r1"].version})
    view = await watcher.wait_for("r1", lambda v: v.doc is not None and v.doc["outcome"])
    assert view.doc is not None
    assert view.doc["outcome"] == {"winner": 0, "reason": "abandonment"}
    await ca.close()
    await watcher.close()
