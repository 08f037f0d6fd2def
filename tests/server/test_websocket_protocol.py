"""The server's websocket protocol: frames written directly are the frames websockets would
write, nothing is written directly on a socket that is paused or closing, and reading
pauses only once several messages wait for the app."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.streams import StreamReader

from server.websocket_protocol import (
    FRAMES_EXTENSION,
    WAITING_BEFORE_PAUSE,
    GameWebSocketProtocol,
    frame_writer,
)


class RecordingTransport(asyncio.Transport):
    """A transport that keeps what is written and counts the pauses of reading."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.pauses = 0
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        self.pauses += 1

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


async def _app(scope: Any, receive: Any, send: Any) -> None:
    """The app the protocol starts: the tests play its part by hand, so it leaves at once
    (uvicorn then closes the transport, which these tests never look at)."""


async def accepted() -> tuple[GameWebSocketProtocol, RecordingTransport]:
    config = Config(_app, log_level="error")
    config.load()
    protocol = GameWebSocketProtocol(config, ServerState(), {})
    transport = RecordingTransport()
    protocol.connection_made(transport)
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    headers = [
        ("Host", "localhost"),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", key),
        ("Sec-WebSocket-Version", "13"),
    ]
    protocol.handle_connect(Request("/ws", Headers(headers)))
    await protocol.send({"type": "websocket.accept"})
    transport.written.clear()
    return protocol, transport


def read_frames(data: bytes) -> list[Frame]:
    """The unmasked frames in ``data``, parsed as a client parses them."""
    reader = StreamReader()
    reader.feed_data(data)
    frames = []
    while reader.buffer:
        parser = Frame.parse(reader.read_exact, mask=False)
        try:
            while True:
                next(parser)
        except StopIteration as done:
            frames.append(done.value)
    return frames


async def test_a_frame_written_directly_is_the_frame_websockets_writes() -> None:
    protocol, transport = await accepted()
    payloads = [b"", b"x" * 125, b"y" * 126, b"z" * 70_000]
    for payload in payloads:
        assert protocol.write_binary(payload)
    frames = read_frames(bytes(transport.written))
    assert [(f.opcode, f.fin, bytes(f.data)) for f in frames] == [
        (Opcode.BINARY, True, p) for p in payloads
    ]
    for payload in payloads:  # byte for byte what uvicorn's own send writes
        transport.written.clear()
        assert protocol.write_binary(payload)
        direct = bytes(transport.written)
        transport.written.clear()
        await protocol.send({"type": "websocket.send", "bytes": payload})
        assert bytes(transport.written) == direct


async def test_nothing_is_written_directly_to_a_paused_or_closing_socket() -> None:
    protocol, transport = await accepted()
    protocol.pause_writing()
    assert not protocol.write_binary(b"late")
    protocol.resume_writing()
    assert protocol.write_binary(b"now")
    await protocol.send({"type": "websocket.close", "code": 1000})
    before = len(transport.written)
    assert not protocol.write_binary(b"after the close")
    assert len(transport.written) == before


async def test_the_app_finds_the_writer_in_the_scope() -> None:
    protocol, _ = await accepted()
    assert FRAMES_EXTENSION in protocol.scope["extensions"]
    assert frame_writer(protocol.scope) == protocol.write_binary
    assert frame_writer({"extensions": {}}) is None


@pytest.mark.parametrize("messages", [1, WAITING_BEFORE_PAUSE - 1, WAITING_BEFORE_PAUSE + 3])
async def test_reading_pauses_once_several_messages_wait(messages: int) -> None:
    protocol, transport = await accepted()
    await protocol.receive()  # the connect message
    for _ in range(messages):
        protocol.handle_bytes(Frame(Opcode.BINARY, b"request"))
    assert transport.pauses == (1 if messages >= WAITING_BEFORE_PAUSE else 0)
    for _ in range(messages):
        assert (await protocol.receive()) == {"type": "websocket.receive", "bytes": b"request"}
    assert not protocol.read_paused
