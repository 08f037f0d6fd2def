"""Clocks in rooms and in Redis: charged at commit, flag falls adjudicated exactly once by any
process with nobody connected, and clocks that survive a restart."""

from __future__ import annotations

import asyncio
from types import ModuleType

import pytest
import redis.asyncio as aioredis

from lobby.clocks import DAY, MAX_LAG_CREDIT
from protocol.errors import BadOptionsError
from rules.api import Seat
from server import adjudicator
from server.fanout import Fanout
from server.metrics import Metrics
from server.redis import clock_store, store
from server.rooms import (
    TIME,
    Event,
    GameEnded,
    Move,
    Resign,
    Room,
    Timeout,
    decide,
    new_room,
    rematch_room,
    room_doc,
    room_from_doc,
)
from server.rooms import SeatHolder as Holder
from server.service import RoomService

ANN = Holder("g:ann", "Ann")
BOB = Holder("g:bob", "Bob")


class FakeTime:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _room(control: str | None = "1+2") -> Room:
    return new_room("r1", "tictactoe", "", (ANN, BOB), control)


# --- decisions -------------------------------------------------------------------------------


def test_a_room_without_a_time_control_has_no_clock(ttt: ModuleType) -> None:
    room = _room(None)
    assert room.clock is None and room_doc(room)["clock"] is None
    assert decide(room, Timeout(1e12)).events == ()


def test_a_bad_time_control_is_refused(ttt: ModuleType) -> None:
    with pytest.raises(BadOptionsError, match="time control"):
        _room("forever")


def test_moves_are_charged_at_the_commit_time_with_the_increment(ttt: ModuleType) -> None:
    room = decide(_room(), Move(ANN.id, 0, "a1", now=100.0)).room
    assert room.clock is not None
    assert room.clock.remaining == (60.0, 60.0)  # the first move is free
    assert room.clock.running is Seat.SECOND and room.clock.since == 100.0
    room = decide(room, Move(BOB.id, 1, "b1", now=110.0, lag=0.2)).room
    assert room.clock is not None
    assert room.clock.remaining == (60.0, pytest.approx(52.2))  # 60 - (10 - 0.2) + 2
    assert room.clock.running is Seat.FIRST
    doc = room_doc(room)
    assert doc["clock"]["deadline"] == 170.0 and doc["clock"]["running"] == 0
    assert room_from_doc(doc) == room


def test_a_move_after_the_time_ran_out_loses_on_time_and_is_not_played(
    ttt: ModuleType,
) -> None:
    room = decide(_room(), Move(ANN.id, 0, "a1", now=0.0)).room
    transition = decide(room, Move(BOB.id, 1, "b1", now=61.5))
    assert transition.events == (GameEnded(transition.room.outcome),)  # type: ignore[arg-type]
    ended = transition.room
    assert ended.outcome is not None and ended.outcome.winner is Seat.FIRST
    assert ended.outcome.reason == TIME and ended.record == ("a1",)
    assert ended.clock is not None and ended.clock.running is None


def test_timeout_ends_the_game_only_once_the_flag_fell(ttt: ModuleType) -> None:
    room = decide(_room(), Move(ANN.id, 0, "a1", now=0.0)).room
    assert decide(room, Timeout(60.0 + MAX_LAG_CREDIT - 0.01)).events == ()
    transition = decide(room, Timeout(60.0 + MAX_LAG_CREDIT))
    ended = transition.room
    assert ended.outcome is not None and ended.outcome.winner is Seat.FIRST
    assert ended.version == room.version + 1
    assert decide(ended, Timeout(1e9)).events == ()  # over: nothing more to end
    assert room_doc(ended)["clock"]["remaining"][1] == 0.0


def test_a_resigned_game_shows_no_running_clock(ttt: ModuleType) -> None:
    room = decide(_room(), Move(ANN.id, 0, "a1", now=0.0)).room
    ended = decide(room, Resign(BOB.id, 1)).room
    assert room_doc(ended)["clock"]["running"] is None


def test_a_rematch_keeps_the_time_control(ttt: ModuleType) -> None:
    from server.rooms import Rematch

    room = decide(_room("3d/7d"), Resign(BOB.id, 0)).room
    room = decide(decide(room, Rematch(ANN.id)).room, Rematch(BOB.id)).room
    again = rematch_room(room)
    assert again.clock is not None and room_doc(again)["clock"]["control"] == "3d/7d"


# --- Redis and processes ---------------------------------------------------------------------


def _service(client: aioredis.Redis, name: str, time: FakeTime) -> RoomService:
    service = RoomService(client, Fanout(client, name), Metrics(), name)
    service.clock = time
    return service


