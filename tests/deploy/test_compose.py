"""The deployment files, checked without Docker: docker-compose.yml parsed and inspected,
deploy/haproxy.cfg validated by HAProxy itself (and its loopback rewrite), deploy/redis.conf
read for its persistence settings, deploy/Dockerfile for what it runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from bench.loopback.topology import DEPLOY, HAPROXY_CFG, REDIS_CONF, ROOT, loopback_haproxy_config
from server.redis.embedded_redis import free_port, redis_binary

COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="the test extra pyyaml parses docker-compose.yml")
    document = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(document, dict)
    return document


def redis_settings() -> dict[str, str]:
    settings: dict[str, str] = {}
    for line in REDIS_CONF.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition(" ")
            settings[name.lower()] = value.strip()
    return settings


def test_compose_has_redis_servers_and_a_load_balancer(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) >= {"redis", "server", "haproxy"}
    assert services["server"]["deploy"]["replicas"] >= 2
    assert services["server"]["build"]["dockerfile"] == "deploy/Dockerfile"
    assert (ROOT / services["server"]["build"]["context"] / "deploy/Dockerfile").is_file()


def test_compose_servers_use_the_redis_service(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert server["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    assert compose["services"]["haproxy"]["depends_on"]["server"]["condition"] == (
        "service_healthy"
    )


def test_compose_checks_health_on_healthz(compose: dict[str, Any]) -> None:
    test = compose["services"]["server"]["healthcheck"]["test"]
    assert any("/healthz" in part for part in test)
    assert compose["services"]["redis"]["healthcheck"]["test"][-1] == "ping"
    config = HAPROXY_CFG.read_text()
    assert re.search(r"^\s+option httpchk GET /healthz$", config, re.M)
    assert re.search(r"^\s+default-server check\b", config, re.M)


def test_compose_mounts_the_deploy_configs_and_keeps_redis_data(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    mounts = {m.split(":")[0]: m.split(":")[1] for m in redis["volumes"]}
    assert mounts["./deploy/redis.conf"] in redis["command"]
    assert mounts["redis-data"] == "/data"
    assert "redis-data" in compose["volumes"]
    haproxy = compose["services"]["haproxy"]
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in haproxy["volumes"]
    assert any(str(p).endswith(":8080") for p in haproxy["ports"])
    for source in (*mounts, *(v.split(":")[0] for v in haproxy["volumes"])):
        if source.startswith("./"):
            assert (ROOT / source).is_file(), source


def test_redis_conf_makes_every_acknowledged_write_durable() -> None:
    settings = redis_settings()
    assert settings["appendonly"] == "yes"
    assert settings["appendfsync"] == "always"
    assert settings["no-appendfsync-on-rewrite"] == "no"
    assert settings["maxmemory-policy"] == "noeviction"
    assert "dir" not in settings  # the image's /data volume is the working directory


def test_haproxy_config_is_websocket_aware() -> None:
    config = HAPROXY_CFG.read_text()
    assert re.search(r"^\s+timeout tunnel \d+[smhd]$", config, re.M)
    assert re.search(r"^\s+mode http$", config, re.M)
    assert re.search(r"^\s+option redispatch\b", config, re.M)
    assert re.search(r"^\s+server-template server \d+ server:8000\b", config, re.M)


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed")
def test_haproxy_accepts_the_config_and_its_loopback_rewrite(tmp_path: Path) -> None:
    checked = subprocess.run(
        ["haproxy", "-c", "-f", str(HAPROXY_CFG)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    loopback = tmp_path / "haproxy.cfg"
    loopback.write_text(
        loopback_haproxy_config(HAPROXY_CFG.read_text(), 8080, [9001, 9002], tmp_path / "s")
    )
    checked = subprocess.run(
        ["haproxy", "-c", "-f", str(loopback)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    text = loopback.read_text()
    assert not re.search(r"^resolvers|resolvers docker|init-addr", text, re.M)
    assert re.findall(r"^\s+server s(\d) 127\.0\.0\.1:(\d+)$", text, re.M) == [
        ("0", "9001"),
        ("1", "9002"),
    ]


def test_loopback_rewrite_refuses_a_config_it_does_not_recognise() -> None:
    with pytest.raises(ValueError, match="server-template"):
        loopback_haproxy_config("frontend web\n    bind :80\n", 1, [2], Path("s"))


def test_dockerfile_runs_the_server_on_the_compose_redis() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\b", dockerfile, re.M)
    # One step installs a compiler, then the package (compiling the engines), and checks it.
    steps = re.split(r"\n(?=[A-Z]+ )", dockerfile)
    install = next(step for step in steps if "pip install ." in step)
    assert install.startswith("RUN ") and "gcc" in install and "endswith('.so')" in install
    assert re.search(r"REDIS_URL=redis://redis:6379/0", dockerfile)
    assert re.search(r'^CMD \["python", "-m", "server"\]$', dockerfile, re.M)
    for copied in re.findall(r"^COPY (\S+)/ ", dockerfile, re.M):
        assert (ROOT / copied).is_dir(), copied


def test_compose_cluster_profile_runs_three_masters_three_replicas_servers_and_haproxy(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    nodes = [name for name in services if name.startswith("redis-node-")]
    assert len(nodes) == 6
    for name in (*nodes, "redis-cluster-init", "cluster-server", "cluster-haproxy"):
        assert services[name]["profiles"] == ["cluster"], name
    for name in nodes:
        node = services[name]
        assert node["command"][-1] == "/usr/local/etc/redis/redis-cluster.conf"
        assert f"{name}:/data" in node["volumes"]
        for mount in node["volumes"]:
            source = mount.split(":")[0]
            if source.startswith("./"):
                assert (ROOT / source).is_file(), source
    assert "--cluster-replicas 1" in services["redis-cluster-init"]["command"][-1]
    server = services["cluster-server"]
    assert server["environment"]["REDIS_CLUSTER"] == "1"
    assert int(server["environment"]["REDIS_REPLICA_ACKS"]) >= 1
    assert "server" in server["networks"]["cluster"]["aliases"]  # haproxy.cfg's template
    haproxy = services["cluster-haproxy"]
    assert haproxy["volumes"] == services["haproxy"]["volumes"]
    address = haproxy["networks"]["cluster"]["ipv4_address"]
    assert server["environment"]["TRUSTED_PROXIES"] == address
    for name in ("redis", "server", "haproxy"):  # the single-Redis set is the default
        assert "profiles" not in services[name]


def test_redis_cluster_conf_starts_a_durable_cluster_node(tmp_path: Path) -> None:
    """The node configuration, with its include pointed at deploy/redis.conf, starts a
    server in cluster mode with every write fsynced."""
    conf = (DEPLOY / "redis-cluster.conf").read_text()
    assert "include /usr/local/etc/redis/redis.conf" in conf
    local = tmp_path / "node.conf"
    local.write_text(conf.replace("/usr/local/etc/redis/redis.conf", str(REDIS_CONF)))
    port = free_port()
    process = subprocess.Popen(
        [redis_binary(), str(local), "--port", str(port), "--bind", "127.0.0.1"]
        + ["--dir", str(tmp_path), "--cluster-port", str(free_port())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(port=port, socket_timeout=5)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "the node did not start"
                time.sleep(0.05)
        assert client.info("cluster")["cluster_enabled"] == 1
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        client.close()
    finally:
        process.kill()
        process.wait(10)
