"""Two server processes on one Redis share a room: each sees the other's moves."""

from __future__ import annotations

import redis.asyncio as aioredis

from client import Client, ServerReplyError
from lobby.identity import new_guest
from protocol.diff import diff
from protocol.messages import encode_diff
from server.redis import store
from server.redis.embedded_redis import free_port
from server.rooms import Move, decide, room_doc
from tests.conftest import RedisServer
from tests.e2e.conftest import (
    RunningServer,
    ServerProcess,
    connect,
    make_room,
    start_server,
    token_for,
)


async def test_players_and_spectators_on_two_processes_share_a_room(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    other = await start_server(redis_server.url)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(app_server, a), await connect(other, b)
    watch_here, watch_there = await connect(app_server), await connect(other)
    everyone = [ca, cb, watch_here, watch_there]
    for c in everyone:
        await c.join(room)
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 2)
    for text_a, text_b in [("a1", "b1"), ("a2", "b2")]:
        version = await ca.move(room, text_a)
        await cb.wait_version(room, version)
        version = await cb.move(room, text_b)
        for c in everyone:
            await c.wait_version(room, version)
    docs = [c.rooms[room].doc for c in everyone]
    assert all(doc == docs[0] for doc in docs)
    assert docs[0] is not None and docs[0]["record"] == ["a1", "b1", "a2", "b2"]
    for c in everyone:
        await c.close()
    await other.stop()


async def test_processes_keep_sharing_a_room_after_redis_restarts(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    """The pub/sub link comes back and sockets catch up on what it missed."""
    other = await start_server(redis_server.url)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-size=4")
    ca, cb = await connect(app_server, a), await connect(other, b)
    await ca.join(room)
    await cb.join(room)
    version = await ca.move(room, "a1")
    await cb.wait_version(room, version)
    redis_server.restart()
    version = await resend(cb, room, "b1", version, "after-restart")
    await ca.wait_version(room, version, timeout=20)
    version = await resend(ca, room, "a2", version, "after-restart-2")
    await cb.wait_version(room, version, timeout=20)
    assert ca.rooms[room].doc == cb.rooms[room].doc
    assert ca.rooms[room].doc is not None and ca.rooms[room].doc["record"] == ["a1", "b1", "a2"]
    for c in (ca, cb):
        await c.close()
    await other.stop()


async def resend(client: Client, room: str, text: str, version: int, request_id: str) -> int:
    for _ in range(50):
        try:
            return await client.move(room, text, version=version, request_id=request_id)
        except ServerReplyError as error:
            assert error.code == "unavailable", error
    raise AssertionError("never answered")


async def test_two_server_processes_started_as_programs_share_a_room(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    subprocess_env: dict[str, str],
    ttt: object,
) -> None:
    """The same, with ``python -m server`` twice on one REDIS_URL (separate OS processes)."""
    env = {**subprocess_env, "REDIS_URL": redis_server.url}
    first, second = ServerProcess(env, free_port()), ServerProcess(env, free_port())
    await first.start()
    await second.start()
    try:
        a, b = new_guest(), new_guest()
        room = await make_room(redis_client, a, b)
        ca = await Client.connect(first.ws_url, token_for(a))
        cb = await Client.connect(second.ws_url, token_for(b))
        watcher = await Client.connect(second.ws_url, token_for(new_guest()))
        for c in (ca, cb, watcher):
            await c.join(room)
        version = await ca.move(room, "b2")
        await cb.wait_version(room, version)
        version = await cb.move(room, "a1")
        for c in (ca, cb, watcher):
            await c.wait_version(room, version)
        # The spectator count commits on its own schedule: compare the views at one version.
        latest = max(c.rooms[room].version for c in (ca, cb, watcher))
        for c in (ca, cb, watcher):
            await c.wait_version(room, latest)
        assert ca.rooms[room].doc == watcher.rooms[room].doc
        assert watcher.rooms[room].doc is not None
        assert watcher.rooms[room].doc["record"] == ["b2", "a1"]
        for c in (ca, cb, watcher):
            await c.close()
    finally:
        first.terminate()
        second.terminate()


async def test_a_commit_published_to_nobody_still_reaches_every_view(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    """A process that wrongly believed no other process listened (its own subscription being
    restored after a Redis restart, say) commits without publishing: the sockets of the
    process that does listen learn of the move from its check of the rooms' versions, with
    no client asking to sync."""
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca, cb, watcher = [await connect(app_server, p) for p in (a, b, new_guest())]
    for c in (ca, cb, watcher):
        await c.join(room)
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 1)
    version = await ca.move(room, "a1")
    for c in (cb, watcher):
        await c.wait_version(room, version)
    loaded = await store.load_room(redis_client, room)
    assert loaded is not None
    new = decide(loaded.room, Move(b.id, version, "b1")).room
    frame = encode_diff(room, new.version, diff(loaded.doc, room_doc(new)))
    result = await store.commit(
        redis_client, room, version, new.version, None, frame, subscribed=True
    )
    assert result.applied
    for c in (ca, cb, watcher):
        view = await c.wait_version(room, new.version, timeout=5)
        assert view.doc is not None and view.doc["record"] == ["a1", "b1"]
    for c in (ca, cb, watcher):
        await c.close()


async def test_a_killed_processs_players_show_away_once_their_leases_lapse(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    subprocess_env: dict[str, str],
    ttt: object,
) -> None:
    """Ann plays through a process that is SIGKILLed: it never says she left, yet after her
    presence lease (1 s here) the other process shows her away to Bob, so that he may claim
    the game once the grace period is over."""
    env = {**subprocess_env, "REDIS_URL": redis_server.url, "PRESENCE_LEASE_SECONDS": "1"}
    doomed, survivor = ServerProcess(env, free_port()), ServerProcess(env, free_port())
    await doomed.start()
    await survivor.start()
    try:
        a, b = new_guest(), new_guest()
        room = await make_room(redis_client, a, b)
        ca = await Client.connect(doomed.ws_url, token_for(a))
        cb = await Client.connect(survivor.ws_url, token_for(b))
        await ca.join(room)
        await cb.join(room)
        version = await ca.move(room, "b2")
        await cb.wait_version(room, version)
        assert cb.rooms[room].doc is not None and cb.rooms[room].doc["away"] == [None, None]
        doomed.kill()
        await cb.wait_for(
            room, lambda v: v.doc is not None and v.doc["away"][0] is not None, timeout=20
        )
        assert cb.rooms[room].doc is not None and cb.rooms[room].doc["away"][1] is None
        await cb.close()
        await ca.close()
    finally:
        doomed.kill()
        survivor.terminate()
