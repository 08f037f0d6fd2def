"""A TCP proxy for tests (and the deployment drills, bench/loopback/drills.py, one between each
server process and Redis) that must break a connection the way a network does.

Every connection accepted is piped to the target; :meth:`TcpProxy.reset_all` ends every live
pair with a TCP reset (RST, ``SO_LINGER`` 0) on both sides, as a middlebox or a restarted
peer would, while the proxy keeps listening for the reconnections.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from dataclasses import dataclass, field


@dataclass(eq=False)
class _Pair:
    client: asyncio.StreamWriter
    upstream: asyncio.StreamWriter
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class TcpProxy:
    """Listens on a free loopback port and forwards to ``127.0.0.1:target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.accepted = 0
        self._server: asyncio.Server | None = None
        self._pairs: set[_Pair] = set()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        await self.reset_all()
        if self._server is not None:
            await self._server.wait_closed()

    async def reset_all(self) -> int:
        """Reset every live connection on both sides; returns how many pairs there were."""
        pairs, self._pairs = list(self._pairs), set()
        for pair in pairs:
            for writer in (pair.client, pair.upstream):
                _reset(writer)
            for task in pair.tasks:
                task.cancel()
        for pair in pairs:
            await asyncio.gather(*pair.tasks, return_exceptions=True)
        return len(pairs)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            _reset(writer)
            return
        pair = _Pair(writer, up_writer)
        pair.tasks = [
            asyncio.create_task(_pipe(reader, up_writer)),
            asyncio.create_task(_pipe(up_reader, writer)),
        ]
        self._pairs.add(pair)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST instead of FIN: the peer's next read or write fails at once."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()
