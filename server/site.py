"""The pages around the games: the rules pages rendered from ``docs/rules``, their figures, a
position of each game for the front page, and the players' pages.

``GET /api/rules`` lists the pages; ``GET /api/rules/<page>`` is one page as HTML (rendered once
per process from the project's own Markdown, with markdown-it-py: a CommonMark renderer with
tables, so the pages read exactly as they do in the repository) and ``GET
/api/rules/<game>/example`` its worked example position by position; ``GET
/rules/figures/<name>.svg`` is a figure the engines drew; ``GET /api/showcase`` is, for each
game, the plain data of a position a few moves in, which the front page draws with the game
page's own drawing code; ``GET /api/games/<game>/options?text=`` checks an option text with the
rules (its canonical form, or 400 with the reason); ``GET /api/players/<id>`` is a player's page
(ratings in each game, games now, recent games); ``GET /api/pools`` how many wait in each
quick-pairing pool; ``GET /api/games/finished`` searches the finished games by player, game and
days, a page at a time (newest first, with ratings and their change). In the rendered pages,
links between the pages become the site's addresses (``#/rules/<page>/<heading>``), figures
point at the figure route, and links to anything else (repository files, other sites) become
plain text: the site links only to itself. Imports markdown-it-py, Starlette, :mod:`rules`, the
lobby's option check, stores and ratings, and the wire's error codes; holds no state but its
caches.
"""

from __future__ import annotations

import functools
import random
import re
import time
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from lobby.archive import BadQueryError, parse_query
from lobby.challenges import canonical_options
from lobby.games import FinishedGame, LiveGame, scores_by_opponent
from lobby.identity import player_data
from lobby.ratings import BOT_ID_PREFIX, Rating, rating_pool
from lobby.store import accounts as account_store
from lobby.store import games as game_store
from lobby.store import pools as pool_store
from lobby.store import ratings as rating_store
from protocol.errors import (
    BadOptionsError,
    ClientError,
    UnknownPlayerError,
    error_code,
    http_status,
)
from protocol.messages import MAX_TEXT_LENGTH
from rules import GAMES
from rules.drawing import worked_example
from server import analysis_routes

RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"
PAGES = ("boche", "che", "osbox", "ankor", "marque", "pyramid")
"""The rules pages the site shows: one per game, and the board Boche and Ankor share."""
SHOWCASE_PLIES = {"boche": 14, "che": 6, "osbox": 10, "ankor": 12, "marque": 16}
"""Moves played into each front-page position: enough to show pieces, not a finished game."""
RECENT_GAMES = 20
"""Finished games a player's page lists (the newest)."""
SCORED_GAMES = 200
"""A player's page counts wins, draws and losses against each opponent over this many of
their newest finished games."""
_FIGURE_NAME = re.compile(r"[a-z]+(-[a-z]+)*")


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/rules", rules_index),
        Route("/api/rules/{page}", rules_page),
        Route("/api/rules/{page}/example", rules_example),
        Route("/rules/figures/{name}.svg", figure),
        Route("/api/showcase", showcase),
        Route("/api/games/{game}/options", check_options),
        Route("/api/players/{player}", player_page),
        Route("/api/pools", pool_counts),
        Route("/api/games/finished", finished_games),
        *analysis_routes.routes(),
    ]


async def rules_index(request: Request) -> Response:
    return JSONResponse({"pages": [{"page": p, "title": page_html(p)[0]} for p in PAGES]})


async def rules_page(request: Request) -> Response:
    page = request.path_params["page"]
    if page not in PAGES:
        return JSONResponse(
            {"code": "unknown_page", "message": f"no rules page is called {page!r}"},
            status_code=404,
        )
    title, html = page_html(page)
    return JSONResponse({"page": page, "title": title, "html": html})


async def rules_example(request: Request) -> Response:
    page = request.path_params["page"]
    if page not in GAMES or page not in PAGES:
        return JSONResponse(
            {"code": "unknown_page", "message": f"no game's rules page is called {page!r}"},
            status_code=404,
        )
    return JSONResponse({"game": page, "steps": example_steps(page)})


@functools.cache
def example_steps(game: str) -> list[dict[str, Any]]:
    """The worked example of a game's rules page, position by position, as plain data."""
    return [
        {
            "move": step.move,
            "caption": step.caption,
            "data": step.data,
        }
        for step in worked_example(game)
    ]


