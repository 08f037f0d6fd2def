"""Game records as text, as chess players write PGN: ``[Name "value"]`` tags, then the moves in
the game's own notation, one per line (pbmserv style).  Any game's; the format knows no rules.
Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.api import RulesError


class RecordError(RulesError):
    """A record that is not written as :func:`record_text` writes one; the message names the
    line."""


RECORD_BYTES = 65_536
"""Largest record text read (a long game of any of the five is under 10 KB)."""
RECORD_MOVES = 2_000
"""Most moves a record read may hold."""
TAG_VALUE_LENGTH = 200
"""Longest tag value a record may carry."""

_TAG_RE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]{0,31})\s+"((?:[^"\\]|\\.)*)"\]')


@dataclass(frozen=True, slots=True)
class Record:
    """A game written down, as chess players write PGN: tags, then the moves.

    ``tags`` are (name, value) pairs in the order written (``Game``, ``Options``, the players
    by colour, ``Result``...); ``moves`` the moves in the game's own notation.
    """

    tags: tuple[tuple[str, str], ...] = ()
    moves: tuple[str, ...] = ()

    def tag(self, name: str) -> str | None:
        """The value of tag ``name`` (case-insensitive), or None."""
        wanted = name.lower()
        return next((value for key, value in self.tags if key.lower() == wanted), None)


def record_text(record: Record) -> str:
    """The record as text: a ``[Name "value"]`` line per tag, a blank line, then one move per
    line (pbmserv style).  :func:`parse_record_text` reads it back."""
    head = "".join(f'[{name} "{_escaped(value)}"]\n' for name, value in record.tags)
    moves = "".join(f"{move}\n" for move in record.moves)
    return f"{head}\n{moves}" if head else moves


def parse_record_text(text: str) -> Record:
    """A record written as :func:`record_text` writes it; tags are optional, so a bare list of
    moves (one per line) reads too.  Blank lines and ``#`` comments are skipped.

    Raises RecordError naming the line: a tag after the first move, a malformed or
    repeated tag, a record past :data:`RECORD_BYTES` or :data:`RECORD_MOVES`.
    """
    if len(text.encode()) > RECORD_BYTES:
        raise RecordError(f"a record is at most {RECORD_BYTES} bytes")
    tags: list[tuple[str, str]] = []
    seen: set[str] = set()
    moves: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if moves:
                raise RecordError(f"line {number}: tags come before the moves")
            match = _TAG_RE.fullmatch(line)
            if match is None:
                raise RecordError(f'line {number}: a tag is written [Name "value"]')
            name, value = match.group(1), _unescaped(match.group(2))
            if name.lower() in seen:
                raise RecordError(f"line {number}: the tag {name} is given twice")
            if len(value) > TAG_VALUE_LENGTH:
                raise RecordError(
                    f"line {number}: a tag's value is at most {TAG_VALUE_LENGTH} characters"
                )
            seen.add(name.lower())
            tags.append((name, value))
            continue
        moves.append(line)
        if len(moves) > RECORD_MOVES:
            raise RecordError(f"a record holds at most {RECORD_MOVES} moves")
    return Record(tuple(tags), tuple(moves))


def _escaped(value: str) -> str:
    one_line = " ".join(value.split())
    return one_line.replace("\\", "\\\\").replace('"', '\\"')


def _unescaped(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)
