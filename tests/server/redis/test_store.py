"""Rooms in a real Redis: idempotent creation, commit-if-version, acks, history, durability."""

from __future__ import annotations

import asyncio
import copy
import signal
from types import ModuleType
from typing import Any

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from protocol.diff import apply, diff
from protocol.messages import decode_server, encode_diff
from server.redis import store
from server.redis.batcher import Batcher
from server.rooms import Move, Room, SeatHolder, decide, new_room, room_changes, room_doc
from tests.conftest import RedisServer

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")


@pytest.fixture
async def room(redis_client: aioredis.Redis, ttt: ModuleType) -> Room:
    return await store.create_room(redis_client, new_room("r1", "tictactoe", "", (ANN, BOB)))


async def commit_move(
    client: aioredis.Redis,
    loaded: store.Loaded,
    text: str,
    ack: str = "",
    whole: bool = False,
) -> tuple[store.CommitResult, Room]:
    room = loaded.room
    player = room.seats[room.rules.to_move(room.state)].id  # type: ignore[index]
    new = decide(room, Move(player, room.version, text)).room
    doc = room_doc(new)
    frame = encode_diff(room.id, new.version, diff(loaded.doc, doc))
    result = await store.commit(
        client, room.id, room.version, new.version, store.pack(doc) if whole else None, frame, ack
    )
    return result, new


async def test_create_room_is_idempotent_on_its_id(
    redis_client: aioredis.Redis, room: Room
) -> None:
    other = new_room("r1", "tictactoe", "-size=4", (BOB, ANN))
    stored = await store.create_room(redis_client, other)
    assert stored.seats == (ANN, BOB) and stored.options == ""
    assert await redis_client.exists(store.room_key("r1")) == 1
    assert store.room_key("r1") == "room:{r1}:room"  # one hash tag for every key of a room


