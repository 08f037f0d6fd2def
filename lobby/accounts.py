"""Registered accounts: the username rule, password hashing, and the login limits.

Pure functions over plain values; :mod:`lobby.store.accounts` keeps accounts in Redis (and
:mod:`lobby.store.attempts` failed logins) and calls these to decide.  Passwords are stored
only as a slow, salted scrypt hash (``hashlib.scrypt``, standard library, so no native
dependency): N=2**14, r=8, p=5, a 16-byte salt and a 32-byte key, one of OWASP's equivalent
scrypt settings (16 MiB of memory, about 0.16 s per hash on a 2-core machine).  The
parameters travel inside each stored hash, so they can be raised later without breaking old
accounts (:func:`needs_rehash`).
Imports :mod:`lobby.identity` and :mod:`protocol.errors`; standard library otherwise.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from lobby.identity import Player, is_valid_name
from protocol.errors import BadNameError, WeakPasswordError

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 256
"""Longer passwords are refused so that nobody can make the server hash megabytes."""

RESERVED_PREFIXES = ("guest-", "bot-")
"""Names the system gives out (guests, bots); nobody may register one."""


@dataclass(frozen=True, slots=True)
class ScryptParams:
    """The cost of a password hash; tests pass cheaper ones, production keeps the default."""

    n: int = 2**14
    r: int = 8
    p: int = 5
    salt_bytes: int = 16
    key_bytes: int = 32

    @property
    def max_memory(self) -> int:
        """What hashlib must be allowed to allocate (128 * r * n bytes, with headroom)."""
        return 2 * 128 * self.r * self.n + 1024 * 1024


DEFAULT_SCRYPT = ScryptParams()


@dataclass(frozen=True, slots=True)
class Account:
    """A registered player and the hash of their password."""

    player: Player
    password_hash: str
    created: float
    bot: bool = False
    """A bot account: someone's program plays it (see ``docs/bots.md``); for good."""

    def to_data(self) -> dict[str, object]:
        return {
            "id": self.player.id,
            "name": self.player.name,
            "hash": self.password_hash,
            "created": self.created,
            "bot": self.bot,
        }

    @classmethod
    def from_data(cls, data: dict[str, object]) -> Account:
        return cls(
            player=Player(id=str(data["id"]), name=str(data["name"]), guest=False),
            password_hash=str(data["hash"]),
            created=float(data["created"]),  # type: ignore[arg-type]
            bot=bool(data.get("bot", False)),
        )


@dataclass(frozen=True, slots=True)
class LoginLimits:
    """How fast logins may be tried: per client address, and per username or known device.

    Per address, at most ``per_address`` failed logins within ``window`` seconds stop one
    source spraying guesses over many names.  Per username (or per known device, for a login
    that shows one) nothing locks: after ``free_attempts`` attempts each next one waits
    ``first_delay`` seconds, doubling per attempt up to ``max_delay``; a success starts afresh,
    and so does ``window`` seconds without attempts once the wait is over.  Anyone may slow a
    name down this way, nobody can shut its owner out: a login from a known device waits
    only on that device's own attempts.
    """

    per_address: int = 20
    window: float = 15 * 60
    free_attempts: int = 5
    first_delay: float = 10.0
    max_delay: float = 15 * 60


DEFAULT_LOGIN_LIMITS = LoginLimits()


def name_key(name: str) -> str:
    """The form under which a username is unique: ``Alice`` and ``alice`` are one name."""
    return name.strip().lower()


def check_new_account(name: str, password: str) -> None:
    """Refuse a username or password that may not be registered.

    Raises BadNameError (rule broken or reserved prefix) or WeakPasswordError.
    """
    if not is_valid_name(name):
        raise BadNameError(
            f"{name!r} is not a valid username: 3 to 20 letters, digits, _ or -, "
            "starting with a letter"
        )
    if name_key(name).startswith(RESERVED_PREFIXES):
        raise BadNameError(f"names starting with Guest- or bot- are reserved: {name!r}")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPasswordError(f"a password needs at least {MIN_PASSWORD_LENGTH} characters")
    if len(password) > MAX_PASSWORD_LENGTH:
        raise WeakPasswordError(f"a password may have at most {MAX_PASSWORD_LENGTH} characters")


def new_account(
    name: str,
    password: str,
    now: float,
    params: ScryptParams = DEFAULT_SCRYPT,
    id_bytes: bytes | None = None,
) -> Account:
    """A new account (not yet stored); raises BadNameError or WeakPasswordError.

    The id (``u:`` and 64 random bits) never changes, so a later rename keeps the history.
    """
    check_new_account(name, password)
    raw = id_bytes if id_bytes is not None else secrets.token_bytes(8)
    player = Player(id=f"u:{raw.hex()}", name=name, guest=False)
    return Account(player=player, password_hash=hash_password(password, params), created=now)


def hash_password(password: str, params: ScryptParams = DEFAULT_SCRYPT) -> str:
    """``scrypt$n$r$p$salt$key`` with a fresh random salt (salt and key in base64)."""
    salt = secrets.token_bytes(params.salt_bytes)
    key = _scrypt(password, salt, params.n, params.r, params.p, params.key_bytes)
    return f"scrypt${params.n}${params.r}${params.p}${_b64(salt)}${_b64(key)}"


def verify_password(password: str, encoded: str) -> bool:
    """Whether ``password`` matches the stored hash; the comparison takes constant time.

    Raises ValueError if ``encoded`` is not a hash that :func:`hash_password` wrote.
    """
    n, r, p, salt, key = _parse_hash(encoded)
    overlong = len(password) > MAX_PASSWORD_LENGTH
    # An overlong password still costs one hash (of a short stand-in), so timing tells nothing.
    candidate = _scrypt("" if overlong else password, salt, n, r, p, len(key))
    return hmac.compare_digest(candidate, key) and not overlong


def needs_rehash(encoded: str, params: ScryptParams = DEFAULT_SCRYPT) -> bool:
    """Whether a stored hash used other (older) parameters than ``params``."""
    n, r, p, salt, key = _parse_hash(encoded)
    return (n, r, p, len(salt), len(key)) != (
        params.n,
        params.r,
        params.p,
        params.salt_bytes,
        params.key_bytes,
    )


def delay_schedule(limits: LoginLimits) -> tuple[float, ...]:
    """The wait after each counted attempt on one name or device: the n-th entry follows the
    n-th attempt, and the last entry every later one."""
    if limits.free_attempts < 1 or limits.first_delay <= 0 or limits.max_delay < 0:
        raise ValueError("logins need at least one free attempt and positive delays")
    delays = [0.0] * (limits.free_attempts - 1)
    delay = limits.first_delay
    while delay < limits.max_delay:
        delays.append(delay)
        delay *= 2
    delays.append(limits.max_delay)
    return tuple(delays)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        password.encode(),
        salt=salt,
        n=n,
        r=r,
        p=p,
        dklen=length,
        maxmem=ScryptParams(n=n, r=r, p=p).max_memory,
    )


def _parse_hash(encoded: str) -> tuple[int, int, int, bytes, bytes]:
    parts = encoded.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ValueError("not a password hash this lobby wrote")
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except (binascii.Error, ValueError) as error:
        raise ValueError("not a password hash this lobby wrote") from error
    return n, r, p, salt, key


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
