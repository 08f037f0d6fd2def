"""The per-connection rate limit, a token bucket driven by the clock it is given; how a
socket's frames are written: at once, or in order behind a send that has to wait; and the
diff that answers the request that committed it."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import cast

from starlette.types import Message

from lobby.identity import new_guest
from protocol.errors import CloseCode
from protocol.messages import Role, decode_server
from server.connection import Connection, TokenBucket, Watch
from server.metrics import Metrics
from server.service import RoomService
from server.settings import Settings


def test_a_burst_is_allowed_then_requests_wait_for_the_rate() -> None:
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.05) is False  # half a token back
    assert bucket.take(0.1) is True
    assert bucket.take(0.1) is False


def test_an_idle_connection_saves_no_more_than_one_burst() -> None:
    bucket = TokenBucket(rate=10, burst=2, now=0.0)
    assert bucket.take(1000.0) and bucket.take(1000.0)
    assert bucket.take(1000.0) is False


class FakeSocket:
    """An ASGI send that takes frames at once while ``open`` is set, and waits otherwise."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.open = asyncio.Event()
        self.open.set()

    async def send(self, message: Message) -> None:
        await self.open.wait()
        self.sent.append(message)

    def frames(self) -> list[bytes]:
        return [m["bytes"] for m in self.sent if m["type"] == "websocket.send"]


def connection(socket: FakeSocket, send_queue: int = 1024) -> Connection:
    async def receive() -> Message:
        raise AssertionError("not used")

    settings = dataclasses.replace(Settings(), send_queue=send_queue)
    service = cast(RoomService, None)
    return Connection(receive, socket.send, new_guest(), service, Metrics(), settings)


async def test_frames_are_written_at_once_while_the_socket_takes_them() -> None:
    socket = FakeSocket()
    conn = connection(socket)
    conn.push_frame(b"one")
    conn.push_frame(b"two")
    assert socket.frames() == [b"one", b"two"]  # written before anything was awaited


async def test_frames_sent_while_a_send_waits_follow_it_in_order() -> None:
    socket = FakeSocket()
    socket.open.clear()  # the peer reads slowly
    conn = connection(socket)
    for frame in (b"one", b"two", b"three"):
        conn.push_frame(frame)
    assert socket.frames() == []
    socket.open.set()
    async with asyncio.timeout(5):
        while socket.frames() != [b"one", b"two", b"three"]:
            await asyncio.sleep(0)
    conn.push_frame(b"four")
    assert socket.frames()[-1] == b"four"  # the backlog is empty again: written at once


async def test_a_socket_too_far_behind_is_let_go_with_1013_and_sent_nothing_more() -> None:
    """A peer that reads nothing may never take the send under way: the connection stops
    waiting for it and for the peer's next frame, and ends."""
    socket = FakeSocket()
    socket.open.clear()
    never = asyncio.Event()

    async def receive() -> Message:
        await never.wait()  # the peer sends nothing either
        raise AssertionError("not reached")

    settings = dataclasses.replace(Settings(), send_queue=2)
    metrics = Metrics()
    service = cast(RoomService, None)
    conn = Connection(receive, socket.send, new_guest(), service, metrics, settings)
    running = asyncio.create_task(conn.run())
    async with asyncio.timeout(5):
        while metrics.connections == 0:
            await asyncio.sleep(0)
    for frame in (b"one", b"two", b"three"):  # behind the welcome, which waits
        conn.push_frame(frame)
    assert conn.close_code is CloseCode.TRY_AGAIN_LATER
    async with asyncio.timeout(5):
        await running
    assert metrics.connections == 0
    socket.open.set()
    await asyncio.sleep(0)
    assert socket.sent == []  # the send under way was dropped with the backlog


async def test_the_diff_answers_the_request_unless_the_socket_had_that_version_already() -> None:
    socket = FakeSocket()
    conn = connection(socket)
    conn.watching["r"] = Watch(Role.PLAYER, 0, version=4)
    conn.push_reply("r", 5, b"diff-5", b"diff-5+ref")
    conn._ok(7, "r", 5)
    assert socket.frames() == [b"diff-5+ref"]  # one frame: the diff is the reply
    # The diff came another way first (pub/sub overtook the commit's reply): ok answers.
    conn.push("r", 6, b"diff-6")
    conn.push_reply("r", 6, b"diff-6", b"diff-6+ref")
    conn._ok(8, "r", 6)
    assert socket.frames()[1] == b"diff-6"
    assert decode_server(socket.frames()[2]) == {"t": "ok", "ref": 8, "room": "r", "version": 6}
    assert len(socket.frames()) == 3


class MissedDiffs:
    """Stands in for the room service's catch-up: the diffs Redis keeps after a version."""

    def __init__(self, frames: dict[int, bytes]) -> None:
        self.frames = frames
        self.asked: list[int | None] = []

    async def catch_up(self, room_id: str, version: int | None) -> tuple[int, list[bytes]]:
        self.asked.append(version)
        await asyncio.sleep(0)  # a Redis read: other diffs may arrive meanwhile
        newer = sorted(v for v in self.frames if version is None or v > version)
        return max(self.frames), [self.frames[v] for v in newer]


def gapped_connection(socket: FakeSocket, committed: dict[int, bytes]) -> Connection:
    conn = connection(socket)
    conn.service = cast(RoomService, MissedDiffs(committed))
    conn.watching["r"] = Watch(Role.PLAYER, 0, version=4)
    return conn


async def test_a_diff_after_a_gap_waits_for_the_missed_ones_from_storage() -> None:
    """Commit replies (or another process's publication) may overtake each other: a socket
    never skips a version, and gets every diff once, in order."""
    socket = FakeSocket()
    conn = gapped_connection(socket, {5: b"diff-5", 6: b"diff-6"})
    conn.push("r", 6, b"diff-6")
    conn.push("r", 7, b"diff-7")  # arrives while the missed diff is read
    await asyncio.wait_for(asyncio.gather(*conn._gap_fillers), 1)
    conn.push("r", 5, b"diff-5")  # the overtaken diff, late
    assert cast(MissedDiffs, conn.service).asked == [4]
    assert conn.metrics.gaps_filled == 1
    assert socket.frames() == [b"diff-5", b"diff-6", b"diff-7"]
    assert conn.watching["r"].version == 7


async def test_a_reply_after_a_gap_is_an_ok_and_the_diffs_follow_in_order() -> None:
    socket = FakeSocket()
    conn = gapped_connection(socket, {5: b"diff-5", 6: b"diff-6"})
    conn.push_reply("r", 6, b"diff-6", b"diff-6+ref")
    conn._ok(9, "r", 6)
    await asyncio.wait_for(asyncio.gather(*conn._gap_fillers), 1)
    frames = socket.frames()
    assert decode_server(frames[0]) == {"t": "ok", "ref": 9, "room": "r", "version": 6}
    assert frames[1:] == [b"diff-5", b"diff-6"]
