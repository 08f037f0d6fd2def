"""An engine of your own as a bot account: ``python -m bots.example URL TOKEN``.

It accepts every challenge made to it, one game at a time, and plays a random legal move
whenever it is its turn; put your engine where ``choose`` is.  ``URL`` is the site
(``http://127.0.0.1:8000``) and ``TOKEN`` the bot token from ``POST /api/bot``
(``docs/bots.md``).  ``--games N`` stops after N games.  It needs only :mod:`client` and
:mod:`rules`, as any program of yours would.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

from client import Client
from rules import find_game


def choose(game: Any, state: Any) -> str:
    """Your engine goes here: the text of the move to play in ``state``."""
    return str(game.move_text(random.choice(list(game.legal_moves(state)))))


async def play(url: str, token: str, games: int) -> None:
    bot = await Client.connect(url.replace("http", "ws", 1) + "/ws", token)
    me = bot.player["id"] if bot.player else ""  # the server's welcome names the account
    await bot.follow_lobby()
    for _ in range(games):
        lobby = await bot.wait_lobby(lambda lobby: bool(lobby["incoming"]), timeout=3600)
        room = await bot.accept(lobby["incoming"][0]["id"])
        view = await bot.join(room)
        while view.doc is not None and view.doc["outcome"] is None:
            version = view.version + 1  # the next change, whoever makes it
            if view.doc["seats"][view.doc["to_move"]]["id"] == me:
                game = find_game(view.doc["game"])
                version = await bot.move(room, choose(game, game.from_data(view.doc["data"])))
            view = await bot.wait_version(room, version, timeout=3600)
        await bot.leave(room)
    await bot.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bots.example", description=__doc__)
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("--games", type=int, default=1_000_000)
    args = parser.parse_args()
    asyncio.run(play(args.url, args.token, args.games))


if __name__ == "__main__":
    main()