async def figure(request: Request) -> Response:
    name = request.path_params["name"]
    path = RULES_DIR / f"{name}.svg"
    if not _FIGURE_NAME.fullmatch(name) or not path.is_file():
        return PlainTextResponse("no such figure\n", status_code=404)
    return FileResponse(path, media_type="image/svg+xml")


async def showcase(request: Request) -> Response:
    return JSONResponse({"games": [{"name": n, "data": d} for n, d in showcase_positions()]})


async def check_options(request: Request) -> Response:
    """Whether ``?text=`` is a valid option text of a game: its canonical form, or 400 with
    the rules' reason (which names the flag), so a form can refuse it before sending."""
    text = request.query_params.get("text", "")
    try:
        if len(text) > MAX_TEXT_LENGTH:
            raise BadOptionsError(f"options of at most {MAX_TEXT_LENGTH} characters")
        name, canonical = canonical_options(request.path_params["game"], text)
    except ClientError as error:
        body = {"code": error_code(error).value, "message": str(error)}
        return JSONResponse(body, status_code=http_status(error))
    return JSONResponse({"game": name, "options": canonical})


async def pool_counts(request: Request) -> Response:
    """How many players wait in each quick-pairing pool now, by pool name
    (``<game>/<time control>/casual|rated``); pools nobody waits in are left out."""
    client = request.app.state.runtime.client
    return JSONResponse({"waiting": await pool_store.waiting(client, time.time())})


async def finished_games(request: Request) -> Response:
    """A page of finished games, newest first: ``?player=`` (id or name), ``game``, ``from``
    and ``to`` (days, UTC), ``before`` (the cursor ``next`` of the previous page) and
    ``limit`` (at most :data:`lobby.archive.MAX_PAGE_SIZE`).  400 names a parameter that
    means nothing; 404 a player name nobody registered (nor online)."""
    client = request.app.state.runtime.client
    try:
        query = parse_query(request.query_params)
        games, cursor = await game_store.search_finished(client, query, time.time())
    except BadQueryError as error:
        return JSONResponse({"code": "bad_request", "message": str(error)}, status_code=400)
    except UnknownPlayerError as error:
        return JSONResponse({"code": "unknown_player", "message": str(error)}, status_code=404)
    lines = await _rated_lines(client, games)
    return JSONResponse({"games": lines, "next": None if cursor is None else cursor.text()})


async def player_page(request: Request) -> Response:
    """A player's page: who they are (and whether a program plays them), their rating in each
    game, the games they play now, their last finished games (newest first, with the winner's
    id) and their wins, draws and losses against each opponent (over their last
    :data:`SCORED_GAMES`); 404 for a player nobody knows (no account, not online, in no game
    kept)."""
    client = request.app.state.runtime.client
    player_id = request.path_params["player"]
    playing = await game_store.current_games(client, player_id)
    scored = await game_store.finished_games(client, player_id, 0, SCORED_GAMES)
    recent = scored[:RECENT_GAMES]
    try:
        player = await account_store.find_player(client, player_id, time.time())
    except UnknownPlayerError:
        games: list[LiveGame | FinishedGame] = [*playing, *recent]
        seen = [p for g in games for p in g.players if p.id == player_id]
        if not seen:
            body = {"code": "unknown_player", "message": f"no player {player_id!r} is known"}
            return JSONResponse(body, status_code=404)
        player = seen[0]
    ratings = {}
    for game in GAMES:
        rating = await rating_store.get_rating(client, game, player_id)
        rated = await rating_store.history(client, game, player_id)
        ratings[game] = {
            "text": rating.text(),
            "provisional": rating.is_provisional,
            "games": len(rated),
        }
    account = None if player.guest else await account_store.get_account(client, player.name)
    bot = player.id.startswith(BOT_ID_PREFIX) or (account is not None and account.bot)
    return JSONResponse(
        {
            "player": player_data(player),
            "bot": bot,
            "ratings": ratings,
            "playing": [g.to_data() for g in playing],
            "recent": [_finished_line(g) for g in recent],
            "opponents": [s.to_data() for s in scores_by_opponent(scored, player_id)],
        }
    )


@functools.cache
def page_html(page: str) -> tuple[str, str]:
    """The title and the HTML of a rules page; raises KeyError for a page not in PAGES."""
    if page not in PAGES:
        raise KeyError(page)
    return render_markdown((RULES_DIR / f"{page}.md").read_text(encoding="utf-8"), page)


