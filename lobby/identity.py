"""Who a connection is: players, guest names, and signed, expiring session tokens.

Pure functions over plain values: the secret and the current time are arguments, so the same
token verifies on every server process that shares the secret, and tests need no clock.
A token is ``<payload>.<signature>``: the payload is URL-safe base64 of compact JSON
``{"id", "name", "guest", "exp"}`` and the signature is HMAC-SHA256 of the payload.
A device token (proof that a device signed in to an account before) has the same form, with
``{"name", "device", "exp"}`` and a signature over a purpose prefix and the payload.
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
BOT_TOKEN_TTL_SECONDS = 365 * 24 * 3600
"""A bot account's token lasts a year: a program should not need a person to sign it in."""
"""A session lasts thirty days; a guest who comes back later is a new guest."""
DEVICE_TTL_SECONDS = 365 * 24 * 3600
"""A device stays known for a year after its last successful login."""

_SESSION = b""
_DEVICE = b"device\x00"
"""What a token's signature covers before its payload: session tokens keep the form they
always had, device tokens are signed apart."""

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
    return _seal(secret, _SESSION, body)


def verify_token(secret: bytes, token: str, now: float) -> Player:
    """The player a token names; raises BadTokenError if it is malformed, forged or expired."""
    body = _unseal(secret, _SESSION, token, now)
    try:
        return Player(id=str(body["id"]), name=str(body["name"]), guest=bool(body["guest"]))
    except (KeyError, TypeError) as error:
        raise BadTokenError("malformed session token") from error


@dataclass(frozen=True, slots=True)
class KnownDevice:
    """A device that signed in as the account ``name_key`` before; ``id`` is its own."""

    name_key: str
    id: str


def issue_device_token(
    secret: bytes, device: KnownDevice, now: float, ttl: float = DEVICE_TTL_SECONDS
) -> str:
    """A token that proves to holders of ``secret`` that this device signed in as
    ``device.name_key`` (a login to that name then waits only on this device's own failed
    attempts).  Signed apart from session tokens: neither passes for the other."""
    body = {"name": device.name_key, "device": device.id, "exp": int(now + ttl)}
    return _seal(secret, _DEVICE, body)


def verify_device_token(secret: bytes, token: str, now: float) -> KnownDevice:
    """The device a device token names; raises BadTokenError if it is malformed, forged or
    expired."""
    body = _unseal(secret, _DEVICE, token, now)
    try:
        return KnownDevice(name_key=str(body["name"]), id=str(body["device"]))
    except (KeyError, TypeError) as error:
        raise BadTokenError("malformed device token") from error


def _seal(secret: bytes, purpose: bytes, body: dict[str, object]) -> str:
    payload = _b64(json.dumps(body, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{_b64(_sign(secret, purpose, payload))}"


def _unseal(secret: bytes, purpose: bytes, token: str, now: float) -> dict[str, object]:
    """The body of a token sealed for ``purpose``; raises BadTokenError."""
    payload, dot, signature = token.partition(".")
    if not dot or not payload or not signature:
        raise BadTokenError("malformed token")
    try:
        given = _unb64(signature)
    except (binascii.Error, ValueError) as error:
        raise BadTokenError("malformed token") from error
    if not hmac.compare_digest(given, _sign(secret, purpose, payload)):
        raise BadTokenError("token signature does not match")
    try:
        body = json.loads(_unb64(payload))
        expiry = int(body["exp"])
    except (binascii.Error, ValueError, KeyError, TypeError) as error:
        raise BadTokenError("malformed token") from error
    if now >= expiry:
        raise BadTokenError("token has expired: sign in again")
    return dict(body)


def _sign(secret: bytes, purpose: bytes, payload: str) -> bytes:
    return hmac.new(secret, purpose + payload.encode(), hashlib.sha256).digest()


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
