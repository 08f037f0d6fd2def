"""The websocket protocol uvicorn runs for this server: uvicorn's own on websockets' Sans-I/O
core, with two shortcuts on the path every move takes.

* A binary frame is written at once from plain code, with no coroutine, ASGI message or
  frame object per socket (:meth:`GameWebSocketProtocol.write_binary`, handed to the app in
  the scope's extensions under :data:`FRAMES_EXTENSION`).  Each diff goes to every socket
  watching its room, so this is the server's most repeated piece of work.  Whenever the
  socket is anything but open and writable it declines, and the app sends through ASGI,
  which waits or fails as uvicorn decides.
* Reading pauses once a few messages wait for the app, not after each one: each pause and
  resume is a change to the event loop's poll set, a system call, for every message read.
  The messages waiting stay bounded all the same.

Imports uvicorn and websockets only.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

FRAMES_EXTENSION = "browne.frames"
"""The scope extension that holds ``{"write_binary": write}``, where ``write(payload)``
writes one binary frame now and returns True, or returns False and writes nothing."""
WriteBinary = Callable[[bytes], bool]

WAITING_BEFORE_PAUSE = 4
"""Received messages the app may have waiting before the socket stops reading."""

_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")
_FIN_BINARY = 0x82


def binary_frame_header(size: int) -> bytes:
    """The header of an unmasked, final binary frame of ``size`` bytes (RFC 6455 5.2)."""
    if size < 126:
        return _SHORT.pack(_FIN_BINARY, size)
    if size < 1 << 16:
        return _MEDIUM.pack(_FIN_BINARY, 126, size)
    return _LONG.pack(_FIN_BINARY, 127, size)


def frame_writer(scope: Mapping[str, Any]) -> WriteBinary | None:
    """The direct frame writer of a websocket's ``scope``, if its server offers one."""
    extension = scope.get("extensions", {}).get(FRAMES_EXTENSION)
    writer: WriteBinary | None = None if extension is None else extension["write_binary"]
    return writer


class GameWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets Sans-I/O protocol with the shortcuts of the module's docstring."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][FRAMES_EXTENSION] = {"write_binary": self.write_binary}

    def write_binary(self, payload: bytes) -> bool:
        """Write ``payload`` as one binary frame now, if the socket is open and its
        transport takes more; False (and nothing written) otherwise."""
        if (
            self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(binary_frame_header(len(payload)) + payload)
        return True

    def send_receive_event_to_app(self) -> None:
        # uvicorn's own pauses reading after every message; pause once several wait
        # (``receive`` resumes reading when the app has taken them all).
        paused = self.read_paused
        self.read_paused = True  # so that uvicorn's own does not pause
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= WAITING_BEFORE_PAUSE:
            self.read_paused = True
            self.transport.pause_reading()
