"""Every frame a server sends in a game validates against docs/protocol.schema.json."""

from __future__ import annotations

from typing import Any

import pytest

from client import Client, ServerReplyError
from lobby.identity import new_guest
from tests.e2e.conftest import RunningServer, token_for
from tests.protocol.test_schema import validator


class RecordingClient(Client):
    """A client that keeps every frame the server sent it, as plain data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.seen: list[dict[str, Any]] = []
        super().__init__(*args, **kwargs)

    def _handle(self, body: dict[str, Any]) -> None:
        self.seen.append(body)
        super()._handle(body)


async def test_every_frame_the_server_sends_in_a_game_validates(app_server: RunningServer) -> None:
    ann, bob = new_guest(), new_guest()
    players = [await RecordingClient.connect(app_server.ws_url, token_for(p)) for p in (ann, bob)]
    watcher = await RecordingClient.connect(app_server.ws_url, token_for(new_guest()))
    clients = [*players, watcher]
    try:
        for client in clients:
            await client.follow_lobby()
        await watcher.follow_tournaments()
        made = await players[0].challenge("tictactoe", colour="mine")
        room = await players[1].accept(made["id"])
        for client in clients:
            await client.join(room)
        with pytest.raises(ServerReplyError):
            await players[1].move(room, "a1")  # not Bob's turn: an error frame
        await players[0].chat(room, "players", "good luck")
        for ply, move in enumerate(["a1", "a2", "b1", "b2", "c1"]):
            version = await players[ply % 2].move(room, move)
            await players[(ply + 1) % 2].wait_version(room, version)
        await watcher.wait_for(room, lambda view: view.doc is not None and view.doc["outcome"])
        await watcher.leave(room)
    finally:
        for client in clients:
            await client.close()
    check = validator("server")
    seen = [frame for client in clients for frame in client.seen]
    kinds = {frame["t"] for frame in seen}
    assert {"welcome", "lobby", "lobby_event", "challenge", "accepted", "joined"} <= kinds
    assert {"snapshot", "diff", "error", "chat", "tournaments", "left"} <= kinds
    invalid = [(frame, error.message) for frame in seen for error in check.iter_errors(frame)]
    assert invalid == []
