"""Rooms on a Redis Cluster: commits wait for a replica, diffs travel on the room's shard, the
lobby's outbox is kept per slot, and no acknowledged move is lost or doubled when a master is
killed mid-game."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from functools import partial
from types import ModuleType
from typing import Any, TypeVar

import pytest
from redis.asyncio.cluster import RedisCluster

from bench.loopback.cluster import ClusterOfServers
from protocol.diff import diff
from protocol.messages import encode_diff
from server import listing, outbox
from server.redis import clock_store, store
from server.redis.cluster import Durability, NotDurableError, has_waitaof, key_slot
from server.redis.sharded_pubsub import ShardedSubscriptions
from server.rooms import DEFAULT_IDLE_LIMITS, Move, SeatHolder, decide, new_room, room_doc
from server.service import _STORAGE_ERRORS

pytestmark = pytest.mark.cluster

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")
ONE_REPLICA = Durability(replicas=1, timeout=2.0)
T = TypeVar("T")


async def play_one(
    client: RedisCluster,
    room_id: str,
    ack: str,
    durability: Durability = ONE_REPLICA,
    mark: bool = False,
) -> store.CommitResult:
    """Commit the next move of a tic-tac-toe room as the service does."""
    commit = await next_move(client, room_id, ack, durability, mark)
    return await commit()


async def next_move(
    client: RedisCluster,
    room_id: str,
    ack: str,
    durability: Durability = ONE_REPLICA,
    mark: bool = False,
) -> Callable[[], Awaitable[store.CommitResult]]:
    """The commit of the room's next move, to send (and send again) as the service does."""
    loaded = await store.load_room(client, room_id)  # type: ignore[arg-type]
    assert loaded is not None
    room = loaded.room
    player = room.seats[room.rules.to_move(room.state)].id  # type: ignore[index]
    move = next(iter(room.rules.legal_moves(room.state)))
    new = decide(room, Move(player, room.version, room.rules.move_text(move))).room
    doc = room_doc(new)
    frame = encode_diff(room_id, new.version, diff(loaded.doc, doc))
    return partial(
        store.commit,
        client,  # type: ignore[arg-type]
        room_id,
        room.version,
        new.version,
        store.pack(doc),
        frame,
        ack,
        mark=listing.mark(new, DEFAULT_IDLE_LIMITS) if mark else b"",
        durability=durability,
    )


