"""Signing in: guests, accounts and bot accounts.

``POST /api/guest`` makes a guest and a session token, ``POST /api/register`` and
``POST /api/login`` do the same for accounts (a registration sent with a guest's session
takes over the guest's finished games), and ``POST /api/bot`` makes the signed-in
account a bot account and gives its program a long-lived token.  A login or registration sets
an HttpOnly ``device`` cookie (path ``/api/login``) that lets this device's later logins to
the account skip the name's delay.  Imports Starlette, the lobby's account store, limits and
tokens.
"""

from __future__ import annotations

import secrets
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lobby.accounts import name_key
from lobby.identity import (
    BOT_TOKEN_TTL_SECONDS,
    DEVICE_TTL_SECONDS,
    BadTokenError,
    KnownDevice,
    Player,
    issue_device_token,
    issue_token,
    player_data,
    verify_device_token,
)
from lobby.store import accounts as account_store
from lobby.store import attempts as attempt_store
from lobby.store import games as game_store
from lobby.store.attempts import Window
from protocol.errors import ClientError, NotAuthenticatedError
from server.auth import guest_session
from server.bodies import Credentials, Empty
from server.web import bearer, client_address, error_response, read_body, runtime_of

DEVICE_COOKIE = "device"
"""The cookie that makes a browser a known device of the account it last signed in to."""


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/bot", bot_token, methods=["POST"]),
    ]


async def guest(request: Request) -> Response:
    runtime = runtime_of(request)
    settings = runtime.settings
    now = time.time()
    try:
        await read_body(request, Empty)
        window = Window(
            "guest", client_address(request), settings.guests_per_address, settings.guest_window
        )
        await attempt_store.take(runtime.client, [window], now)
    except ClientError as error:
        return error_response(error)
    player, token = guest_session(runtime.secret, now)
    return JSONResponse({"player": player_data(player), "token": token})


async def register(request: Request) -> Response:
    runtime = runtime_of(request)
    settings = runtime.settings
    now = time.time()
    window = Window(
        "register",
        client_address(request),
        settings.registrations_per_address,
        settings.registration_window,
    )
    try:
        body = await read_body(request, Credentials)
        account = await account_store.register(
            runtime.client, body.name, body.password, now, pool=runtime.hash_pool, gates=[window]
        )
    except ClientError as error:
        return error_response(error)
    guest = _guest_of(request, runtime.secret)
    if guest is not None:  # registering from a guest's session keeps their games
        await game_store.adopt_finished_games(runtime.client, guest, account.player)
    known = KnownDevice(name_key(body.name), secrets.token_hex(8))
    return _signed_in(request, runtime.secret, account.player, known, now)


def _guest_of(request: Request, secret: bytes) -> Player | None:
    """The guest whose session a request carries (``Authorization: Bearer``), if any: an
    account made from it takes over their finished games.  Anything else is no guest."""
    try:
        player = bearer(request, secret)
    except NotAuthenticatedError:
        return None
    return player if player.guest else None


async def login(request: Request) -> Response:
    runtime = runtime_of(request)
    now = time.time()
    try:
        body = await read_body(request, Credentials)
        device = _known_device(request, runtime.secret, body.name, now)
        player = await account_store.login(
            runtime.client,
            body.name,
            body.password,
            client_address(request),
            now,
            runtime.login_limits,
            device=None if device is None else device.id,
            pool=runtime.hash_pool,
        )
    except ClientError as error:
        return error_response(error)
    known = device or KnownDevice(name_key(body.name), secrets.token_hex(8))
    return _signed_in(request, runtime.secret, player, known, now)


async def bot_token(request: Request) -> Response:
    """Makes the signed-in account a bot account (for good) and gives its program a token
    that lasts :data:`BOT_TOKEN_TTL_SECONDS`."""
    runtime = runtime_of(request)
    try:
        player = bearer(request, runtime.secret)
        await read_body(request, Empty)
        await account_store.make_bot(runtime.client, player)
    except ClientError as error:
        return error_response(error)
    now = time.time()
    token = issue_token(runtime.secret, player, now, ttl=BOT_TOKEN_TTL_SECONDS)
    expires = int(now + BOT_TOKEN_TTL_SECONDS)
    return JSONResponse({"player": player_data(player), "token": token, "expires": expires})


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
