"""docs/protocol.schema.json says what the server reads: the decoder and the schema accept
the same client frames (tests/e2e/test_protocol_schema.py checks what the server sends)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest

from protocol import messages, schema
from protocol.__main__ import main as protocol_main
from protocol.errors import ClientError, ErrorCode, FrameError

DOCUMENT = schema.schema()

SAMPLES: dict[str, Any] = {
    "id": 7,
    "room": "r1",
    "version": 3,
    "move": "a1",
    "action": "offer",
    "game": "boche",
    "options": "-size=5",
    "colour": "random",
    "rated": True,
    "target": "bob",
    "time_control": "10+5",
    "challenge": "c1",
    "tournament": "t1",
    "follow": False,
    "channel": "players",
    "text": "hello",
    "line": "l1",
    "seat": 1,
}
"""A value every client field accepts."""

WRONG: list[Any] = [
    None,
    True,
    1.5,
    -1,
    0,
    2**53,
    "",
    "x" * messages.MAX_ID_LENGTH,
    "x" * (messages.MAX_ID_LENGTH + 1),
    "x" * messages.MAX_TEXT_LENGTH,
    "x" * (messages.MAX_TEXT_LENGTH + 1),
    "maybe",
    [],
    {},
]
"""Values tried in place of each field in turn: some right for some fields, wrong for others.
(Integral floats such as 1.0 are left out: JSON Schema counts them as integers, msgpack
keeps them floats, and the server refuses them, as the schema's description says.)"""


def validator(direction: str) -> jsonschema.Draft202012Validator:
    """A validator of one direction's frames ("client" or "server")."""
    names = messages.CLIENT_MESSAGES if direction == "client" else messages.SERVER_MESSAGES
    whole = {
        "$defs": DOCUMENT["$defs"],
        "anyOf": [{"$ref": f"#/$defs/{direction}.{name}"} for name in names],
    }
    return jsonschema.Draft202012Validator(whole)


def decoder_accepts(body: dict[str, Any]) -> bool:
    try:
        messages.decode(msgpack.packb(body, use_bin_type=True))
    except (ClientError, FrameError):
        return False
    return True


def frames_tried() -> list[dict[str, Any]]:
    """For every client message: a valid frame, each field left out, and each field wrong."""
    frames: list[dict[str, Any]] = []
    for name, cls in messages.CLIENT_MESSAGES.items():
        valid = {"t": name} | {f.name: SAMPLES[f.name] for f in dataclasses.fields(cls)}
        frames.append(valid)
        for field in ["t", *valid]:
            frames.append({k: v for k, v in valid.items() if k != field})
            frames += [valid | {field: wrong} for wrong in WRONG]
    return frames


def test_the_schema_is_a_valid_draft_2020_12_document() -> None:
    jsonschema.Draft202012Validator.check_schema(DOCUMENT)


def test_the_decoder_and_the_schema_accept_the_same_client_frames() -> None:
    check = validator("client")
    frames = frames_tried()
    disagreements = [
        (frame, decoder_accepts(frame))
        for frame in frames
        if decoder_accepts(frame) != check.is_valid(frame)
    ]
    assert disagreements == []
    accepted = sum(decoder_accepts(frame) for frame in frames)
    assert 0 < accepted < len(frames)  # the corpus holds both kinds


def test_an_error_frame_names_one_of_the_error_codes() -> None:
    check = validator("server")
    for code in ErrorCode:
        assert check.is_valid({"t": "error", "ref": 1, "code": code.value, "message": "m"})
    assert not check.is_valid({"t": "error", "ref": 1, "code": "no such code", "message": "m"})


def test_python_m_protocol_check_fails_on_a_stale_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / "protocol.schema.json"
    stale.write_text("{}")
    monkeypatch.setattr(schema, "SCHEMA_PATH", stale)
    assert protocol_main(["--check"]) == 1
    assert protocol_main([]) == 0 and stale.read_text() == schema.text()
    assert protocol_main(["--check"]) == 0


def test_the_committed_schema_is_the_generated_one() -> None:
    assert schema.SCHEMA_PATH.read_text() == schema.text()
