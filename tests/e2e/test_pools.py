"""Quick pairing end to end, over real websockets and Redis: a player who waits is paired with
the next one who joins and both reach the same room; leaving, or closing the socket, leaves
the pool; refusals change nothing; and players joining at once through two server processes
are each paired at most once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from client import Client, ServerReplyError
from lobby.identity import new_guest
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, start_server


@pytest.fixture
async def servers(
    redis_server: RedisServer, redis_client: aioredis.Redis
) -> AsyncIterator[list[RunningServer]]:
    """Two server processes (in this process) on one freshly emptied Redis."""
    running = [await start_server(redis_server.url) for _ in range(2)]
    yield running
    for server in running:
        await server.stop()


async def test_a_waiting_player_is_paired_with_the_next_and_both_reach_the_game(
    servers: list[RunningServer],
) -> None:
    ann = await connect(servers[0])
    bob = await connect(servers[1])
    try:
        await ann.follow_lobby()
        assert await ann.join_pool("che", "5+3") is None
        room = await bob.join_pool("che", "5+3")
        assert room is not None and room.startswith("qp-")
        # Ann's page renews her wait just after: it is sent to the game, not back in the pool.
        assert await ann.join_pool("che", "5+3") == room
        # Ann learns of it from the lobby feed: her challenge, accepted, with the room's id.
        await ann.wait_lobby(
            lambda _: any(
                e["t"] == "challenge" and e["challenge"]["id"] == room for e in ann.lobby_events
            )
        )
        event = next(e for e in ann.lobby_events if e["t"] == "challenge")
        assert event["challenge"]["status"] == "accepted"
        assert ann.player is not None and event["challenge"]["challenger"]["id"] == ann.player["id"]
        views = [await ann.join(room), await bob.join(room)]
        doc = views[0].doc
        assert doc is not None and doc["game"] == "che" and doc["clock"]["control"] == "5+3"
        assert {s["id"] for s in doc["seats"]} == {ann.player["id"], bob.player["id"]}  # type: ignore[index]
    finally:
        await ann.close()
        await bob.close()


async def test_leaving_the_pool_or_closing_the_socket_leaves_nobody_waiting(
    servers: list[RunningServer],
) -> None:
    ann, bob, cy = [await connect(servers[i % 2]) for i in range(3)]
    try:
        assert await ann.join_pool("osbox", "3+2") is None
        await ann.leave_pool()
        assert await bob.join_pool("osbox", "3+2") is None  # ann left: bob waits
        await bob.close()
        assert await cy.join_pool("osbox", "3+2") is None  # bob's socket closed: cy waits
    finally:
        for client in (ann, bob, cy):
            await client.close()


@pytest.mark.parametrize(
    ("game", "control", "rated", "code"),
    [
        ("boche", "5+3", True, "guest_rated"),
        ("boche", "7+1", False, "bad_options"),
        ("go", "5+3", False, "unknown_game"),
    ],
)
async def test_a_pool_refused_says_why_and_nobody_waits(
    servers: list[RunningServer], game: str, control: str, rated: bool, code: str
) -> None:
    ann, bob = await connect(servers[0]), await connect(servers[0])
    try:
        with pytest.raises(ServerReplyError) as refused:
            await ann.join_pool(game, control, rated)
        assert refused.value.code == code
        assert await bob.join_pool("boche", "5+3") is None
    finally:
        await ann.close()
        await bob.close()


async def test_players_joining_at_once_on_two_servers_are_each_paired_once(
    servers: list[RunningServer],
) -> None:
    clients: list[Client] = [await connect(servers[i % 2], new_guest()) for i in range(24)]
    try:
        rooms = await asyncio.gather(*(c.join_pool("marque", "10+5") for c in clients))
        made = [room for room in rooms if room is not None]
        # One pool, joins one after another in Redis: every second join pairs.
        assert len(made) == len(clients) // 2 == len(set(made))
        seats: list[str] = []
        for room in made:
            view = await clients[0].join(room)
            assert view.doc is not None
            seats += [s["id"] for s in view.doc["seats"]]
        assert len(seats) == len(set(seats)), "a player sits in two games"
        assert set(seats) == {c.player["id"] for c in clients if c.player is not None}
    finally:
        for client in clients:
            await client.close()
