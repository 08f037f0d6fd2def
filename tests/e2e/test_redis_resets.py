"""A server process whose Redis connections are reset (TCP RST) acknowledges only what
Redis committed, and keeps its sockets open.

The server runs as its own program (``python -m server``, on uvloop as deployed) behind a
TCP proxy that resets every connection to Redis while nothing is in flight; then a move is
made in one room and, a moment later, one in another, as players would.  The suite runs
10 rounds; ``RESET_ROUNDS=100`` runs as many as the reliability check asks for.
"""

from __future__ import annotations

import asyncio
import os

import redis.asyncio as aioredis

from bench.loopback.tcp_proxy import TcpProxy
from client import Client, ServerReplyError
from lobby.identity import new_guest
from server.redis import store
from server.redis.embedded_redis import free_port
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerProcess, make_room, token_for

ROUNDS = int(os.environ.get("RESET_ROUNDS", "10"))
RETRIED = {"unavailable", "busy"}


async def acknowledged(client: Client, room: str, text: str, version: int, ref: str) -> int:
    """Send a move until it is answered (resending the same request after a retryable
    error, as the protocol says); returns the version it was acknowledged at."""
    for _ in range(100):
        try:
            return await client.move(room, text, version=version, request_id=ref)
        except ServerReplyError as error:
            assert error.code in RETRIED, error
            await asyncio.sleep(0.05)
    raise AssertionError(f"move {text} in {room} never answered")


async def test_moves_after_idle_connections_are_reset_are_committed_before_acknowledged(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    subprocess_env: dict[str, str],
    ttt: object,
) -> None:
    proxy = await TcpProxy(redis_server.port).start()
    server = ServerProcess({**subprocess_env, "REDIS_URL": proxy.url}, free_port())
    await server.start()
    first, second = new_guest(), new_guest()
    mover = await Client.connect(server.ws_url, token_for(first))
    other = await Client.connect(server.ws_url, token_for(second))
    try:
        for round_ in range(ROUNDS):
            rooms = [
                await make_room(redis_client, first, second, room_id=f"reset{round_}-{side}")
                for side in "xy"
            ]
            for room in rooms:
                await mover.join(room)
                await other.join(room)
            assert await proxy.reset_all() > 0  # idle: nothing in flight
            x = asyncio.create_task(acknowledged(mover, rooms[0], "a1", 0, f"x{round_}"))
            await asyncio.sleep(0.3)
            y = asyncio.create_task(acknowledged(mover, rooms[1], "b2", 0, f"y{round_}"))
            versions = await asyncio.gather(x, y)
            for room, text, version in zip(rooms, ("a1", "b2"), versions, strict=True):
                loaded = await store.load_room(redis_client, room)
                assert loaded is not None
                assert loaded.room.version >= version, f"{room}: acknowledged, not committed"
                assert loaded.room.record[:1] == (text,), f"{room}: {loaded.room.record}"
            assert not mover.closed and not other.closed, "a socket was closed"
            for room in rooms:  # a socket watches a bounded number of rooms
                await mover.leave(room)
                await other.leave(room)
    finally:
        for client in (mover, other):
            await client.close()
        await asyncio.to_thread(server.terminate)  # its shutdown talks to Redis, via the proxy
        await proxy.stop()
    output = "".join(server.output)
    for failure in ("Task exception was never retrieved", "RuntimeError", "ASGI application"):
        assert failure not in output, output
