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
``REDIS_MAXMEMORY`` caps the embedded Redis.  Redis Cluster: ``REDIS_CLUSTER`` (``1`` or
``0``; unset: asked of the Redis at ``REDIS_URL``); a commit's durability:
``REDIS_REPLICA_ACKS`` (replicas that must hold a move before it is acknowledged) and
``REDIS_REPLICA_TIMEOUT`` (seconds to wait for them) and ``REDIS_REPLICA_WAIT`` (``received``
or ``fsynced``).  The lobby's outbox: ``LOBBY_DRAIN_SECONDS``,
``LOBBY_LIVE_LIMIT``; games without moves: ``IDLE_UNSTARTED_SECONDS``,
``IDLE_UNSTARTED_CORRESPONDENCE_SECONDS``, ``IDLE_UNTIMED_SECONDS``; join and leave bursts:
``COUNT_COMMIT_SECONDS``; seated players' presence: ``PRESENCE_LEASE_SECONDS``; what players
create: ``CHALLENGES_PER_PLAYER``, ``GAMES_IN_PROGRESS``, ``GAMES_PER_HOUR``,
``MADE_PER_ADDRESS_PER_HOUR``; room chats: ``CHAT_PER_WINDOW``, ``CHAT_WINDOW_SECONDS``,
``CHAT_KEPT``, ``CHAT_REPORTS_KEPT``; notifications by Web Push: ``PUSH_SERVICES``
(comma-separated hosts), ``PUSH_CONTACT``, ``PUSH_DEVICES``, ``PUSH_QUEUE``; logs:
``LOG_FORMAT`` (``text`` or ``json``).  Standard library only.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from server.redis.embedded_redis import DEFAULT_MAXMEMORY

T = TypeVar("T", int, float)

ROOT = Path(__file__).resolve().parent.parent

LOG_FORMATS = ("text", "json")

BROWSER_PUSH_SERVICES = (
    "fcm.googleapis.com",
    "updates.push.services.mozilla.com",
    "*.push.apple.com",
    "*.notify.windows.com",
)
"""The push services of Chrome and Edge (FCM), Firefox, Safari and Windows: where browsers'
subscriptions point, and so the only hosts the server posts notifications to by default."""


