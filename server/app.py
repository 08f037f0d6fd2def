"""The Starlette application: routes, and the lifespan that owns the Redis client and fan-out.

``/ws`` is the one websocket for players and spectators (``?token=`` authenticates it);
``POST /api/guest`` makes a guest and a session token; ``GET /healthz`` checks Redis;
``GET /metrics`` is Prometheus text; everything else is the static browser client.
The composition root: imports Starlette, redis and the other server modules.
"""

from __future__ import annotations

import contextlib
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import parse_qs

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from server import store
from server.auth import NotAuthenticatedError, authenticate, guest_session, player_data
from server.connection import Connection
from server.fanout import Fanout
from server.metrics import Metrics
from server.protocol import CloseCode
from server.service import RoomService
from server.settings import Settings


@dataclass
class Runtime:
    """What the lifespan builds and the handlers use."""

    client: aioredis.Redis
    secret: bytes
    service: RoomService
    fanout: Fanout
    metrics: Metrics
    connections: set[Connection]


def redis_client(url: str, pool_size: int) -> aioredis.Redis:
    """A client whose pool waits for a free connection instead of raising under load."""
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=pool_size, timeout=10)
    return aioredis.Redis(connection_pool=pool)


def create_app(settings: Settings) -> Starlette:
    """The app for ``settings``; Redis must be reachable at ``settings.redis_url``."""
    if settings.redis_url is None:
        raise ValueError("create_app needs settings.redis_url (python -m server starts one)")
    redis_url = settings.redis_url

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        client = redis_client(redis_url, settings.redis_pool_size)
        secret = settings.session_secret or await store.session_secret(
            client, secrets.token_bytes(32)
        )
        process_id = uuid.uuid4().hex
        metrics = Metrics()
        service_ref: list[RoomService] = []

        def on_remote(room_id: str, version: int) -> None:
            service_ref[0].forget_older(room_id, version)

        async def on_resubscribed(room_ids: list[str]) -> None:
            for connection in list(runtime.connections):
                await connection.catch_up_all()

        fanout = Fanout(client, process_id, on_remote, on_resubscribed)
        service = RoomService(client, fanout, metrics, process_id, settings.diff_history)
        service_ref.append(service)
        runtime = Runtime(client, secret, service, fanout, metrics, set())
        app.state.runtime = runtime
        await fanout.start()
        try:
            yield
        finally:
            for connection in list(runtime.connections):
                await connection.shut(CloseCode.GOING_AWAY)
            await fanout.stop()
            await client.aclose(close_connection_pool=True)

    async def websocket_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        """The websocket as a plain ASGI app: each diff sent is one ASGI message, no more."""
        runtime: Runtime = scope["app"].state.runtime
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        tokens = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        try:
            player = authenticate(runtime.secret, tokens[0] if tokens else None, time.time())
        except NotAuthenticatedError as error:
            runtime.metrics.closes[int(CloseCode.POLICY_VIOLATION)] += 1
            reason = str(error)[:120]
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
            return
        connection = Connection(receive, send, player, runtime.service, runtime.metrics, settings)
        runtime.connections.add(connection)
        try:
            await connection.run()
        finally:
            runtime.connections.discard(connection)

    async def guest(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        player, token = guest_session(runtime.secret, time.time())
        return JSONResponse({"player": player_data(player), "token": token})

    async def healthz(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        try:
            await runtime.client.ping()
        except (RedisError, OSError) as error:
            return PlainTextResponse(f"redis unreachable: {error}\n", status_code=503)
        return PlainTextResponse("ok\n")

    async def metrics(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        return PlainTextResponse(runtime.metrics.render(), media_type="text/plain; version=0.0.4")

    routes = [
        WebSocketRoute("/ws", _AsgiEndpoint(websocket_endpoint)),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Mount("/", StaticFiles(directory=settings.static_dir, html=True, check_dir=False)),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


class _AsgiEndpoint:
    """Marks a coroutine as a raw ASGI app for Starlette's router (which wraps functions)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