async def test_a_commit_waits_for_a_replica_and_reads_back(
    cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    assert await has_waitaof(cluster_client)  # type: ignore[arg-type]
    await store.create_room(cluster_client, new_room("c1", "tictactoe", "", (ANN, BOB)))  # type: ignore[arg-type]
    result = await play_one(cluster_client, "c1", "a1")
    assert result.applied and result.version == 1
    again = await play_one(cluster_client, "c1", "a1")  # the same request again
    assert again.duplicate and again.version == 1
    version, frames = await store.diffs_since(cluster_client, "c1", 0)  # type: ignore[arg-type]
    assert version == 1 and frames is not None and len(frames) == 1


async def test_a_commit_needing_more_replicas_than_exist_is_not_acknowledged(
    cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    await store.create_room(cluster_client, new_room("c2", "tictactoe", "", (ANN, BOB)))  # type: ignore[arg-type]
    with pytest.raises(NotDurableError):
        await play_one(cluster_client, "c2", "a1", Durability(replicas=2, timeout=0.2))


async def test_a_diff_travels_on_the_rooms_shard(
    cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    received: list[dict[str, Any]] = []
    got = asyncio.Event()

    def on_message(message: dict[str, Any]) -> None:
        received.append(message)
        if message["type"] == "message":
            got.set()

    subscriptions = ShardedSubscriptions(cluster_client, on_message)
    try:
        await store.create_room(cluster_client, new_room("c3", "tictactoe", "", (ANN, BOB)))  # type: ignore[arg-type]
        await subscriptions.subscribe(store.channel("c3"))
        await play_one(cluster_client, "c3", "a1")
        async with asyncio.timeout(5):
            await got.wait()
    finally:
        await subscriptions.aclose()
    assert [m["type"] for m in received] == ["subscribe", "message"]
    assert received[1]["channel"] == "room:{c3}"


async def test_the_outbox_is_kept_per_slot_and_drained(
    cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    rooms = [f"o{index}" for index in range(20)]
    for room_id in rooms:
        await store.create_room(cluster_client, new_room(room_id, "tictactoe", "", (ANN, BOB)))  # type: ignore[arg-type]
    await play_one(cluster_client, "o0", "a1", mark=True)
    assert await outbox.pending(cluster_client) == len(rooms)  # type: ignore[arg-type]
    found = await outbox.marks(cluster_client, 1000)  # type: ignore[arg-type]
    assert set(found) == set(rooms)
    assert listing.parse_mark("o0", found["o0"]).version == 1
    await outbox.clear(cluster_client, found)  # type: ignore[arg-type]
    assert await outbox.pending(cluster_client) == 0  # type: ignore[arg-type]
    assert await cluster_client.smembers(outbox.DIRTY_SLOTS_KEY) == set()


async def test_a_mark_whose_slot_was_never_listed_is_found_by_the_reindex(
    cluster_client: RedisCluster,
) -> None:
    """A process that died between its commit and listing the slot."""
    key = outbox.slot_outbox_key(key_slot("room:{lost}:room"))
    await cluster_client.hset(key, "lost", b"mark")
    assert await outbox.marks(cluster_client, 1000) == {}  # type: ignore[arg-type]
    assert await outbox.reindex(cluster_client) == 1  # type: ignore[arg-type]
    assert await outbox.marks(cluster_client, 1000) == {"lost": b"mark"}  # type: ignore[arg-type]


async def test_a_clock_deadline_is_settled_in_steps(
    cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    room = new_room("k1", "tictactoe", "", (ANN, BOB))
    await store.create_room(cluster_client, room)  # type: ignore[arg-type]
    assert await clock_store.settle(cluster_client, room)  # type: ignore[arg-type]
    await play_one(cluster_client, "k1", "a1")
    assert not await clock_store.settle(cluster_client, room)  # type: ignore[arg-type]


async def test_no_acknowledged_move_is_lost_or_doubled_when_a_master_is_killed(
    redis_cluster: ClusterOfServers, cluster_client: RedisCluster, ttt: ModuleType
) -> None:
    """Players keep moving in many rooms, resending a move (same request id) while the
    cluster answers with errors; a master is SIGKILLed mid-run.  Every move acknowledged is
    in its room afterwards, once, in order."""
    rooms = [f"f{index}" for index in range(24)]
    for room_id in rooms:
        await store.create_room(cluster_client, new_room(room_id, "tictactoe", "", (ANN, BOB)))  # type: ignore[arg-type]
    acknowledged: dict[str, dict[str, int]] = {room_id: {} for room_id in rooms}
    longest_pause = 0.0

    async def player(room_id: str) -> None:
        nonlocal longest_pause
        for number in range(9):
            ack = f"{room_id}:{number}"
            started = time.monotonic()
            commit = await _retrying(partial(next_move, cluster_client, room_id, ack))
            while True:
                try:
                    result = await commit()
                except (*_STORAGE_ERRORS, NotDurableError):
                    await asyncio.sleep(0.05 + random.random() * 0.05)
                    continue
                if result.applied or result.duplicate:
                    break
            longest_pause = max(longest_pause, time.monotonic() - started)
            acknowledged[room_id][ack] = result.version
            loaded = await _load_retrying(cluster_client, room_id)
            if loaded.room.outcome is not None:
                return
            await asyncio.sleep(0.05)

    async def kill_a_master() -> None:
        await asyncio.sleep(0.4)
        owner = cluster_client.get_node_from_key(store.room_key(rooms[0]))
        assert owner is not None
        victim = next(node for node in redis_cluster.nodes if node.port == owner.port)
        redis_cluster.kill(victim)
        await asyncio.to_thread(redis_cluster.wait_ok)
        redis_cluster.restart(victim)

    async with asyncio.timeout(120):
        await asyncio.gather(kill_a_master(), *(player(room_id) for room_id in rooms))
    await asyncio.to_thread(redis_cluster.wait_replicated)
    for room_id in rooms:
        loaded = await _load_retrying(cluster_client, room_id)
        stored = {
            store_text(key): int(value)
            for key, value in (await cluster_client.hgetall(store.acks_key(room_id))).items()
        }
        for ack, version in acknowledged[room_id].items():
            assert stored.get(ack) == version, f"{room_id}: acknowledged {ack} lost"
        versions = sorted(stored.values())
        assert versions == list(range(1, len(versions) + 1)), f"{room_id}: doubled {stored}"
        assert loaded.room.version == len(versions) == len(loaded.room.record)
    print(f"longest wait for an acknowledgement across the failover: {longest_pause:.2f} s")


async def _load_retrying(client: RedisCluster, room_id: str) -> store.Loaded:
    loaded = await _retrying(partial(store.load_room, client, room_id))  # type: ignore[arg-type]
    assert loaded is not None
    return loaded


async def _retrying(read: Callable[[], Awaitable[T]]) -> T:
    """``read()``, again while the cluster fails over."""
    while True:
        try:
            return await read()
        except _STORAGE_ERRORS:
            await asyncio.sleep(0.05)


def store_text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def test_the_lobby_feed_follows_the_cluster_through_a_failover(
    redis_cluster: ClusterOfServers, cluster_client: RedisCluster
) -> None:
    """The lobby's classic channel: after the node it is read from dies, the next reads
    subscribe again on the slot's new master and the feed goes on."""
    feed: Any = cluster_client.pubsub()
    await feed.subscribe("lobby")
    assert (await feed.get_message(timeout=5))["type"] == "subscribe"
    await cluster_client.publish("lobby", b"before")
    message = await feed.get_message(ignore_subscribe_messages=True, timeout=5)
    assert message is not None and message["data"] == b"before"
    owner = cluster_client.get_node_from_key("lobby")
    assert owner is not None
    victim = next(node for node in redis_cluster.nodes if node.port == owner.port)
    redis_cluster.kill(victim)
    await asyncio.to_thread(redis_cluster.wait_ok)
    received: list[Any] = []
    async with asyncio.timeout(30):
        while not received:
            try:
                message = await feed.get_message(timeout=0.2)
            except _STORAGE_ERRORS:
                await asyncio.sleep(0.1)
                continue
            if message is not None and message["type"] == "subscribe":
                await _retrying(partial(cluster_client.publish, "lobby", b"after"))
            elif message is not None and message["type"] == "message":
                received.append(message["data"])
    assert received == [b"after"]
    await feed.aclose()
    redis_cluster.restart(victim)
    await asyncio.to_thread(redis_cluster.wait_replicated)
