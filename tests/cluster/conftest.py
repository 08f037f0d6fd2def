"""Fixtures of the tests on a Redis Cluster: one cluster of six server processes per session
(three masters with a replica each), and a clean cluster client per test.

Every module here is marked ``cluster``, so that ``-m cluster`` runs them alone (``-m 'not
cluster'`` leaves them out): the cluster costs six server processes and a failover takes
seconds.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster

from bench.loopback import tictactoe
from bench.loopback.cluster import ClusterOfServers
from server.redis import cluster
from tests.e2e.conftest import ROOT, SECRET


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
    client: Any = cluster.cluster_client(redis_cluster.url, pool_size=64)
    await client.flushall(target_nodes=RedisCluster.PRIMARIES)
    yield client
    await client.aclose()


@pytest.fixture
def ttt() -> Iterator[ModuleType]:
    """tic-tac-toe in ``rules.GAMES`` during the test."""
    with tictactoe.registered():
        yield tictactoe


@pytest.fixture
def subprocess_env(ttt: ModuleType) -> dict[str, str]:
    """The environment of ``python -m server`` children (their REDIS_URL set by the test)."""
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env["SESSION_SECRET"] = SECRET.decode()
    env["PYTHONPATH"] = str(ROOT)
    return env
