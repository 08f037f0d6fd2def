"""The bot and analyst processes on a cluster: they connect with the cluster client and their
queues work there (the games' stream, the analyses' queue under its {analysis} tag)."""

from __future__ import annotations

import asyncio

import pytest
import redis.cluster
from redis.asyncio.cluster import RedisCluster

from bench.loopback.cluster import ClusterOfServers
from bots import queue
from lobby.store import analyses
from lobby.store.common import connect, connect_blocking

pytestmark = pytest.mark.cluster


async def test_the_bots_queue_of_games_works_on_the_cluster(
    redis_cluster: ClusterOfServers, cluster_client: RedisCluster
) -> None:
    client = await connect(redis_cluster.url)
    try:
        assert type(client) is RedisCluster  # type: ignore[comparison-overlap]
        await queue.ensure_group(client)
        entry = await queue.enqueue(client, "room-1", "u:bot-1")
        jobs = await queue.take(client, "worker-1", 10, 100)
        assert [(job.entry, job.room, job.bot) for job in jobs] == [(entry, "room-1", "u:bot-1")]
        await queue.done(client, entry)
        assert await queue.take(client, "worker-1", 10, 10) == []
    finally:
        await client.aclose()


async def test_an_analysis_is_queued_taken_and_stored_on_the_cluster(
    redis_cluster: ClusterOfServers, cluster_client: RedisCluster
) -> None:
    job = analyses.AnalysisJob("room-2", "tictactoe", "", ("b2",))
    assert await analyses.request(cluster_client, job) == {"status": "queued"}  # type: ignore[arg-type]
    analyst = connect_blocking(redis_cluster.url)
    try:
        assert isinstance(analyst, redis.cluster.RedisCluster)
        taken = await asyncio.to_thread(analyses.take, analyst, 5)
        assert taken is not None and analyses.AnalysisJob.from_json(taken) == job
        await asyncio.to_thread(analyses.store, analyst, "room-2", {"status": "done"})
    finally:
        analyst.close()
    assert await analyses.status(cluster_client, "room-2") == {"status": "done"}
