"""Settings of one server process, read once from the environment into a frozen value.

``REDIS_URL`` (unset: start an embedded redis-server that keeps its data in ``DATA_DIR``),
``HOST``, ``PORT``, ``DATA_DIR``, ``SESSION_SECRET`` (unset: a secret shared through Redis),
``REDIS_POOL_SIZE``, ``RATE_PER_SECOND`` and ``RATE_BURST`` (requests per connection),
``DIFF_HISTORY``, ``STATIC_DIR``, and for the lobby ``LOBBY_SWEEP_SECONDS``,
``CHALLENGE_LIFETIME`` and ``PRESENCE_TTL``, and ``TOURNAMENT_STEP_SECONDS``; for the HTTP
edge ``TRUSTED_PROXIES`` and ``ALLOWED_ORIGINS`` (comma-separated), the login limits
``LOGIN_PER_ADDRESS``, ``LOGIN_WINDOW``, ``LOGIN_FREE_ATTEMPTS``, ``LOGIN_FIRST_DELAY`` and
``LOGIN_MAX_DELAY``, ``GUESTS_PER_ADDRESS`` and ``GUEST_WINDOW``,
``REGISTRATIONS_PER_ADDRESS`` and ``REGISTRATION_WINDOW``, and the password hashing pool's
``HASH_WORKERS`` and ``HASH_WAITING``.
Standard library only.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    session_secret: bytes | None = None
    redis_pool_size: int = 64
    rate_per_second: float = 200.0
    rate_burst: float = 400.0
    diff_history: int = 100
    static_dir: Path = ROOT / "client_js"
    send_queue: int = 1024
    """Frames waiting for one slow socket before it is closed (it may reconnect and sync)."""
    lobby_sweep_seconds: float = 15.0
    """Seconds between expiry sweeps and presence heartbeats."""
    challenge_lifetime: float = 30 * 60
    """Seconds an unanswered challenge waits before it expires."""
    presence_ttl: float = 60.0
    """Seconds a socket stays online without a heartbeat (a crashed process's sockets lapse)."""
    tournament_step_seconds: float = 5.0
    """Seconds between tournament scheduler steps (starts, pairings, repairs)."""
    trusted_proxies: tuple[str, ...] = ()
    """Networks of the proxies whose ``X-Forwarded-For`` names the client (none: the peer is
    the client)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins of pages that may open the websocket besides the server's own."""
    login_per_address: int = 20
    """Failed logins from one client address within ``login_window``."""
    login_window: float = 15 * 60
    """Seconds failed logins count against an address, and a quiet name's delay lasts."""
    login_free_attempts: int = 5
    """Logins tried on one name (or known device) before each next one waits."""
    login_first_delay: float = 10.0
    """The first wait on one name; it doubles with each further attempt."""
    login_max_delay: float = 15 * 60
    """The longest wait on one name."""
    guests_per_address: int = 60
    """Guests one client address may make within ``guest_window``."""
    guest_window: float = 10 * 60
    registrations_per_address: int = 20
    """Accounts one client address may try to register within ``registration_window``."""
    registration_window: float = 60 * 60
    hash_workers: int = 1
    """Threads hashing passwords at once (each hash takes about 0.16 s of a core)."""
    hash_waiting: int = 8
    """Password hashes that may wait for a thread; past that, requests are refused at once."""


def from_environment(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``environ`` (default: the process environment); raises ValueError."""
    env = os.environ if environ is None else environ
    defaults = Settings()
    secret = env.get("SESSION_SECRET")
    return Settings(
        redis_url=env.get("REDIS_URL") or None,
        host=env.get("HOST", defaults.host),
        port=int(env.get("PORT", defaults.port)),
        data_dir=Path(env.get("DATA_DIR", str(defaults.data_dir))),
        session_secret=secret.encode() if secret else None,
        redis_pool_size=int(env.get("REDIS_POOL_SIZE", defaults.redis_pool_size)),
        rate_per_second=float(env.get("RATE_PER_SECOND", defaults.rate_per_second)),
        rate_burst=float(env.get("RATE_BURST", defaults.rate_burst)),
        diff_history=int(env.get("DIFF_HISTORY", defaults.diff_history)),
        static_dir=Path(env.get("STATIC_DIR", str(defaults.static_dir))),
        lobby_sweep_seconds=float(env.get("LOBBY_SWEEP_SECONDS", defaults.lobby_sweep_seconds)),
        challenge_lifetime=float(env.get("CHALLENGE_LIFETIME", defaults.challenge_lifetime)),
        presence_ttl=float(env.get("PRESENCE_TTL", defaults.presence_ttl)),
        send_queue=int(env.get("SEND_QUEUE", defaults.send_queue)),
        tournament_step_seconds=float(
            env.get("TOURNAMENT_STEP_SECONDS", defaults.tournament_step_seconds)
        ),
        trusted_proxies=tuple(
            str(ipaddress.ip_network(entry, strict=False))
            for entry in _list(env.get("TRUSTED_PROXIES", ""))
        ),
        allowed_origins=tuple(
            entry.lower().rstrip("/") for entry in _list(env.get("ALLOWED_ORIGINS", ""))
        ),
        login_per_address=int(env.get("LOGIN_PER_ADDRESS", defaults.login_per_address)),
        login_window=float(env.get("LOGIN_WINDOW", defaults.login_window)),
        login_free_attempts=int(env.get("LOGIN_FREE_ATTEMPTS", defaults.login_free_attempts)),
        login_first_delay=float(env.get("LOGIN_FIRST_DELAY", defaults.login_first_delay)),
        login_max_delay=float(env.get("LOGIN_MAX_DELAY", defaults.login_max_delay)),
        guests_per_address=int(env.get("GUESTS_PER_ADDRESS", defaults.guests_per_address)),
        guest_window=float(env.get("GUEST_WINDOW", defaults.guest_window)),
        registrations_per_address=int(
            env.get("REGISTRATIONS_PER_ADDRESS", defaults.registrations_per_address)
        ),
        registration_window=float(env.get("REGISTRATION_WINDOW", defaults.registration_window)),
        hash_workers=int(env.get("HASH_WORKERS", defaults.hash_workers)),
        hash_waiting=int(env.get("HASH_WAITING", defaults.hash_waiting)),
    )


def _list(text: str) -> list[str]:
    """The entries of a comma-separated setting, blanks dropped."""
    return [entry.strip() for entry in text.split(",") if entry.strip()]
