"""Challenges in Redis against a real redis-server: atomic transitions, races on two
clients, lazy expiry, the sweep, the per-player limit, rematches, and the events announced.

Time is always passed in, so expiry is tested by moving ``now`` forward, never by sleeping.
Races run as concurrent tasks on two separate clients, as two server processes would.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from lobby.challenges import Colour, Status, rematch_id
from lobby.games import FinishedGame
from lobby.identity import new_guest
from lobby.store import challenges as challenge_store
from lobby.store import games as game_store
from protocol.errors import (
    AlreadyAcceptedError,
    BadOptionsError,
    ChallengeExpiredError,
    LimitReachedError,
    NotAPlayerError,
    NotChallengerError,
    NotTargetError,
    OwnChallengeError,
    UnknownChallengeError,
    UnknownPlayerError,
    UnknownRoomError,
)
from rules import find_game
from rules.api import Seat
from tests.lobby.store.helpers import GAME, LIMITS, T0, Events, account, started_game


async def test_a_direct_challenge_is_listed_for_both_players_then_accepted(
    redis_client: aioredis.Redis, events: Events
) -> None:
    alice, bob = await account(redis_client, "alice"), await account(redis_client, "bob")
    made = await challenge_store.create_challenge(
        redis_client, alice, "Bob", GAME, "", Colour.THEIRS, True, T0, LIMITS
    )
    assert made.target == bob and made.rated
    created_event = await events.next()
    assert created_event["t"] == "challenge"
    assert created_event["challenge"]["status"] == "open"
    assert created_event["challenge"]["id"] == made.id
    assert await challenge_store.open_challenges(redis_client, T0) == []
    assert (await challenge_store.player_challenges(redis_client, bob.id, T0)).incoming == [made]
    assert (await challenge_store.player_challenges(redis_client, alice.id, T0)).outgoing == [made]

    accepted = await challenge_store.accept_challenge(redis_client, made.id, bob, T0 + 5)
    assert accepted.seats == (bob, alice)
    assert await challenge_store.get_challenge(redis_client, made.id) == accepted
    accepted_event = await events.next()
    assert accepted_event["challenge"]["status"] == "accepted"
    assert accepted_event["challenge"]["seats"][0]["id"] == bob.id
    assert (await challenge_store.player_challenges(redis_client, bob.id, T0)).incoming == []
    assert (await challenge_store.player_challenges(redis_client, alice.id, T0)).outgoing == []


async def test_a_guest_makes_an_open_challenge_and_anyone_accepts_it(
    redis_client: aioredis.Redis,
) -> None:
    guest = new_guest(bytes(8))
    bob = await account(redis_client, "bob")
    made = await challenge_store.create_challenge(
        redis_client, guest, None, GAME, "", Colour.RANDOM, False, T0, LIMITS
    )
    assert await challenge_store.open_challenges(redis_client, T0 + 1) == [made]
    accepted = await challenge_store.accept_challenge(redis_client, made.id, bob, T0 + 2, seed=1)
    assert set(accepted.seats or ()) == {guest, bob}
    assert await challenge_store.open_challenges(redis_client, T0 + 3) == []


async def test_refusals_change_nothing_and_publish_nothing(
    redis_client: aioredis.Redis, events: Events
) -> None:
    alice, bob = await account(redis_client, "alice"), await account(redis_client, "bob")
    carol = await account(redis_client, "carol")
    made = await challenge_store.create_challenge(
        redis_client, alice, "bob", GAME, "", Colour.MINE, False, T0, LIMITS
    )
    await events.next()
    before = await redis_client.get(f"{{lobby}}:challenge:{made.id}")
    with pytest.raises(OwnChallengeError):
        await challenge_store.accept_challenge(redis_client, made.id, alice, T0 + 1)
    with pytest.raises(NotTargetError):
        await challenge_store.accept_challenge(redis_client, made.id, carol, T0 + 1)
    with pytest.raises(NotTargetError):
        await challenge_store.decline_challenge(redis_client, made.id, carol, T0 + 1)
    with pytest.raises(NotChallengerError):
        await challenge_store.cancel_challenge(redis_client, made.id, bob, T0 + 1)
    with pytest.raises(UnknownChallengeError):
        await challenge_store.accept_challenge(redis_client, "nope", bob, T0 + 1)
    with pytest.raises(UnknownPlayerError):
        await challenge_store.create_challenge(
            redis_client, alice, "nobody", GAME, "", Colour.MINE, False, T0, LIMITS
        )
    with pytest.raises(BadOptionsError):
        await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "-nonsense", Colour.MINE, False, T0, LIMITS
        )
    assert await redis_client.get(f"{{lobby}}:challenge:{made.id}") == before
    assert await events.none_pending()
    assert len((await challenge_store.player_challenges(redis_client, alice.id, T0)).outgoing) == 1


async def test_decline_and_cancel_close_a_challenge_for_good(
    redis_client: aioredis.Redis,
) -> None:
    alice, bob = await account(redis_client, "alice"), await account(redis_client, "bob")
    first = await challenge_store.create_challenge(
        redis_client, alice, "bob", GAME, "", Colour.MINE, False, T0, LIMITS
    )
    second = await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS
    )
    declined = await challenge_store.decline_challenge(redis_client, first.id, bob, T0 + 1)
    cancelled = await challenge_store.cancel_challenge(redis_client, second.id, alice, T0 + 1)
    assert (declined.status, cancelled.status) == (Status.DECLINED, Status.CANCELLED)
    assert await challenge_store.open_challenges(redis_client, T0 + 2) == []
    mine = await challenge_store.player_challenges(redis_client, alice.id, T0 + 2)
    assert mine.outgoing == [] and mine.incoming == []
    ttl = await redis_client.ttl(f"{{lobby}}:challenge:{first.id}")
    assert 0 < ttl <= challenge_store.CLOSED_CHALLENGE_TTL


async def test_two_simultaneous_accepts_on_two_clients_give_one_acceptance(
    redis_client: aioredis.Redis, second_client: aioredis.Redis, events: Events
) -> None:
    alice = await account(redis_client, "alice")
    takers = [await account(redis_client, f"taker{i}") for i in range(6)]
    for round_number in range(5):
        made = await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "", Colour.RANDOM, False, T0, LIMITS
        )
        results = await asyncio.gather(
            *(
                challenge_store.accept_challenge(
                    redis_client if i % 2 else second_client, made.id, taker, T0 + 1
                )
                for i, taker in enumerate(takers)
            ),
            return_exceptions=True,
        )
        accepted = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, AlreadyAcceptedError)]
        assert len(accepted) == 1, results
        assert len(refused) == len(takers) - 1, results
        stored = await challenge_store.get_challenge(redis_client, made.id)
        assert stored == accepted[0]
        statuses = [(await events.next())["challenge"]["status"] for _ in range(2)]
        assert statuses == ["open", "accepted"], round_number
        assert await events.none_pending()


async def test_the_open_challenge_limit_holds_across_processes(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    alice = await account(redis_client, "alice")
    results = await asyncio.gather(
        *(
            challenge_store.create_challenge(
                redis_client if i % 2 else second_client,
                alice,
                None,
                GAME,
                "",
                Colour.MINE,
                False,
                T0,
                LIMITS,
            )
            for i in range(8)
        ),
        return_exceptions=True,
    )
    made = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, LimitReachedError)]
    assert (len(made), len(refused)) == (LIMITS.max_open, 8 - LIMITS.max_open)
    assert len(await challenge_store.open_challenges(redis_client, T0)) == LIMITS.max_open


async def test_an_overdue_challenge_expires_when_touched(
    redis_client: aioredis.Redis, events: Events
) -> None:
    alice, bob = await account(redis_client, "alice"), await account(redis_client, "bob")
    made = await challenge_store.create_challenge(
        redis_client, alice, "bob", GAME, "", Colour.MINE, False, T0, LIMITS
    )
    await events.next()
    with pytest.raises(ChallengeExpiredError):
        await challenge_store.accept_challenge(redis_client, made.id, bob, made.expires)
    assert (await challenge_store.get_challenge(redis_client, made.id)).status is Status.EXPIRED
    assert (await events.next())["challenge"]["status"] == "expired"
    with pytest.raises(ChallengeExpiredError):
        await challenge_store.accept_challenge(redis_client, made.id, bob, made.expires + 1)
    assert await events.none_pending()


async def test_expired_challenges_free_the_limit_and_leave_the_lists(
    redis_client: aioredis.Redis, events: Events
) -> None:
    alice = await account(redis_client, "alice")
    for _ in range(LIMITS.max_open):
        await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS
        )
    with pytest.raises(LimitReachedError):
        await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "", Colour.MINE, False, T0 + 1, LIMITS
        )
    later = T0 + LIMITS.lifetime
    assert len(await challenge_store.open_challenges(redis_client, later - 1)) == LIMITS.max_open
    fresh = await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, later, LIMITS
    )
    assert await challenge_store.open_challenges(redis_client, later) == [fresh]
    kinds = [(await events.next())["challenge"]["status"] for _ in range(LIMITS.max_open * 2 + 1)]
    assert kinds.count("expired") == LIMITS.max_open


async def test_sweep_expires_every_overdue_challenge_once(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    alice = await account(redis_client, "alice")
    early = await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS
    )
    late = await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, T0 + 100, LIMITS
    )
    now = T0 + LIMITS.lifetime + 50
    first, second = await asyncio.gather(
        challenge_store.sweep_challenges(redis_client, now),
        challenge_store.sweep_challenges(second_client, now),
    )
    assert sorted(c.id for c in first + second) == [early.id]
    assert await challenge_store.open_challenges(redis_client, now) == [late]
    assert await challenge_store.sweep_challenges(redis_client, now) == []


async def test_a_challenge_id_is_never_reused(redis_client: aioredis.Redis) -> None:
    alice = await account(redis_client, "alice")
    await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS, id="same"
    )
    with pytest.raises(ValueError, match="exists"):
        await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS, id="same"
        )


async def test_a_rematch_is_stored_once_when_both_players_ask(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    live, alice, bob = await started_game(redis_client)
    options = find_game(GAME).options_text(find_game(GAME).parse_options(""))
    done = FinishedGame(
        room_id=live.room_id,
        game=live.game,
        options=options,
        players=live.players,
        rated=False,
        started=live.started,
        finished=T0 + 50,
        record=(),
        winner=Seat.SECOND,
        reason="resigned",
    )
    await game_store.finish_game(redis_client, done)
    first, second = await asyncio.gather(
        challenge_store.rematch_challenge(redis_client, live.room_id, alice, T0 + 60),
        challenge_store.rematch_challenge(second_client, live.room_id, bob, T0 + 60),
    )
    assert first == second
    assert first.seats == (bob, alice) and first.status is Status.ACCEPTED
    assert first.id == rematch_id(live.room_id)
    assert await challenge_store.get_challenge(redis_client, first.id) == first
    carol = await account(redis_client, "carol")
    with pytest.raises(NotAPlayerError):
        await challenge_store.rematch_challenge(
            redis_client, live.room_id, carol, T0 + 61, id="other"
        )
    with pytest.raises(UnknownRoomError):
        await challenge_store.rematch_challenge(redis_client, "nowhere", alice, T0 + 61)
