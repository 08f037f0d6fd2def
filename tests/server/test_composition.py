"""The parts of a process as :func:`server.composition.compose` builds them: each is handed
its collaborators and its settings at construction, and the two callbacks that point back (a
commit to the lobby, the tournaments and the notifications; another process's change to the
room service) reach the parts of the same runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import redis.asyncio as aioredis

from server.composition import Runtime, compose
from server.rooms import Room
from server.settings import Settings

SETTINGS = Settings(
    redis_url="redis://unused",
    challenges_per_player=3,
    games_in_progress=7,
    login_per_address=11,
    tournament_step_seconds=2.5,
    idle_untimed_seconds=123.0,
)


@pytest.fixture
async def runtime(redis_client: aioredis.Redis) -> AsyncIterator[Runtime]:
    composed = compose(SETTINGS, redis_client, b"k" * 32)
    yield composed
    composed.hash_pool.shutdown()
    composed.replay_pool.shutdown()
    await composed.service.aclose()


async def test_compose_hands_each_part_the_same_room_service_and_fanout(runtime: Runtime) -> None:
    assert runtime.service.fanout is runtime.fanout
    assert runtime.lobby.rooms is runtime.service
    assert runtime.tournaments.rooms is runtime.service
    assert runtime.adjudicator.service is runtime.service
    assert runtime.settings is SETTINGS


async def test_compose_builds_the_limits_from_the_settings(runtime: Runtime) -> None:
    assert runtime.lobby.limits.max_open == 3
    assert runtime.lobby.limits.max_playing == 7
    assert runtime.login_limits.per_address == 11
    assert runtime.tournaments.step_every == 2.5
    assert runtime.service.idle_limits.untimed == 123.0


async def test_a_commit_is_told_to_the_lobby_the_tournaments_and_the_notifications(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[tuple[str, object]] = []
    for name in ("lobby", "tournaments", "push"):
        part = getattr(runtime, name)
        monkeypatch.setattr(
            part, "room_changed", lambda room, events, name=name: told.append((name, room))
        )
    room = cast(Room, object())
    assert runtime.service.on_commit is not None
    runtime.service.on_commit(room, ())
    assert told == [("lobby", room), ("tournaments", room), ("push", room)]


async def test_a_change_from_another_process_is_followed_by_the_service(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    followed: list[tuple[str, int, bytes | None]] = []
    monkeypatch.setattr(
        runtime.service,
        "follow",
        lambda room_id, version, frame: followed.append((room_id, version, frame)),
    )
    on_remote = cast(Any, runtime.fanout)._on_remote
    on_remote("r1", 4, b"diff")
    assert followed == [("r1", 4, b"diff")]
