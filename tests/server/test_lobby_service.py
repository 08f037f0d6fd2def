"""The lobby service's live-list updates: a running game's quick changes fold into few
updates, and its end is recorded at once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from types import ModuleType

import pytest
import redis.asyncio as aioredis

from rules.api import Outcome, Seat
from server import lobby_service
from server.fanout import Fanout
from server.lobby_service import LobbyService
from server.metrics import Metrics
from server.rooms import Room, SeatHolder, new_room
from server.service import RoomService

ANN = SeatHolder("g:ann", "Ann")
BOB = SeatHolder("g:bob", "Bob")


def lobby(redis_client: aioredis.Redis, synced: list[Room]) -> LobbyService:
    rooms = RoomService(redis_client, Fanout(redis_client, "a"), Metrics(), "a")
    service = LobbyService(redis_client, rooms)

    async def sync_room(room: Room) -> None:
        synced.append(room)

    service._sync_room = sync_room  # type: ignore[method-assign]
    return service


async def test_quick_changes_of_a_running_game_fold_into_two_updates(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby_service, "LIVE_EVERY", 0.2)
    synced: list[Room] = []
    service = lobby(redis_client, synced)
    room = new_room("r1", "tictactoe", "", (ANN, BOB))
    for version in range(1, 11):
        service.room_changed(replace(room, version=version), ())
        await asyncio.sleep(0)
    async with asyncio.timeout(5):
        await service.wait_synced()
    assert [r.version for r in synced] == [1, 10]


async def test_the_end_of_a_game_is_recorded_without_waiting(
    redis_client: aioredis.Redis, ttt: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby_service, "LIVE_EVERY", 60.0)
    synced: list[Room] = []
    service = lobby(redis_client, synced)
    room = new_room("r2", "tictactoe", "", (ANN, BOB))
    service.room_changed(replace(room, version=1), ())
    await asyncio.sleep(0)
    ended = replace(room, version=2, outcome=Outcome(Seat.FIRST, "resignation"))
    service.room_changed(ended, ())
    async with asyncio.timeout(5):
        await service.wait_synced()
    assert [r.version for r in synced] == [1, 2]
