"""Fixtures of the tests on a Redis Cluster: one cluster of six server processes per session
(three masters with a replica each), and a clean cluster client per test.

Every module here is marked ``cluster``, left out unless asked for (``-m cluster``): the
cluster costs six server processes and a failover takes seconds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio.cluster import RedisCluster

from tests.cluster.servers import ClusterOfServers


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterOfServers]:
    """Three masters and three replicas, formed once for the session."""
    cluster = ClusterOfServers(tmp_path_factory.mktemp("cluster"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
async def cluster_client(redis_cluster: ClusterOfServers) -> AsyncIterator[RedisCluster]:
    """A cluster client on empty masters: every test starts from nothing."""
    redis_cluster.wait_ok()
    client = RedisCluster.from_url(redis_cluster.url)
    await client.flushall(target_nodes=RedisCluster.PRIMARIES)
    yield client
    await client.aclose()
