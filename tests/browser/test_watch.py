"""A page opened on a game well under way draws it: two Python clients play random legal moves,
then a spectator page must show the same record and draw every piece.  The screenshots
(``<game>-midgame.png``) show stacked levels, captures and long records."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from rules import find_game
from tests.browser.conftest import Opener, room_for
from tests.e2e.conftest import RunningServer, token_for

PLIES = {"boche": 40, "che": 14, "osbox": 24, "ankor": 40, "marque": 40}


@pytest.mark.parametrize("game", sorted(PLIES))
async def test_a_spectator_page_draws_a_game_under_way(
    game: str,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, game)
    clients = [
        await Client.connect(server.ws_url, token_for(first)),
        await Client.connect(server.ws_url, token_for(second)),
    ]
    try:
        views = [await client.join(room) for client in clients]
        rng = random.Random(game)
        for _ in range(PLIES[game]):
            doc = views[0].doc
            assert doc is not None
            if doc["outcome"] is not None:
                break
            mover = clients[_seat_of(doc, clients[0], clients[1])]
            moves = [m for m in _legal(game, doc["data"]) if m != "swap"]
            version = await mover.move(room, rng.choice(moves), version=views[0].version)
            await clients[0].wait_version(room, version)
        doc = views[0].doc
        assert doc is not None
        watcher = await open_page(f"/#/room/{room}", phone=False)
        await expect(watcher.locator(".moves .move")).to_have_count(len(doc["record"]))
        assert await watcher.locator(".moves .move").all_inner_texts() == doc["record"]
        pieces = watcher.locator("svg.board").locator(
            ":is(.face, .cube, .tile, .die, .piece):not(.fading)"
        )
        assert await pieces.count() > 0
        await watcher.locator("svg.board").screenshot(path=artifacts / f"{game}-midgame.png")
    finally:
        for client in clients:
            await client.close()


def _legal(game: str, data: object) -> list[str]:
    """The legal moves from the rules."""
    rules = find_game(game)
    state = rules.from_data(data)
    return [rules.move_text(move) for move in rules.legal_moves(state)]


def _seat_of(doc: dict[str, object], first: Client, second: Client) -> int:
    """Which client holds the seat to move (seats change hands after a swap)."""
    seats = doc["seats"]
    assert isinstance(seats, list)
    holder = seats[int(doc["to_move"])]  # type: ignore[call-overload]
    assert first.player is not None
    return 0 if holder["id"] == first.player["id"] else 1
