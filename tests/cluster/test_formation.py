"""The test cluster itself: formed from Python, it serves every slot, replicates, and a
replica takes over from a killed master."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.cluster import RedisCluster

from bench.loopback.cluster import MASTERS, ClusterOfServers

pytestmark = pytest.mark.cluster


async def test_cluster_serves_keys_on_every_master(cluster_client: RedisCluster) -> None:
    for index in range(300):
        await cluster_client.set(f"key:{{{index}}}", index)
    sizes = await cluster_client.dbsize(target_nodes=RedisCluster.PRIMARIES)
    assert sizes == 300
    assert len(cluster_client.get_primaries()) == MASTERS


async def test_a_replica_takes_over_a_killed_master_with_its_data(
    redis_cluster: ClusterOfServers, cluster_client: RedisCluster
) -> None:
    await cluster_client.set("kept:{a}", "yes")
    slot = cluster_client.keyslot("kept:{a}")
    owner = cluster_client.nodes_manager.get_node_from_slot(slot)
    await cluster_client.execute_command("WAIT", 1, 2000, target_nodes=owner)
    killed = next(node for node in redis_cluster.nodes if node.port == owner.port)
    redis_cluster.kill(killed)
    await asyncio.to_thread(redis_cluster.wait_ok)
    assert await cluster_client.get("kept:{a}") == b"yes"
    redis_cluster.restart(killed)
    await asyncio.to_thread(redis_cluster.wait_replicated)
    assert killed not in redis_cluster.masters()
