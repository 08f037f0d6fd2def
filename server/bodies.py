"""The JSON bodies of the HTTP routes as typed, bounded values, and the one place bytes become
them.

Every POST route reads its body through :func:`decode`: msgspec checks the JSON against the
route's :class:`msgspec.Struct` (types, bounds, required fields; unknown fields refused), so
a handler sees only values of the right type and range.  NaN and Infinity are not JSON and a
number too large for a float is refused, so nothing non-finite gets in; every field is a
scalar or a struct of scalars, so a body nests two objects deep at most.  An empty body reads
as ``{}``.  Imports msgspec, lobby (for its limits), server.push (its key sizes) and
protocol.errors; no I/O.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, TypeVar

import msgspec

from lobby.accounts import MAX_PASSWORD_LENGTH
from lobby.clocks import MAX_LIVE_SECONDS
from lobby.tournaments import arena
from lobby.tournaments.model import MAX_PLAYERS, Format, Settings
from protocol.errors import BadRequestError
from rules.record import RECORD_BYTES, RECORD_MOVES
from server.push import AUTH_BYTES, MAX_ENDPOINT_LENGTH, P256DH_BYTES

MAX_BODY_BYTES = 4096
"""Largest body a route reads; a longer one is refused before it is decoded."""

MAX_NAME_LENGTH = 64
"""Longest username a body may carry (the naming rule allows 20 characters)."""

LATEST_START = 4_102_444_800.0
"""The latest tournament start a body may ask for: 2100-01-01, in seconds since the epoch."""

MAX_TEXT_LENGTH = 200
"""Longest game options text or tournament name."""

Body = TypeVar("Body", bound=msgspec.Struct)


class Empty(msgspec.Struct, forbid_unknown_fields=True):
    """The body of a route that takes nothing (a guest, a join, a withdrawal): ``{}`` or
    nothing at all."""


class Credentials(msgspec.Struct, forbid_unknown_fields=True):
    """A username and password to register or log in with."""

    name: Annotated[str, msgspec.Meta(max_length=MAX_NAME_LENGTH)]
    password: Annotated[str, msgspec.Meta(max_length=MAX_PASSWORD_LENGTH)]


Unset = msgspec.UnsetType
UNSET = msgspec.UNSET


class NewTournament(msgspec.Struct, forbid_unknown_fields=True):
    """A tournament to create; an absent field takes :class:`lobby.tournaments.model.Settings`'s
    default.  The bounds keep every value finite and in range of the clocks; whether the
    values make an event (players for the format, rounds for the field...) is
    :func:`lobby.tournaments.lifecycle.create`'s decision."""

    game: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_LENGTH)]
    format: Format
    starts_at: Annotated[float, msgspec.Meta(ge=0, le=LATEST_START)]
    max_players: Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS)]
    rated: bool | Unset = UNSET
    options: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_LENGTH)] | Unset = UNSET
    clock_seconds: Annotated[int, msgspec.Meta(gt=0, le=int(MAX_LIVE_SECONDS))] | Unset = UNSET
    increment_seconds: Annotated[int, msgspec.Meta(ge=0, le=int(MAX_LIVE_SECONDS))] | Unset = UNSET
    rounds: Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS)] | Unset = UNSET
    double: bool | Unset = UNSET
    duration: Annotated[float, msgspec.Meta(ge=0, le=arena.MAX_ARENA_SECONDS)] | Unset = UNSET
    name: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_LENGTH)] | Unset = UNSET

    def settings(self) -> Settings:
        """The event's settings: the fields given, the defaults for the others."""
        given = {
            field: value
            for field, value in msgspec.structs.asdict(self).items()
            if value is not UNSET
        }
        return Settings(**given)


class ImportedRecord(msgspec.Struct, forbid_unknown_fields=True):
    """A game record to view: its text (tags and moves, :func:`lobby.games.record_text`),
    the game when the text has no ``Game`` tag, and the ply to show (the end if absent)."""

    max_bytes: ClassVar[int] = RECORD_BYTES + 1024
    """A record's text, JSON-escaped, with room for the other fields."""

    text: Annotated[str, msgspec.Meta(max_length=RECORD_BYTES)]
    game: Annotated[str, msgspec.Meta(max_length=MAX_NAME_LENGTH)] | Unset = UNSET
    ply: Annotated[int, msgspec.Meta(ge=0, le=RECORD_MOVES)] | Unset = UNSET


class PushKeys(msgspec.Struct, forbid_unknown_fields=True):
    """A browser's keys to encrypt pushes with (URL-safe base64, checked by
    :func:`server.push.subscription`)."""

    p256dh: Annotated[str, msgspec.Meta(max_length=2 * P256DH_BYTES)]
    auth: Annotated[str, msgspec.Meta(max_length=2 * AUTH_BYTES)]


class PushSubscription(msgspec.Struct, forbid_unknown_fields=True):
    """A browser's ``PushSubscription.toJSON()``: where to push, and the keys."""

    endpoint: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ENDPOINT_LENGTH)]
    keys: PushKeys
    expirationTime: float | None | Unset = UNSET  # noqa: N815 (the browser's own name)


class PushDevice(msgspec.Struct, forbid_unknown_fields=True):
    """A device to stop pushing to: its subscription's address."""

    endpoint: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ENDPOINT_LENGTH)]


def limit(kind: type[msgspec.Struct]) -> int:
    """The most bytes a body of ``kind`` may have: its own ``max_bytes``, else
    :data:`MAX_BODY_BYTES`."""
    return int(getattr(kind, "max_bytes", MAX_BODY_BYTES))


def decode(raw: bytes, kind: type[Body]) -> Body:
    """The body ``raw`` as a ``kind``; raises BadRequestError with a reason that names the
    field (or, for JSON that does not parse, shows where)."""
    most = limit(kind)
    if len(raw) > most:
        raise BadRequestError(f"the body is larger than {most} bytes")
    try:
        return msgspec.json.decode(raw or b"{}", type=kind)
    except msgspec.ValidationError as error:
        raise BadRequestError(f"invalid body: {error}") from error
    except msgspec.DecodeError as error:
        raise BadRequestError(f"the body is not JSON: {error}{_near(raw, str(error))}") from error


def _near(raw: bytes, reason: str) -> str:
    """The text around the byte a JSON error names (``NaN``, ``Infinity``...), for the
    reason: it shows the field."""
    found = re.search(r"\(byte (\d+)\)", reason)
    if found is None:
        return ""
    at = int(found.group(1))
    return f" near {raw[max(0, at - 24) : at + 12].decode(errors='replace')!r}"
