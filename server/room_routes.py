"""The games and their records: the games with their options, a room's record and its
positions, a player's finished games, and imported records.

``GET /api/games`` lists the games and their option flags; ``GET /api/players/<id>/games`` is
a player's finished games; ``GET /api/rooms/<id>/record.json`` (or ``.txt``, with tags) a
game's record, ``GET /api/rooms/<id>/positions/<n>`` its position after n moves; and
``POST /api/records`` views an imported record, replayed through the rules in the runtime's
replay pool.  Imports Starlette, :mod:`rules`, the lobby's game store and records, and the
room service through the runtime.
"""

from __future__ import annotations

import dataclasses
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from lobby import bot_strength
from lobby.clocks import time_control_text
from lobby.games import view_record
from lobby.store import games as game_store
from protocol.errors import ClientError, UnknownRoomError
from rules import GAMES
from rules.api import Seat, describe_flags
from rules.record import Record, record_text
from server import replay
from server.bodies import ImportedRecord
from server.rooms import Room, starting_seats
from server.web import error_response, read_body, runtime_of

SITE = "Browne games live"
"""The ``Site`` tag of the records this server writes."""


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/games", games),
        Route("/api/players/{player}/games", player_games),
        Route("/api/rooms/{room}/record.{kind:str}", record),
        Route("/api/records", record_view, methods=["POST"]),
        Route("/api/rooms/{room}/positions/{ply:int}", position),
    ]


async def games(request: Request) -> Response:
    return JSONResponse(
        {
            "games": [
                {
                    "name": rules.NAME,
                    "seats": list(rules.SEAT_NAMES),
                    "flags": describe_flags(rules.FLAGS),
                    "defaults": _defaults(rules.parse_options("")),
                    "computer": bot_strength.measured().get(rules.NAME, {}),
                }
                for rules in GAMES.values()
            ]
        }
    )


async def player_games(request: Request) -> Response:
    runtime = runtime_of(request)
    player_id = request.path_params["player"]
    finished = await game_store.finished_games(runtime.client, player_id, 0, 50)
    return JSONResponse({"games": [_summary(g.to_data()) for g in finished]})


async def record(request: Request) -> Response:
    runtime = runtime_of(request)
    room_id, kind = request.path_params["room"], request.path_params["kind"]
    if kind not in ("json", "txt"):
        return PlainTextResponse("records are record.json or record.txt\n", status_code=404)
    try:
        loaded = await runtime.service.room(room_id)
    except UnknownRoomError as error:
        return error_response(error)
    if kind == "txt":
        return PlainTextResponse(record_text(room_record(loaded.room)))
    return JSONResponse(record_data(loaded.room))


async def record_view(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        body = await read_body(request, ImportedRecord)
        game = body.game if isinstance(body.game, str) else None
        ply = body.ply if isinstance(body.ply, int) else None
        return JSONResponse(await runtime.replay_pool.run(view_record, body.text, game, ply))
    except ClientError as error:
        return error_response(error)


async def position(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        loaded = await runtime.service.current(request.path_params["room"])
        return JSONResponse(replay.position_data(loaded.room, request.path_params["ply"]))
    except ClientError as error:
        return error_response(error)


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
