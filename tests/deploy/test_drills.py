"""The deployment drills on loopback: redis-server with deploy/redis.conf, two server processes
and HAProxy with deploy/haproxy.cfg, real sockets through HAProxy (see drills.py)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bench.loopback import drills
from bench.loopback.drills import DrillReport
from bench.loopback.topology import Topology
from client import Client, ServerReplyError
from lobby.identity import new_guest
from rules import find_game
from server.redis import store
from server.rooms import SeatHolder, new_room

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None or shutil.which("redis-server") is None,
    reason="the drills need haproxy and redis-server (./dev test installs both)",
)


@pytest.fixture
async def deployed(tmp_path: Path) -> AsyncIterator[drills.Deployment]:
    async with drills.deployment(tmp_path, servers=2) as running:
        yield running


@pytest.fixture
def topology(deployed: drills.Deployment) -> Topology:
    return deployed.topology


def assert_nothing_lost(report: DrillReport) -> None:
    assert report.problems == []
    assert report.moves_acked > 0
    assert report.moves_lost == 0
    assert report.moves_applied_twice == 0
    assert report.views_stuck == 0
    assert report.lobby_missing == 0
    assert report.moves_in_redis == report.moves_acked
    assert report.games_finished == report.games


async def test_redis_runs_with_the_deploy_persistence_settings(topology: Topology) -> None:
    client = aioredis.Redis.from_url(topology.redis_url, decode_responses=True)
    try:
        assert await client.config_get("appendonly") == {"appendonly": "yes"}
        assert await client.config_get("appendfsync") == {"appendfsync": "always"}
    finally:
        await client.aclose()
    assert set(topology.backend_states().values()) == {"UP"}


async def test_load_spreads_every_game_over_two_processes(deployed: drills.Deployment) -> None:
    report = await drills.load_drill(deployed, games=12, spectators=1)
    assert_nothing_lost(report)
    assert report.reconnects == 0
    moves_per_process = report.notes["moves per process"]
    assert isinstance(moves_per_process, list) and min(moves_per_process) > 0


async def test_every_fault_loses_no_move_and_leaves_no_view_or_game_behind(
    deployed: drills.Deployment,
) -> None:
    """Redis links reset under load and idle, a server process killed twice, Redis stopped,
    killed and killed in a rewrite: the short version of ``./dev bench drills faults``."""
    report = await drills.faults_drill(deployed, games=6, spectators=1, quiet=2.5, abandoned=1)
    assert_nothing_lost(report)
    assert report.reconnects >= 1
    assert report.notes["abandoned games ended"] == ["abandonment, winner seat 1"]
    assert report.notes["connections reset while idle"]


async def test_a_spectator_that_never_reads_is_let_go_and_slows_no_one(
    deployed: drills.Deployment,
) -> None:
    report = await drills.slow_spectator_drill(deployed)
    assert_nothing_lost(report)
    assert report.notes["rounds"] >= 1


async def test_a_process_accepts_moves_after_missing_the_rooms_diffs(topology: Topology) -> None:
    """A process whose cached room missed commits (none of its sockets watched the room) reads
    the room again for a move made from a newer version, instead of refusing it as stale."""
    game, options = drills.drill_games()[0]
    rules = find_game(game)
    first, second = new_guest(), new_guest()
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    redis = aioredis.Redis.from_url(topology.redis_url)
    await store.create_room(redis, new_room("cached", game, options, seats))
    await redis.aclose()
    there = await Client.connect(topology.server_ws_url(1), drills.token(second))
    await there.join("cached")
    await there.leave("cached")  # process 1 keeps the room at version 0 in its cache
    here = await Client.connect(topology.server_ws_url(0), drills.token(first))
    view = await here.join("cached")
    assert view.doc is not None
    state = rules.from_data(view.doc["data"])
    await here.move("cached", rules.move_text(next(iter(rules.legal_moves(state)))))
    view = await there.join("cached")
    assert view.doc is not None and len(view.doc["record"]) == 1
    state = rules.from_data(view.doc["data"])
    reply: ServerReplyError | None = None
    try:
        await there.move("cached", rules.move_text(next(iter(rules.legal_moves(state)))))
    except ServerReplyError as error:
        reply = error
    finally:
        await here.close()
        await there.close()
    assert reply is None, reply


async def test_a_refused_sync_does_not_cut_a_socket_off_its_room(topology: Topology) -> None:
    """A sync refused while Redis is down leaves the socket watching: later diffs reach it."""
    game, options = drills.drill_games()[0]
    rules = find_game(game)
    first, second = new_guest(), new_guest()
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    redis = aioredis.Redis.from_url(topology.redis_url)
    await store.create_room(redis, new_room("refused", game, options, seats))
    await redis.aclose()
    mover = await Client.connect(topology.server_ws_url(0), drills.token(first))
    watcher = await Client.connect(topology.server_ws_url(0), drills.token(second))
    try:
        view = await mover.join("refused")
        await watcher.join("refused")
        await asyncio.to_thread(topology.kill_redis)
        with pytest.raises(ServerReplyError, match="unavailable"):
            await watcher.request({"t": "sync", "room": "refused", "version": view.version})
        await asyncio.to_thread(topology.start_redis)
        assert view.doc is not None
        text = rules.move_text(next(iter(rules.legal_moves(rules.from_data(view.doc["data"])))))
        version = await resend(mover, "refused", text, view.version)
        await watcher.wait_version("refused", version, timeout=10)
    finally:
        await mover.close()
        await watcher.close()


async def resend(client: Client, room: str, text: str, version: int) -> int:
    """The move, resent with the same id while the server answers ``unavailable``."""
    for attempt in range(100):
        try:
            return await client.move(room, text, version=version, request_id="resent")
        except ServerReplyError as error:
            assert error.code == "unavailable", error
            await drills.backoff(attempt)
    raise AssertionError("the move was never answered")
