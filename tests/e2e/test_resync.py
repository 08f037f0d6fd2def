"""Resuming: a client that drops and comes back (also after restarts) misses and repeats nothing."""

from __future__ import annotations

import copy

import redis.asyncio as aioredis

from client import Client, RoomView, ServerReplyError
from lobby.identity import new_guest
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, make_room, start_server

MOVES = ["a1", "b1", "c1", "a2", "b2", "c2", "a3"]


async def play_moves(ca: Client, cb: Client, room: str, moves: list[str]) -> int:
    version = 0
    for text in moves:
        doc = ca.rooms[room].doc
        assert doc is not None
        mover = ca if doc["seats"][doc["to_move"]]["id"] == ca.player["id"] else cb  # type: ignore[index]
        version = await mover.move(room, text)
        await ca.wait_version(room, version)
        await cb.wait_version(room, version)
    return version


async def test_a_client_back_after_a_gap_gets_the_missing_diffs_not_a_snapshot(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    spectator = await connect(app_server)
    for c in (ca, cb, spectator):
        await c.join(room)
    await play_moves(ca, cb, room, MOVES[:2])
    kept = spectator.rooms[room]
    left_at, left_doc = kept.version, kept.doc
    await spectator.close()
    version = await play_moves(ca, cb, room, MOVES[2:5])

    back = await connect(app_server)
    back.rooms[room] = RoomView(room, left_at, copy.deepcopy(left_doc))  # what it held
    frames_before = back.frames_received
    await back.join(room, version=left_at)
    view = await back.wait_version(room, ca.rooms[room].version)
    assert view.doc == ca.rooms[room].doc
    assert view.applied == list(range(left_at + 1, view.version + 1))  # diffs, no snapshot
    assert view.version >= version and back.frames_received - frames_before >= 4
    for c in (ca, cb, back):
        await c.close()


async def test_a_gap_older_than_the_kept_diffs_gets_a_snapshot(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: object
) -> None:
    server = await start_server(redis_server.url, diff_history=2)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(server, a), await connect(server, b)
    await ca.join(room)
    await cb.join(room)
    version = await play_moves(ca, cb, room, MOVES[:5])
    late = await connect(server)
    view = await late.join(room, version=1)
    assert view.version == version and view.doc == ca.rooms[room].doc
    assert view.applied == [version]  # one snapshot, no diffs
    for c in (ca, cb, late):
        await c.close()
    await server.stop()


async def test_a_client_resumes_from_its_version_after_the_server_restarts(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: object
) -> None:
    server = await start_server(redis_server.url)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(server, a), await connect(server, b)
    await ca.join(room)
    await cb.join(room)
    await play_moves(ca, cb, room, MOVES[:3])
    held = ca.rooms[room]
    await server.stop()  # both sockets close with the server
    server = await start_server(redis_server.url)
    cb = await connect(server, b)
    await cb.join(room)
    doc = cb.rooms[room].doc
    assert doc is not None and doc["to_move"] == 1
    version = await cb.move(room, MOVES[3])
    ca = await connect(server, a)
    ca.rooms[room] = held
    view = await ca.join(room, version=held.version)
    view = await ca.wait_version(room, version)
    assert view.doc == cb.rooms[room].doc
    assert view.applied == list(range(view.applied[0], version + 1))
    for c in (ca, cb):
        await c.close()
    await server.stop()


async def test_moves_go_on_across_a_redis_crash_and_nothing_acknowledged_is_lost(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    await ca.join(room)
    await cb.join(room)
    await play_moves(ca, cb, room, MOVES[:3])
    redis_server.restart()  # SIGKILL: only what reached the disk survives
    version = await resend_until_done(cb, room, MOVES[3], ca.rooms[room].version)
    await ca.wait_version(room, version)
    assert ca.rooms[room].doc is not None
    assert ca.rooms[room].doc["record"] == MOVES[:4]
    for c in (ca, cb):
        await c.close()


async def resend_until_done(client: Client, room: str, text: str, version: int) -> int:
    """A client's answer to ``unavailable``: resend the same request until it is answered."""
    for _ in range(50):
        try:
            return await client.move(room, text, version=version, request_id="resend-1")
        except ServerReplyError as error:
            assert error.code == "unavailable", error
    raise AssertionError("the move was never answered")


async def test_a_client_that_sees_a_gap_asks_sync_and_fills_it(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    await ca.join(room)
    await cb.join(room)
    await play_moves(ca, cb, room, MOVES[:1])
    behind = RoomView(room, cb.rooms[room].version, copy.deepcopy(cb.rooms[room].doc))
    version = await play_moves(ca, cb, room, MOVES[1:3])
    cb.rooms[room] = behind  # as if two diffs had been lost on the way
    # Its own next move (from the version it knows is current) shows cb the gap.
    version = await cb.move(room, MOVES[3], version=ca.rooms[room].version)
    view = await cb.wait_version(room, version)
    assert view.doc == ca.rooms[room].doc
    assert view.applied[-3:] == [version - 2, version - 1, version]
    for c in (ca, cb):
        await c.close()
