"""Seated players' presence leases: a process that dies without a clean close stops renewing
its leases, they lapse, the player shows away and the opponent may claim; a live process
keeps its players here; a player is here while any socket of theirs is, on any process; and
sockets coming and going in a burst cost a bounded number of commits."""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest
import redis.asyncio as aioredis

from lobby.clocks import AWAY_GRACE
from protocol.errors import CannotClaimError
from rules.api import Seat
from server.fanout import Fanout
from server.metrics import Metrics
from server.redis import room_presence, store
from server.redis.room_presence import players_here
from server.rooms import ABANDONMENT, Claim, Move, SeatHolder, new_room
from server.service import RoomService

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")
T0 = 1_700_000_000.0
LEASE = 15.0


class FakeTime:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def process(redis_client: aioredis.Redis, name: str, time: FakeTime) -> RoomService:
    """One server process's room service, its presence on the test's clock, and no pause
    between presence commits (the coalescing has a test of its own)."""
    service = RoomService(
        redis_client, Fanout(redis_client, name), Metrics(), name, presence_lease=LEASE
    )
    service.clock = time
    service.presence.now = time
    service.presence.syncs.every = 0.0
    return service


async def game(redis_client: aioredis.Redis, control: str | None = "10+0") -> str:
    room = new_room("r1", "tictactoe", "", (ANN, BOB), control, now=T0)
    await store.create_room(redis_client, room)
    return room.id


async def away(service: RoomService, room_id: str) -> tuple[float | None, float | None]:
    await service.presence.syncs.wait_idle()
    return (await service.current(room_id)).room.away


