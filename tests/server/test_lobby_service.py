"""The lobby follows committed rooms through the outbox: a game accepted or finished while the
lobby's writes fail still reaches the live list, both histories and the ratings, exactly
once; every changed room of a pass goes out in one publication; the reply stays small with
many live games; one drainer at a time; idle games end and are archived."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError

from lobby.challenges import ChallengeLimits, Status
from lobby.games import LiveLine
from lobby.identity import Player
from lobby.store import challenges as challenge_store
from lobby.store import common as store_common
from lobby.store import games as game_store
from lobby.store import ratings as rating_store
from protocol.errors import LimitReachedError
from server import adjudicator, outbox
from server.fanout import Fanout
from server.lobby_service import LobbyService
from server.metrics import Metrics
from server.redis import clock_store, store
from server.rooms import ABORTED, IDLE, IdleLimits, Move, Rematch, Resign, SeatHolder, new_room
from server.service import RoomService

ANN = Player("u:ann", "Ann", False)
BOB = Player("u:bob", "Bob", False)
T0 = 1_700_000_000.0
LIMITS = IdleLimits(unstarted=600.0, unstarted_correspondence=7 * 86400.0, untimed=3600.0)


class FakeTime:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def services(
    redis_client: aioredis.Redis, now: FakeTime, name: str = "a", live_limit: int = 100
) -> tuple[RoomService, LobbyService]:
    rooms = RoomService(
        redis_client, Fanout(redis_client, name), Metrics(), name, idle_limits=LIMITS
    )
    rooms.clock = now
    return rooms, LobbyService(redis_client, rooms, clock=now, live_limit=live_limit)


async def started(lobby: LobbyService, rated: bool = False) -> str:
    """A game between Ann (first) and Bob from an accepted open challenge; its room id."""
    made = await lobby.create_challenge(ANN, "tictactoe", "", "mine", rated, None, None)
    _, room_id = await lobby.accept(BOB, made.id)
    return room_id


async def test_a_game_accepted_and_ended_while_the_lobby_fails_is_listed_then_archived_once(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis refuses every write just after the room of an accepted challenge is made (as a
    restart would): the accept still succeeds, and the room's listing waits in the outbox
    until Redis takes writes again.  Then the rated game ends and the drainer dies between
    the rating and the histories: the next pass finishes the job, rating nothing twice."""
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    create_room = store.create_room
    memory = (await redis_client.config_get("maxmemory"))["maxmemory"]

    async def create_then_fail(*args: Any) -> Any:
        created = await create_room(*args)
        await redis_client.config_set("maxmemory", 1)  # every write is refused from here
        return created

    monkeypatch.setattr(store, "create_room", create_then_fail)
    try:
        room_id = await started(lobby, rated=True)
        with pytest.raises(OutOfMemoryError):
            await lobby.drain()
    finally:
        await redis_client.config_set("maxmemory", memory)
    monkeypatch.setattr(store, "create_room", create_room)
    assert await store.load_room(redis_client, room_id) is not None
    assert (await lobby.snapshot(ANN))["live"] == []
    assert await lobby.drain() == 1
    snapshot = await lobby.snapshot(ANN)
    assert [g["room_id"] for g in snapshot["live"]] == [room_id]
    assert snapshot["live"][0]["rated"] and snapshot["mine"] == snapshot["live"]

    version = await rooms.command(room_id, Move(ANN.id, 0, "a1"))
    await rooms.command(room_id, Resign(BOB.id, version))
    finish_game = game_store.finish_game
    calls = 0

    async def dies_once(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionError("the drainer's process died here")
        return await finish_game(*args)

    monkeypatch.setattr(game_store, "finish_game", dies_once)
    assert await lobby.drain() == 0  # rated, then died before the histories
    assert len(await rating_store.history(redis_client, "tictactoe", ANN.id)) == 1
    assert await game_store.finished_games(redis_client, ANN.id) == []
    assert await outbox.pending(redis_client) == 1
    assert await lobby.drain() == 1
    assert await lobby.drain() == 0  # nothing left, nothing done twice
    for player in (ANN, BOB):
        (game,) = await game_store.finished_games(redis_client, player.id)
        assert (game.room_id, game.reason, game.winner_player) == (room_id, "resignation", ANN)
        assert len(await rating_store.history(redis_client, "tictactoe", player.id)) == 1
    assert (await rating_store.get_rating(redis_client, "tictactoe", ANN.id)).rating > 1500
    snapshot = await lobby.snapshot(ANN)
    assert (snapshot["live"], snapshot["live_count"], snapshot["mine"]) == ([], 0, [])
    assert await outbox.pending(redis_client) == 0


async def test_every_room_changed_before_a_pass_goes_out_in_one_publication(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    room_ids = [await started(lobby) for _ in range(3)]
    for room_id in room_ids:
        await rooms.command(room_id, Move(ANN.id, 0, "a1"))
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(store_common.CHANNEL)
    assert (await pubsub.get_message(timeout=2.0) or {}).get("type") == "subscribe"
    assert await lobby.drain() == 3
    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=2.0)
    assert message is not None
    events = json.loads(message["data"])
    assert sorted(e["game"]["room_id"] for e in events) == sorted(room_ids)
    assert all(e["t"] == "live" and e["game"]["move_number"] == 1 for e in events)
    assert await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05) is None
    await pubsub.aclose()  # type: ignore[no-untyped-call]