def render_markdown(text: str, page: str) -> tuple[str, str]:
    """The first heading and the HTML of a rules page's Markdown (``page`` names the page, for
    its own anchors).  Raw HTML in the Markdown is escaped, never passed through."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    title = page
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[index + 1]
            slug = heading_slug(inline.content)
            token.attrSet("id", f"{page}-{slug}")
            if token.tag == "h1" and title == page:
                title = inline.content
        if token.type == "inline" and token.children:
            token.children = _site_links(token.children, page)
    return title, md.renderer.render(tokens, md.options, {})


def heading_slug(text: str) -> str:
    """A heading's anchor as the repository's Markdown viewer makes it (what the pages' own
    links name): lower case, punctuation dropped, spaces to hyphens."""
    kept = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return kept.replace(" ", "-")


def site_href(href: str, page: str) -> str | None:
    """Where a link of a rules page goes in the site, or None when it leaves the rules pages."""
    match = re.fullmatch(r"(?:([a-z]+)\.md)?(?:#([\w\-]+))?", href)
    if match is None or not (match.group(1) or match.group(2)):
        return None
    target = match.group(1) or page
    if target not in PAGES:
        return None
    anchor = match.group(2)
    return f"#/rules/{target}" + (f"/{anchor}" if anchor else "")


def showcase_positions() -> list[tuple[str, Any]]:
    """Each game's position after a few seeded random moves, as its ``to_data``."""
    return [(name, _showcase(name)) for name in GAMES]


@functools.cache
def _showcase(name: str) -> Any:
    rules = GAMES[name]
    state = rules.new_game(rules.parse_options(""))
    rng = random.Random(f"showcase-{name}")
    for _ in range(SHOWCASE_PLIES.get(name, 10)):
        moves = [m for m in rules.legal_moves(state) if rules.move_text(m) != "swap"]
        rng.shuffle(moves)
        # A move that would end the game is passed over: the picture is of a game under way.
        after = (rules.play(state, move) for move in moves)
        going = next((s for s in after if rules.outcome(s) is None), None)
        if going is None:
            break
        state = going
    return rules.to_data(state)


def _finished_line(game: FinishedGame) -> dict[str, Any]:
    """A finished game for a list: everything but the record, and the winner's id."""
    data = game.to_data()
    data["moves"] = len(data.pop("record"))
    winner = game.winner_player
    data["winner_id"] = None if winner is None else winner.id
    return data


async def _rated_lines(client: Any, games: list[FinishedGame]) -> list[dict[str, Any]]:
    """Finished games for a list, each with ``ratings``: by player id, the rating before the
    game (as shown, ``?`` while provisional) and its change, or None when it rated nobody."""
    pools: dict[str, list[str]] = {}
    for game in games:
        if game.rated:
            pools.setdefault(rating_pool(game.game, *game.players), []).append(game.room_id)
    found = {}
    for pool, rooms in pools.items():
        found.update(await rating_store.changes(client, pool, rooms))
    lines = []
    for game in games:
        line = _finished_line(game)
        change = found.get(game.room_id)
        line["ratings"] = None
        if change is not None:
            line["ratings"] = {
                change.first: _rating_line(change.first_before, change.first_after),
                change.second: _rating_line(change.second_before, change.second_after),
            }
        lines.append(line)
    return lines


def _rating_line(before: Rating, after: Rating) -> dict[str, Any]:
    return {
        "before": before.text(),
        "after": after.text(),
        "change": round(after.rating - before.rating),
    }


def _site_links(children: list[Token], page: str) -> list[Token]:
    """An inline's tokens with links made the site's own (or text) and figures served."""
    kept: list[Token] = []
    dropped = 0  # open links dropped, whose closes must go too
    for token in children:
        if token.type == "link_open":
            href = site_href(str(token.attrGet("href") or ""), page)
            if href is None:
                dropped += 1
                continue
            token.attrSet("href", href)
        elif token.type == "link_close" and dropped:
            dropped -= 1
            continue
        elif token.type == "image":
            src = str(token.attrGet("src") or "")
            name = src.removesuffix(".svg")
            if _FIGURE_NAME.fullmatch(name):
                token.attrSet("src", f"/rules/figures/{name}.svg")
        kept.append(token)
    return kept
