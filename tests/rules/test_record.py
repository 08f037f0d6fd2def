"""Game records as text: tags, then one move per line; what is malformed is refused by line."""

from __future__ import annotations

import pytest

from rules.record import (
    RECORD_BYTES,
    RECORD_MOVES,
    Record,
    RecordError,
    parse_record_text,
    record_text,
)


def test_record_text_is_one_move_per_line_and_parses_back() -> None:
    record = Record(moves=("a:c2", "swap", "b:c1"))
    text = record_text(record)
    assert text == "a:c2\nswap\nb:c1\n"
    assert parse_record_text(text) == record
    assert record_text(Record()) == ""


def test_parse_record_text_skips_blank_lines_comments_and_spaces() -> None:
    text = "# osbox game\n\n  f12 \r\n# a note\na3\n"
    assert parse_record_text(text).moves == ("f12", "a3")


def test_tags_come_first_and_round_trip_with_quotes_and_backslashes() -> None:
    tags = (("Game", "osbox"), ("Light", 'ann "the bold"'), ("Termination", "a\\b"))
    record = Record(tags, ("f12", "a3"))
    text = record_text(record)
    assert text.splitlines()[:4] == [
        '[Game "osbox"]',
        '[Light "ann \\"the bold\\""]',
        '[Termination "a\\\\b"]',
        "",
    ]
    read = parse_record_text(text)
    assert read == record and read.tag("game") == "osbox" and read.tag("Dark") is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('f12\n[Game "osbox"]\n', "line 2: tags come before the moves"),
        ("[Game osbox]\nf12\n", 'line 1: a tag is written \\[Name "value"\\]'),
        ('[Game "osbox"]\n[game "che"]\n', "line 2: the tag game is given twice"),
        (f'[Event "{"x" * 201}"]\n', "at most 200 characters"),
        ("a1\n" * (RECORD_MOVES + 1), f"at most {RECORD_MOVES} moves"),
        ("#" * (RECORD_BYTES + 1), f"at most {RECORD_BYTES} bytes"),
    ],
)
def test_malformed_records_are_refused_naming_the_line(text: str, reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        parse_record_text(text)