@dataclass(frozen=True, slots=True)
class Settings:
    redis_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    session_secret: bytes | None = None
    redis_pool_size: int = 64
    redis_cluster: bool | None = None
    """Whether ``redis_url`` names a node of a Redis Cluster; None: ask it at start."""
    redis_replica_acks: int = 0
    """Replicas that must hold a commit before it is acknowledged (see server.redis.cluster)."""
    redis_replica_timeout: float = 1.0
    redis_replica_wait: str = "received"
    """``received`` (WAIT) or ``fsynced`` (WAITAOF on the replicas too)."""
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
    redis_maxmemory: str = DEFAULT_MAXMEMORY
    """Memory the embedded Redis may use before it refuses writes (``noeviction``)."""
    lobby_drain_seconds: float = 0.5
    """Seconds between passes over the lobby's outbox (live list, histories, ratings)."""
    lobby_live_limit: int = 100
    """Live games in the lobby's reply at most (the newest), with their count."""
    idle_unstarted_seconds: float = 10 * 60
    """A live or untimed game in which nobody moved for this long is aborted."""
    idle_unstarted_correspondence_seconds: float = 7 * 24 * 3600
    """A correspondence game in which nobody moved for this long is aborted."""
    idle_untimed_seconds: float = 3 * 24 * 3600
    """An untimed game with no move for this long ends with no winner (timed ones end on
    their clock)."""
    count_commit_seconds: float = 1.0
    """Least seconds between two commits of a room's spectator count, or of its players'
    presence, by one process (changes meanwhile fold into the next)."""
    presence_lease_seconds: float = 15.0
    """A seated player's presence lease on a room (renewed every third of it): the longest a
    crashed process's players still show as here."""
    challenges_per_player: int = 10
    """Open challenges one player may have at once."""
    games_in_progress: int = 30
    """Games one player may have in progress when another starts (bots excepted)."""
    games_per_hour: int = 120
    """Games one player may start in an hour, rematches included (bots excepted)."""
    made_per_address_per_hour: int = 300
    """Challenges made and games started from one network address in an hour."""
    chat_per_window: int = 5
    """Chat lines one player may say in ``chat_window_seconds``, over every room."""
    chat_window_seconds: float = 10.0
    chat_kept: int = 100
    """Lines kept per chat of a room (the players' and the spectators'), the newest."""
    chat_reports_kept: int = 10_000
    """Chat reports kept for the operators in ``chat:reports``, the newest."""
    push_services: tuple[str, ...] = BROWSER_PUSH_SERVICES
    """Hosts a push subscription may point at: ``https`` on these (``*.`` for any subdomain),
    or plain ``http`` on an entry written ``host:port`` (a loopback push service for tests)."""
    push_contact: str = "mailto:webmaster@localhost"
    """The operator's ``mailto:`` or ``https:`` address, sent with every push (push services
    write to it about problems; set a real one in a deployment)."""
    push_devices: int = 10
    """Devices per player that may receive notifications."""
    push_queue: int = 10_000
    """Notifications waiting to be sent by one process; past it new ones are dropped."""
    log_format: str = "text"
    """``text``: a line of words per record; ``json``: one JSON object per line (for a log
    collector)."""


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
        redis_cluster=_flag(env["REDIS_CLUSTER"]) if env.get("REDIS_CLUSTER") else None,
        redis_replica_acks=_at_least(
            0, "REDIS_REPLICA_ACKS", int(env.get("REDIS_REPLICA_ACKS", defaults.redis_replica_acks))
        ),
        redis_replica_timeout=_at_least(
            0.001,
            "REDIS_REPLICA_TIMEOUT",
            float(env.get("REDIS_REPLICA_TIMEOUT", defaults.redis_replica_timeout)),
        ),
        redis_replica_wait=_replica_wait(
            env.get("REDIS_REPLICA_WAIT", defaults.redis_replica_wait)
        ),
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
        redis_maxmemory=env.get("REDIS_MAXMEMORY", defaults.redis_maxmemory),
        lobby_drain_seconds=float(env.get("LOBBY_DRAIN_SECONDS", defaults.lobby_drain_seconds)),
        lobby_live_limit=int(env.get("LOBBY_LIVE_LIMIT", defaults.lobby_live_limit)),
        idle_unstarted_seconds=float(
            env.get("IDLE_UNSTARTED_SECONDS", defaults.idle_unstarted_seconds)
        ),
        idle_unstarted_correspondence_seconds=float(
            env.get(
                "IDLE_UNSTARTED_CORRESPONDENCE_SECONDS",
                defaults.idle_unstarted_correspondence_seconds,
            )
        ),
        idle_untimed_seconds=float(env.get("IDLE_UNTIMED_SECONDS", defaults.idle_untimed_seconds)),
        count_commit_seconds=float(env.get("COUNT_COMMIT_SECONDS", defaults.count_commit_seconds)),
        presence_lease_seconds=float(
            env.get("PRESENCE_LEASE_SECONDS", defaults.presence_lease_seconds)
        ),
        challenges_per_player=int(env.get("CHALLENGES_PER_PLAYER", defaults.challenges_per_player)),
        games_in_progress=int(env.get("GAMES_IN_PROGRESS", defaults.games_in_progress)),
        games_per_hour=int(env.get("GAMES_PER_HOUR", defaults.games_per_hour)),
        made_per_address_per_hour=int(
            env.get("MADE_PER_ADDRESS_PER_HOUR", defaults.made_per_address_per_hour)
        ),
        chat_per_window=int(env.get("CHAT_PER_WINDOW", defaults.chat_per_window)),
        chat_window_seconds=float(env.get("CHAT_WINDOW_SECONDS", defaults.chat_window_seconds)),
        chat_kept=int(env.get("CHAT_KEPT", defaults.chat_kept)),
        chat_reports_kept=int(env.get("CHAT_REPORTS_KEPT", defaults.chat_reports_kept)),
        push_services=tuple(_list(env["PUSH_SERVICES"]))
        if "PUSH_SERVICES" in env
        else defaults.push_services,
        push_contact=_contact(env.get("PUSH_CONTACT", defaults.push_contact)),
        push_devices=int(env.get("PUSH_DEVICES", defaults.push_devices)),
        push_queue=int(env.get("PUSH_QUEUE", defaults.push_queue)),
        log_format=_log_format(env.get("LOG_FORMAT", defaults.log_format)),
    )


def _replica_wait(text: str) -> str:
    if text not in ("received", "fsynced"):
        raise ValueError(f"REDIS_REPLICA_WAIT must be received or fsynced, not {text!r}")
    return text


def _flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(f"REDIS_CLUSTER must be 1 or 0, not {text!r}")
    return text == "1"


def _at_least(lowest: T, name: str, value: T) -> T:
    if value < lowest:
        raise ValueError(f"{name} must be at least {lowest}, not {value}")
    return value


def _log_format(text: str) -> str:
    if text not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {text!r}")
    return text


def _contact(text: str) -> str:
    """The push contact, which push services require to be a ``mailto:`` or ``https:`` URL."""
    if not text.startswith(("mailto:", "https://")):
        raise ValueError(f"PUSH_CONTACT must start with mailto: or https://, not {text!r}")
    return text


def _list(text: str) -> list[str]:
    """The entries of a comma-separated setting, blanks dropped."""
    return [entry.strip() for entry in text.split(",") if entry.strip()]
