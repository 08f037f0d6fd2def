"""What every HTTP route shares: the runtime, the request body, the client's address, the
bearer token, and refusals as JSON.

Every POST body is read by :func:`read_body` into a type of :mod:`server.bodies`.  The
client's address (for the per-address limits on logins, registrations and guests) is the
peer's, or the one ``X-Forwarded-For`` names when the peer is in ``TRUSTED_PROXIES`` (the
app's middleware rewrites it).  Imports Starlette, the wire's errors and the session tokens.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse

from lobby.identity import Player
from protocol.errors import (
    ClientError,
    NoCredentialsError,
    NotAuthenticatedError,
    RateLimitedError,
    error_code,
    http_status,
)
from server import bodies
from server.auth import authenticate
from server.composition import Runtime


def runtime_of(request: Request) -> Runtime:
    """The parts of this process, as the app's lifespan composed them."""
    runtime: Runtime = request.app.state.runtime
    return runtime


async def read_body(request: Request, kind: type[bodies.Body]) -> bodies.Body:
    """A request's body as ``kind`` (the one way a route reads its body); raises
    BadRequestError.  Reading stops past the size limit."""
    raw = bytearray()
    most = bodies.limit(kind)
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > most:
            break
    return bodies.decode(bytes(raw), kind)


def client_address(request: Request) -> str:
    """The client's address (behind a trusted proxy, the one it forwarded for)."""
    return request.client.host if request.client is not None else "unknown"


def bearer(request: Request, secret: bytes) -> Player:
    """The player of the request's ``Authorization: Bearer`` token; raises
    NotAuthenticatedError (NoCredentialsError without a token)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NoCredentialsError("sign in first: send Authorization: Bearer <token>")
    try:
        return authenticate(secret, token.strip(), time.time())
    except NotAuthenticatedError as error:
        raise NotAuthenticatedError(f"sign in again: {error}") from error


def error_response(error: ClientError) -> JSONResponse:
    """A refusal as JSON with its wire code and HTTP status."""
    headers = {}
    if isinstance(error, NotAuthenticatedError):
        given = not isinstance(error, NoCredentialsError)
        headers["WWW-Authenticate"] = 'Bearer error="invalid_token"' if given else "Bearer"
    if isinstance(error, RateLimitedError) and error.retry_after is not None:
        headers["Retry-After"] = str(max(1, int(error.retry_after + 0.999)))
    return JSONResponse(
        {"code": error_code(error).value, "message": str(error)},
        status_code=http_status(error),
        headers=headers,
    )
