"""The ratings: each game's leaderboard and one player's rating with its history.

``GET /api/ratings/<game>`` is a game's leaderboard (``?pool=computer`` for the games against
bots, ``?provisional=1`` with provisional ratings too); ``GET /api/players/<id>/ratings/<game>``
one player's rating and the rated games that made it.  Imports Starlette, :mod:`rules` (the
games' names) and the lobby's rating store.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lobby.ratings import COMPUTER_POOL_SUFFIX
from lobby.store import ratings as rating_store
from protocol.errors import UnknownGameError
from rules import GAMES
from server.web import error_response, runtime_of


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/ratings/{game}", ratings),
        Route("/api/players/{player}/ratings/{game}", player_rating),
    ]


async def ratings(request: Request) -> Response:
    """A game's leaderboard: established players active lately (``?pool=computer`` for the
    games against bots, ``?provisional=1`` to list provisional ratings too)."""
    runtime = runtime_of(request)
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
    runtime = runtime_of(request)
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


def _rating_pool(request: Request) -> str | None:
    """The rating pool a ratings request names, or None for a game that is not registered."""
    game: str = request.path_params["game"]
    if game not in GAMES:
        return None
    computer = request.query_params.get("pool") == "computer"
    return game + COMPUTER_POOL_SUFFIX if computer else game


def _unknown_game_response(request: Request) -> Response:
    game = request.path_params["game"]
    return error_response(UnknownGameError(f"no game is called {game!r}"))
