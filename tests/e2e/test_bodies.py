"""Request bodies end to end: every POST route reads its body one way, into typed, bounded
values; a body out of type or range is refused with 400 and a reason naming the field, and
changes nothing; one unreadable stored event does not break the tournament list."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import redis.asyncio as aioredis

from bench.loopback.http import Answer, request
from lobby.store import accounts as account_store
from lobby.store import tournaments as ts
from lobby.tournaments.model import Format, Settings
from tests.e2e.conftest import RunningServer


async def signed_in(server: RunningServer, name: str) -> str:
    answer = await request(
        f"{server.base_url}/api/register", {"name": name, "password": "long enough"}
    )
    assert answer.status == 200, answer.text
    token: str = answer.json["token"]
    return token


def event(**changes: Any) -> dict[str, Any]:
    body = {
        "game": "tictactoe",
        "format": "knockout",
        "starts_at": time.time() + 3600,
        "max_players": 4,
    }
    return {**body, **changes}


def raw_event(field: str, literal: str) -> bytes:
    """A tournament body whose ``field`` is written as the JSON text ``literal``."""
    return json.dumps(event(**{field: "@"})).replace('"@"', literal).encode()


def refused(answer: Answer, *words: str) -> None:
    assert answer.status == 400, answer.text
    assert answer.json["code"] == "bad_request"
    for word in words:
        assert word in answer.json["message"], (word, answer.json["message"])


async def listing(server: RunningServer) -> dict[str, Any]:
    answer = await request(f"{server.base_url}/api/tournaments")
    assert answer.status == 200, answer.text
    result: dict[str, Any] = answer.json
    return result


@pytest.mark.parametrize(
    ("field", "literal"),
    [
        ("starts_at", "Infinity"),
        ("starts_at", "-Infinity"),
        ("starts_at", "NaN"),
        ("starts_at", "1e400"),
        ("starts_at", "1e300"),
        ("clock_seconds", "1e18"),
        ("clock_seconds", "1000000000000000000"),
        ("clock_seconds", "0"),
        ("increment_seconds", "-1"),
        ("duration", "1e308"),
        ("max_players", "100000000000"),
    ],
)
async def test_numbers_out_of_range_are_refused_naming_the_field_and_nothing_is_stored(
    app_server: RunningServer, field: str, literal: str
) -> None:
    token = await signed_in(app_server, "maker")
    answer = await request(
        f"{app_server.base_url}/api/tournaments",
        raw_event(field, literal),
        headers={"Authorization": f"Bearer {token}"},
    )
    refused(answer, field)
    assert await listing(app_server) == {"created": [], "running": [], "finished": []}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"max_players": "4"}, "max_players"),
        ({"max_players": 4.5}, "max_players"),
        ({"rated": "yes"}, "rated"),
        ({"game": 5}, "game"),
        ({"format": "ladder"}, "format"),
        ({"options": ["-size=4"]}, "options"),
        ({"surprise": 1}, "surprise"),
        ({"name": "x" * 500}, "name"),
    ],
)
async def test_wrong_types_and_unknown_fields_are_refused_naming_the_field(
    app_server: RunningServer, changes: dict[str, Any], field: str
) -> None:
    token = await signed_in(app_server, "maker")
    answer = await request(
        f"{app_server.base_url}/api/tournaments",
        event(**changes),
        headers={"Authorization": f"Bearer {token}"},
    )
    refused(answer, field)


async def test_missing_fields_are_named(app_server: RunningServer) -> None:
    token = await signed_in(app_server, "maker")
    body = event()
    del body["starts_at"]
    answer = await request(
        f"{app_server.base_url}/api/tournaments",
        body,
        headers={"Authorization": f"Bearer {token}"},
    )
    refused(answer, "starts_at")
    answer = await request(f"{app_server.base_url}/api/login", {"name": "maker"})
    refused(answer, "password")
    answer = await request(f"{app_server.base_url}/api/register", {"password": "long enough"})
    refused(answer, "name")


async def test_a_valid_event_is_still_created_with_the_defaults_filled_in(
    app_server: RunningServer,
) -> None:
    token = await signed_in(app_server, "maker")
    answer = await request(
        f"{app_server.base_url}/api/tournaments",
        event(clock_seconds=180, increment_seconds=2),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status == 200, answer.text
    settings = answer.json["settings"]
    assert (settings["clock_seconds"], settings["increment_seconds"]) == (180, 2)
    assert settings["rated"] is True and settings["options"] == ""


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/register", b'{"name": ' + nested(2000) + b', "password": "long enough"}'),
        ("/api/login", nested(2000)),
        ("/api/guest", b'{"a": ' + nested(2000) + b"}"),
        ("/api/tournaments", b'{"game": ' + nested(2000) + b"}"),
    ],
)
async def test_deeply_nested_bodies_are_refused(
    app_server: RunningServer, path: str, body: bytes
) -> None:
    token = await signed_in(app_server, "maker")
    answer = await request(
        f"{app_server.base_url}{path}", body, headers={"Authorization": f"Bearer {token}"}
    )
    refused(answer)


async def test_every_post_route_reads_its_body_the_one_way(app_server: RunningServer) -> None:
    """Each refuses a body that is not its object (unknown field, an array, bad JSON, too
    large) with the same code, before doing anything."""
    token = await signed_in(app_server, "maker")
    created = await request(
        f"{app_server.base_url}/api/tournaments",
        event(),
        headers={"Authorization": f"Bearer {token}"},
    )
    tid = created.json["id"]
    routes = [
        "/api/guest",
        "/api/register",
        "/api/login",
        "/api/tournaments",
        f"/api/tournaments/{tid}/join",
        f"/api/tournaments/{tid}/withdraw",
    ]
    bodies: list[bytes] = [
        b'{"unexpected": 1}',
        b"[1]",
        b"{not json",
        b'{"name": "' + b"x" * 5000 + b'"}',  # past the 4096 bytes a body may have
    ]
    for path in routes:
        for body in bodies:
            answer = await request(
                f"{app_server.base_url}{path}", body, headers={"Authorization": f"Bearer {token}"}
            )
            refused(answer)
    details = await request(f"{app_server.base_url}/api/tournaments/{tid}")
    assert details.json["entrants"] == []
    for path in routes[:1] + routes[-2:-1]:
        answer = await request(
            f"{app_server.base_url}{path}", b"", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status == 200, (path, answer.text)  # an empty body is {}


async def test_an_unreadable_stored_event_is_left_out_of_the_list(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    """An event stored before the bounds (a start at Infinity) or damaged in Redis does not
    break the list for everyone; the others are listed."""
    maker = await account_store.register(redis_client, "maker", "long enough", time.time())
    settings = Settings("tictactoe", Format.KNOCKOUT, time.time() + 3600, 4)
    for tid in ("tgood", "tinfinite", "tgarbage"):
        await ts.create(redis_client, tid, maker.player, settings, time.time())
    state = json.loads(await redis_client.get("tournament:{tinfinite}:state"))
    state["settings"]["starts_at"] = float("inf")
    await redis_client.set("tournament:{tinfinite}:state", json.dumps(state))
    await redis_client.set("tournament:{tgarbage}:state", "{not json")
    found = await listing(app_server)
    assert [row["id"] for row in found["created"]] == ["tgood"]
