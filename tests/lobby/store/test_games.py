"""Live and finished games in Redis against a real redis-server: the live lines, the
histories, the archive and its search."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.archive import Cursor, Query
from lobby.games import FinishedGame, LiveLine
from lobby.identity import Player, new_guest
from lobby.store import games as game_store
from lobby.store.common import dump
from protocol.errors import (
    UnknownPlayerError,
    UnknownRoomError,
)
from rules import GAMES
from rules.api import Seat
from tests.lobby.store.helpers import GAME, T0, Events, started_game


async def test_a_started_game_is_listed_for_spectators_and_players(
    redis_client: aioredis.Redis, events: Events
) -> None:
    live, alice, bob = await started_game(redis_client)
    assert live.players == (alice, bob) and live.move_number == 0
    assert await game_store.store_live_games(redis_client, [live]) == [live]  # the same line again
    assert await game_store.live_games(redis_client, 10) == [live]
    assert await game_store.live_count(redis_client) == 1
    assert await game_store.current_games(redis_client, bob.id) == [live]
    kinds = [(await events.next())["t"] for _ in range(4)]
    assert kinds == ["challenge", "challenge", "live", "live"]
    assert await events.none_pending()


async def test_live_lines_written_together_go_out_in_one_publication_newest_wins(
    redis_client: aioredis.Redis, events: Events
) -> None:
    live, alice, bob = await started_game(redis_client)
    for _ in range(3):
        await events.next()
    before = events.publications
    other = replace(live, room_id="other", started=T0 + 5)
    moved = replace(live, move_number=2, spectators=4, players=(bob, alice), version=3)
    assert await game_store.store_live_games(redis_client, [moved, other]) == [moved, other]
    assert [(await events.next())["game"]["room_id"] for _ in range(2)] == [live.room_id, "other"]
    assert events.publications == before + 1
    # A line of an older version, written late by a slow process, changes nothing.
    assert await game_store.store_live_games(redis_client, [replace(live, version=2)]) == []
    assert await game_store.live_games(redis_client, 10) == [moved, other]
    assert await game_store.live_games(redis_client, 1) == [other]  # the newest first


async def test_a_live_event_is_announced_as_its_own_json_would_be(
    redis_client: aioredis.Redis, events: Events
) -> None:
    """The publication is put together from each line's JSON, made once; it must read as the
    events themselves made JSON."""
    live, _, _ = await started_game(redis_client)
    for _ in range(3):
        await events.next()
    line = LiveLine.of(replace(live, move_number=1, version=2))
    text = dump(line.data)
    assert game_store.live_event_text(text) == dump({"t": "live", "game": line.data})
    assert await game_store.store_live_lines(redis_client, [line]) == [line]
    assert await events.next() == {"t": "live", "game": line.data}


async def test_many_live_lines_are_written_a_chunk_a_script_and_each_kept_or_refused(
    redis_client: aioredis.Redis, events: Events, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, _, _ = await started_game(redis_client)
    live = replace(live, version=3, move_number=2)
    assert await game_store.store_live_games(redis_client, [live]) == [live]
    monkeypatch.setattr(game_store, "STORE_LIVE_CHUNK", 2)
    others = [replace(live, room_id=f"r{i}", started=T0 + 10 + i) for i in range(1, 5)]
    stale = replace(live, version=2)  # older than the stored line: refused amid the others
    written = await game_store.store_live_games(redis_client, [others[0], stale, *others[1:]])
    assert written == others
    assert await game_store.live_count(redis_client) == 5
    assert await game_store.live_games(redis_client, 10) == [live, *others]


async def test_finishing_moves_a_game_to_both_histories_once(
    redis_client: aioredis.Redis, events: Events
) -> None:
    live, alice, bob = await started_game(redis_client)
    for _ in range(3):
        await events.next()
    done = FinishedGame(
        room_id=live.room_id,
        game=live.game,
        options=live.options,
        players=live.players,
        rated=False,
        started=live.started,
        finished=T0 + 50,
        record=("a", "b"),
        winner=Seat.FIRST,
        reason="resigned",
    )
    assert await game_store.finish_game(redis_client, done)
    assert not await game_store.finish_game(redis_client, done)
    event = await events.next()
    assert event["t"] == "finished" and "record" not in event["game"]
    assert await events.none_pending()
    assert await game_store.live_games(redis_client, 10) == []
    assert await game_store.current_games(redis_client, alice.id) == []
    assert await game_store.finished_games(redis_client, alice.id) == [done]
    assert await game_store.finished_games(redis_client, bob.id) == [done]
    assert await game_store.finished_game(redis_client, live.room_id) == done
    with pytest.raises(UnknownRoomError):
        await game_store.finished_game(redis_client, "nowhere")
    # A late live line from a slow process does not bring it back to the live list.
    assert await game_store.store_live_games(redis_client, [live]) == []
    assert await game_store.live_count(redis_client) == 0


async def test_history_is_newest_first_and_pages(redis_client: aioredis.Redis) -> None:
    alice, bob = new_guest(bytes(8)), new_guest(bytes([1] * 8))
    for number in range(5):
        done = FinishedGame(
            room_id=f"room{number}",
            game=GAME,
            options="",
            players=(alice, bob),
            rated=False,
            started=T0,
            finished=T0 + number,
            record=(),
            winner=None,
            reason="aborted",
        )
        await game_store.finish_game(redis_client, done)
    page = await game_store.finished_games(redis_client, alice.id, start=1, count=2)
    assert [g.room_id for g in page] == ["room3", "room2"]
    assert await game_store.finished_games(redis_client, "u:nobody") == []


def finished_at(
    room_id: str, when: float, players: tuple[Player, Player], game: str
) -> FinishedGame:
    return FinishedGame(
        room_id=room_id,
        game=game,
        options="",
        players=players,
        rated=False,
        started=when - 60,
        finished=when,
        record=("a",),
        winner=Seat.FIRST,
        reason="resignation",
    )


async def test_searching_finished_games_filters_and_pages_newest_first(
    redis_client: aioredis.Redis,
) -> None:
    alice, bob, carol = new_guest(bytes(8)), new_guest(bytes([1] * 8)), new_guest(bytes([2] * 8))
    other = sorted(GAMES)[1]
    # Five games of alice's, two ending at the same moment, and one of bob and carol's.
    for room, when, players, game in [
        ("a1", T0 + 1, (alice, bob), GAME),
        ("a2", T0 + 2, (bob, alice), other),
        ("a3", T0 + 3, (alice, carol), GAME),
        ("a4", T0 + 3, (alice, bob), GAME),
        ("a5", T0 + 5, (carol, alice), GAME),
        ("bc", T0 + 4, (bob, carol), GAME),
    ]:
        assert await game_store.finish_game(redis_client, finished_at(room, when, players, game))

    async def rooms(**asked: Any) -> tuple[list[str], Cursor | None]:
        games, cursor = await game_store.search_finished(redis_client, Query(**asked), T0)
        return [g.room_id for g in games], cursor

    assert (await rooms())[0] == ["a5", "bc", "a4", "a3", "a2", "a1"]
    first, cursor = await rooms(player=alice.id, limit=2)
    assert first == ["a5", "a4"] and cursor == Cursor(T0 + 3, "a4")
    second, cursor = await rooms(player=alice.id, limit=2, before=cursor)
    assert second == ["a3", "a2"] and cursor is not None
    assert await rooms(player=alice.id, limit=2, before=cursor) == (["a1"], None)
    assert (await rooms(player=bob.id, game=GAME))[0] == ["bc", "a4", "a1"]
    assert (await rooms(game=other))[0] == ["a2"]
    assert (await rooms(since=T0 + 2, until=T0 + 4))[0] == ["a4", "a3", "a2"]
    assert (await rooms(until=T0 + 4, before=Cursor(T0 + 5, "a5"), limit=1))[0] == ["a4"]
    assert await rooms(player="g:nobody") == ([], None)
    with pytest.raises(UnknownPlayerError):
        await rooms(player="Nobody at all")


async def test_finished_games_kept_before_the_archive_are_found(
    redis_client: aioredis.Redis,
) -> None:
    alice, bob = new_guest(bytes(8)), new_guest(bytes([1] * 8))
    old = finished_at("old", T0, (alice, bob), GAME)
    # As the store kept a finished game before it indexed them.
    await redis_client.set(f"{{lobby}}:finished:{old.room_id}", json.dumps(old.to_data()))
    await redis_client.lpush(f"{{lobby}}:history:{alice.id}", old.room_id)
    await game_store.finish_game(redis_client, finished_at("new", T0 + 9, (bob, alice), GAME))
    games, _ = await game_store.search_finished(redis_client, Query(player=alice.id), T0 + 10)
    assert games == [finished_at("new", T0 + 9, (bob, alice), GAME), old]
    assert await game_store.index_finished_games(redis_client) == 0  # once is enough
