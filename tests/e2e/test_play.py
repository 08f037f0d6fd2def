"""Whole games over real sockets: two players and a spectator, for every registered game."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis.asyncio as aioredis

from client import Client, RoomView, ServerReplyError
from lobby.identity import Player, new_guest
from rules import GAMES, find_game
from server.redis import store
from tests.e2e.conftest import RunningServer, connect, make_room

MOVE_LIMIT = 600
"""A game still on after this many moves is finished by a resignation."""


def legal_texts(view: RoomView) -> list[str]:
    """The legal move texts of the view's position, by the rules API."""
    doc = view.doc
    assert doc is not None
    rules = find_game(doc["game"])
    state = rules.from_data(doc["data"])
    return [rules.move_text(m) for m in rules.legal_moves(state)]


async def check_offered_moves(view: RoomView, players: dict[str, Client]) -> None:
    """Each player asks for their seat's moves, as a page does after every move: the one to
    move gets the legal moves (Che's long lists come as blocks whose tiles may be written in
    another order), the other its premoves, both for the position the view holds."""
    doc = view.doc
    assert doc is not None
    for seat, holder in enumerate(doc["seats"]):
        position, offered = await players[holder["id"]].seat_moves(view.room, seat)
        assert position == doc["position_version"]
        if seat == doc["to_move"] and doc["game"] != "che":
            assert sorted(offered) == sorted(legal_texts(view))
        elif seat == doc["to_move"]:
            assert len(offered) >= len(legal_texts(view)) > 0
        elif doc["to_move"] is None:
            assert offered == []


def mover(view: RoomView, players: dict[str, Client]) -> Client | None:
    doc = view.doc
    assert doc is not None
    if doc["outcome"] is not None or doc["to_move"] is None:
        return None
    return players[doc["seats"][doc["to_move"]]["id"]]


async def play_whole_game(
    server: RunningServer, client: aioredis.Redis, game: str, options: str, seed: int
) -> tuple[dict[str, Any], list[Client]]:
    a, b = new_guest(), new_guest()
    room = await make_room(client, a, b, game=game, options=options, room_id=f"{game}-{seed}")
    clients = {p.id: await connect(server, p) for p in (a, b)}
    spectator = await connect(server)
    views = {pid: await c.join(room) for pid, c in clients.items()}
    await spectator.join(room)
    rng = random.Random(seed)
    played: list[str] = []
    view = views[a.id]
    while True:
        view = await clients[a.id].wait_for(room, lambda v: not v.syncing)
        turn = mover(view, clients)
        if turn is None:
            break
        if len(played) >= MOVE_LIMIT:
            await turn.resign(room)
            break
        if len(played) % 8 == 0:  # as a page asks, but not on every one of the quick plies
            await check_offered_moves(turn.rooms[room], clients)
        text = rng.choice(legal_texts(turn.rooms[room]))
        version = await turn.move(room, text)
        played.append(text)
        for c in (*clients.values(), spectator):
            await c.wait_version(room, version)
    final = view.version
    everyone = [*clients.values(), spectator]
    for c in everyone:
        await c.wait_version(room, final)
    doc = views[a.id].doc
    assert doc is not None
    return doc, everyone


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_two_players_and_a_spectator_play_a_whole_game(
    app_server: RunningServer, redis_client: aioredis.Redis, game: str
) -> None:
    doc, everyone = await play_whole_game(app_server, redis_client, game, "", seed=1)
    assert doc["outcome"] is not None
    for c in everyone:
        view = next(iter(c.rooms.values()))
        assert view.doc == doc  # the spectator and both players hold the same state
        assert view.applied == list(range(view.applied[0], view.version + 1))  # no gap, no repeat
    stored = await store.load_doc(redis_client, doc["room"])
    assert stored == doc
    await close_all(everyone)


async def test_the_test_game_plays_through_with_the_swap(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b, options="-swap")
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    cs = await connect(app_server)
    for c in (ca, cb, cs):
        await c.join(room)
    await ca.move(room, "b2")
    await cb.wait_version(room, 1)
    version = await cb.move(room, "swap")
    view = await cs.wait_version(room, version)
    assert view.doc is not None
    assert [s["id"] for s in view.doc["seats"]] == [b.id, a.id]
    assert view.doc["record"] == ["b2", "swap"]
    # Ann made the first move; after the swap she plays the second colour, which moves now.
    with pytest.raises(ServerReplyError) as refused:
        await cb.move(room, "a1")
    assert refused.value.code == "not_your_turn"
    await ca.move(room, "a1")
    await close_all([ca, cb, cs])


async def test_only_a_seats_player_is_told_its_moves(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    cs = await connect(app_server)
    with pytest.raises(ServerReplyError) as refused:
        await ca.seat_moves(room, 0)
    assert refused.value.code == "not_joined"
    for c in (ca, cb, cs):
        await c.join(room)
    await ca.move(room, "b2")
    await cb.wait_version(room, 1)
    position, legal = await cb.seat_moves(room, 1)
    assert position == 1 and "a1" in legal and "b2" not in legal and len(legal) == 8
    position, premoves = await ca.seat_moves(room, 0)
    assert position == 1 and sorted(premoves) == sorted(legal)
    for client, seat in ((cs, 0), (cs, 1), (ca, 1), (cb, 0), (ca, 2)):
        with pytest.raises(ServerReplyError) as refused:
            await client.seat_moves(room, seat)
        assert refused.value.code == "not_a_player"
    await close_all([ca, cb, cs])


async def test_resign_ends_the_game_for_everyone(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca, cb = await connect(app_server, a), await connect(app_server, b)
    cs = await connect(app_server)
    for c in (ca, cb, cs):
        await c.join(room)
    await cs.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 1)
    version = await cb.resign(room)
    view = await cs.wait_version(room, version)
    assert view.doc is not None
    assert view.doc["outcome"] == {"winner": 0, "reason": "resignation"}
    with pytest.raises(ServerReplyError) as refused:
        await ca.move(room, "a1")
    assert refused.value.code == "game_over"
    await close_all([ca, cb, cs])


async def test_spectators_are_counted_live(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    ca = await connect(app_server, a)
    await ca.join(room)
    watchers = [await connect(app_server) for _ in range(3)]
    for w in watchers:
        await w.join(room)
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 3)
    await watchers[0].leave(room)
    await watchers[1].close()
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 1)
    await close_all([ca, watchers[0], watchers[2]])


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


def players_of(doc: dict[str, Any]) -> list[str]:
    return [s["id"] for s in doc["seats"]]


__all__ = ["Player", "play_whole_game"]