async def test_a_dead_processs_lease_lapses_and_the_opponent_may_claim(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Ann's socket is on process A, Bob's on B.  A is killed (it neither renews nor says
    goodbye): after the lease Ann shows away, and after the grace period Bob wins."""
    time = FakeTime(T0)
    room_id = await game(redis_client)
    dead, alive = process(redis_client, "a", time), process(redis_client, "b", time)
    await dead.presence.arrive(room_id, ANN.id)
    await alive.presence.arrive(room_id, BOB.id)
    version = await alive.command(room_id, Move(ANN.id, 0, "a1"))
    assert await away(alive, room_id) == (None, None)
    time.now = T0 + LEASE / 3
    await alive.presence.renew()  # only the live process renews
    await alive.presence.sweep()
    assert await away(alive, room_id) == (None, None)  # not lapsed yet
    with pytest.raises(CannotClaimError, match="here"):
        await alive.command(room_id, Claim(BOB.id, version))
    time.now = T0 + LEASE
    assert await players_here(redis_client, room_id, time.now) == {BOB.id}
    assert await alive.presence.sweep() == 1
    gone_at = time.now
    assert await away(alive, room_id) == (gone_at, None)
    version = (await alive.current(room_id)).room.version
    time.now = gone_at + AWAY_GRACE
    await alive.command(room_id, Claim(BOB.id, version))
    outcome = (await alive.current(room_id)).room.outcome
    assert outcome is not None and (outcome.winner, outcome.reason) == (Seat.SECOND, ABANDONMENT)
    await alive.aclose()
    await dead.aclose()


async def test_a_renewed_lease_keeps_its_player_here_and_a_clean_leave_shows_away(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    time = FakeTime(T0)
    room_id = await game(redis_client)
    a = process(redis_client, "a", time)
    await a.presence.arrive(room_id, ANN.id)
    for step in range(1, 10):
        time.now = T0 + step * LEASE / 3
        await a.presence.renew()
        await a.presence.sweep()
    assert await away(a, room_id) == (None, None)
    await a.presence.depart(room_id, ANN.id)
    assert await away(a, room_id) == (time.now, None)
    await a.aclose()


async def test_a_renewal_in_several_scripts_keeps_every_lease_of_every_room(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(room_presence, "RENEW_CHUNK", 4)
    time = FakeTime(T0)
    rooms = [new_room(f"r{i}", "tictactoe", "", (ANN, BOB), "10+0", now=T0) for i in range(3)]
    a = process(redis_client, "a", time)
    for room in rooms:
        await store.create_room(redis_client, room)
        await a.presence.arrive(room.id, ANN.id)
        await a.presence.arrive(room.id, BOB.id)
    time.now = T0 + 2 * LEASE / 3
    await a.presence.renew()  # six leases: scripts of four and two
    time.now = T0 + LEASE + 1  # past the first lapse, before the renewed one
    assert await a.presence.sweep() == 3
    for room in rooms:
        assert await players_here(redis_client, room.id, time.now) == {ANN.id, BOB.id}
        assert await away(a, room.id) == (None, None)
    time.now = T0 + 2 * LEASE / 3 + LEASE  # nobody renewed since: every lease lapses
    assert await a.presence.sweep() == 3
    for room in rooms:
        assert await players_here(redis_client, room.id, time.now) == set()
    await a.aclose()


async def test_a_player_is_here_while_any_socket_of_theirs_is_on_any_process(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    time = FakeTime(T0)
    room_id = await game(redis_client)
    a, b = process(redis_client, "a", time), process(redis_client, "b", time)
    await a.presence.arrive(room_id, ANN.id)
    await a.presence.arrive(room_id, ANN.id)  # two tabs on one process
    await b.presence.arrive(room_id, ANN.id)  # and one on another
    await a.presence.depart(room_id, ANN.id)
    await b.presence.depart(room_id, ANN.id)
    assert await away(a, room_id) == (None, None)
    assert await players_here(redis_client, room_id, time.now) == {ANN.id}
    await a.presence.depart(room_id, ANN.id)
    assert await away(a, room_id) == (time.now, None)
    await a.presence.arrive(room_id, ANN.id)
    assert await away(a, room_id) == (None, None)
    await a.aclose()
    await b.aclose()


async def test_sockets_coming_and_going_in_a_burst_cost_one_commit_after_the_pause(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Ten sockets of a seated player joining and leaving over and over: the room's presence
    is synced at once, then once after the pause, not once per socket."""
    time = FakeTime(T0)
    room_id = await game(redis_client)
    a = process(redis_client, "a", time)
    paused, resume = asyncio.Event(), asyncio.Event()

    async def pause(seconds: float) -> None:
        paused.set()
        await resume.wait()

    a.presence.syncs.sleep = pause
    await a.presence.arrive(room_id, ANN.id)
    async with asyncio.timeout(5):
        await paused.wait()  # synced (she was here already: nothing to commit); now the pause
    await a.presence.depart(room_id, ANN.id)
    for _ in range(10):
        for _ in range(10):
            await a.presence.arrive(room_id, ANN.id)
        for _ in range(10):
            await a.presence.depart(room_id, ANN.id)
    assert await store.current_version(redis_client, room_id) == 0
    resume.set()
    async with asyncio.timeout(5):
        await a.presence.syncs.wait_idle()
    loaded = await store.load_room(redis_client, room_id)
    assert loaded is not None and (loaded.room.version, loaded.room.away) == (1, (T0, None))
    await a.aclose()


async def test_a_leave_whose_commit_never_came_is_found_by_another_processs_sweep(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Process A ends Ann's lease as her socket closes, then stops before it commits her
    absence (a shutdown): the lease lapsed at once, so B's sweep shows her away."""
    time = FakeTime(T0)
    room_id = await game(redis_client)
    a, b = process(redis_client, "a", time), process(redis_client, "b", time)
    await a.presence.arrive(room_id, ANN.id)
    await a.presence.syncs.wait_idle()
    await a.presence.depart(room_id, ANN.id)
    await a.aclose()  # its sync of the leave is cancelled before it runs
    assert (await b.current(room_id)).room.away == (None, None)
    assert await b.presence.sweep() == 1
    assert await away(b, room_id) == (T0, None)
    await b.aclose()
