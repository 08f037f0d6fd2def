"""Computer analysis of finished games over HTTP: ask for it, then read it.

``POST /api/rooms/<id>/analysis`` (signed in: ``Authorization: Bearer``) queues the analysis of
a finished game for the analysts (``python -m bots.analyst``) and answers the room's entry:
``{"status": "queued"}``, or the analysis already made (a game is analysed once); 404 for an
unknown room, 409 for a game still being played, 429 while the queue is full.  ``GET`` answers
``{"status": "none" | "queued" | "done" | "failed", "plies": [...]}`` (see
:mod:`bots.analysis` for a ply's fields).  The searches never run here: this module only reads
and writes the Redis keys of :mod:`lobby.store.analyses`.  Imports Starlette, the routes'
helpers (:mod:`server.web`) and the wire's errors.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lobby.store import analyses
from protocol.errors import ClientError, GameNotOverError, RateLimitedError
from server.web import bearer, error_response, runtime_of

RETRY_SECONDS = 30
"""What a refusal for a full queue tells the client to wait."""


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [Route("/api/rooms/{room}/analysis", analysis, methods=["GET", "POST"])]


async def analysis(request: Request) -> Response:
    runtime = runtime_of(request)
    room_id = request.path_params["room"]
    try:
        if request.method == "POST":
            bearer(request, runtime.secret)
        room = (await runtime.service.current(room_id)).room
        if request.method == "GET":
            return JSONResponse(_answer(await analyses.status(runtime.client, room.id)))
        if room.outcome is None:
            raise GameNotOverError("only a finished game can be analysed")
        job = analyses.AnalysisJob(room.id, room.game, room.options, tuple(room.record))
        try:
            entry = await analyses.request(runtime.client, job)
        except analyses.QueueFullError as error:
            raise RateLimitedError(f"{error}: try again later", RETRY_SECONDS) from error
    except ClientError as error:
        return error_response(error)
    return JSONResponse(_answer(entry))


def _answer(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as the routes answer it: always with its plies (none until done)."""
    return {"plies": [], **entry}
