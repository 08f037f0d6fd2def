"""The end-to-end core on a Redis Cluster with replicas, through two server processes
(``python -m server`` twice, on the cluster): every game played by two players and a
spectator, racing moves, a resend, a resume on the other process after a server is killed,
and a master killed mid-game with nothing acknowledged lost or doubled."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster

from bench.loopback.cluster import ClusterOfServers
from client import Client, ServerReplyError
from lobby.identity import Player, new_guest
from rules import GAMES
from server import outbox
from server.redis import store
from server.redis.embedded_redis import free_port
from server.rooms import SeatHolder, new_room
from tests.e2e.conftest import ServerProcess, token_for
from tests.e2e.test_play import legal_texts, mover

pytestmark = pytest.mark.cluster

RESEND_PAUSE = 0.1
CLUSTER_MOVE_LIMIT = 60
"""A game still on after this many moves is finished by a resignation (every move waits for
two fsyncs here, a replica's included)."""


@pytest.fixture
async def two_servers(
    redis_cluster: ClusterOfServers,
    cluster_client: RedisCluster,
    subprocess_env: dict[str, str],
) -> AsyncIterator[list[ServerProcess]]:
    """Two ``python -m server`` processes on the cluster, a move acknowledged once a replica
    holds it."""
    env = {
        **subprocess_env,
        "REDIS_URL": redis_cluster.url,
        "REDIS_REPLICA_ACKS": "1",
        "REDIS_REPLICA_TIMEOUT": "2",
    }
    servers = [ServerProcess(env, free_port()), ServerProcess(env, free_port())]
    for server in servers:
        await server.start()
    yield servers
    for server in servers:
        server.terminate()


async def make_room(
    client: RedisCluster, first: Player, second: Player, room_id: str, game: str = "tictactoe"
) -> str:
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    room = await store.create_room(client, new_room(room_id, game, "", seats))  # type: ignore[arg-type]
    return room.id


async def join(server: ServerProcess, room: str, player: Player | None = None) -> Client:
    client = await Client.connect(server.ws_url, token_for(player or new_guest()))
    await client.join(room)
    return client


async def resend(client: Client, room: str, text: str, version: int, request_id: str) -> int:
    """Send a move, and send it again with the same id while the answer is ``unavailable``
    (a failover under way), as the browser client does."""
    for _ in range(600):
        try:
            return await client.move(room, text, version=version, request_id=request_id)
        except ServerReplyError as error:
            assert error.code == "unavailable", error
            await asyncio.sleep(RESEND_PAUSE)
    raise AssertionError(f"move {request_id} never answered")


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_two_players_and_a_spectator_on_two_processes_play_a_whole_game(
    two_servers: list[ServerProcess], cluster_client: RedisCluster, game: str
) -> None:
    here, there = two_servers
    a, b = new_guest(), new_guest()
    room = await make_room(cluster_client, a, b, f"{game}-1", game)
    players = {a.id: await join(here, room, a), b.id: await join(there, room, b)}
    spectator = await join(there, room)
    everyone = [*players.values(), spectator]
    rng = random.Random(1)
    played = 0
    while True:
        view = await players[a.id].wait_for(room, lambda v: not v.syncing)
        turn = mover(view, players)
        if turn is None:
            break
        if played >= CLUSTER_MOVE_LIMIT:
            await turn.resign(room)
            break
        text = rng.choice(legal_texts(turn.rooms[room]))
        version = await turn.move(room, text)
        played += 1
        for c in everyone:
            await c.wait_version(room, version)
    final = max(c.rooms[room].version for c in everyone)
    for c in everyone:
        await c.wait_version(room, final)
    doc = players[a.id].rooms[room].doc
    assert doc is not None and doc["outcome"] is not None
    for c in everyone:
        view = c.rooms[room]
        assert view.doc == doc  # the spectator and both players hold the same state
        assert view.applied == list(range(view.applied[0], view.version + 1))  # no gap, no repeat
    assert await store.load_doc(cluster_client, room) == doc  # type: ignore[arg-type]
    for c in everyone:
        await c.close()


async def test_moves_racing_through_the_two_processes_apply_exactly_once(
    two_servers: list[ServerProcess], cluster_client: RedisCluster
) -> None:
    here_server, there_server = two_servers
    a, b = new_guest(), new_guest()
    room = await make_room(cluster_client, a, b, "race")
    here, there = await join(here_server, room, a), await join(there_server, room, a)
    bob = await join(there_server, room, b)
    for round_ in range(5):
        doc = here.rooms[room].doc
        assert doc is not None
        if doc["to_move"] is None:
            break
        version = here.rooms[room].version
        if doc["seats"][doc["to_move"]]["id"] != a.id:
            version = await bob.move(room, legal_texts(here.rooms[room])[0], version=version)
        else:
            legal = legal_texts(here.rooms[room])
            results = await asyncio.gather(
                here.move(room, legal[0], version=version),
                there.move(room, legal[-1], version=version),
                return_exceptions=True,
            )
            assert sum(isinstance(r, int) for r in results) == 1, (round_, results)
            assert all(
                isinstance(r, int)
                or (isinstance(r, ServerReplyError) and r.code == "stale_version")
                for r in results
            )
            version += 1
        for c in (here, there, bob):
            await c.wait_version(room, version)
        assert here.rooms[room].doc == there.rooms[room].doc
    assert await store.load_doc(cluster_client, room) == here.rooms[room].doc  # type: ignore[arg-type]
    for c in (here, there, bob):
        await c.close()


async def test_a_resend_through_the_other_process_is_answered_the_same(
    two_servers: list[ServerProcess], cluster_client: RedisCluster
) -> None:
    here, there = two_servers
    a, b = new_guest(), new_guest()
    room = await make_room(cluster_client, a, b, "resend")
    first = await join(here, room, a)
    assert await first.move(room, "b2", version=0, request_id="m-1") == 1
    again = await join(there, room, a)
    assert await again.move(room, "b2", version=0, request_id="m-1") == 1
    doc = await store.load_doc(cluster_client, room)  # type: ignore[arg-type]
    assert doc is not None and doc["record"] == ["b2"]
    for c in (first, again):
        await c.close()


async def test_a_player_resumes_on_the_other_process_when_theirs_is_killed(
    two_servers: list[ServerProcess], cluster_client: RedisCluster
) -> None:
    doomed, survivor = two_servers
    a, b = new_guest(), new_guest()
    room = await make_room(cluster_client, a, b, "resume")
    ca, cb = await join(doomed, room, a), await join(survivor, room, b)
    version = await ca.move(room, "b2")
    await cb.wait_version(room, version)
    held = ca.rooms[room]
    doomed.kill()
    resumed = await Client.connect(survivor.ws_url, token_for(a))
    resumed.rooms[room] = held  # the page keeps its view and resumes from its version
    await resumed.join(room, version=held.version)
    version = await cb.move(room, "a1")
    await resumed.wait_version(room, version)
    version = await resumed.move(room, "c3")
    await cb.wait_version(room, version)
    doc = cb.rooms[room].doc
    assert resumed.rooms[room].doc == doc
    assert doc is not None and doc["record"] == ["b2", "a1", "c3"]
    for c in (resumed, cb, ca):
        await c.close()


async def test_no_acknowledged_move_is_lost_or_doubled_when_a_master_is_killed(
    redis_cluster: ClusterOfServers,
    two_servers: list[ServerProcess],
    cluster_client: RedisCluster,
) -> None:
    """Games on both processes; the master holding the first game is SIGKILLed mid-run and
    its replica takes over.  The players resend what was not answered; afterwards every
    acknowledged move is in its game once, and every view agrees with the stored room."""
    here, there = two_servers
    games = [f"fail-{index}" for index in range(8)]
    acknowledged: dict[str, dict[int, str]] = {room: {} for room in games}
    longest = [0.0]

    async def play(room: str) -> None:
        a, b = new_guest(), new_guest()
        await make_room(cluster_client, a, b, room)
        players = {a.id: await join(here, room, a), b.id: await join(there, room, b)}
        number = 0
        while True:
            view = players[a.id].rooms[room]
            turn = mover(view, players)
            if turn is None:
                break
            own = turn.rooms[room]
            text = legal_texts(own)[0]
            started = time.monotonic()
            version = await resend(turn, room, text, own.version, f"{room}-{number}")
            longest[0] = max(longest[0], time.monotonic() - started)
            acknowledged[room][version] = text
            number += 1
            for c in players.values():
                await c.wait_version(room, version, timeout=30)
            await asyncio.sleep(0.1)
        for c in players.values():
            await c.close()

    async def kill_a_master() -> None:
        await asyncio.sleep(0.5)
        owner = cluster_client.get_node_from_key(store.room_key(games[0]))
        assert owner is not None
        victim = next(node for node in redis_cluster.nodes if node.port == owner.port)
        redis_cluster.kill(victim)
        await asyncio.to_thread(redis_cluster.wait_ok)
        redis_cluster.restart(victim)

    async with asyncio.timeout(180):
        await asyncio.gather(kill_a_master(), *(play(room) for room in games))
    for room in games:
        doc: Any = await store.load_doc(cluster_client, room)  # type: ignore[arg-type]
        assert doc is not None and doc["outcome"] is not None
        # Versions count other commits too (presence): the acknowledged moves in the order
        # of their versions must be the record, each once.
        acked = [text for _, text in sorted(acknowledged[room].items())]
        assert doc["record"] == acked, f"{room}: stored {doc['record']}, acknowledged {acked}"
    print(f"longest wait for an acknowledgement across the failover: {longest[0]:.2f} s")


async def test_the_lobby_on_the_cluster_lists_a_game_made_by_a_challenge_until_it_ends(
    two_servers: list[ServerProcess], cluster_client: RedisCluster
) -> None:
    """The lobby's keys under their {lobby} tag and the outbox per slot: a challenge made on
    one process and accepted on the other becomes a room that both lobbies list live, then
    not once it is resigned."""
    here, there = two_servers
    ann = await Client.connect(here.ws_url, token_for(new_guest()))
    bob = await Client.connect(there.ws_url, token_for(new_guest()))
    for client in (ann, bob):
        await client.follow_lobby()
    assert bob.player is not None
    made = await ann.challenge("tictactoe", colour="mine", target=bob.player["name"])
    await bob.wait_lobby(lambda lobby: [c["id"] for c in lobby["incoming"]] == [made["id"]])
    room = await bob.accept(made["id"])

    def listed(lobby: dict[str, Any]) -> bool:
        return any(game["room_id"] == room for game in lobby["live"])

    for client in (ann, bob):
        await client.wait_lobby(listed, timeout=20)
    await ann.join(room)
    await ann.resign(room)
    for client in (ann, bob):
        await client.wait_lobby(lambda lobby: not listed(lobby), timeout=20)
    assert await outbox.pending(cluster_client) == 0  # type: ignore[arg-type]
    for client in (ann, bob):
        await client.close()


async def test_a_chat_line_said_on_one_process_is_heard_on_the_other(
    two_servers: list[ServerProcess], cluster_client: RedisCluster
) -> None:
    """Kept with the room and published on its shard in one MULTI (SPUBLISH)."""
    here, there = two_servers
    a, b = new_guest(), new_guest()
    room = await make_room(cluster_client, a, b, "chat")
    first, second = await join(here, room, a), await join(there, room, b)
    await first.chat(room, "players", "good luck")
    assert await second.wait_chat(1) == ["good luck"]
    history = await second.chat_history(room, "players")
    assert [line["text"] for line in history] == ["good luck"]
    for c in (first, second):
        await c.close()


async def test_a_server_on_the_cluster_stops_cleanly(two_servers: list[ServerProcess]) -> None:
    server = two_servers[0]
    process = server.process
    assert process is not None
    server.terminate()
    output = "".join(server.output)
    assert "shutdown failed" not in output.lower(), output
    assert process.returncode == 0, output
