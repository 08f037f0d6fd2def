"""Takebacks on real sockets: asked and granted through the same commit and diffs as a move,
declined, and refused to spectators, in rated games and for bad actions."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from client import ServerReplyError
from lobby.identity import new_guest
from server.redis import store
from server.rooms import SeatHolder, new_room
from tests.e2e.conftest import RunningServer, connect, make_room


async def test_a_takeback_is_asked_granted_and_seen_by_everyone(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second)
    ann, bob, eve = (
        await connect(app_server, first),
        await connect(app_server, second),
        await connect(app_server),
    )
    try:
        views = [await ann.join(room), await bob.join(room), await eve.join(room)]
        await ann.move(room, "b2")
        await bob.wait_version(room, views[0].version)
        version = await bob.move(room, "a1")
        await ann.wait_version(room, version)
        with pytest.raises(ServerReplyError) as watcher:
            await eve.takeback(room, "offer")
        assert watcher.value.code == "not_a_player"
        with pytest.raises(ServerReplyError) as bad:
            await bob.request({"t": "takeback", "room": room, "version": version, "action": "undo"})
        assert bad.value.code == "bad_request"
        asked = await bob.takeback(room, "offer")
        await ann.wait_version(room, asked)
        assert views[0].doc is not None and views[0].doc["takeback_offer"] == second.id
        granted = await ann.takeback(room, "accept")
        for client in (ann, bob, eve):
            view = await client.wait_version(room, granted)
            assert view.doc is not None
            assert view.doc["record"] == ["b2"] and view.doc["takeback_offer"] is None
            assert view.doc["to_move"] == 1
        with pytest.raises(ServerReplyError) as nothing:
            await bob.takeback(room, "offer")  # his move is gone
        assert nothing.value.code == "cannot_take_back"
        await bob.move(room, "c3")
        again = await bob.takeback(room, "offer")
        await ann.wait_version(room, again)
        declined = await ann.takeback(room, "decline")
        view = await bob.wait_version(room, declined)
        assert view.doc is not None and view.doc["record"] == ["b2", "c3"]
        assert view.doc["takeback_offer"] is None
    finally:
        for client in (ann, bob, eve):
            await client.close()


async def test_rated_games_refuse_takebacks(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    first, second = new_guest(), new_guest()
    seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
    rated = new_room("rated", "tictactoe", "", seats, rated=True)
    await store.create_room(redis_client, rated)
    ann = await connect(app_server, first)
    try:
        await ann.join("rated")
        await ann.move("rated", "b2")
        await ann.wait_version("rated", 1)
        with pytest.raises(ServerReplyError) as refused:
            await ann.takeback("rated", "offer")
        assert refused.value.code == "cannot_take_back"
    finally:
        await ann.close()
