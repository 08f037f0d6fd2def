"""Who a connection is: players, guest names, and signed, expiring session tokens.

Pure functions over plain values: the secret and the current time are arguments, so the same
token verifies on every server process that shares the secret, and tests need no clock.
A token is ``<payload>.<signature>``: the payload is URL-safe base64 of compact JSON
``{"id", "name", "guest", "exp"}`` and the signature is HMAC-SHA256 of the payload.
Standard library only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass

PlayerId = str

TOKEN_TTL_SECONDS = 30 * 24 * 3600
"""A session lasts thirty days; a guest who comes back later is a new guest."""

_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}$")
_GUEST_ADJECTIVES = (
    "Amber",
    "Bold",
    "Calm",
    "Deft",
    "Eager",
    "Fleet",
    "Grand",
    "Happy",
    "Keen",
    "Lucky",
    "Merry",
    "Noble",
    "Quick",
    "Quiet",
    "Swift",
    "Wise",
)
_GUEST_NOUNS = (
    "Cube",
    "Tile",
    "Knot",
    "Base",
    "Die",
    "Hole",
    "Blob",
    "Path",
    "Ring",
    "Loop",
    "Stack",
    "Push",
    "Link",
    "Pyramid",
    "Strand",
    "Corner",
)


class BadTokenError(ValueError):
    """A session token that is malformed, forged or expired."""


@dataclass(frozen=True, slots=True)
class Player:
    """A person (or bot) as the rest of the system sees them."""

    id: PlayerId
    name: str
    guest: bool


def is_valid_name(name: str) -> bool:
    """Whether ``name`` may be a username: 3 to 20 letters, digits, ``_`` or ``-``."""
    return _NAME_RE.match(name) is not None


def new_guest(token: bytes | None = None) -> Player:
    """A guest with a generated, readable name such as ``Guest-SwiftCube-4821``.

    ``token`` supplies the randomness (tests pass fixed bytes); ids are unique because they
    carry 64 random bits.
    """
    raw = token if token is not None else secrets.token_bytes(8)
    number = int.from_bytes(raw, "big")
    adjective = _GUEST_ADJECTIVES[number % len(_GUEST_ADJECTIVES)]
    noun = _GUEST_NOUNS[(number >> 8) % len(_GUEST_NOUNS)]
    return Player(
        id=f"g:{raw.hex()}",
        name=f"Guest-{adjective}{noun}-{(number >> 16) % 10000:04d}",
        guest=True,
    )


def issue_token(secret: bytes, player: Player, now: float, ttl: float = TOKEN_TTL_SECONDS) -> str:
    """A token that proves ``player``'s identity until ``now + ttl`` to holders of ``secret``."""
    body = {"id": player.id, "name": player.name, "guest": player.guest, "exp": int(now + ttl)}
    payload = _b64(json.dumps(body, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{_b64(_sign(secret, payload))}"


def verify_token(secret: bytes, token: str, now: float) -> Player:
    """The player a token names; raises BadTokenError if it is malformed, forged or expired."""
    payload, dot, signature = token.partition(".")
    if not dot or not payload or not signature:
        raise BadTokenError("malformed session token")
    try:
        given = _unb64(signature)
    except (binascii.Error, ValueError) as error:
        raise BadTokenError("malformed session token") from error
    if not hmac.compare_digest(given, _sign(secret, payload)):
        raise BadTokenError("session token signature does not match")
    try:
        body = json.loads(_unb64(payload))
        player = Player(id=str(body["id"]), name=str(body["name"]), guest=bool(body["guest"]))
        expiry = int(body["exp"])
    except (binascii.Error, ValueError, KeyError, TypeError) as error:
        raise BadTokenError("malformed session token") from error
    if now >= expiry:
        raise BadTokenError("session token has expired: sign in again")
    return player


def _sign(secret: bytes, payload: str) -> bytes:
    return hmac.new(secret, payload.encode(), hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def player_data(player: Player) -> dict[str, object]:
    """A player as plain data (JSON- and msgpack-safe): ``{"id", "name", "guest"}``."""
    return {"id": player.id, "name": player.name, "guest": player.guest}


def player_from_data(data: dict[str, object]) -> Player:
    """The player :func:`player_data` described; raises ValueError on other data."""
    try:
        return Player(id=str(data["id"]), name=str(data["name"]), guest=bool(data["guest"]))
    except (KeyError, TypeError) as error:
        raise ValueError(f"not player data: {error!r}") from error


def is_guest_id(player_id: PlayerId) -> bool:
    """Whether an id belongs to a guest (``g:``) rather than an account (``u:``).

    Lets a caller that kept only ids and names (a room's seats) rebuild a :class:`Player`.
    """
    return player_id.startswith("g:")
