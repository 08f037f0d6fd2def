"""``python -m server`` on its embedded Redis: killed and started again, it has every move."""

from __future__ import annotations

import os
from pathlib import Path

import redis.asyncio as aioredis

from client import Client
from lobby.identity import new_guest
from server.redis.embedded_redis import free_port
from tests.e2e.conftest import ServerProcess, make_room, token_for


async def test_the_embedded_server_keeps_games_across_a_kill_and_restart(
    tmp_path: Path, subprocess_env: dict[str, str], ttt: object
) -> None:
    data = tmp_path / "data"
    env = {**subprocess_env, "DATA_DIR": str(data)}
    server = ServerProcess(env, free_port())
    await server.start()
    try:
        assert (data / "appendonlydir").exists() or (data / "appendonly.aof").exists()
        redis_url = f"unix://{data / 'redis.sock'}"
        client = aioredis.Redis.from_url(redis_url)
        a, b = new_guest(), new_guest()
        room = await make_room(client, a, b)
        await client.aclose()
        ca = await Client.connect(server.ws_url, token_for(a))
        await ca.join(room)
        version = await ca.move(room, "b2")
        await ca.close()
        redis_pid = int((data / "redis.pid").read_text())
        server.kill()  # SIGKILL: no clean shutdown of the server
        await server.start()  # stops the orphaned redis-server, starts a new one
        assert not _alive(redis_pid)
        ca = await Client.connect(server.ws_url, token_for(a))
        view = await ca.join(room)
        assert view.version >= version
        assert view.doc is not None and view.doc["record"] == ["b2"]
        await ca.close()
        redis_pid = int((data / "redis.pid").read_text())
    finally:
        server.terminate()
    assert not _alive(redis_pid)  # a clean stop takes its redis-server along


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/status").read_text().find("State:\tZ") < 0
