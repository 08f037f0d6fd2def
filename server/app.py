"""The Starlette application: its routes and the lifespan that composes the process's parts.

``/ws`` is the one websocket for players and spectators (``?token=`` authenticates it); the
HTTP routes live in modules by area, each with a ``routes()`` list: signing in
(:mod:`server.account_routes`), games, records and positions (:mod:`server.room_routes`),
ratings (:mod:`server.rating_routes`), tournaments (:mod:`server.tournament_routes`),
notifications (:mod:`server.push_routes`), and the pages around the games
(:mod:`server.site`); ``GET /healthz`` checks Redis; ``GET /metrics`` is Prometheus text;
everything else is the static browser client.  The lifespan builds the parts once
(:func:`server.composition.compose`) and keeps them in ``app.state.runtime``, where every
handler reads them.

A websocket handshake from a page of another origin than the server's own (or
``ALLOWED_ORIGINS``) is refused with 403.  The composition root: imports Starlette, redis and
the other server modules.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from lobby.store import secrets as secret_store
from protocol.errors import CloseCode, NotAuthenticatedError, close_code
from server import (
    account_routes,
    composition,
    push_routes,
    rating_routes,
    room_routes,
    site,
    tournament_routes,
)
from server.auth import authenticate
from server.composition import Runtime
from server.connection import Connection
from server.redis import renames, store
from server.redis.cluster import Durability, cluster_enabled, has_waitaof
from server.settings import Settings
from server.web import runtime_of
from server.websocket_protocol import frame_writer


def create_app(settings: Settings) -> Starlette:
    """The app for ``settings``; Redis must be reachable at ``settings.redis_url``."""
    if settings.redis_url is None:
        raise ValueError("create_app needs settings.redis_url (python -m server starts one)")
    redis_url = settings.redis_url

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        cluster = settings.redis_cluster
        if cluster is None:
            cluster = await cluster_enabled(redis_url)
        client = store.redis_client(redis_url, settings.redis_pool_size, cluster)
        if not cluster:  # a cluster is a new deployment: nothing to rename
            await renames.rename_old_keys(client)
        durability = Durability(
            settings.redis_replica_acks,
            settings.redis_replica_timeout,
            settings.redis_replica_wait,
            waitaof=settings.redis_replica_acks == 0 or await has_waitaof(client),
        )
        secret = settings.session_secret or await secret_store.session_secret(
            client, secrets.token_bytes(32)
        )
        runtime = composition.compose(settings, client, secret, durability)
        app.state.runtime = runtime
        await composition.start(runtime)
        try:
            yield
        finally:
            await composition.stop(runtime)

    routes: list[BaseRoute] = [
        WebSocketRoute("/ws", _AsgiEndpoint(websocket_endpoint)),
        *account_routes.routes(),
        *room_routes.routes(),
        *rating_routes.routes(),
        *tournament_routes.routes(),
        *push_routes.routes(),
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        *site.routes(),
        Mount("/", StaticFiles(directory=settings.static_dir, html=True, check_dir=False)),
    ]
    # The client's address comes from X-Forwarded-For only when the peer is a trusted proxy
    # (the rightmost address no trusted proxy added is the client's).
    middleware = (
        [Middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))]
        if settings.trusted_proxies
        else []
    )
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware)


async def websocket_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """The websocket as a plain ASGI app: each diff sent is one ASGI message, no more."""
    runtime: Runtime = scope["app"].state.runtime
    if (await receive())["type"] != "websocket.connect":
        return
    if not _origin_allowed(scope, runtime.settings.allowed_origins):
        # Closing before accepting answers the handshake 403: a page from another site may
        # not play in its visitor's name.
        runtime.metrics.closes[int(CloseCode.POLICY_VIOLATION)] += 1
        await send({"type": "websocket.close", "code": int(CloseCode.POLICY_VIOLATION)})
        return
    await send({"type": "websocket.accept"})
    tokens = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    try:
        player = authenticate(runtime.secret, tokens[0] if tokens else None, time.time())
    except NotAuthenticatedError as error:
        code = int(close_code(error))
        runtime.metrics.closes[code] += 1
        await send({"type": "websocket.close", "code": code, "reason": str(error)[:120]})
        return
    peer = scope.get("client")  # (host, port), or None where the server does not know
    connection = Connection(
        receive,
        send,
        player,
        runtime.service,
        runtime.metrics,
        runtime.settings,
        runtime.lobby,
        runtime.tournaments,
        address=peer[0] if peer else None,
        write_binary=frame_writer(scope),
    )
    runtime.connections.add(connection)
    try:
        await connection.run()
    finally:
        runtime.connections.discard(connection)


async def healthz(request: Request) -> Response:
    try:
        await runtime_of(request).client.ping()
    except (RedisError, OSError) as error:
        return PlainTextResponse(f"redis unreachable: {error}\n", status_code=503)
    return PlainTextResponse("ok\n")


async def metrics(request: Request) -> Response:
    text = runtime_of(request).metrics.render()
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


def _origin_allowed(scope: Scope, allowed: tuple[str, ...]) -> bool:
    """Whether a websocket handshake may go on: without an Origin (bots, command lines send
    none), from a page of this server's own host, or from a configured origin."""
    headers = dict(scope["headers"])
    origin = headers.get(b"origin")
    if origin is None:
        return True
    text = origin.decode("latin-1").strip().lower().rstrip("/")
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    return text in allowed or (bool(host) and urlsplit(text).netloc == host)


class _AsgiEndpoint:
    """Marks a coroutine as a raw ASGI app for Starlette's router (which wraps functions)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
