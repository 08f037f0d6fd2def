"""The bot that the client's docstring shows plays a whole game on a real server."""

from __future__ import annotations

import asyncio
import random
import re
from types import ModuleType
from typing import Any

import client
from tests.e2e.conftest import RunningServer, connect


def docstring_example() -> str:
    """The indented block after the ``::`` of the client's module docstring, dedented."""
    doc = client.__doc__ or ""
    block = re.search(r"::\n\n((?:    .*\n|\n)+)", doc)
    assert block, "the client's docstring shows no example"
    return "\n".join(line.removeprefix("    ") for line in block.group(1).splitlines())


async def test_the_docstring_bot_accepts_an_open_challenge_and_plays_it_out(
    app_server: RunningServer, ttt: ModuleType
) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(docstring_example(), "client docstring", "exec"), namespace)
    bot = asyncio.create_task(namespace["play_one_game"](app_server.base_url))
    person = await connect(app_server)
    await person.follow_lobby()
    room = (await person.challenge("tictactoe"))["id"]  # a challenge's room has its id
    await person.wait_lobby(lambda lobby: any(g["room_id"] == room for g in lobby["live"]))
    view = await person.join(room)
    seat = [holder["id"] for holder in view.doc["seats"]].index(person.player["id"])
    while view.doc["outcome"] is None:
        version = view.version + 1
        if view.doc["to_move"] == seat:
            moves = list(ttt.legal_moves(ttt.from_data(view.doc["data"])))
            version = await person.move(room, ttt.move_text(random.choice(moves)))
        view = await person.wait_version(room, version)
    assert await asyncio.wait_for(bot, 10) == view.doc["outcome"]
    assert len(view.doc["record"]) >= 5
    await person.close()
