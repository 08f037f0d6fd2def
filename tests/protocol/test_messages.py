"""The wire protocol: decoding every client message, refusing bad frames, the JS twin."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from protocol import messages
from protocol.errors import FrameError, FrameTooLargeError, MessageError, UnknownTypeError
from protocol.javascript import JS_PATH, javascript
from protocol.messages import (
    MAX_FRAME_BYTES,
    ClientJoin,
    ClientLeave,
    ClientMove,
    ClientResign,
    ClientSync,
    ServerDiff,
    ServerError,
    decode,
    decode_server,
    diff_reply,
    encode,
    encode_diff,
)


def frame(body: Any) -> bytes:
    return msgpack.packb(body, use_bin_type=True)


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"t": "join", "id": 1, "room": "r"}, ClientJoin(1, "r", None)),
        ({"t": "join", "id": "a", "room": "r", "version": 4}, ClientJoin("a", "r", 4)),
        ({"t": "sync", "id": 2, "room": "r", "version": 0}, ClientSync(2, "r", 0)),
        ({"t": "leave", "id": 3, "room": "r"}, ClientLeave(3, "r")),
        (
            {"t": "move", "id": 4, "room": "r", "version": 7, "move": "b2"},
            ClientMove(4, "r", 7, "b2"),
        ),
        ({"t": "resign", "id": 5, "room": "r", "version": 7}, ClientResign(5, "r", 7)),
    ],
)
def test_decode_reads_every_client_message(body: dict[str, Any], expected: object) -> None:
    assert decode(frame(body)) == expected


@pytest.mark.parametrize(
    "body",
    [
        {"t": "move", "id": 9, "room": "r", "version": 1},  # no move
        {"t": "move", "id": 9, "room": "r", "move": "a1"},  # no version
        {"t": "move", "id": 9, "room": "r", "version": "1", "move": "a1"},  # version as text
        {"t": "move", "id": 9, "room": "r", "version": True, "move": "a1"},  # bool is no int
        {"t": "move", "id": 9, "room": "r", "version": -1, "move": "a1"},
        {"t": "move", "id": 9, "room": 5, "version": 1, "move": "a1"},
        {"t": "join", "id": 9, "room": "x" * 65},
        {"t": "sync", "id": 9, "room": "r"},
    ],
)
def test_decode_refuses_missing_and_mistyped_fields_echoing_the_id(body: dict[str, Any]) -> None:
    with pytest.raises(MessageError) as caught:
        decode(frame(body))
    assert caught.value.ref == 9
    assert not isinstance(caught.value, UnknownTypeError)


def test_decode_refuses_an_unknown_type() -> None:
    with pytest.raises(UnknownTypeError) as caught:
        decode(frame({"t": "teleport", "id": "x1"}))
    assert caught.value.ref == "x1"


@pytest.mark.parametrize("ref", [None, True, -1, 2**60, "", "x" * 65, 1.5, [1]])
def test_decode_needs_a_request_id(ref: object) -> None:
    body = {"t": "join", "room": "r"}
    if ref is not None:
        body["id"] = ref  # type: ignore[assignment]
    with pytest.raises(MessageError) as caught:
        decode(frame(body))
    assert caught.value.ref is None


@pytest.mark.parametrize(
    "data", [b"", b"\xc1", b"\x92\x01", frame([1, 2]), frame("join"), b"\x81\xa1t"]
)
def test_decode_closes_on_garbage(data: bytes) -> None:
    with pytest.raises(FrameError) as caught:
        decode(data)
    assert caught.value.close_code == 1003


def test_decode_closes_on_an_oversized_frame() -> None:
    big = frame({"t": "join", "id": 1, "room": "r", "pad": "x" * MAX_FRAME_BYTES})
    with pytest.raises(FrameTooLargeError) as caught:
        decode(big)
    assert caught.value.close_code == 1009


def test_server_messages_round_trip_through_decode_server() -> None:
    error = decode_server(encode(ServerError(3, "stale_version", "moved on")))
    assert error == {"t": "error", "ref": 3, "code": "stale_version", "message": "moved on"}
    diff = decode_server(encode(ServerDiff("r", 2, [["s", ["a"], 1]])))
    assert diff == {**decode_server(encode_diff("r", 2, [["s", ["a"], 1]])), "ref": None}
    for ref in (7, "m-12"):
        reply = decode_server(diff_reply(encode_diff("r", 2, [["s", ["a"], 1]]), ref))
        assert reply == decode_server(encode(ServerDiff("r", 2, [["s", ["a"], 1]], ref)))


def test_every_message_type_has_one_class() -> None:
    names = set(messages.CLIENT_MESSAGES) | set(messages.SERVER_MESSAGES)
    assert names == {m.value for m in messages.MsgType}


def test_protocol_js_is_generated_from_the_protocol_package() -> None:
    """client_js/protocol.js is stale: run `python -m protocol`."""
    assert JS_PATH.read_text() == javascript()


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"t": "abort", "id": 1, "room": "r", "version": 2}, messages.ClientAbort(1, "r", 2)),
        (
            {"t": "draw", "id": 1, "room": "r", "version": 2, "action": "offer"},
            messages.ClientDraw(1, "r", 2, "offer"),
        ),
        ({"t": "rematch", "id": 1, "room": "r"}, messages.ClientRematch(1, "r")),
        ({"t": "lobby", "id": 1}, messages.ClientLobby(1)),
        (
            {"t": "challenge", "id": 1, "game": "boche"},
            messages.ClientChallenge(1, "boche", "", "random", False, None, None),
        ),
        (
            {"t": "challenge", "id": 1, "game": "boche", "rated": True, "target": "ann"},
            messages.ClientChallenge(1, "boche", "", "random", True, "ann", None),
        ),
        ({"t": "accept", "id": 1, "challenge": "c"}, messages.ClientAccept(1, "c")),
        ({"t": "decline", "id": 1, "challenge": "c"}, messages.ClientDecline(1, "c")),
        ({"t": "cancel", "id": 1, "challenge": "c"}, messages.ClientCancel(1, "c")),
    ],
)
def test_decode_reads_the_lobby_and_room_action_messages(
    body: dict[str, Any], expected: object
) -> None:
    assert decode(frame(body)) == expected


@pytest.mark.parametrize(
    "body",
    [
        {"t": "draw", "id": 1, "room": "r", "version": 2, "action": "maybe"},
        {"t": "challenge", "id": 1, "game": "boche", "colour": "blue"},
        {"t": "challenge", "id": 1, "game": "boche", "rated": 1},
        {"t": "challenge", "id": 1, "game": "boche", "options": "x" * 300},
        {"t": "accept", "id": 1, "challenge": "c" * 65},
        {"t": "accept", "id": 1},
    ],
)
def test_decode_refuses_bad_lobby_messages(body: dict[str, Any]) -> None:
    with pytest.raises(MessageError) as refused:
        decode(frame(body))
    assert refused.value.ref == 1