async def test_a_change_committed_during_a_pass_keeps_its_mark(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    room_id = await started(lobby)
    read = await outbox.marks(redis_client, 10)
    await rooms.command(room_id, Move(ANN.id, 0, "a1"))  # committed after the pass read
    await outbox.clear(redis_client, read)
    assert await outbox.pending(redis_client) == 1
    assert await lobby.drain() == 1
    (live,) = (await lobby.snapshot(BOB))["live"]
    assert live["move_number"] == 1 and live["waiting_for"] == BOB.id


async def test_an_older_live_line_never_replaces_a_newer_one(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Two drainers (a lease that lapsed mid-pass) writing the same room out of order."""
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    room_id = await started(lobby)
    (old,) = (await outbox.marks(redis_client, 10)).values()
    await rooms.command(room_id, Move(ANN.id, 0, "a1"))
    assert await lobby.drain() == 1
    late = msgpack.unpackb(old)["live"]
    assert await game_store.store_live_lines(redis_client, [LiveLine.from_data(late)]) == []
    (live,) = (await lobby.snapshot(BOB))["live"]
    assert live["move_number"] == 1


async def test_the_reply_lists_the_newest_live_games_and_counts_them_all(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    _, lobby = services(redis_client, now, live_limit=2)
    room_ids = []
    for _ in range(4):
        room_ids.append(await started(lobby))
        now.now += 1
    await lobby.drain()
    snapshot = await lobby.snapshot(ANN)
    assert [g["room_id"] for g in snapshot["live"]] == room_ids[2:]
    assert snapshot["live_count"] == 4
    assert sorted(g["room_id"] for g in snapshot["mine"]) == sorted(room_ids)


async def test_one_process_drains_at_a_time_and_a_dead_drainers_lease_lapses(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    _, lobby = services(redis_client, now)
    await started(lobby)
    assert await outbox.take_lease(redis_client, "a drainer that dies", 0.2)
    assert await lobby.drain() == 0
    assert await outbox.pending(redis_client) == 1
    await until(lambda: _lapsed(redis_client))
    # Once the lease lapses the game's entry is drained: by this pass, or by the pass that
    # the game's own commit asked for, if that one comes first.
    await lobby.drain()
    assert await outbox.pending(redis_client) == 0


async def test_a_lease_not_given_back_for_a_redis_restart_holds_the_lobby_up_no_longer(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis went away as a pass ended (a restart), so its lease was not given back: the same
    process's next pass does not wait for it to lapse, and another process waits at most
    ``DRAIN_LEASE``, 2 s (a dead drainer's lease used to stop the lobby for 10 s)."""
    now = FakeTime(T0)
    _, lobby = services(redis_client, now)
    await started(lobby)
    release_lease = outbox.release_lease

    async def redis_restarting(*args: Any) -> None:
        raise RedisConnectionError("Connection reset by peer")

    monkeypatch.setattr(outbox, "release_lease", redis_restarting)
    with pytest.raises(RedisConnectionError):
        await lobby.drain()
    monkeypatch.setattr(outbox, "release_lease", release_lease)
    assert 0 < await redis_client.pttl(outbox.LEASE_KEY) <= 2000
    _, other = services(redis_client, now, name="b")
    room_id = await started(lobby)
    assert await other.drain() == 0  # held by the first process's lease
    assert await lobby.drain() == 1
    assert room_id in [g["room_id"] for g in (await lobby.snapshot(BOB))["live"]]
    assert not await redis_client.exists(outbox.LEASE_KEY)


async def _lapsed(redis_client: aioredis.Redis) -> bool:
    return not await redis_client.exists(outbox.LEASE_KEY)


async def until(condition: Callable[[], Awaitable[bool]]) -> None:
    async with asyncio.timeout(5):
        while not await condition():
            await asyncio.sleep(0.01)  # polling Redis for a key's expiry


async def test_an_unstarted_game_is_aborted_at_its_idle_limit_and_leaves_the_lobby(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    room_id = await started(lobby, rated=True)
    await lobby.drain()
    assert await clock_store.idle_deadline_of(redis_client, room_id) == T0 + 600
    assert await adjudicator.end_idle(rooms, T0 + 599) == 0
    assert await adjudicator.end_idle(rooms, T0 + 600) == 1
    loaded = await store.load_room(redis_client, room_id)
    assert loaded is not None and loaded.room.outcome is not None
    assert loaded.room.outcome.reason == ABORTED
    assert await clock_store.idle_deadline_of(redis_client, room_id) is None
    assert await lobby.drain() == 1
    (game,) = await game_store.finished_games(redis_client, BOB.id)
    assert game.reason == ABORTED and game.winner is None
    assert (await lobby.snapshot(ANN))["live_count"] == 0
    assert await rating_store.history(redis_client, "tictactoe", ANN.id) == []


async def test_an_untimed_game_that_stops_moving_ends_idle_and_a_move_puts_it_off(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = services(redis_client, now)
    room_id = await started(lobby)
    version = await rooms.command(room_id, Move(ANN.id, 0, "a1"))
    now.now = T0 + 100
    await rooms.command(room_id, Move(BOB.id, version, "b1"))
    await lobby.drain()
    assert await clock_store.idle_deadline_of(redis_client, room_id) == T0 + 100 + 3600
    assert await adjudicator.end_idle(rooms, T0 + 3600 + 99) == 0
    await adjudicator.end_idle(rooms, T0 + 3600 + 100)
    loaded = await store.load_room(redis_client, room_id)
    assert loaded is not None and loaded.room.outcome is not None
    assert (loaded.room.outcome.winner, loaded.room.outcome.reason) == (None, IDLE)


async def test_a_room_made_outside_the_lobby_is_listed_from_its_creation(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    _, lobby = services(redis_client, now)
    seats = (SeatHolder(ANN.id, ANN.name), SeatHolder(BOB.id, BOB.name))
    await store.create_room(redis_client, new_room("made", "tictactoe", "", seats, now=T0))
    await lobby.drain()
    (live,) = (await lobby.snapshot(ANN))["live"]
    assert (live["room_id"], live["started"], live["players"][0]["id"]) == ("made", T0, ANN.id)


def limited(
    redis_client: aioredis.Redis, now: FakeTime, limits: ChallengeLimits
) -> tuple[RoomService, LobbyService]:
    rooms, _ = services(redis_client, now)
    return rooms, LobbyService(redis_client, rooms, limits, clock=now)


async def test_a_pair_of_players_starts_no_more_games_an_hour_than_the_limit(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Challenge and accept, over and over (the flood that made 2,000 rooms): the accept
    past the limit is refused, makes no room and leaves the challenge open."""
    now = FakeTime(T0)
    _, lobby = limited(redis_client, now, ChallengeLimits(max_started=3, lifetime=7200))
    for _ in range(3):
        await started(lobby)
    made = await lobby.create_challenge(ANN, "tictactoe", "", "mine", False, None, None)
    with pytest.raises(LimitReachedError, match="started 3 games"):
        await lobby.accept(BOB, made.id)
    assert await store.load_room(redis_client, made.id) is None
    assert (await challenge_store.get_challenge(redis_client, made.id)).status is Status.OPEN
    now.now += 3600  # an hour later the oldest starts are out of the window
    _, room_id = await lobby.accept(BOB, made.id)
    assert room_id == made.id


async def test_a_player_with_too_many_games_in_progress_starts_no_other(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = limited(redis_client, now, ChallengeLimits(max_playing=2))
    first = await started(lobby)
    await started(lobby)
    await lobby.drain()
    carol = Player("u:carol", "Carol", False)
    made = await lobby.create_challenge(carol, "tictactoe", "", "mine", False, None, None)
    with pytest.raises(LimitReachedError, match="Bob has 2 games in progress"):
        await lobby.accept(BOB, made.id)
    await rooms.command(first, Resign(BOB.id, 0))
    await lobby.drain()  # the finished game leaves Bob's games in progress
    await lobby.accept(BOB, made.id)


async def test_one_address_makes_no_more_than_its_limit_whatever_the_accounts(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Guests are free to make: a flood of them from one address meets the address's limit
    (challenges made and games started count alike)."""
    now = FakeTime(T0)
    _, lobby = limited(redis_client, now, ChallengeLimits(max_per_address=3))
    guests = [Player(f"g:{n}", f"Guest-{n}", True) for n in range(4)]
    made = await lobby.create_challenge(guests[0], "tictactoe", "", "mine", False, None, None, "a")
    await lobby.create_challenge(guests[1], "tictactoe", "", "mine", False, None, None, "a")
    await lobby.accept(guests[2], made.id, "a")
    with pytest.raises(LimitReachedError, match="network address"):
        await lobby.create_challenge(guests[3], "tictactoe", "", "mine", False, None, None, "a")
    await lobby.create_challenge(guests[3], "tictactoe", "", "mine", False, None, None, "b")


async def test_a_bot_accepts_past_every_game_limit(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Bots only accept; each game's human challenger is held to their own limits."""
    now = FakeTime(T0)
    _, lobby = limited(redis_client, now, ChallengeLimits(max_started=1, max_per_address=1))
    bot = Player("u:bot-1", "bot-1", False)
    for n in range(3):
        person = Player(f"u:p{n}", f"P{n}", False)
        made = await lobby.create_challenge(person, "tictactoe", "", "mine", False, None, None)
        await lobby.accept(bot, made.id, "127.0.0.1")


async def test_the_request_that_agrees_a_rematch_is_held_to_the_limits(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    rooms, lobby = limited(redis_client, now, ChallengeLimits(max_started=1))
    room_id = await started(lobby)
    await rooms.command(room_id, Resign(BOB.id, 0))
    async with lobby.rematch_start(ANN, room_id):
        await rooms.command(room_id, Rematch(ANN.id))  # asks, does not agree: not counted
    with pytest.raises(LimitReachedError, match="started 1 games"):
        async with lobby.rematch_start(BOB, room_id):
            await rooms.command(room_id, Rematch(BOB.id))
    assert (await rooms.current(room_id)).room.rematch is None
    now.now += 3600
    async with lobby.rematch_start(BOB, room_id):
        await rooms.command(room_id, Rematch(BOB.id))
    assert (await rooms.current(room_id)).room.rematch is not None


async def test_an_unreadable_mark_is_dropped_not_retried_for_ever(
    redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    now = FakeTime(T0)
    _, lobby = services(redis_client, now)
    await redis_client.hset(outbox.OUTBOX_KEY, "garbled", b"\xc1")
    await started(lobby)
    assert await lobby.drain() == 2
    assert await outbox.pending(redis_client) == 0
    assert (await lobby.snapshot(ANN))["live_count"] == 1
