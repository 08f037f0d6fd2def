"""Races and resends: two moves for one version, one applies; a resent move applies once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from client import ServerReplyError
from lobby.identity import new_guest
from server.redis import store
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, make_room, start_server
from tests.e2e.test_play import legal_texts


async def test_two_moves_racing_for_one_version_apply_exactly_once(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    """The same player on two sockets sends two different moves from version 0."""
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    first, second = await connect(app_server, a), await connect(app_server, a)
    await first.join(room)
    await second.join(room)
    results = await asyncio.gather(
        first.move(room, "a1", version=0),
        second.move(room, "c3", version=0),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, int)]
    refused = [r for r in results if isinstance(r, ServerReplyError)]
    assert applied == [1] and [r.code for r in refused] == ["stale_version"]
    doc = await store.load_doc(redis_client, room)
    assert doc is not None and len(doc["record"]) == 1 and doc["version"] == 1
    await first.close()
    await second.close()


async def test_moves_racing_through_two_server_processes_apply_exactly_once(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    other = await start_server(redis_server.url)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    here, there = await connect(app_server, a), await connect(other, a)
    await here.join(room)
    await there.join(room)
    for round_ in range(10):
        doc = here.rooms[room].doc
        assert doc is not None
        if doc["to_move"] is None:
            break
        mover_id = doc["seats"][doc["to_move"]]["id"]
        if mover_id != a.id:  # let Bob answer through a third socket
            bob = await connect(app_server, b)
            await bob.join(room)
            version = await bob.move(room, legal_texts(here.rooms[room])[0])
            await bob.close()
            await here.wait_version(room, version)
            await there.wait_version(room, version)
            continue
        version = here.rooms[room].version
        legal = legal_texts(here.rooms[room])
        results = await asyncio.gather(
            here.move(room, legal[0], version=version),
            there.move(room, legal[-1], version=version),
            return_exceptions=True,
        )
        assert sum(isinstance(r, int) for r in results) == 1, (round_, results)
        assert all(
            isinstance(r, int) or (isinstance(r, ServerReplyError) and r.code == "stale_version")
            for r in results
        )
        await here.wait_version(room, version + 1)
        await there.wait_version(room, version + 1)
        assert here.rooms[room].doc == there.rooms[room].doc
    stored = await store.load_doc(redis_client, room)
    assert stored is not None and stored == here.rooms[room].doc
    await here.close()
    await there.close()
    await other.stop()


async def test_a_resent_move_is_applied_once_and_answered_the_same(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca = await connect(app_server, a)
    await ca.join(room)
    first = await ca.move(room, "b2", version=0, request_id="m-1")
    again = await ca.move(room, "b2", version=0, request_id="m-1")
    assert first == again == 1
    # Resent after the opponent moved too: still the same answer, still applied once.
    cb = await connect(app_server, b)
    await cb.join(room)
    await cb.move(room, "a1")
    third = await ca.move(room, "b2", version=0, request_id="m-1")
    assert third == 1
    doc = await store.load_doc(redis_client, room)
    assert doc is not None and doc["record"] == ["b2", "a1"]
    # A different request from the old version is stale, not a resend.
    with pytest.raises(ServerReplyError) as refused:
        await ca.move(room, "c3", version=0, request_id="m-2")
    assert refused.value.code == "stale_version"
    await ca.close()
    await cb.close()


async def test_a_resend_on_a_new_connection_after_a_server_restart_is_answered(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: object
) -> None:
    """The ack lives in Redis, so a client that lost its answer may resend anywhere."""
    first_server = await start_server(redis_server.url)
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca = await connect(first_server, a)
    await ca.join(room)
    assert await ca.move(room, "a1", version=0, request_id=41) == 1
    await ca.close()
    await first_server.stop()
    second_server = await start_server(redis_server.url)
    ca = await connect(second_server, a)
    await ca.join(room)
    assert await ca.move(room, "a1", version=0, request_id=41) == 1
    assert ca.rooms[room].doc is not None and ca.rooms[room].doc["record"] == ["a1"]
    await ca.close()
    await second_server.stop()


async def test_the_movers_socket_gets_one_frame_per_move_the_diff_that_answers_it(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    await ca.join(room)
    await cb.join(room)
    frames: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for name, client in (("a", ca), ("b", cb)):
        handle = client._handle
        client._handle = lambda body, name=name, handle=handle: (  # type: ignore[method-assign]
            frames[name].append(body),
            handle(body),
        )
    version = await ca.move(room, "b2", request_id="m-1")
    await cb.wait_for(room, lambda view: view.version == version)
    assert [(f["t"], f.get("ref")) for f in frames["a"]] == [("diff", "m-1")]
    assert [(f["t"], f.get("ref")) for f in frames["b"]] == [("diff", None)]
    assert frames["a"][0]["ops"] == frames["b"][0]["ops"]
    assert ca.rooms[room].version == version
    # A resend is answered by ok, with the same version, and commits nothing.
    assert await ca.move(room, "b2", version=version - 1, request_id="m-1") == version
    assert [(f["t"], f.get("ref")) for f in frames["a"][1:]] == [("ok", "m-1")]
    await ca.close()
    await cb.close()
