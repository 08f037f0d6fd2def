"""Computer analysis of finished games over HTTP: ask for it, then read it.

``POST /api/rooms/<id>/analysis`` (signed in: ``Authorization: Bearer``) queues the analysis of
a finished game for the analysts (``python -m bots.analyst``) and answers the room's entry:
``{"status": "queued"}``, or the analysis already made (a game is analysed once); 404 for an
unknown room, 409 for a game still being played, 429 while the queue is full.  ``GET`` answers
``{"status": "none" | "queued" | "done" | "failed", "plies": [...]}`` (see
:mod:`bots.analysis` for a ply's fields).  The searches never run here: this module only reads
and writes the Redis keys of :mod:`lobby.store.analyses`.  Imports Starlette, the server's
auth, and the wire's errors.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lobby.store import analyses
from protocol.errors import (
    ClientError,
    ErrorCode,
    NoCredentialsError,
    NotAuthenticatedError,
    error_code,
    http_status,
)
from server.auth import authenticate

RETRY_SECONDS = 30
"""What a refusal for a full queue tells the client to wait."""


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [Route("/api/rooms/{room}/analysis", analysis, methods=["GET", "POST"])]


async def analysis(request: Request) -> Response:
    runtime = request.app.state.runtime
    room_id = request.path_params["room"]
    try:
        if request.method == "POST":
            _bearer_player(request, runtime.secret)
        loaded = await runtime.service.current(room_id)
    except ClientError as error:
        return _refusal(error_code(error).value, str(error), http_status(error))
    room = loaded.room
    if request.method == "GET":
        return JSONResponse(_answer(await analyses.status(runtime.client, room.id)))
    if room.outcome is None:
        return _refusal(ErrorCode.GAME_NOT_OVER.value, "only a finished game can be analysed", 409)
    job = analyses.AnalysisJob(room.id, room.game, room.options, tuple(room.record))
    try:
        entry = await analyses.request(runtime.client, job)
    except analyses.QueueFullError as error:
        response = _refusal(ErrorCode.RATE_LIMITED.value, f"{error}: try again later", 429)
        response.headers["Retry-After"] = str(RETRY_SECONDS)
        return response
    return JSONResponse(_answer(entry))


def _bearer_player(request: Request, secret: bytes) -> None:
    """Raises NotAuthenticatedError unless the request carries a valid session token."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise NoCredentialsError("sign in first: send Authorization: Bearer <token>")
    try:
        authenticate(secret, token.strip(), time.time())
    except NotAuthenticatedError as error:
        raise NotAuthenticatedError(f"sign in again: {error}") from error


def _answer(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as the routes answer it: always with its plies (none until done)."""
    return {"plies": [], **entry}


def _refusal(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)