async def test_a_flag_fall_is_adjudicated_exactly_once_by_two_processes(
    redis_server: object, redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Two processes, each with its own Redis connection, nobody connected: both sweep at
    once after the deadline, and the game ends once, on time."""
    url = redis_server.url  # type: ignore[attr-defined]
    clients = [aioredis.Redis.from_url(url) for _ in range(2)]
    time = FakeTime(1000.0)
    try:
        await store.create_room(redis_client, _room())
        first, second = (_service(c, n, time) for c, n in zip(clients, "ab", strict=True))
        ends: list[Event] = []
        for service in (first, second):
            service.on_commit = lambda room, events: ends.extend(
                e for e in events if isinstance(e, GameEnded)
            )
        await first.command("r1", Move(ANN.id, 0, "a1"))
        await second.room("r1")  # both processes hold the room in their caches
        assert await clock_store.deadline_of(redis_client, "r1") == 1060.0 + MAX_LAG_CREDIT
        assert await adjudicator.adjudicate(first, 1030.0) == 0  # not due yet
        late = 1062.0
        await asyncio.gather(
            adjudicator.adjudicate(first, late), adjudicator.adjudicate(second, late)
        )
        assert len(ends) == 1
        loaded = await store.load_room(redis_client, "r1")
        assert loaded is not None and loaded.room.outcome is not None
        assert loaded.room.outcome.reason == TIME and loaded.room.outcome.winner is Seat.FIRST
        assert loaded.room.version == 2
        assert await clock_store.deadline_of(redis_client, "r1") is None
        assert await adjudicator.adjudicate(second, late + 100) == 0
    finally:
        for client in clients:
            await client.aclose()


async def test_a_restart_keeps_the_clocks_and_their_deadline(
    redis_server: object, redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Redis restarts and a new process with an empty cache reads the clock as charged, finds
    its deadline, and adjudicates it."""
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room("2+0"))
    before = _service(redis_client, "old", time)
    await before.command("r1", Move(ANN.id, 0, "a1"))
    time.now = 30.0
    await before.command("r1", Move(BOB.id, 1, "b1"))
    time.now = 40.0
    await before.command("r1", Move(ANN.id, 2, "a2"))

    redis_server.restart()  # type: ignore[attr-defined]
    client = aioredis.Redis.from_url(redis_server.url)  # type: ignore[attr-defined]
    try:
        after = _service(client, "new", time)
        loaded = await after.room("r1")
        assert loaded.room.clock is not None
        assert loaded.room.clock.remaining == (110.0, 90.0)
        assert loaded.room.clock.running is Seat.SECOND and loaded.room.clock.since == 40.0
        assert await clock_store.deadline_of(client, "r1") == 130.0 + MAX_LAG_CREDIT
        await adjudicator.adjudicate(after, 129.0)
        assert (await after.room("r1")).room.outcome is None
        await adjudicator.adjudicate(after, 132.0)
        ended = await store.load_room(client, "r1")
        assert ended is not None and ended.room.outcome is not None
        assert ended.room.outcome.winner is Seat.FIRST
    finally:
        await client.aclose()


async def test_correspondence_deadlines_move_with_each_move(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room("2d/4d"))
    service = _service(redis_client, "a", time)
    await service.command("r1", Move(ANN.id, 0, "a1"))
    assert await clock_store.deadline_of(redis_client, "r1") == 2 * DAY + MAX_LAG_CREDIT
    time.now = DAY / 2
    await service.command("r1", Move(BOB.id, 1, "b1"))
    # Ann has 2 days from Bob's move; Bob banked 1.5 days (3.5 left after his move).
    assert await clock_store.deadline_of(redis_client, "r1") == 2.5 * DAY + MAX_LAG_CREDIT
    doc = room_doc((await service.room("r1")).room)
    assert doc["clock"]["remaining"] == [2 * DAY, 3.5 * DAY]
    assert doc["clock"]["kind"] == "correspondence"
    await adjudicator.adjudicate(service, 2.5 * DAY)
    assert (await service.room("r1")).room.outcome is None
    await adjudicator.adjudicate(service, 2.6 * DAY)
    outcome = (await service.room("r1")).room.outcome
    assert outcome is not None and outcome.winner is Seat.SECOND and outcome.reason == TIME


async def test_an_early_or_stale_entry_is_set_right_without_ending_the_game(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """An entry earlier than the truth (a commit that failed after lowering it, or a stale
    cache) only makes the adjudicator look, and then it holds the true deadline."""
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room())
    service = _service(redis_client, "a", time)
    await service.command("r1", Move(ANN.id, 0, "a1"))
    await redis_client.zadd(clock_store.DUE_KEY, {"r1": 5.0})
    await redis_client.zadd(clock_store.DUE_KEY, {"gone": 5.0})
    assert await adjudicator.adjudicate(service, 10.0) == 2
    assert (await service.room("r1")).room.outcome is None
    assert await clock_store.deadline_of(redis_client, "r1") == 60.0 + MAX_LAG_CREDIT
    assert await clock_store.deadline_of(redis_client, "gone") is None


async def test_settle_never_puts_back_an_older_deadline(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room())
    service = _service(redis_client, "a", time)
    await service.command("r1", Move(ANN.id, 0, "a1"))
    old = (await service.room("r1")).room
    time.now = 10.0
    await service.command("r1", Move(BOB.id, 1, "b1"))
    assert not await clock_store.settle(redis_client, old)
    assert await clock_store.deadline_of(redis_client, "r1") == 70.0 + MAX_LAG_CREDIT