async def test_load_room_reads_back_what_was_created(
    redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None and loaded.room == room
    assert await store.load_room(redis_client, "nowhere") is None


async def test_commit_applies_only_from_the_version_read(
    redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    first, second = await asyncio.gather(
        commit_move(redis_client, loaded, "a1"), commit_move(redis_client, loaded, "b1")
    )
    assert sorted([first[0].applied, second[0].applied]) == [False, True]
    winner = first[1] if first[0].applied else second[1]
    after = await store.load_room(redis_client, "r1")
    assert after is not None and after.room == winner and after.room.version == 1


async def test_a_committed_request_is_answered_again_not_applied_again(
    redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    result, _ = await commit_move(redis_client, loaded, "a1", ack="0:p:ann:7:a1")
    assert result.applied
    again, _ = await commit_move(redis_client, loaded, "a1", ack="0:p:ann:7:a1")
    assert (again.applied, again.duplicate, again.version) == (False, True, 1)
    assert await store.find_ack(redis_client, "r1", "0:p:ann:7:a1") == 1
    assert await redis_client.llen(store.diffs_key("r1")) == 1


async def test_the_document_is_rebuilt_from_the_last_whole_one_and_the_diffs(
    redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    for i, text in enumerate(["a1", "b1", "a2", "b2"]):
        result, new = await commit_move(redis_client, loaded, text, whole=i == 1)
        assert result.applied
        doc = room_doc(new)
        loaded = store.Loaded(new, doc, 0)
    fresh = await store.load_room(redis_client, "r1")
    assert fresh is not None and fresh.room == loaded.room
    assert fresh.doc_version == 2
    assert fresh.doc["record"] == ["a1", "b1", "a2", "b2"]


async def test_diffs_since_replays_recent_versions_or_asks_for_a_snapshot(
    redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    for text in ["a1", "b1", "a2"]:
        _, new = await commit_move(redis_client, loaded, text)
        loaded = store.Loaded(new, room_doc(new), 0)
    current, frames = await store.diffs_since(redis_client, "r1", 1)
    assert current == 3 and frames is not None
    assert [decode_server(f)["version"] for f in frames] == [2, 3]
    assert await store.diffs_since(redis_client, "r1", 3) == (3, [])
    assert (await store.diffs_since(redis_client, "r1", 9))[1] is None  # from the future
    await redis_client.ltrim(store.diffs_key("r1"), -1, -1)  # history keeps one diff
    assert (await store.diffs_since(redis_client, "r1", 1))[1] is None
    assert await store.diffs_since(redis_client, "nowhere", 0) == (-1, None)


async def test_commit_publishes_only_when_another_process_listens(
    redis_server: RedisServer, redis_client: aioredis.Redis, room: Room
) -> None:
    listener = aioredis.Redis.from_url(redis_server.url)
    pubsub = listener.pubsub()
    await pubsub.subscribe(store.channel("r1"))
    assert (await pubsub.get_message(timeout=5))["type"] == "subscribe"  # type: ignore[index]
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    result, _ = await commit_move(redis_client, loaded, "c3")
    message = await pubsub.get_message(timeout=5)
    assert message is not None and message["type"] == "message"
    assert message["data"][:8] == (1).to_bytes(8, "big")
    assert decode_server(message["data"][8:])["version"] == 1
    await pubsub.aclose()
    await listener.aclose()


async def test_acknowledged_commits_survive_a_redis_crash(
    redis_server: RedisServer, redis_client: aioredis.Redis, room: Room
) -> None:
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None
    result, new = await commit_move(redis_client, loaded, "b2")
    assert result.applied
    redis_server.restart()  # SIGKILL, then start on the same files
    client = aioredis.Redis.from_url(redis_server.url)
    after = await store.load_room(client, "r1")
    await client.aclose()
    assert after is not None and after.room == new


async def test_watchers_add_up_over_processes(redis_client: aioredis.Redis) -> None:
    assert await store.change_watchers(redis_client, "r1", "proc-a", 2) == 2
    assert await store.change_watchers(redis_client, "r1", "proc-b", 1) == 3
    assert await store.change_watchers(redis_client, "r1", "proc-a", -2) == 1
    assert await redis_client.hkeys(store.watchers_key("r1")) == [b"proc-b"]


async def test_batched_commits_keep_their_own_results(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Commits issued together go out as one pipeline, each checked on its own; a script
    cache emptied by a Redis restart is refilled on the way."""
    batcher = Batcher(redis_client)
    rooms = [
        await store.create_room(redis_client, new_room(f"b{i}", "tictactoe", "", (ANN, BOB)))
        for i in range(3)
    ]
    await redis_client.script_flush()
    loaded = [await store.load_room(redis_client, r.id) for r in rooms]
    moves = []
    for i, room_loaded in enumerate(loaded):
        assert room_loaded is not None
        room = room_loaded.room
        new = decide(room, Move(ANN.id, 0, "a1")).room
        frame = encode_diff(room.id, 1, diff(room_loaded.doc, room_doc(new)))
        expected = 5 if i == 2 else 0  # the last one was read at a version it is not at
        moves.append(
            store.commit(
                redis_client, room.id, expected, 1, None, frame, f"ack{i}", batcher=batcher
            )
        )
    results = await asyncio.gather(*moves)
    assert [r.applied for r in results] == [True, True, False]
    assert results[2].version == 0
    again = await store.commit(redis_client, "b0", 0, 1, None, b"x", "ack0", batcher=batcher)
    assert (again.duplicate, again.version) == (True, 1)


async def batched_moves(
    client: aioredis.Redis, batcher: Batcher, rooms: list[Room], told: list[str]
) -> list[asyncio.Task[store.CommitResult]]:
    """One opening move in each room, committed through ``batcher``; ``then`` notes each."""
    commits = []
    for room in rooms:
        loaded = await store.load_room(client, room.id)
        assert loaded is not None
        new = decide(loaded.room, Move(ANN.id, 0, "a1")).room
        frame = encode_diff(room.id, 1, diff(loaded.doc, room_doc(new)))
        commit = store.commit(
            client,
            room.id,
            0,
            1,
            None,
            frame,
            batcher=batcher,
            then=lambda result, room_id=room.id: told.append(f"{room_id} {result.applied}"),
        )
        commits.append(asyncio.ensure_future(commit))
    return commits


async def test_batched_commits_are_told_before_their_callers_resume(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Every commit of a batch is told its result as its reply is read, before any of the
    callers gets its turn (the service hands out the move's frames there)."""
    batcher = Batcher(redis_client)
    rooms = [
        await store.create_room(redis_client, new_room(f"t{i}", "tictactoe", "", (ANN, BOB)))
        for i in range(3)
    ]
    told: list[str] = []
    seen_on_resuming = []
    for commit in await batched_moves(redis_client, batcher, rooms, told):
        commit.add_done_callback(lambda _: seen_on_resuming.append(list(told)))
    while len(seen_on_resuming) < 3:
        await asyncio.sleep(0.01)
    assert told == ["t0 True", "t1 True", "t2 True"]
    assert seen_on_resuming[0] == told
    await batcher.aclose()


async def test_a_lost_batcher_connection_sends_the_unanswered_commits_again(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    batcher = Batcher(redis_client)
    rooms = [
        await store.create_room(redis_client, new_room(f"l{i}", "tictactoe", "", (ANN, BOB)))
        for i in range(4)
    ]
    told: list[str] = []
    first = await batched_moves(redis_client, batcher, rooms[:1], told)
    assert (await first[0]).applied  # the batcher holds a connection now
    await redis_client.client_kill_filter(_type="normal", skipme=True)
    results = await asyncio.gather(*await batched_moves(redis_client, batcher, rooms[1:], told))
    assert [r.applied for r in results] == [True, True, True]
    assert told == ["l0 True", "l1 True", "l2 True", "l3 True"]
    for room in rooms:
        assert await store.current_version(redis_client, room.id) == 1
    await batcher.aclose()


async def test_closing_the_batcher_fails_what_it_has_not_answered(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    batcher = Batcher(redis_client)
    room = await store.create_room(redis_client, new_room("c0", "tictactoe", "", (ANN, BOB)))
    told: list[str] = []
    (commit,) = await batched_moves(redis_client, batcher, [room], told)
    await asyncio.sleep(0)  # the commit is queued
    await batcher.aclose()
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        await commit
    (later,) = await batched_moves(redis_client, batcher, [room], told)
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        await later
    assert told == []
    assert await store.current_version(redis_client, room.id) == 0


async def test_a_write_that_fails_leaves_no_commit_waiting_for_the_replies_of_others(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """A write into a connection that a reset closed fails (under uvloop, with RuntimeError):
    its commits are sent again on a new connection, and the next batch's replies answer the
    next batch only."""
    batcher = Batcher(redis_client)
    rooms = [
        await store.create_room(redis_client, new_room(f"w{i}", "tictactoe", "", (ANN, BOB)))
        for i in range(3)
    ]
    told: list[str] = []
    (first,) = await batched_moves(redis_client, batcher, rooms[:1], told)
    assert (await first).applied
    connection = batcher._connection
    write = connection.send_packed_command
    failures = [RuntimeError("unable to perform operation on <TCPTransport closed=True>")]

    async def closed_once(command: object, check_health: bool = True) -> None:
        if failures:
            await connection.disconnect(nowait=True)  # as redis-py does when a write fails
            raise failures.pop()
        await write(command, check_health)

    connection.send_packed_command = closed_once
    (x,) = await batched_moves(redis_client, batcher, rooms[1:2], told)
    await asyncio.sleep(0.05)  # the failed write is over before the next batch comes
    (y,) = await batched_moves(redis_client, batcher, rooms[2:], told)
    assert [(await x).applied, (await y).applied] == [True, True]
    assert told == ["w0 True", "w1 True", "w2 True"]
    for room in rooms:
        assert await store.current_version(redis_client, room.id) == 1
    await batcher.aclose()


async def test_a_reply_that_answers_no_call_sends_the_batch_again(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Replies out of step with their calls (here a stray reply comes first) are never taken
    as answers: the batcher starts again on a new connection, and each commit learns its own
    outcome (one that committed before the restart finds its acknowledgement)."""
    batcher = Batcher(redis_client)
    rooms = [
        await store.create_room(redis_client, new_room(f"s{i}", "tictactoe", "", (ANN, BOB)))
        for i in range(3)
    ]
    (first,) = await batched_moves(redis_client, batcher, rooms[:1], [])
    assert (await first).applied
    await batcher._connection.send_packed_command(b"*1\r\n$4\r\nPING\r\n", check_health=False)
    commits = []
    for room in rooms[1:]:
        loaded = await store.load_room(redis_client, room.id)
        assert loaded is not None
        new = decide(loaded.room, Move(ANN.id, 0, "a1")).room
        frame = encode_diff(room.id, 1, diff(loaded.doc, room_doc(new)))
        ack = f"0:{ANN.id}:{room.id}"
        commits.append(store.commit(redis_client, room.id, 0, 1, None, frame, ack, batcher=batcher))
    results = await asyncio.gather(*commits)
    assert [(r.applied or r.duplicate, r.version) for r in results] == [(True, 1), (True, 1)]
    for room in rooms:
        assert await store.current_version(redis_client, room.id) == 1
        assert len(await redis_client.lrange(store.diffs_key(room.id), 0, -1)) == 1
    await batcher.aclose()


async def test_commands_on_a_connection_with_a_socket_timeout_start_no_task_each(
    redis_server: RedisServer,
) -> None:
    """redis-py times every write with a task of its own; the server's connections write at
    once and time only a drain that waits."""
    client = store.redis_client(f"{redis_server.url}?socket_timeout=5", 2)
    started: list[object] = []
    loop = asyncio.get_running_loop()
    factory = loop.get_task_factory()

    def counting(loop: asyncio.AbstractEventLoop, coroutine: Any, **kwargs: Any) -> Any:
        started.append(coroutine)
        if factory is not None:
            return factory(loop, coroutine, **kwargs)
        return asyncio.Task(coroutine, loop=loop, **kwargs)

    try:
        await client.ping()  # connected before counting
        loop.set_task_factory(counting)
        for i in range(20):
            await client.set(f"k{i}", i)
        assert [int(v) for v in await client.mget([f"k{i}" for i in range(20)])] == [*range(20)]
        assert started == []
    finally:
        loop.set_task_factory(factory)
        await client.aclose(close_connection_pool=True)


async def test_a_write_that_redis_does_not_take_in_time_fails_and_drops_its_connection(
    redis_server: RedisServer,
) -> None:
    client = store.redis_client(f"{redis_server.url}?socket_timeout=0.5", 1)
    process = redis_server.process
    assert process is not None
    try:
        await client.ping()
        process.send_signal(signal.SIGSTOP)
        try:
            with pytest.raises(redis.exceptions.TimeoutError):
                await client.set("big", b"x" * 64_000_000)  # more than the sockets buffer
        finally:
            process.send_signal(signal.SIGCONT)
        assert await client.ping()  # on a new connection: nothing of the cut write is read
        assert await client.exists("big") == 0
    finally:
        await client.aclose(close_connection_pool=True)


async def test_game_data_another_release_stored_is_compared_whole_at_the_next_change(
    redis_client: aioredis.Redis,
) -> None:
    """A stored document whose game data is not what these rules write (an older release
    stored it: here a field is missing) loads as not described, so its next change compares
    the whole documents, which brings a client's copy up to date; a room these rules stored
    loads as described, and its changes come from the rules."""
    room = await store.create_room(redis_client, new_room("r2", "ankor", "-size=3", (ANN, BOB)))
    assert (await store.load_room(redis_client, "r2")).described  # type: ignore[union-attr]
    stale = room_doc(room)
    del stale["data"]["frame"]  # which no move changes
    await redis_client.hset(store.room_key("r2"), "doc", store.pack(stale))
    loaded = await store.load_room(redis_client, "r2")
    assert loaded is not None and not loaded.described
    player = room.seats[room.rules.to_move(room.state)].id  # type: ignore[index]
    new = decide(loaded.room, Move(player, room.version, "a1")).room
    doc, ops = room_changes(loaded.room, loaded.doc, new, loaded.described)
    client = apply(copy.deepcopy(stale), ops)
    expected = store.unpack(store.pack(room_doc(new)))
    assert store.unpack(store.pack(client)) == store.unpack(store.pack(doc)) == expected
