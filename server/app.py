"""The Starlette application: routes, and the lifespan that owns the Redis client and fan-out.

``/ws`` is the one websocket for players and spectators (``?token=`` authenticates it);
``POST /api/guest`` makes a guest and a session token, ``POST /api/register`` and
``POST /api/login`` do the same for accounts; ``GET /api/games`` lists the games and their
option flags; ``GET /api/players/<id>/games`` is a player's finished games and
``GET /api/rooms/<id>/record.json`` (or ``.txt``, with tags) a game's record,
``GET /api/rooms/<id>/positions/<n>`` its position after n moves, and
``POST /api/records`` views an imported record; ``GET /api/tournaments``
lists events, ``POST /api/tournaments`` creates one, ``GET /api/tournaments/<id>`` is one with
its standings, and ``POST /api/tournaments/<id>/join`` (``/withdraw``) enters or leaves it
(the POSTs authenticate with ``Authorization: Bearer <token>``; a bad or missing token
answers 401); ``GET /healthz`` checks Redis; ``GET /metrics`` is Prometheus text; the rules
pages, their figures, the front page's positions and the option check are :mod:`server.site`'s
routes; everything else is the static browser client.

Every POST body is read by :func:`_read` into a type of :mod:`server.bodies`.  The client's
address (for the per-address limits on logins, registrations and guests) is the peer's, or
the one ``X-Forwarded-For`` names when the peer is in ``TRUSTED_PROXIES``.  A websocket
handshake from a page of another origin than the server's own (or ``ALLOWED_ORIGINS``) is
refused with 403.  A login or registration sets an HttpOnly ``device`` cookie (path
``/api/login``) that lets this device's later logins to the account skip the name's delay.
The composition root: imports Starlette, redis and the other server modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import redis.asyncio as aioredis
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from lobby import attempt_store, rating_store
from lobby import store as lobby_store
from lobby.accounts import LoginLimits, name_key
from lobby.attempt_store import Window
from lobby.bot_strength import read_strength
from lobby.challenges import ChallengeLimits
from lobby.clocks import time_control_text
from lobby.errors import LobbyError
from lobby.games import view_record
from lobby.identity import (
    DEVICE_TTL_SECONDS,
    BadTokenError,
    KnownDevice,
    Player,
    issue_device_token,
    issue_token,
    verify_device_token,
)
from lobby.ratings import COMPUTER_POOL_SUFFIX
from lobby.tournaments import TournamentError
from lobby.work_pool import WorkPool
from rules import GAMES
from rules.api import Seat, describe_flags
from rules.record import Record, record_text
from server import bodies, clock_store, replay, site, store
from server.auth import (
    NoCredentialsError,
    NotAuthenticatedError,
    authenticate,
    guest_session,
    player_data,
)
from server.bodies import Credentials, Empty, ImportedRecord, NewTournament
from server.connection import Connection
from server.errors import ClientError, UnknownRoomError, error_code
from server.fanout import Fanout
from server.lobby_service import LobbyService, lobby_error_status
from server.metrics import Metrics
from server.protocol import CloseCode, ErrorCode
from server.rooms import IdleLimits, Room, starting_seats
from server.service import RoomService
from server.settings import Settings
from server.tournament_service import TournamentService, details, tournament_error_status

DEVICE_COOKIE = "device"
"""The cookie that makes a browser a known device of the account it last signed in to."""


@dataclass
class Runtime:
    """What the lifespan builds and the handlers use."""

    client: aioredis.Redis
    secret: bytes
    service: RoomService
    fanout: Fanout
    metrics: Metrics
    connections: set[Connection]
    lobby: LobbyService
    tournaments: TournamentService
    hash_pool: WorkPool
    replay_pool: WorkPool
    """Where imported records replay through the rules (``POST /api/records``)."""


def create_app(settings: Settings) -> Starlette:
    """The app for ``settings``; Redis must be reachable at ``settings.redis_url``."""
    if settings.redis_url is None:
        raise ValueError("create_app needs settings.redis_url (python -m server starts one)")
    redis_url = settings.redis_url
    computer_strength = read_strength()
    login_limits = LoginLimits(
        per_address=settings.login_per_address,
        window=settings.login_window,
        free_attempts=settings.login_free_attempts,
        first_delay=settings.login_first_delay,
        max_delay=settings.login_max_delay,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        client = store.redis_client(redis_url, settings.redis_pool_size)
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
        idle_limits = IdleLimits(
            unstarted=settings.idle_unstarted_seconds,
            unstarted_correspondence=settings.idle_unstarted_correspondence_seconds,
            untimed=settings.idle_untimed_seconds,
        )
        service = RoomService(
            client,
            fanout,
            metrics,
            process_id,
            settings.diff_history,
            idle_limits=idle_limits,
            count_every=settings.count_commit_seconds,
            presence_lease=settings.presence_lease_seconds,
        )
        service_ref.append(service)
        limits = ChallengeLimits(
            max_open=settings.challenges_per_player,
            lifetime=settings.challenge_lifetime,
            max_playing=settings.games_in_progress,
            max_started=settings.games_per_hour,
            max_per_address=settings.made_per_address_per_hour,
        )
        lobby = LobbyService(
            client,
            service,
            limits,
            sweep_every=settings.lobby_sweep_seconds,
            presence_ttl=settings.presence_ttl,
            drain_every=settings.lobby_drain_seconds,
            live_limit=settings.lobby_live_limit,
        )
        tournaments = TournamentService(client, step_every=settings.tournament_step_seconds)
        tournaments.rooms = service

        def on_commit(room: Room, events: tuple[object, ...]) -> None:
            lobby.room_changed(room, events)
            tournaments.room_changed(room, events)

        service.on_commit = on_commit
        hash_pool = WorkPool(settings.hash_workers, settings.hash_waiting)
        replay_pool = WorkPool(
            REPLAY_WORKERS,
            REPLAY_WAITING,
            busy="the server is busy replaying records: try again in a second",
            name="record-replay",
        )
        runtime = Runtime(
            client,
            secret,
            service,
            fanout,
            metrics,
            set(),
            lobby,
            tournaments,
            hash_pool,
            replay_pool,
        )
        app.state.runtime = runtime
        adjudicator = clock_store.Adjudicator(service)
        await fanout.start()
        await lobby.start()
        adjudicator.start()
        service.presence.start()
        await tournaments.start()
        try:
            yield
        finally:
            try:
                for connection in list(runtime.connections):
                    await connection.shut(CloseCode.GOING_AWAY)
                # Each socket leaves its rooms, the lobby and the pools through Redis as it
                # ends: the client stays open until they are done (or SHUT_WAIT has passed).
                deadline = time.monotonic() + SHUT_WAIT
                while runtime.connections and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
            finally:
                # The lobby's sweep must stop whatever happened above: left running, it would
                # keep expiring challenges and presence on this Redis.
                await adjudicator.stop()
                await tournaments.stop()
                await lobby.stop()
            await fanout.stop()
            hash_pool.shutdown()
            replay_pool.shutdown()
            await service.aclose()
            await client.aclose(close_connection_pool=True)

    async def websocket_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        """The websocket as a plain ASGI app: each diff sent is one ASGI message, no more."""
        runtime: Runtime = scope["app"].state.runtime
        if (await receive())["type"] != "websocket.connect":
            return
        if not _origin_allowed(scope, settings.allowed_origins):
            # Closing before accepting answers the handshake 403: a page from another site
            # may not play in its visitor's name.
            runtime.metrics.closes[int(CloseCode.POLICY_VIOLATION)] += 1
            await send({"type": "websocket.close", "code": int(CloseCode.POLICY_VIOLATION)})
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
        peer = scope.get("client")  # (host, port), or None where the server does not know
        connection = Connection(
            receive,
            send,
            player,
            runtime.service,
            runtime.metrics,
            settings,
            runtime.lobby,
            runtime.tournaments,
            address=peer[0] if peer else None,
        )
        runtime.connections.add(connection)
        try:
            await connection.run()
        finally:
            runtime.connections.discard(connection)

    async def guest(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        now = time.time()
        try:
            await _read(request, Empty)
            window = Window(
                "guest", _address(request), settings.guests_per_address, settings.guest_window
            )
            await attempt_store.take(runtime.client, [window], now)
        except (LobbyError, ClientError) as error:
            return _error_response(error)
        player, token = guest_session(runtime.secret, now)
        return JSONResponse({"player": player_data(player), "token": token})

    async def register(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        now = time.time()
        window = Window(
            "register",
            _address(request),
            settings.registrations_per_address,
            settings.registration_window,
        )
        try:
            body = await _read(request, Credentials)
            account = await lobby_store.register(
                runtime.client,
                body.name,
                body.password,
                now,
                pool=runtime.hash_pool,
                gates=[window],
            )
        except (LobbyError, ClientError) as error:
            return _error_response(error)
        known = KnownDevice(name_key(body.name), secrets.token_hex(8))
        return _signed_in(request, runtime.secret, account.player, known, now)

    async def login(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        now = time.time()
        try:
            body = await _read(request, Credentials)
            device = _known_device(request, runtime.secret, body.name, now)
            player = await lobby_store.login(
                runtime.client,
                body.name,
                body.password,
                _address(request),
                now,
                login_limits,
                device=None if device is None else device.id,
                pool=runtime.hash_pool,
            )
        except (LobbyError, ClientError) as error:
            return _error_response(error)
        known = device or KnownDevice(name_key(body.name), secrets.token_hex(8))
        return _signed_in(request, runtime.secret, player, known, now)

    async def games(request: Request) -> Response:
        return JSONResponse(
            {
                "games": [
                    {
                        "name": rules.NAME,
                        "seats": list(rules.SEAT_NAMES),
                        "flags": describe_flags(rules.FLAGS),
                        "defaults": _defaults(rules.parse_options("")),
                        "computer": computer_strength.get(rules.NAME, {}),
                    }
                    for rules in GAMES.values()
                ]
            }
        )

    async def player_games(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        player_id = request.path_params["player"]
        finished = await lobby_store.finished_games(runtime.client, player_id, 0, 50)
        return JSONResponse({"games": [_summary(g.to_data()) for g in finished]})

    async def ratings(request: Request) -> Response:
        """A game's leaderboard: established players active lately (``?pool=computer`` for the
        games against bots, ``?provisional=1`` to list provisional ratings too)."""
        runtime: Runtime = request.app.state.runtime
        pool = _rating_pool(request)
        if pool is None:
            return _unknown_game_response(request)
        provisional = request.query_params.get("provisional") == "1"
        board = await rating_store.leaderboard(
            runtime.client, pool, time.time(), provisional=provisional
        )
        return JSONResponse({"pool": pool, "leaderboard": board})

    async def player_rating(request: Request) -> Response:
        """One player's rating in a game (``text`` ends in ``?`` while provisional) and the
        rated games that made it, oldest first."""
        runtime: Runtime = request.app.state.runtime
        pool = _rating_pool(request)
        if pool is None:
            return _unknown_game_response(request)
        player_id = request.path_params["player"]
        rating = await rating_store.get_rating(runtime.client, pool, player_id)
        history = await rating_store.history(runtime.client, pool, player_id)
        return JSONResponse(
            {
                "pool": pool,
                "player": player_id,
                "rating": {
                    "rating": rating.rating,
                    "deviation": rating.deviation,
                    "volatility": rating.volatility,
                    "text": rating.text(),
                },
                "provisional": rating.is_provisional,
                "history": history,
            }
        )

    async def record(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        room_id, kind = request.path_params["room"], request.path_params["kind"]
        if kind not in ("json", "txt"):
            return PlainTextResponse("records are record.json or record.txt\n", status_code=404)
        try:
            loaded = await runtime.service.room(room_id)
        except UnknownRoomError as error:
            return _error_response(error)
        if kind == "txt":
            return PlainTextResponse(record_text(room_record(loaded.room)))
        return JSONResponse(record_data(loaded.room))

    async def record_view(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        try:
            body = await _read(request, ImportedRecord)
            game = body.game if isinstance(body.game, str) else None
            ply = body.ply if isinstance(body.ply, int) else None
            return JSONResponse(await runtime.replay_pool.run(view_record, body.text, game, ply))
        except (LobbyError, ClientError) as error:
            return _error_response(error)

    async def position(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        try:
            loaded = await runtime.service.current(request.path_params["room"])
            return JSONResponse(replay.position_data(loaded.room, request.path_params["ply"]))
        except ClientError as error:
            return _error_response(error)

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

    async def tournament_list(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        return JSONResponse(await runtime.tournaments.listing())

    async def tournament_create(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        try:
            player = _bearer(request, runtime.secret)
            body = await _read(request, NewTournament)
            created = await runtime.tournaments.create(player, body.settings())
        except (LobbyError, ClientError, TournamentError, NotAuthenticatedError) as error:
            return _error_response(error)
        return JSONResponse(details(created))

    async def tournament_get(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        try:
            found = await runtime.tournaments.get(request.path_params["tournament"])
        except TournamentError as error:
            return _error_response(error)
        return JSONResponse(details(found))

    async def tournament_entry(request: Request) -> Response:
        runtime: Runtime = request.app.state.runtime
        tournament_id, action = request.path_params["tournament"], request.path_params["action"]
        service = runtime.tournaments
        try:
            player = _bearer(request, runtime.secret)
            await _read(request, Empty)
            if action == "join":
                changed = await service.join(player, tournament_id)
            elif action == "withdraw":
                changed = await service.withdraw(player, tournament_id)
            else:
                return PlainTextResponse("join or withdraw\n", status_code=404)
        except (LobbyError, ClientError, TournamentError, NotAuthenticatedError) as error:
            return _error_response(error)
        return JSONResponse(details(changed))

    routes = [
        WebSocketRoute("/ws", _AsgiEndpoint(websocket_endpoint)),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/games", games),
        Route("/api/players/{player}/games", player_games),
        Route("/api/rooms/{room}/record.{kind:str}", record),
        Route("/api/records", record_view, methods=["POST"]),
        Route("/api/rooms/{room}/positions/{ply:int}", position),
        Route("/api/ratings/{game}", ratings),
        Route("/api/players/{player}/ratings/{game}", player_rating),
        Route("/api/tournaments", tournament_list),
        Route("/api/tournaments", tournament_create, methods=["POST"]),
        Route("/api/tournaments/{tournament}", tournament_get),
        Route("/api/tournaments/{tournament}/{action}", tournament_entry, methods=["POST"]),
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


SHUT_WAIT = 5.0
"""Seconds a shutdown waits for the sockets it closed to finish leaving, before Redis goes."""

REPLAY_WORKERS = 1
REPLAY_WAITING = 8
"""Imported records replay one at a time per process, with at most 8 more waiting; a request
beyond that is refused (429, retry in a second)."""

SITE = "Browne games live"
"""The ``Site`` tag of the records this server writes."""


def room_record(room: Room) -> Record:
    """A game's record with its tags, as PGN has them for chess: the site, the room, the date
    it began (UTC), the game and its options, the players by the colour they ended the game
    with (a swap exchanges colours), whether it was rated, its time control, and its result
    (``1-0`` when the first colour won, ``0-1``, ``1/2-1/2``, ``*`` while it goes on) with
    the reason."""
    names = room.rules.SEAT_NAMES
    tags = [("Site", SITE), ("Room", room.id)]
    if room.created is not None:
        tags.append(("Date", time.strftime("%Y.%m.%d", time.gmtime(room.created))))
    tags += [("Game", room.game), ("Options", room.options)]
    tags += [
        (str(name).title(), holder.name) for name, holder in zip(names, room.seats, strict=True)
    ]
    tags.append(("Rated", "yes" if room.rated else "no"))
    if room.clock is not None:
        tags.append(("TimeControl", time_control_text(room.clock.control) or ""))
    outcome = room.outcome
    if outcome is None:
        tags.append(("Result", "*"))
    else:
        results = {None: "1/2-1/2", Seat.FIRST: "1-0", Seat.SECOND: "0-1"}
        tags += [("Result", results[outcome.winner]), ("Termination", outcome.reason)]
    return Record(tuple(tags), room.record)


def record_data(room: Room) -> dict[str, object]:
    """A game's full record: game, options, seats at the start, moves, outcome.

    ``seats`` are who held each seat before the first move (replaying the moves, swaps
    included, gives ``seats_now``); the moves replay through the rules to the room's state.
    """
    outcome = room.outcome
    return {
        "room": room.id,
        "game": room.game,
        "options": room.options,
        "seats": [{"id": s.id, "name": s.name} for s in starting_seats(room)],
        "seats_now": [{"id": s.id, "name": s.name} for s in room.seats],
        "moves": list(room.record),
        "outcome": None
        if outcome is None
        else {
            "winner": None if outcome.winner is None else int(outcome.winner),
            "reason": outcome.reason,
        },
    }


async def _read(request: Request, kind: type[bodies.Body]) -> bodies.Body:
    """A request's body as ``kind`` (the one way a route reads its body); raises
    BadRequestError.  Reading stops past the size limit."""
    raw = bytearray()
    most = bodies.limit(kind)
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > most:
            break
    return bodies.decode(bytes(raw), kind)


def _address(request: Request) -> str:
    """The client's address (behind a trusted proxy, the one it forwarded for)."""
    return request.client.host if request.client is not None else "unknown"


