"""Tournaments in a real Redis: races between processes commit once, refusals write nothing,
and a Redis restart mid-round loses no result."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from lobby.identity import Player
from lobby.store import tournaments as store
from lobby.tournaments import lifecycle
from lobby.tournaments.model import Format, Settings, Status
from protocol.errors import ErrorCode, TournamentError
from tests.conftest import RedisServer

HOST = Player("host", "Host", guest=False)
START = 1000.0


def player(n: int) -> Player:
    return Player(f"p{n}", f"P{n}", guest=False)


async def new_event(
    client: aioredis.Redis, fmt: Format, players: int, max_players: int = 8, **extra: object
) -> str:
    settings = Settings("osbox", fmt, START, max_players, **extra)  # type: ignore[arg-type]
    await store.create(client, "cup", HOST, settings, 0.0)
    for n in range(1, players + 1):
        await store.join(client, "cup", player(n), 2000 - 10 * n, 0.0)
    return "cup"


async def test_create_then_load_and_list(redis_client: aioredis.Redis) -> None:
    tid = await new_event(redis_client, Format.SWISS, 3, rounds=3)
    loaded = await store.load(redis_client, tid)
    assert loaded is not None and [e.id for e in loaded.entrants] == ["p1", "p2", "p3"]
    assert [row["id"] for row in await store.listed(redis_client, Status.CREATED)] == [tid]
    assert await store.due(redis_client, START - 1) == []
    assert await store.due(redis_client, START) == [tid]
    with pytest.raises(ValueError):
        await store.create(redis_client, tid, HOST, loaded.settings, 0.0)


async def test_racing_joins_for_the_last_seat_admit_one(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    tid = await new_event(redis_client, Format.KNOCKOUT, 1, max_players=2)
    outcomes = await asyncio.gather(
        store.join(redis_client, tid, player(2), 1500, 0.0),
        store.join(second_client, tid, player(3), 1500, 0.0),
        return_exceptions=True,
    )
    refusals = [o for o in outcomes if isinstance(o, TournamentError)]
    assert len(refusals) == 1 and refusals[0].code is ErrorCode.FULL
    loaded = await store.load(redis_client, tid)
    assert loaded is not None and len(loaded.entrants) == 2


async def test_a_refusal_writes_nothing(redis_client: aioredis.Redis) -> None:
    tid = await new_event(redis_client, Format.SWISS, 3, rounds=3)
    before = await redis_client.get(f"tournament:{{{tid}}}:state")
    with pytest.raises(TournamentError) as refusal:
        await store.join(redis_client, tid, player(1), 1500, 0.0)
    assert refusal.value.code is ErrorCode.ALREADY_JOINED
    with pytest.raises(TournamentError) as refusal:
        await store.withdraw(redis_client, tid, "p9", 0.0)
    assert refusal.value.code is ErrorCode.NOT_JOINED
    with pytest.raises(TournamentError) as refusal:
        await store.join(redis_client, "nope", player(1), 1500, 0.0)
    assert refusal.value.code is ErrorCode.UNKNOWN_TOURNAMENT
    assert await redis_client.get(f"tournament:{{{tid}}}:state") == before


async def test_two_processes_starting_at_once_start_it_once(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    tid = await new_event(redis_client, Format.SWISS, 5, rounds=3)
    first, second = await asyncio.gather(
        store.start(redis_client, tid, START), store.start(second_client, tid, START)
    )
    assert [first.changed, second.changed].count(True) == 1
    assert first.tournament == second.tournament
    opened = first.new_games + second.new_games
    assert len(opened) == 2 and all(not g.is_bye for g in opened)
    assert len(first.tournament.games) == 3
    assert [row["id"] for row in await store.listed(redis_client, Status.RUNNING)] == [tid]
    assert await store.listed(redis_client, Status.CREATED) == []


async def test_a_stale_version_cannot_commit(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """Both processes read round 1 complete and pair round 2; only one commit lands."""
    tid = await new_event(redis_client, Format.SWISS, 4, rounds=3)
    t = (await store.start(redis_client, tid, START)).tournament
    for g in lifecycle.pairings(t):
        t = (await store.record_result(redis_client, tid, g.id, 1.0, START)).tournament
    seen_here = await store.load(redis_client, tid)
    seen_there = await store.load(second_client, tid)
    assert seen_here is not None and seen_there is not None
    landed = await asyncio.gather(
        store.commit_if_version(redis_client, seen_here, lifecycle.pair_round(seen_here, START)),
        store.commit_if_version(second_client, seen_there, lifecycle.pair_round(seen_there, START)),
    )
    assert sorted(landed) == [False, True]
    stored = await store.load(redis_client, tid)
    assert stored is not None and stored.round == 2
    assert len([g for g in stored.games if g.round == 2]) == 2


async def test_two_processes_pairing_a_round_create_one_set_of_games(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    tid = await new_event(redis_client, Format.SWISS, 6, rounds=3)
    t = (await store.start(redis_client, tid, START)).tournament
    for g in lifecycle.pairings(t):
        await store.record_result(second_client, tid, g.id, 0.5, START)
    attempts = await asyncio.gather(
        *(store.pair_round(client, tid, 2, START) for client in (redis_client, second_client) * 3)
    )
    assert [a.changed for a in attempts].count(True) == 1
    assert len({a.tournament for a in attempts}) == 1
    assert sum(len(a.new_games) for a in attempts) == 3
    stored = await store.load(redis_client, tid)
    assert stored is not None and stored.round == 2
    assert len(stored.games) == 6


async def test_a_result_reported_twice_at_once_counts_once(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    tid = await new_event(redis_client, Format.SWISS, 4, rounds=3)
    t = (await store.start(redis_client, tid, START)).tournament
    game = lifecycle.pairings(t)[0]
    first, second = await asyncio.gather(
        store.record_result(redis_client, tid, game.id, 1.0, START),
        store.record_result(second_client, tid, game.id, 1.0, START),
    )
    assert [first.changed, second.changed].count(True) == 1
    assert first.tournament.version == second.tournament.version == t.version + 1
    with pytest.raises(TournamentError) as refusal:
        await store.record_result(redis_client, tid, game.id, 0.0, START)
    assert refusal.value.code is ErrorCode.RESULT_CONFLICT


async def test_results_survive_a_redis_restart_mid_round(
    redis_server: RedisServer, redis_client: aioredis.Redis
) -> None:
    """Redis is killed (SIGKILL) after a result is acknowledged; the result is there after."""
    tid = await new_event(redis_client, Format.KNOCKOUT, 4)
    t = (await store.start(redis_client, tid, START)).tournament
    game = lifecycle.pairings(t)[0]
    await store.record_result(redis_client, tid, game.id, 1.0, START)
    redis_server.restart()
    fresh = aioredis.Redis.from_url(redis_server.url)
    try:
        stored = await store.load(fresh, tid)
        assert stored is not None
        kept = stored.game(game.id)
        assert kept is not None and kept.score == 1.0
        assert not (await store.record_result(fresh, tid, game.id, 1.0, START)).changed
        with pytest.raises(TournamentError) as refusal:
            await store.pair_round(fresh, tid, 2, START)
        assert refusal.value.code is ErrorCode.ROUND_UNFINISHED
    finally:
        await fresh.aclose()


async def test_finish_and_cancel_are_idempotent(redis_client: aioredis.Redis) -> None:
    tid = await new_event(redis_client, Format.KNOCKOUT, 2)
    t = (await store.start(redis_client, tid, START)).tournament
    await store.record_result(redis_client, tid, lifecycle.pairings(t)[0].id, 1.0, START)
    assert (await store.finish(redis_client, tid, START)).changed
    assert not (await store.finish(redis_client, tid, START + 1)).changed
    assert [row["id"] for row in await store.listed(redis_client, Status.FINISHED)] == [tid]
    assert await store.due(redis_client, START) == []
    await store.create(
        redis_client, "empty", HOST, Settings("osbox", Format.ARENA, START, 8, duration=60), 0
    )
    assert (await store.cancel(redis_client, "empty")).changed
    assert not (await store.cancel(redis_client, "empty")).changed


async def test_every_commit_is_announced_once_with_its_summary_and_a_refusal_never(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    pubsub = second_client.pubsub()
    await pubsub.subscribe(store.CHANNEL)
    try:
        tid = await new_event(redis_client, Format.KNOCKOUT, 1, max_players=2)
        with pytest.raises(TournamentError):
            await store.join(redis_client, tid, player(1), 1500.0, 0.0)  # already joined
        with pytest.raises(TournamentError):
            await store.start(redis_client, tid, START)  # too few players
        await store.cancel(redis_client, tid)
        await store.cancel(redis_client, tid)  # a second cancel changes nothing
        notices = []
        async with asyncio.timeout(5):
            while len(notices) < 3:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None:
                    notices.append(store.decode_notice(message["data"]))
        assert [(n["version"], n["status"], n["players"]) for n in notices] == [
            (1, "created", 0),
            (2, "created", 1),
            (3, "cancelled", 1),
        ]
        assert await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2) is None
    finally:
        await pubsub.aclose()


def test_a_notice_that_is_not_a_summary_is_refused() -> None:
    for raw in (b"nonsense", b"[]", b'{"id": "t1"}', b'{"id": 3, "version": 1}'):
        with pytest.raises(ValueError):
            store.decode_notice(raw)
    assert store.decode_notice(b'{"id": "t1", "version": 2}')["version"] == 2
