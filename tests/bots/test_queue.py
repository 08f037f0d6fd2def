"""The queue of bot games: a game stays with its worker while it is kept, and passes to
another worker once its worker goes silent."""

from __future__ import annotations

import redis.asyncio as aioredis

from bots import queue


async def test_a_game_is_taken_by_one_worker(redis_client: aioredis.Redis) -> None:
    await queue.ensure_group(redis_client)
    await queue.ensure_group(redis_client)  # idempotent
    entry = await queue.enqueue(redis_client, "r1", "u:bot-1")
    first = await queue.take(redis_client, "a", 5, 10)
    second = await queue.take(redis_client, "b", 5, 10)
    assert first == [queue.Job(entry, "r1", "u:bot-1")]
    assert second == []


async def test_a_silent_workers_game_is_reclaimed_and_a_kept_one_is_not(
    redis_client: aioredis.Redis,
) -> None:
    await queue.ensure_group(redis_client)
    kept = await queue.enqueue(redis_client, "kept", "u:bot-1")
    dropped = await queue.enqueue(redis_client, "dropped", "u:bot-2")
    taken = await queue.take(redis_client, "a", 5, 10)
    assert [job.room for job in taken] == ["kept", "dropped"]
    # both entries untouched for 10 s, as if "a" had gone silent; then "a" keeps one
    await redis_client.xclaim(queue.STREAM, queue.GROUP, "a", 0, [kept, dropped], idle=10_000)
    await queue.keep(redis_client, "a", [kept])
    reclaimed = await queue.reclaim(redis_client, "b", 5_000, 10)
    assert reclaimed == [queue.Job(dropped, "dropped", "u:bot-2")]


async def test_a_finished_game_leaves_the_queue(redis_client: aioredis.Redis) -> None:
    await queue.ensure_group(redis_client)
    entry = await queue.enqueue(redis_client, "r1", "u:bot-1")
    await queue.take(redis_client, "a", 1, 10)
    await queue.done(redis_client, entry)
    assert await redis_client.xlen(queue.STREAM) == 0
    assert await queue.reclaim(redis_client, "b", 0, 10) == []
