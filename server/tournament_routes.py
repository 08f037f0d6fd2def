"""Tournaments over HTTP: the list, one event with its standings, creating, joining and
withdrawing.

``GET /api/tournaments`` lists events, ``POST /api/tournaments`` creates one,
``GET /api/tournaments/<id>`` is one with its standings, and ``POST
/api/tournaments/<id>/join`` (``/withdraw``) enters or leaves it; the POSTs authenticate with
``Authorization: Bearer <token>`` (a bad or missing token answers 401).  The runtime's
:class:`~server.tournament_service.TournamentService` decides; imports Starlette.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from protocol.errors import ClientError, TournamentError
from server.bodies import Empty, NewTournament
from server.tournament_service import details
from server.web import bearer, error_response, read_body, runtime_of


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/tournaments", tournament_list),
        Route("/api/tournaments", tournament_create, methods=["POST"]),
        Route("/api/tournaments/{tournament}", tournament_get),
        Route("/api/tournaments/{tournament}/{action}", tournament_entry, methods=["POST"]),
    ]


async def tournament_list(request: Request) -> Response:
    runtime = runtime_of(request)
    return JSONResponse(await runtime.tournaments.listing())


async def tournament_create(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        player = bearer(request, runtime.secret)
        body = await read_body(request, NewTournament)
        created = await runtime.tournaments.create(player, body.settings())
    except ClientError as error:
        return error_response(error)
    return JSONResponse(details(created))


async def tournament_get(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        found = await runtime.tournaments.get(request.path_params["tournament"])
    except TournamentError as error:
        return error_response(error)
    return JSONResponse(details(found))


async def tournament_entry(request: Request) -> Response:
    runtime = runtime_of(request)
    tournament_id, action = request.path_params["tournament"], request.path_params["action"]
    service = runtime.tournaments
    try:
        player = bearer(request, runtime.secret)
        await read_body(request, Empty)
        if action == "join":
            changed = await service.join(player, tournament_id)
        elif action == "withdraw":
            changed = await service.withdraw(player, tournament_id)
        else:
            return PlainTextResponse("join or withdraw\n", status_code=404)
    except ClientError as error:
        return error_response(error)
    return JSONResponse(details(changed))
