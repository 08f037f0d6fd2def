"""Client addresses behind HAProxy: deploy/haproxy.cfg tells the servers each client's address
(and drops the one a client claims), docker-compose.yml has the servers trust HAProxy's
address only, and a server run as the deployment runs it limits each client on its own.

The live test runs the topology of bench/loopback/topology.py (redis-server, one server
process, HAProxy with deploy/haproxy.cfg) with clients on different loopback addresses
(127.0.0.2, 127.0.0.3: Linux answers the whole 127/8 on the loopback interface)."""

from __future__ import annotations

import asyncio
import ipaddress
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.loopback.http import request
from bench.loopback.topology import HAPROXY_CFG, ROOT, Topology


def test_haproxy_forwards_the_address_it_saw_and_only_that() -> None:
    config = HAPROXY_CFG.read_text()
    assert re.search(r"^\s+option forwardfor$", config, re.M)
    frontend = config[config.index("frontend web") :]
    assert re.search(r"^\s+http-request del-header X-Forwarded-For$", frontend, re.M)


def test_compose_servers_trust_haproxy_alone() -> None:
    yaml = pytest.importorskip("yaml", reason="the test extra pyyaml parses docker-compose.yml")
    compose: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    proxy = compose["services"]["haproxy"]["networks"]["default"]["ipv4_address"]
    trusted = compose["services"]["server"]["environment"]["TRUSTED_PROXIES"]
    assert trusted == proxy
    (network,) = compose["networks"]["default"]["ipam"]["config"]
    address = ipaddress.ip_address(proxy)
    assert address in ipaddress.ip_network(network["subnet"])
    # Containers get their addresses from ip_range, so none can take HAProxy's.
    assert address not in ipaddress.ip_network(network["ip_range"])


@pytest.fixture
def topology(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Topology]:
    """One server behind HAProxy, configured as docker-compose.yml configures it, but for
    loopback: HAProxy reaches the server from 127.0.0.1, so that is the trusted proxy."""
    monkeypatch.setenv("TRUSTED_PROXIES", "127.0.0.1")
    monkeypatch.setenv("GUESTS_PER_ADDRESS", "2")
    running = Topology(tmp_path, servers=1)
    running.start()
    yield running
    running.stop()


async def test_behind_haproxy_each_client_has_its_own_limit(topology: Topology) -> None:
    guest = f"{topology.base_url}/api/guest"

    async def status(source: str, headers: dict[str, str] | None = None) -> int:
        return (await request(guest, {}, headers=headers, source=source)).status

    assert [await status("127.0.0.2") for _ in range(3)] == [200, 200, 429]
    # Claiming another address does not help: HAProxy drops the claim and says what it saw.
    assert await status("127.0.0.2", {"X-Forwarded-For": "198.51.100.9"}) == 429
    assert await status("127.0.0.3") == 200
    # Straight to the server, from an address it does not trust, the header counts for
    # nothing either.
    direct = f"{topology.server_url(0)}/api/guest"
    forged = {"X-Forwarded-For": "198.51.100.10"}
    answers = await asyncio.gather(
        *(request(direct, {}, headers=forged, source="127.0.0.4") for _ in range(3))
    )
    assert sorted(a.status for a in answers) == [200, 200, 429]
