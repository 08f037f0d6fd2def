"""Connections in Redis against a real redis-server: presence by tab and place, the sweep
of a crashed process's connections, and heartbeats racing disconnects."""

from __future__ import annotations

import redis.asyncio as aioredis

from lobby.identity import new_guest
from lobby.store import connections as connection_store
from tests.lobby.store.helpers import T0, Events


async def test_presence_counts_tabs_and_places_and_announces_changes(
    redis_client: aioredis.Redis, events: Events
) -> None:
    guest = new_guest(bytes(8))
    first = await connection_store.connect(redis_client, "tab1", guest, T0)
    assert (first.connections, first.places) == (1, ("lobby",))
    assert (await events.next())["presence"]["connections"] == 1
    await connection_store.connect(redis_client, "tab2", guest, T0 + 1)
    moved = await connection_store.move_connection(redis_client, "tab2", "room7", T0 + 2)
    assert moved is not None and moved.places == ("lobby", "room7")
    assert await connection_store.room_spectators(redis_client, "room7", T0 + 2) == 1
    assert await connection_store.room_spectators(redis_client, "room7", T0 + 2, [guest.id]) == 0
    await events.next()
    assert (await events.next())["presence"]["places"] == ["lobby", "room7"]
    remaining = await connection_store.disconnect(redis_client, "tab1", T0 + 3)
    assert remaining is not None and remaining.places == ("room7",)
    await events.next()
    assert await connection_store.disconnect(redis_client, "tab2", T0 + 3) is None
    gone = await events.next()
    assert gone == {"t": "presence", "player": guest.id, "presence": None}
    assert await connection_store.online(redis_client, T0 + 3) == []


async def test_a_crashed_process_leaves_no_ghosts(redis_client: aioredis.Redis) -> None:
    alice, bob = new_guest(bytes(8)), new_guest(bytes([1] * 8))
    await connection_store.connect(redis_client, "a1", alice, T0, ttl=60)
    await connection_store.connect(redis_client, "b1", bob, T0, ttl=60)
    for beat in range(1, 4):
        assert await connection_store.heartbeat(redis_client, "a1", T0 + 40 * beat, ttl=60)
    now = T0 + 130
    assert [p.player for p in await connection_store.online(redis_client, now)] == [alice]
    assert await connection_store.player_presence(redis_client, bob.id, now) is None
    assert not await connection_store.heartbeat(redis_client, "b1", now)
    assert await connection_store.move_connection(redis_client, "b1", "room1", now) is None
    gone = await connection_store.sweep_presence(redis_client, now)
    assert [c.id for c in gone] == ["b1"]
    assert await redis_client.hkeys("{lobby}:connections") == [b"a1"]
    assert await connection_store.sweep_presence(redis_client, now) == []


async def test_a_heartbeat_after_a_disconnect_does_not_revive_the_connection(
    redis_client: aioredis.Redis,
) -> None:
    guest = new_guest(bytes(8))
    await connection_store.connect(redis_client, "tab1", guest, T0)
    await connection_store.disconnect(redis_client, "tab1", T0 + 1)
    assert not await connection_store.heartbeat(redis_client, "tab1", T0 + 2)
    assert await connection_store.move_connection(redis_client, "tab1", "room1", T0 + 2) is None
    assert await redis_client.hlen("{lobby}:connections") == 0
    assert await redis_client.zcard("{lobby}:connection-deadlines") == 0
