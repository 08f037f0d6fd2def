"""The room service against a real Redis: a cache left behind by another process's commit,
commands of one process racing for a room, and a spectator count that loses to moves."""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest
import redis.asyncio as aioredis

from protocol.errors import BusyError, ErrorCode, UnavailableError, error_code
from server.fanout import Fanout
from server.metrics import Metrics
from server.redis import store
from server.rooms import Move, SeatHolder, SetSpectators, new_room
from server.service import RoomService

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")


def count_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rooms read from Redis from now on, one entry per read."""
    loads: list[str] = []
    load_room = store.load_room

    async def counting_load_room(client: aioredis.Redis, room_id: str) -> store.Loaded | None:
        loads.append(room_id)
        return await load_room(client, room_id)

    monkeypatch.setattr(store, "load_room", counting_load_room)
    return loads


async def test_a_move_seen_elsewhere_refreshes_a_stale_cache_instead_of_refusing(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Process A cached the room; process B committed a move A never heard of; a client that
    saw B's move sends the next one to A, which must read the room again, not refuse it."""
    await store.create_room(redis_client, new_room("r1", "tictactoe", "", (ANN, BOB)))
    services = [
        RoomService(redis_client, Fanout(redis_client, name), Metrics(), name)
        for name in ("a", "b")
    ]
    first, second = services
    assert (await first.room("r1")).room.version == 0  # cached at version 0
    assert await second.command("r1", Move(ANN.id, 0, "a1")) == 1
    assert await first.command("r1", Move(BOB.id, 1, "b1")) == 2
    loaded = await store.load_room(redis_client, "r1")
    assert loaded is not None and loaded.room.record == ("a1", "b1")


