"""Settings come from the environment, with defaults for a no-configuration start."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.settings import Settings, from_environment


def test_defaults_start_an_embedded_redis_in_data() -> None:
    settings = from_environment({})
    assert settings.redis_url is None and settings.data_dir == Path("data")
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.session_secret is None


def test_environment_overrides_every_setting() -> None:
    settings = from_environment(
        {
            "REDIS_URL": "redis://db:6379/0",
            "HOST": "0.0.0.0",
            "PORT": "9000",
            "DATA_DIR": "/var/games",
            "SESSION_SECRET": "s3cret",
            "REDIS_POOL_SIZE": "8",
            "RATE_PER_SECOND": "5",
            "RATE_BURST": "10",
            "DIFF_HISTORY": "20",
            "LOBBY_SWEEP_SECONDS": "2",
            "CHALLENGE_LIFETIME": "120",
            "PRESENCE_TTL": "9",
        }
    )
    assert settings == Settings(
        redis_url="redis://db:6379/0",
        host="0.0.0.0",
        port=9000,
        data_dir=Path("/var/games"),
        session_secret=b"s3cret",
        redis_pool_size=8,
        rate_per_second=5.0,
        rate_burst=10.0,
        diff_history=20,
        lobby_sweep_seconds=2.0,
        challenge_lifetime=120.0,
        presence_ttl=9.0,
    )


def test_the_http_edge_settings_read_lists_and_limits() -> None:
    settings = from_environment(
        {
            "TRUSTED_PROXIES": " 172.31.250.10, 10.1.2.3/16 ,",
            "ALLOWED_ORIGINS": "https://Friends.example/,http://localhost:3000",
            "LOGIN_PER_ADDRESS": "7",
            "LOGIN_WINDOW": "60",
            "LOGIN_FREE_ATTEMPTS": "2",
            "LOGIN_FIRST_DELAY": "1.5",
            "LOGIN_MAX_DELAY": "30",
            "GUESTS_PER_ADDRESS": "3",
            "GUEST_WINDOW": "10",
            "REGISTRATIONS_PER_ADDRESS": "4",
            "REGISTRATION_WINDOW": "20",
            "HASH_WORKERS": "2",
            "HASH_WAITING": "0",
        }
    )
    assert settings.trusted_proxies == ("172.31.250.10/32", "10.1.0.0/16")
    assert settings.allowed_origins == ("https://friends.example", "http://localhost:3000")
    assert (settings.login_per_address, settings.login_window) == (7, 60.0)
    assert (settings.login_free_attempts, settings.login_first_delay) == (2, 1.5)
    assert settings.login_max_delay == 30.0
    assert (settings.guests_per_address, settings.guest_window) == (3, 10.0)
    assert (settings.registrations_per_address, settings.registration_window) == (4, 20.0)
    assert (settings.hash_workers, settings.hash_waiting) == (2, 0)


def test_by_default_no_proxy_is_trusted_and_no_other_origin_allowed() -> None:
    settings = from_environment({})
    assert settings.trusted_proxies == () and settings.allowed_origins == ()


def test_a_trusted_proxy_that_is_not_an_address_is_an_error() -> None:
    with pytest.raises(ValueError):
        from_environment({"TRUSTED_PROXIES": "haproxy"})


def test_a_malformed_number_is_an_error() -> None:
    with pytest.raises(ValueError):
        from_environment({"PORT": "eighty"})


def test_the_embedded_redis_memory_limit_comes_from_the_environment() -> None:
    assert from_environment({}).redis_maxmemory == "1gb"
    assert from_environment({"REDIS_MAXMEMORY": "256mb"}).redis_maxmemory == "256mb"


def test_the_limits_and_times_come_from_the_environment() -> None:
    settings = from_environment(
        {
            "LOBBY_DRAIN_SECONDS": "2",
            "LOBBY_LIVE_LIMIT": "20",
            "IDLE_UNSTARTED_SECONDS": "60",
            "IDLE_UNSTARTED_CORRESPONDENCE_SECONDS": "86400",
            "IDLE_UNTIMED_SECONDS": "3600",
            "COUNT_COMMIT_SECONDS": "0.5",
            "PRESENCE_LEASE_SECONDS": "6",
            "CHALLENGES_PER_PLAYER": "3",
            "GAMES_IN_PROGRESS": "4",
            "GAMES_PER_HOUR": "5",
            "MADE_PER_ADDRESS_PER_HOUR": "6",
        }
    )
    assert (settings.lobby_drain_seconds, settings.lobby_live_limit) == (2.0, 20)
    assert (
        settings.idle_unstarted_seconds,
        settings.idle_unstarted_correspondence_seconds,
        settings.idle_untimed_seconds,
    ) == (60.0, 86400.0, 3600.0)
    assert (settings.count_commit_seconds, settings.presence_lease_seconds) == (0.5, 6.0)
    assert (
        settings.challenges_per_player,
        settings.games_in_progress,
        settings.games_per_hour,
        settings.made_per_address_per_hour,
    ) == (3, 4, 5, 6)


def test_the_log_format_is_text_or_json() -> None:
    assert from_environment({"LOG_FORMAT": "json"}).log_format == "json"
    assert from_environment({}).log_format == "text"
    with pytest.raises(ValueError, match="LOG_FORMAT must be one of text, json"):
        from_environment({"LOG_FORMAT": "xml"})
    with pytest.raises(ValueError, match="PUSH_CONTACT must start with mailto:"):
        from_environment({"PUSH_CONTACT": "webmaster@example.org"})
    services = from_environment({"PUSH_SERVICES": "push.example.org, *.push.example.net"})
    assert services.push_services == ("push.example.org", "*.push.example.net")


def test_the_cluster_and_replica_settings_are_read() -> None:
    settings = from_environment(
        {
            "REDIS_CLUSTER": "1",
            "REDIS_REPLICA_ACKS": "2",
            "REDIS_REPLICA_TIMEOUT": "0.5",
            "REDIS_REPLICA_WAIT": "fsynced",
        }
    )
    assert settings.redis_cluster is True
    assert (settings.redis_replica_acks, settings.redis_replica_timeout) == (2, 0.5)
    assert settings.redis_replica_wait == "fsynced"
    default = from_environment({})
    assert default.redis_cluster is None  # asked of the Redis at start
    assert (default.redis_replica_acks, default.redis_replica_wait) == (0, "received")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REDIS_CLUSTER", "yes"),
        ("REDIS_REPLICA_ACKS", "-1"),
        ("REDIS_REPLICA_TIMEOUT", "0"),
        ("REDIS_REPLICA_WAIT", "written"),
    ],
)
def test_a_bad_cluster_or_replica_setting_is_an_error(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        from_environment({name: value})