def _bearer(request: Request, secret: bytes) -> Player:
    """The player of the request's ``Authorization: Bearer`` token; raises
    NotAuthenticatedError (NoCredentialsError without a token)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NoCredentialsError("sign in first: send Authorization: Bearer <token>")
    try:
        return authenticate(secret, token.strip(), time.time())
    except NotAuthenticatedError as error:
        raise NotAuthenticatedError(f"sign in again: {error}") from error


def _known_device(request: Request, secret: bytes, name: str, now: float) -> KnownDevice | None:
    """The device the request's device cookie proves, if it signed in to ``name`` before."""
    cookie = request.cookies.get(DEVICE_COOKIE)
    if not cookie:
        return None
    try:
        device = verify_device_token(secret, cookie, now)
    except BadTokenError:
        return None
    return device if device.name_key == name_key(name) else None


def _signed_in(
    request: Request, secret: bytes, player: Player, device: KnownDevice, now: float
) -> Response:
    """A session for ``player``, and the cookie that makes this device a known one."""
    response = JSONResponse(
        {"player": player_data(player), "token": issue_token(secret, player, now)}
    )
    response.set_cookie(
        DEVICE_COOKIE,
        issue_device_token(secret, device, now),
        max_age=int(DEVICE_TTL_SECONDS),
        path="/api/login",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


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


def _error_response(
    error: LobbyError | ClientError | TournamentError | NotAuthenticatedError,
) -> JSONResponse:
    """A refusal as JSON with its wire code and an HTTP status."""
    headers = {}
    if isinstance(error, NotAuthenticatedError):
        status, code = 401, ErrorCode.BAD_CREDENTIALS
        given = not isinstance(error, NoCredentialsError)
        headers["WWW-Authenticate"] = 'Bearer error="invalid_token"' if given else "Bearer"
    else:
        status, code = _status(error), error_code(error)
    retry = getattr(error, "retry_after", None)
    if retry is not None:
        headers["Retry-After"] = str(max(1, int(retry + 0.999)))
    return JSONResponse(
        {"code": code.value, "message": str(error)}, status_code=status, headers=headers
    )


def _status(error: LobbyError | ClientError | TournamentError) -> int:
    if isinstance(error, TournamentError):
        return tournament_error_status(error)
    if isinstance(error, LobbyError):
        return lobby_error_status(error)
    return 404 if isinstance(error, UnknownRoomError) else 400


def _defaults(options: object) -> dict[str, object]:
    """A game's default options by field, so a form can start from them and send only
    changes."""
    assert dataclasses.is_dataclass(options)
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def _summary(data: dict[str, object]) -> dict[str, object]:
    """A finished game for a list: everything but the record, and its length."""
    moves = data.pop("record")
    data["moves"] = len(moves) if isinstance(moves, list) else 0
    return data


class _AsgiEndpoint:
    """Marks a coroutine as a raw ASGI app for Starlette's router (which wraps functions)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def _rating_pool(request: Request) -> str | None:
    """The rating pool a ratings request names, or None for a game that is not registered."""
    game = request.path_params["game"]
    if game not in GAMES:
        return None
    computer = request.query_params.get("pool") == "computer"
    return game + COMPUTER_POOL_SUFFIX if computer else game


def _unknown_game_response(request: Request) -> Response:
    game = request.path_params["game"]
    return JSONResponse(
        {"code": "unknown_game", "message": f"no game is called {game!r}"}, status_code=404
    )