async def test_two_commands_of_one_process_racing_for_a_room_both_apply_from_the_cache(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator count committed while a move's commit is under way makes the move's commit
    fail once; the move is decided again from what this process committed, without reading
    the room from Redis again, and both changes are kept."""
    await store.create_room(redis_client, new_room("r2", "tictactoe", "", (ANN, BOB)))
    service = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a")
    await service.room("r2")
    loads = count_loads(monkeypatch)
    versions = await asyncio.gather(
        service.command("r2", SetSpectators(3)), service.command("r2", Move(ANN.id, 0, "a1"))
    )
    assert sorted(versions) == [1, 2]
    assert loads == []
    loaded = await store.load_room(redis_client, "r2")
    assert loaded is not None
    assert (loaded.room.version, loaded.room.spectators, loaded.room.record) == (2, 3, ("a1",))


async def test_a_spectator_count_that_loses_every_attempt_to_moves_is_tried_again(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a stream of moves a count update can lose all its commit attempts; the room
    must still end with the right count."""
    await store.create_room(redis_client, new_room("r3", "tictactoe", "", (ANN, BOB)))
    service = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a", count_every=0)
    command = service.command
    refused = 0

    async def busy_once(room_id: str, what: object, *args: object) -> int:
        nonlocal refused
        if isinstance(what, SetSpectators) and refused == 0:
            refused += 1
            raise BusyError("the room kept changing; try again")
        return await command(room_id, what, *args)

    monkeypatch.setattr(service, "command", busy_once)
    await service.change_spectators("r3", +1)
    async with asyncio.timeout(5):
        await service.counts.wait_idle()
    loaded = await store.load_room(redis_client, "r3")
    assert refused == 1
    assert loaded is not None and loaded.room.spectators == 1


async def test_a_write_refused_by_a_full_redis_is_a_retryable_error_and_changes_nothing(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """With ``maxmemory`` reached and ``noeviction``, Redis refuses the commit script's first
    write, so none of it runs: the move is refused as ``unavailable`` (the client resends),
    the room is as it was, and the same move commits once Redis has room again."""
    await store.create_room(redis_client, new_room("r4", "tictactoe", "", (ANN, BOB)))
    service = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a")
    await service.room("r4")
    limit = (await redis_client.config_get("maxmemory"))["maxmemory"]
    await redis_client.config_set("maxmemory", 1)
    try:
        with pytest.raises(UnavailableError, match="full") as refused:
            await service.command("r4", Move(ANN.id, 0, "a1"), "m1")
    finally:
        await redis_client.config_set("maxmemory", limit)
    assert error_code(refused.value) is ErrorCode.UNAVAILABLE
    loaded = await store.load_room(redis_client, "r4")
    assert loaded is not None and (loaded.room.version, loaded.room.record) == (0, ())
    assert await service.command("r4", Move(ANN.id, 0, "a1"), "m1") == 1
    await service.aclose()


async def test_spectators_joining_and_leaving_in_a_burst_cost_two_commits(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Ten sockets joining and leaving over and over: the count is committed at once, and
    once more after the pause that follows (``count_every``), not once per change, so each
    player gets two diffs instead of a hundred."""
    await store.create_room(redis_client, new_room("r5", "tictactoe", "", (ANN, BOB)))
    service = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a")
    paused, resume = asyncio.Event(), asyncio.Event()

    async def pause(seconds: float) -> None:
        assert seconds == service.counts.every
        paused.set()
        await resume.wait()

    service.counts.sleep = pause
    await service.change_spectators("r5", +1)
    async with asyncio.timeout(5):
        await paused.wait()  # the first count is committed; the next waits out the pause
    assert await store.current_version(redis_client, "r5") == 1
    for _ in range(5):
        for _ in range(10):
            await service.change_spectators("r5", +1)
        for _ in range(10):
            await service.change_spectators("r5", -1)
    await service.change_spectators("r5", +4)
    assert await store.current_version(redis_client, "r5") == 1
    resume.set()
    async with asyncio.timeout(5):
        await service.counts.wait_idle()
    loaded = await store.load_room(redis_client, "r5")
    assert loaded is not None and (loaded.room.version, loaded.room.spectators) == (2, 5)
    await service.aclose()


class Watcher:
    """A socket's stand-in on a room: counts the diffs handed to it."""

    def __init__(self) -> None:
        self.versions: list[int] = []

    def push(self, room_id: str, version: int, frame: bytes) -> None:
        self.versions.append(version)

    def behind(self, room_id: str, version: int) -> None:
        pass


async def test_a_game_whose_players_sit_on_two_processes_reads_no_room_per_move(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann plays through process A, Bob through B: each applies the other's relayed diff to
    its cached room instead of reading the room again, and both agree with Redis."""
    await store.create_room(redis_client, new_room("r5", "tictactoe", "", (ANN, BOB)))
    services: dict[str, RoomService] = {}
    watchers = {name: Watcher() for name in "ab"}
    for name in "ab":
        fanout = Fanout(
            redis_client,
            name,
            lambda room_id, version, frame, name=name: services[name].follow(
                room_id, version, frame
            ),
        )
        services[name] = RoomService(redis_client, fanout, Metrics(), name)
        await fanout.start()
        await fanout.subscribe("r5", watchers[name])
        await services[name].room("r5")
    async with asyncio.timeout(5):
        while not all(s.fanout.is_subscribed("r5") for s in services.values()):
            await asyncio.sleep(0.01)
    loads = count_loads(monkeypatch)
    moves = [("a", ANN, "a1"), ("b", BOB, "b1"), ("a", ANN, "a2"), ("b", BOB, "b2")]
    for version, (name, player, text) in enumerate(moves):
        assert await services[name].command("r5", Move(player.id, version, text)) == version + 1
        async with asyncio.timeout(5):  # the other process has heard of it
            while len(watchers["b" if name == "a" else "a"].versions) < version + 1:
                await asyncio.sleep(0.01)
    assert loads == []
    stored = await store.load_room(redis_client, "r5")
    assert stored is not None and stored.room.record == ("a1", "b1", "a2", "b2")
    for service in services.values():
        cached = service.cached("r5")
        assert cached is not None and cached.room == stored.room
        await service.fanout.unsubscribe("r5", watchers[service.process_id])
        await service.fanout.stop()


async def test_a_gap_or_an_unreadable_relayed_diff_makes_the_room_read_again(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    await store.create_room(redis_client, new_room("r6", "tictactoe", "", (ANN, BOB)))
    service = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a")
    other = RoomService(redis_client, Fanout(redis_client, "b"), Metrics(), "b")
    await service.room("r6")
    await other.command("r6", Move(ANN.id, 0, "a1"))
    await other.command("r6", Move(BOB.id, 1, "b1"))
    service.follow("r6", 2, b"a diff that skipped version 1")
    assert service.cached("r6") is None
    assert (await service.room("r6")).room.record == ("a1", "b1")
    service.follow("r6", 3, b"\xc1 not msgpack")
    assert service.cached("r6") is None  # dropped at its next use, not applied
    assert (await service.room("r6")).room.version == 2
