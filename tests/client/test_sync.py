"""The Python client's automatic sync: a refused sync is asked again, never given up."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
import pytest

import client as client_module
from client import Client, RoomView


class RecordingSocket:
    """Stands in for a websocket: records what the client sends and never receives."""

    close_code = None

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = asyncio.Event()

    async def send(self, frame: bytes) -> None:
        self.sent.append(msgpack.unpackb(frame))

    def __aiter__(self) -> RecordingSocket:
        return self

    async def __anext__(self) -> bytes:
        await self.closed.wait()
        raise StopAsyncIteration


async def wait_for_frames(socket: RecordingSocket, count: int) -> None:
    async with asyncio.timeout(5):
        while len(socket.sent) < count:
            await asyncio.sleep(0.01)


async def test_a_refused_automatic_sync_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "SYNC_RETRY_SECONDS", 0.01)
    socket = RecordingSocket()
    client = Client(socket, apply_diffs=True)  # type: ignore[arg-type]
    client.rooms["r1"] = RoomView("r1", version=3, doc={"a": 1})
    client._handle({"t": "diff", "room": "r1", "version": 5, "ops": []})
    await wait_for_frames(socket, 1)
    first = socket.sent[0]
    assert first["t"] == "sync" and first["version"] == 3
    client._handle({"t": "error", "ref": first["id"], "code": "unavailable", "message": "down"})
    await wait_for_frames(socket, 2)
    again = socket.sent[1]
    assert again["t"] == "sync" and again["room"] == "r1" and again["id"] != first["id"]
    socket.closed.set()
