"""The HTTP edge end to end: whose address a request has (behind trusted proxies only),
login limits that slow a name down without locking its owner out, per-address limits on
guests and registrations, and password hashing that never stalls the event loop nor queues
without bound."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bench.loopback.http import Answer, cookie_value, request
from client import Client
from lobby import accounts
from lobby.identity import new_guest
from server.settings import Settings
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, start_server, token_for

PROXY = {"trusted_proxies": ("127.0.0.1/32",)}
"""The tests' requests come from 127.0.0.1: trusting it makes the test a proxy that names
any client it likes in X-Forwarded-For."""


@pytest.fixture
async def server_with(
    redis_server: RedisServer, redis_client: Any, ttt: Any
) -> AsyncIterator[Callable[..., Any]]:
    """Starts a server with the settings changed as asked, on a freshly emptied Redis."""
    started: list[RunningServer] = []

    async def start(**changes: Any) -> RunningServer:
        started.append(await start_server(redis_server.url, **changes))
        return started[-1]

    yield start
    for running in started:
        await running.stop()


async def post(server: RunningServer, path: str, body: Any = None, **options: Any) -> Answer:
    return await request(f"{server.base_url}{path}", {} if body is None else body, **options)


def forwarded_for(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


# --- whose address ----------------------------------------------------------------------------


async def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(
    app_server: RunningServer,
) -> None:
    """Without TRUSTED_PROXIES a client cannot escape its address's login limit by naming
    other addresses in X-Forwarded-For."""
    limit = Settings().login_per_address
    for i in range(limit):
        guess = {"name": f"nobody{i}", "password": "not the one"}
        answer = await post(
            app_server, "/api/login", guess, headers=forwarded_for(f"203.0.113.{i}")
        )
        assert answer.status == 401
    guess = {"name": "nobody", "password": "not the one"}
    answer = await post(app_server, "/api/login", guess, headers=forwarded_for("198.51.100.1"))
    assert answer.status == 429 and answer.json["code"] == "rate_limited"


async def test_behind_a_trusted_proxy_a_bystander_logs_in_while_another_client_sprays_names(
    server_with: Callable[..., Any],
) -> None:
    server = await server_with(**PROXY, login_per_address=5)
    assert (
        await post(server, "/api/register", {"name": "bea", "password": "long enough"})
    ).status == 200
    sprayer = forwarded_for("203.0.113.7")
    for i in range(5):
        answer = await post(
            server, "/api/login", {"name": f"nobody{i}", "password": "x" * 8}, headers=sprayer
        )
        assert answer.status == 401
    answer = await post(
        server, "/api/login", {"name": "bea", "password": "long enough"}, headers=sprayer
    )
    assert answer.status == 429 and int(answer.headers["retry-after"]) > 0
    # The sprayer naming someone else's address first changes nothing: the proxy appends the
    # address it saw, and the rightmost untrusted address is the client's.
    spoofed = forwarded_for("198.51.100.9, 203.0.113.7")
    answer = await post(
        server, "/api/login", {"name": "bea", "password": "long enough"}, headers=spoofed
    )
    assert answer.status == 429
    bystander = forwarded_for("198.51.100.9")
    answer = await post(
        server, "/api/login", {"name": "bea", "password": "long enough"}, headers=bystander
    )
    assert answer.status == 200 and answer.json["player"]["name"] == "bea"


# --- login limits ---------------------------------------------------------------------------


async def test_concurrent_wrong_logins_are_checked_only_up_to_the_free_attempts(
    app_server: RunningServer,
) -> None:
    """64 guesses at once: each is counted before any password is checked, so no more than
    the free attempts are checked; the rest are refused with a time to wait."""
    creds = {"name": "carl", "password": "long enough"}
    assert (await post(app_server, "/api/register", creds)).status == 200
    answers = await asyncio.gather(
        *(
            post(app_server, "/api/login", {"name": "carl", "password": f"guess-{i:02}"})
            for i in range(64)
        )
    )
    checked = [a for a in answers if a.status == 401]
    refused = [a for a in answers if a.status == 429]
    assert 1 <= len(checked) <= accounts.LoginLimits().free_attempts
    assert len(checked) + len(refused) == 64
    assert all(int(a.headers["retry-after"]) >= 1 for a in refused)


async def test_a_known_device_logs_in_at_once_while_its_name_is_slowed_down(
    server_with: Callable[..., Any],
) -> None:
    server = await server_with(login_first_delay=600.0)
    creds = {"name": "dora", "password": "long enough"}
    registered = await post(server, "/api/register", creds)
    assert registered.status == 200
    device = cookie_value(registered, "device")
    cookie = registered.cookies["device"].lower()
    assert "httponly" in cookie and "path=/api/login" in cookie and "samesite=strict" in cookie
    other = await post(server, "/api/register", {"name": "otto", "password": "long enough"})
    for i in range(accounts.LoginLimits().free_attempts):
        wrong = {"name": "dora", "password": f"guess-{i:02}"}
        assert (await post(server, "/api/login", wrong)).status == 401
    answer = await post(server, "/api/login", creds)
    assert answer.status == 429 and int(answer.headers["retry-after"]) > 500
    foreign = {"Cookie": f"device={cookie_value(other, 'device')}"}
    assert (await post(server, "/api/login", creds, headers=foreign)).status == 429
    answer = await post(server, "/api/login", creds, headers={"Cookie": f"device={device}"})
    assert answer.status == 200 and answer.json["player"]["name"] == "dora"
    assert "device" in answer.cookies  # renewed for another year


# --- per-address creation limits ------------------------------------------------------------


async def test_guests_are_limited_per_address(app_server: RunningServer) -> None:
    answers = [await post(app_server, "/api/guest") for _ in range(Settings().guests_per_address)]
    assert all(a.status == 200 for a in answers)
    refused = await post(app_server, "/api/guest")
    assert (refused.status, refused.json["code"]) == (429, "rate_limited")
    assert int(refused.headers["retry-after"]) > 0


async def test_guests_behind_a_proxy_are_limited_per_client(
    server_with: Callable[..., Any],
) -> None:
    server = await server_with(**PROXY, guests_per_address=3)
    one, other = forwarded_for("203.0.113.1"), forwarded_for("203.0.113.2")
    statuses = [(await post(server, "/api/guest", headers=one)).status for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert (await post(server, "/api/guest", headers=other)).status == 200


async def test_registrations_are_limited_per_address(server_with: Callable[..., Any]) -> None:
    server = await server_with(**PROXY, registrations_per_address=2)
    one = forwarded_for("203.0.113.1")
    statuses = [
        (
            await post(
                server, "/api/register", {"name": f"reg{i}", "password": "long enough"}, headers=one
            )
        ).status
        for i in range(3)
    ]
    assert statuses == [200, 200, 429]
    other = forwarded_for("203.0.113.2")
    answer = await post(
        server, "/api/register", {"name": "reg9", "password": "long enough"}, headers=other
    )
    assert answer.status == 200


async def test_while_a_password_is_hashed_the_server_answers_and_refuses_more_hashing_at_once(
    app_server: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash runs in the pool's thread: the event loop answers other requests meanwhile,
    and a registration beyond the pool's places is refused at once, not queued."""
    started, release = threading.Event(), threading.Event()
    real_hash = accounts.hash_password

    def held_hash(password: str, params: accounts.ScryptParams = accounts.DEFAULT_SCRYPT) -> str:
        started.set()
        release.wait(30)
        return real_hash(password, params)

    monkeypatch.setattr(accounts, "hash_password", held_hash)
    places = Settings().hash_workers + Settings().hash_waiting
    held = [
        asyncio.create_task(
            post(app_server, "/api/register", {"name": f"held{i}", "password": "long enough"})
        )
        for i in range(places)
    ]
    try:
        assert await asyncio.to_thread(started.wait, 10)
        health = await request(f"{app_server.base_url}/healthz")
        client = await Client.connect(app_server.ws_url, token_for(new_guest()))
        await client.close()
        pool = app_server.server.config.app.state.runtime.hash_pool  # type: ignore[attr-defined]
        async with asyncio.timeout(10):
            while pool.free:  # until every held registration has taken its place
                await asyncio.sleep(0)
            extra = await post(
                app_server, "/api/register", {"name": "iris", "password": "long enough"}
            )
        assert not any(task.done() for task in held)
    finally:
        release.set()
    assert health.status == 200
    assert (extra.status, extra.json["code"]) == (429, "rate_limited")
    assert [(await task).status for task in held] == [200] * places
