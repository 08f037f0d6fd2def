"""Ratings in a real Redis: a game changes ratings exactly once, history and leaderboard."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from lobby.identity import Player
from lobby.ratings import PERIOD_SECONDS, Rating, age, rate_game
from lobby.store import ratings as rating_store

ALICE = Player("alice", "Alice", guest=False)
BOB = Player("bob", "Bob", guest=False)
GUEST = Player("g:00ff", "Guest-BoldCube-0001", guest=True)
NOW = 1_800_000_000.0


async def test_apply_result_changes_both_ratings_as_the_pure_update_says(
    redis_client: aioredis.Redis,
) -> None:
    change, applied = await rating_store.apply_result(
        redis_client, "osbox", "room-1", ALICE, BOB, 1.0, NOW
    )
    expected_alice, expected_bob = rate_game(Rating(), Rating(), 1.0)
    assert applied
    assert change.first_after == expected_alice and change.second_after == expected_bob
    assert await rating_store.get_rating(redis_client, "osbox", "alice") == expected_alice
    assert await rating_store.get_rating(redis_client, "osbox", "bob") == expected_bob
    assert await rating_store.get_rating(redis_client, "che", "alice") == Rating()


async def test_concurrent_and_repeated_applications_change_ratings_once(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """Twelve applications of one game from two connections, at once, then once more."""
    attempts = [
        rating_store.apply_result(client, "osbox", "room-7", ALICE, BOB, 0.0, NOW)
        for client in (redis_client, second_client) * 6
    ]
    outcomes = await asyncio.gather(*attempts)
    again, applied_again = await rating_store.apply_result(
        second_client, "osbox", "room-7", ALICE, BOB, 0.0, NOW + 60
    )
    assert sum(applied for _, applied in outcomes) == 1
    assert not applied_again
    assert {change for change, _ in outcomes} == {again}
    expected_alice, expected_bob = rate_game(Rating(), Rating(), 0.0)
    assert await rating_store.get_rating(redis_client, "osbox", "alice") == expected_alice
    assert await rating_store.get_rating(redis_client, "osbox", "bob") == expected_bob
    assert len(await rating_store.history(redis_client, "osbox", "alice")) == 1
    assert len(await rating_store.history(redis_client, "osbox", "bob")) == 1


async def test_two_different_games_applied_at_once_both_count(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """Different games on the same players serialise: each sees the other's result."""
    await asyncio.gather(
        rating_store.apply_result(redis_client, "osbox", "g1", ALICE, BOB, 1.0, NOW),
        rating_store.apply_result(second_client, "osbox", "g2", BOB, ALICE, 1.0, NOW),
    )
    one_way = rate_game(*rate_game(Rating(), Rating(), 1.0), 0.0)
    back, forth = rate_game(Rating(), Rating(), 1.0)
    other_way = rate_game(forth, back, 1.0)[::-1]
    alice = await rating_store.get_rating(redis_client, "osbox", "alice")
    assert alice in (one_way[0], other_way[0])
    entries = await rating_store.history(redis_client, "osbox", "alice")
    assert [entry["game_id"] for entry in entries] in (["g1", "g2"], ["g2", "g1"])


async def test_guest_games_are_never_rated(redis_client: aioredis.Redis) -> None:
    with pytest.raises(rating_store.UnratedGameError):
        await rating_store.apply_result(redis_client, "osbox", "r", ALICE, GUEST, 1.0, NOW)
    assert await redis_client.keys("*") == []


async def test_history_records_each_game_with_opponent_score_and_change(
    redis_client: aioredis.Redis,
) -> None:
    await rating_store.apply_result(redis_client, "osbox", "a", ALICE, BOB, 1.0, NOW)
    await rating_store.apply_result(redis_client, "osbox", "b", BOB, ALICE, 0.5, NOW + 10)
    entries = await rating_store.history(redis_client, "osbox", "alice")
    assert [(e["game_id"], e["opponent"], e["score"]) for e in entries] == [
        ("a", "bob", 1.0),
        ("b", "bob", 0.5),
    ]
    assert entries[0]["change"] > 0
    assert entries[0]["provisional"] is True


async def test_idle_player_comes_back_with_a_wider_deviation(
    redis_client: aioredis.Redis,
) -> None:
    await rating_store.apply_result(redis_client, "osbox", "a", ALICE, BOB, 1.0, NOW)
    before = await rating_store.get_rating(redis_client, "osbox", "alice")
    later = NOW + 3 * PERIOD_SECONDS
    change, _ = await rating_store.apply_result(redis_client, "osbox", "b", ALICE, BOB, 1.0, later)
    assert change.first_before == age(before, 3 * PERIOD_SECONDS)
    assert change.first_before.deviation > before.deviation


async def test_leaderboard_lists_established_active_players_best_first(
    redis_client: aioredis.Redis,
) -> None:
    """Established players (20 games each) best first; one idle for 40 days drops off."""
    carol = Player("carol", "Carol", guest=False)
    dave = Player("dave", "Dave", guest=False)
    day = 24 * 3600.0
    for n in range(20):
        await rating_store.apply_result(
            redis_client, "osbox", f"dc{n}", dave, carol, 1.0 if n % 3 else 0.0, NOW - 40 * day
        )
    for n in range(20):
        score = 1.0 if n % 3 else 0.0
        await rating_store.apply_result(redis_client, "osbox", f"ab{n}", ALICE, BOB, score, NOW)
        await rating_store.apply_result(redis_client, "osbox", f"bc{n}", BOB, carol, score, NOW)
    board = await rating_store.leaderboard(redis_client, "osbox", NOW + day)
    assert [row["id"] for row in board] == ["alice", "bob", "carol"]
    assert [row["rank"] for row in board] == [1, 2, 3]
    assert board[0]["name"] == "Alice" and board[0]["games"] == 20
    assert board[0]["rating"] > board[1]["rating"] > board[2]["rating"]
    assert await rating_store.leaderboard(redis_client, "osbox", NOW + day, limit=1) == board[:1]
    newcomers = await rating_store.leaderboard(redis_client, "che", NOW)
    assert newcomers == []


async def test_leaderboard_lists_provisional_ratings_with_a_question_mark_when_asked(
    redis_client: aioredis.Redis,
) -> None:
    await rating_store.apply_result(redis_client, "che", "one", ALICE, BOB, 1.0, NOW)
    assert await rating_store.leaderboard(redis_client, "che", NOW) == []
    board = await rating_store.leaderboard(redis_client, "che", NOW, provisional=True)
    assert [(row["rank"], row["id"]) for row in board] == [(1, "alice"), (2, "bob")]
    assert all(row["provisional"] and row["text"].endswith("?") for row in board)
    assert board[0]["text"] == f"{board[0]['rating']}?" and board[0]["games"] == 1
    history = await rating_store.history(redis_client, "che", "bob")
    assert history[0]["opponent"] == "alice" and history[0]["opponent_name"] == "Alice"