async def test_on_one_redis_the_commit_itself_sets_and_removes_the_flag_time(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No step before or after the commit: the move and its flag time are one script, so no
    crash can come between them (a cluster, where they are on different slots, takes steps)."""

    async def no_step(*_: object) -> bool:
        raise AssertionError("the flag time was kept by a step of its own")

    monkeypatch.setattr(clock_store, "lower", no_step)
    monkeypatch.setattr(clock_store, "settle", no_step)
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room())
    service = _service(redis_client, "a", time)
    await service.command("r1", Move(ANN.id, 0, "a1"))
    assert await clock_store.deadline_of(redis_client, "r1") == 60.0 + MAX_LAG_CREDIT
    time.now = 10.0
    await service.command("r1", Move(BOB.id, 1, "b1"))
    assert await clock_store.deadline_of(redis_client, "r1") == 70.0 + MAX_LAG_CREDIT
    await service.command("r1", Resign(ANN.id, 2))
    assert await clock_store.deadline_of(redis_client, "r1") is None


async def test_a_room_without_a_clock_writes_no_deadline(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    await store.create_room(redis_client, _room(None))
    service = _service(redis_client, "a", FakeTime(0.0))
    await service.command("r1", Move(ANN.id, 0, "a1"))
    assert await redis_client.zcard(clock_store.DUE_KEY) == 0


# --- presence and the claim ------------------------------------------------------------------


def test_a_player_who_leaves_is_shown_away_and_back(ttt: ModuleType) -> None:
    from server.rooms import Presence, PresenceChanged

    room = decide(_room(), Move(ANN.id, 0, "a1", now=0.0)).room
    gone = decide(room, Presence(BOB.id, here=False, now=5.0))
    assert gone.events == (PresenceChanged((None, 5.0)),)
    assert room_doc(gone.room)["away"] == [None, 5.0]
    assert gone.room.position_version == room.position_version  # moves are not made stale
    assert decide(gone.room, Presence(BOB.id, here=False, now=9.0)).events == ()  # still 5.0
    back = decide(gone.room, Presence(BOB.id, here=True, now=7.0)).room
    assert back.away == (None, None)
    assert decide(room, Presence("g:someone", here=False, now=1.0)).events == ()


def test_the_opponent_may_claim_the_win_only_after_the_grace_period(ttt: ModuleType) -> None:
    from lobby.clocks import AWAY_GRACE
    from protocol.errors import CannotClaimError
    from server.rooms import ABANDONMENT, Claim, Presence

    room = decide(_room("10+0"), Move(ANN.id, 0, "a1", now=0.0)).room
    with pytest.raises(CannotClaimError, match="here"):
        decide(room, Claim(ANN.id, room.version, now=500.0))
    room = decide(room, Presence(BOB.id, here=False, now=10.0)).room
    with pytest.raises(CannotClaimError, match="come back"):
        decide(room, Claim(ANN.id, room.version, now=10.0 + AWAY_GRACE - 1))
    with pytest.raises(CannotClaimError):
        decide(room, Claim(BOB.id, room.version, now=100.0))  # Ann is here
    ended = decide(room, Claim(ANN.id, room.version, now=10.0 + AWAY_GRACE)).room
    assert ended.outcome is not None
    assert ended.outcome.winner is Seat.FIRST and ended.outcome.reason == ABANDONMENT
    assert room_doc(ended)["clock"]["running"] is None


def test_a_correspondence_game_has_no_claim(ttt: ModuleType) -> None:
    from protocol.errors import CannotClaimError
    from server.rooms import Claim, Presence

    room = decide(_room("3d"), Presence(BOB.id, here=False, now=0.0)).room
    with pytest.raises(CannotClaimError, match="correspondence"):
        decide(room, Claim(ANN.id, room.version, now=10 * DAY))


def test_a_claim_after_ones_own_flag_fell_loses_on_time(ttt: ModuleType) -> None:
    from server.rooms import Claim, Presence

    room = decide(_room("1+0"), Move(ANN.id, 0, "a1", now=0.0)).room
    room = decide(room, Move(BOB.id, 1, "b1", now=1.0)).room  # Ann's clock runs from 1.0
    room = decide(room, Presence(BOB.id, here=False, now=2.0)).room
    ended = decide(room, Claim(ANN.id, room.version, now=100.0)).room
    assert ended.outcome is not None
    assert ended.outcome.winner is Seat.SECOND and ended.outcome.reason == TIME


async def test_the_adjudicator_sweeps_on_its_own_and_stops_promptly(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    time = FakeTime(0.0)
    await store.create_room(redis_client, _room())
    service = _service(redis_client, "a", time)
    await service.command("r1", Move(ANN.id, 0, "a1"))
    ended = asyncio.Event()
    service.on_commit = lambda room, events: ended.set() if room.outcome else None
    sweep = adjudicator.Adjudicator(service, every=0.01, now=lambda: 100.0)
    sweep.start()
    try:
        await asyncio.wait_for(ended.wait(), 5)
    finally:
        await asyncio.wait_for(sweep.stop(), adjudicator.STOP_WAIT)
    outcome = (await service.room("r1")).room.outcome
    assert outcome is not None and outcome.reason == TIME
