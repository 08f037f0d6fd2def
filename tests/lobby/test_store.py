"""The lobby's Redis storage against a real redis-server: atomicity, expiry, events.

Time is always passed in, so expiry is tested by moving ``now`` forward, never by sleeping.
Races run as concurrent tasks on two separate clients, as two server processes would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.accounts import DEFAULT_LOGIN_LIMITS, LoginLimits, ScryptParams
from lobby.archive import Cursor, Query
from lobby.attempt_store import Window
from lobby.challenges import ChallengeLimits, Colour, Status, rematch_id
from lobby.games import FinishedGame, LiveGame
from lobby.identity import Player, new_guest
from lobby.store import accounts as account_store
from lobby.store import challenges as challenge_store
from lobby.store import common as store_common
from lobby.store import connections as connection_store
from lobby.store import games as game_store
from lobby.work_pool import WorkPool
from protocol.errors import (
    AlreadyAcceptedError,
    BadCredentialsError,
    BadNameError,
    BadOptionsError,
    ChallengeExpiredError,
    LimitReachedError,
    NameTakenError,
    NotAPlayerError,
    NotChallengerError,
    NotTargetError,
    OwnChallengeError,
    RateLimitedError,
    UnknownChallengeError,
    UnknownPlayerError,
    UnknownRoomError,
)
from rules import GAMES, find_game
from rules.api import Seat

CHEAP = ScryptParams(n=2**8, r=8, p=1)
LIMITS = ChallengeLimits(max_open=3, lifetime=600)
GAME = sorted(GAMES)[0] if GAMES else "none"
T0 = 1_000_000.0


@pytest.fixture
async def second_client(redis_server: Any) -> AsyncIterator[aioredis.Redis]:
    """Another connection to the same Redis, standing for a second server process."""
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


@pytest.fixture
async def events(redis_client: aioredis.Redis) -> AsyncIterator[Events]:
    """A subscriber to the lobby channel that collects events as they are published."""
    pubsub = redis_client.pubsub()
    await pubsub.subscribe(store_common.CHANNEL)
    # Wait for the confirmation, so no event published by the test can come before it.
    confirmation = await pubsub.get_message(timeout=2.0)
    assert confirmation is not None and confirmation["type"] == "subscribe"
    yield Events(pubsub)
    await pubsub.aclose()  # type: ignore[no-untyped-call]


class Events:
    def __init__(self, pubsub: Any) -> None:
        self.pubsub = pubsub
        self.publications = 0
        self.held: list[dict[str, Any]] = []
        """Events of a publication read but not taken yet."""

    async def next(self, timeout: float = 2.0) -> dict[str, Any]:
        """The next lobby event; fails if none arrives within ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while not self.held:
                message = await self.pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=timeout
                )
                if message is not None:
                    self.publications += 1
                    self.held = store_common.decode_events(message["data"])
        return self.held.pop(0)

    async def none_pending(self) -> bool:
        if self.held:
            return False
        return await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05) is None


async def account(redis: aioredis.Redis, name: str) -> Player:
    return (await account_store.register(redis, name, f"{name}-password", T0, CHEAP)).player


async def login(
    redis: aioredis.Redis,
    name: str,
    password: str,
    address: str,
    now: float,
    limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    params: ScryptParams = CHEAP,
) -> Player:
    """account_store.login with the cheap parameters the test accounts were hashed with."""
    return await account_store.login(redis, name, password, address, now, limits, params)


# --- accounts -------------------------------------------------------------------------------


async def test_register_then_log_in_with_the_name_in_any_case(redis_client: aioredis.Redis) -> None:
    alice = await account(redis_client, "Alice")
    assert alice.id.startswith("u:") and not alice.guest
    assert await login(redis_client, "aLiCe", "Alice-password", "10.0.0.1", T0) == alice
    stored = await redis_client.get("lobby:account:alice")
    assert stored is not None and b"Alice-password" not in stored
    assert json.loads(stored)["hash"].startswith("scrypt$")


async def test_login_rehashes_a_password_stored_with_older_parameters(
    redis_client: aioredis.Redis,
) -> None:
    stronger = ScryptParams(n=2**9, r=8, p=1)
    await account(redis_client, "frank")
    player = await login(redis_client, "frank", "frank-password", "h", T0, params=stronger)
    stored = await account_store.get_account(redis_client, "FRANK")
    assert stored is not None and stored.player == player
    assert stored.password_hash.startswith("scrypt$512$8$1$")
    assert await login(redis_client, "frank", "frank-password", "h", T0, params=stronger)


async def test_a_name_is_taken_whatever_its_case(redis_client: aioredis.Redis) -> None:
    await account(redis_client, "alice")
    with pytest.raises(NameTakenError):
        await account_store.register(redis_client, "ALICE", "another-password", T0, CHEAP)
    with pytest.raises(BadNameError):
        await account_store.register(redis_client, "bot-evil", "another-password", T0, CHEAP)


async def test_two_simultaneous_registrations_of_one_name_create_one_account(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    results = await asyncio.gather(
        account_store.register(redis_client, "carol", "first-password", T0, CHEAP),
        account_store.register(second_client, "CAROL", "second-password", T0, CHEAP),
        return_exceptions=True,
    )
    created = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, NameTakenError)]
    assert len(created) == 1 and len(refused) == 1
    assert len(await redis_client.keys("lobby:account:*")) == 1
    assert len(await redis_client.keys("lobby:account-id:*")) == 1


async def test_a_wrong_password_and_an_unknown_name_are_the_same_refusal(
    redis_client: aioredis.Redis,
) -> None:
    await account(redis_client, "dave")
    with pytest.raises(BadCredentialsError) as wrong:
        await login(redis_client, "dave", "not-his-password", "1.2.3.4", T0)
    with pytest.raises(BadCredentialsError) as unknown:
        await login(redis_client, "nobody", "dave-password", "1.2.3.4", T0)
    assert str(wrong.value) == str(unknown.value)


SLOW = LoginLimits(per_address=100, window=60, free_attempts=3, first_delay=10, max_delay=40)
"""Three free attempts per name, then 10, 20, 40, 40... seconds between attempts."""


async def test_failed_logins_slow_a_name_down_and_the_right_password_works_after_the_wait(
    redis_client: aioredis.Redis,
) -> None:
    dave = await account(redis_client, "dave")
    for i in range(3):
        with pytest.raises(BadCredentialsError):
            await login(redis_client, "dave", "guess", f"10.0.0.{i}", T0 + i, SLOW)
    # The third attempt (at T0 + 2) set a wait of 10 s: until then even the right password
    # waits, and the attempts refused meanwhile do not make the wait longer.
    for moment in (T0 + 3, T0 + 8, T0 + 11.5):
        with pytest.raises(RateLimitedError) as caught:
            await login(redis_client, "Dave", "dave-password", "10.0.0.9", moment, SLOW)
        assert caught.value.retry_after == pytest.approx(T0 + 12 - moment)
    assert await login(redis_client, "dave", "dave-password", "10.0.0.9", T0 + 12, SLOW) == dave
    # A success starts afresh: three free attempts again.
    for i in range(2):
        with pytest.raises(BadCredentialsError):
            await login(redis_client, "dave", "guess", "10.0.0.9", T0 + 13 + i, SLOW)
    assert await login(redis_client, "dave", "dave-password", "x", T0 + 15, SLOW) == dave


async def test_a_known_device_logs_in_at_once_while_the_name_is_slowed_down(
    redis_client: aioredis.Redis,
) -> None:
    dave = await account(redis_client, "dave")
    for i in range(3):
        with pytest.raises(BadCredentialsError):
            await login(redis_client, "dave", "guess", f"6.6.6.{i}", T0, SLOW)
    with pytest.raises(RateLimitedError):
        await login(redis_client, "dave", "dave-password", "10.0.0.9", T0 + 1, SLOW)
    player = await account_store.login(
        redis_client, "dave", "dave-password", "10.0.0.9", T0 + 1, SLOW, CHEAP, device="d1"
    )
    assert player == dave
    # A device's own failures slow down that device only.
    for _ in range(3):
        with pytest.raises(BadCredentialsError):
            await account_store.login(
                redis_client, "dave", "guess", "h", T0 + 2, SLOW, CHEAP, device="d2"
            )
    with pytest.raises(RateLimitedError):
        await account_store.login(
            redis_client, "dave", "dave-password", "h", T0 + 3, SLOW, CHEAP, device="d2"
        )
    assert await account_store.login(
        redis_client, "dave", "dave-password", "h", T0 + 3, SLOW, CHEAP, device="d1"
    )


async def test_login_is_rate_limited_per_address_across_names(
    redis_client: aioredis.Redis,
) -> None:
    limits = LoginLimits(per_address=3, window=60, free_attempts=100)
    await account(redis_client, "erin")
    for i, name in enumerate(["x1x", "y2y", "z3z"]):
        with pytest.raises(BadCredentialsError):
            await login(redis_client, name, "guess", "6.6.6.6", T0 + i, limits)
    with pytest.raises(RateLimitedError) as caught:
        await login(redis_client, "erin", "erin-password", "6.6.6.6", T0 + 3, limits)
    assert caught.value.retry_after == pytest.approx(57.0)
    assert await login(redis_client, "erin", "erin-password", "7.7.7.7", T0 + 3, limits)
    # A success does not count against its address.
    for _ in range(3):
        assert await login(redis_client, "erin", "erin-password", "8.8.8.8", T0 + 4, limits)


async def test_concurrent_guesses_are_counted_before_any_is_checked(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """64 guesses at once on one name, from two processes: only the free attempts are
    checked; the others are refused without a hash."""
    await account(redis_client, "hugo")
    pool = WorkPool(workers=4, waiting=64)
    results = await asyncio.gather(
        *(
            account_store.login(
                (redis_client, second_client)[i % 2],
                "hugo",
                f"guess-{i}",
                f"10.1.0.{i}",
                T0,
                SLOW,
                CHEAP,
                pool=pool,
            )
            for i in range(64)
        ),
        return_exceptions=True,
    )
    pool.shutdown()
    checked = [r for r in results if isinstance(r, BadCredentialsError)]
    refused = [r for r in results if isinstance(r, RateLimitedError)]
    assert (len(checked), len(refused)) == (SLOW.free_attempts, 64 - SLOW.free_attempts)


async def test_a_login_refused_for_a_full_hash_pool_counts_against_no_limit(
    redis_client: aioredis.Redis,
) -> None:
    dave = await account(redis_client, "dave")
    pool = WorkPool(workers=1, waiting=0)
    with pool.reserve():
        for _ in range(SLOW.free_attempts + 1):
            with pytest.raises(RateLimitedError):
                await login_in(pool, redis_client, "dave", "guess")
    for _ in range(SLOW.free_attempts - 1):
        with pytest.raises(BadCredentialsError):
            await login_in(pool, redis_client, "dave", "guess")
    assert await login_in(pool, redis_client, "dave", "dave-password") == dave
    pool.shutdown()


async def login_in(pool: WorkPool, redis: aioredis.Redis, name: str, password: str) -> Player:
    return await account_store.login(redis, name, password, "10.0.0.1", T0, SLOW, CHEAP, pool=pool)


async def test_registration_counts_against_its_gates_only_when_the_name_may_be_registered(
    redis_client: aioredis.Redis,
) -> None:
    gate = Window("register", "10.0.0.1", limit=2, seconds=60)
    for name in ("bot-evil", "x"):
        with pytest.raises(BadNameError):
            await account_store.register(redis_client, name, "long enough", T0, CHEAP, gates=[gate])
    await account_store.register(redis_client, "ivan", "long enough", T0, CHEAP, gates=[gate])
    await account_store.register(redis_client, "jack", "long enough", T0, CHEAP, gates=[gate])
    with pytest.raises(RateLimitedError):
        await account_store.register(
            redis_client, "kate", "long enough", T0 + 1, CHEAP, gates=[gate]
        )
    assert await account_store.get_account(redis_client, "kate") is None


async def test_find_player_knows_accounts_and_online_guests_only(
    redis_client: aioredis.Redis,
) -> None:
    alice = await account(redis_client, "Alice")
    guest = new_guest(bytes(8))
    assert await account_store.find_player(redis_client, "ALICE", T0) == alice
    assert await account_store.find_player(redis_client, alice.id, T0) == alice
    with pytest.raises(UnknownPlayerError):
        await account_store.find_player(redis_client, guest.name, T0)
    await connection_store.connect(redis_client, "c1", guest, T0)
    assert await account_store.find_player(redis_client, guest.name.lower(), T0) == guest
    assert await account_store.find_player(redis_client, guest.id, T0) == guest
    with pytest.raises(UnknownPlayerError):
        await account_store.find_player(redis_client, guest.name, T0 + 3600)
    with pytest.raises(UnknownPlayerError):
        await account_store.find_player(redis_client, "u:0000", T0)


# --- challenges -----------------------------------------------------------------------------


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
    before = await redis_client.get(f"lobby:challenge:{made.id}")
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
    assert await redis_client.get(f"lobby:challenge:{made.id}") == before
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
    ttl = await redis_client.ttl(f"lobby:challenge:{first.id}")
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


# --- presence -------------------------------------------------------------------------------


async def test_presence_counts_tabs_and_places_and_announces_changes(
    redis_client: aioredis.Redis, events: Events
) -> None:
    guest = new_guest(bytes(8))
    first = await connection_store.connect(redis_client, "tab1", guest, T0)
    assert (first.connections, first.places) == (1, ("lobby",))
    assert (await events.next())["presence"]["connections"] == 1
    await connection_store.connect(redis_client, "tab2", guest, T0 + 1)
    moved = await connection_store.move_connection(redis_client, "tab2", "room7", T0 + 2)
    assert moved is not None and moved.places == ("lobby", "room7")
    assert await connection_store.room_spectators(redis_client, "room7", T0 + 2) == 1
    assert await connection_store.room_spectators(redis_client, "room7", T0 + 2, [guest.id]) == 0
    await events.next()
    assert (await events.next())["presence"]["places"] == ["lobby", "room7"]
    remaining = await connection_store.disconnect(redis_client, "tab1", T0 + 3)
    assert remaining is not None and remaining.places == ("room7",)
    await events.next()
    assert await connection_store.disconnect(redis_client, "tab2", T0 + 3) is None
    gone = await events.next()
    assert gone == {"t": "presence", "player": guest.id, "presence": None}
    assert await connection_store.online(redis_client, T0 + 3) == []


async def test_a_crashed_process_leaves_no_ghosts(redis_client: aioredis.Redis) -> None:
    alice, bob = new_guest(bytes(8)), new_guest(bytes([1] * 8))
    await connection_store.connect(redis_client, "a1", alice, T0, ttl=60)
    await connection_store.connect(redis_client, "b1", bob, T0, ttl=60)
    for beat in range(1, 4):
        assert await connection_store.heartbeat(redis_client, "a1", T0 + 40 * beat, ttl=60)
    now = T0 + 130
    assert [p.player for p in await connection_store.online(redis_client, now)] == [alice]
    assert await connection_store.player_presence(redis_client, bob.id, now) is None
    assert not await connection_store.heartbeat(redis_client, "b1", now)
    assert await connection_store.move_connection(redis_client, "b1", "room1", now) is None
    gone = await connection_store.sweep_presence(redis_client, now)
    assert [c.id for c in gone] == ["b1"]
    assert await redis_client.hkeys("lobby:connections") == [b"a1"]
    assert await connection_store.sweep_presence(redis_client, now) == []


async def test_a_heartbeat_after_a_disconnect_does_not_revive_the_connection(
    redis_client: aioredis.Redis,
) -> None:
    guest = new_guest(bytes(8))
    await connection_store.connect(redis_client, "tab1", guest, T0)
    await connection_store.disconnect(redis_client, "tab1", T0 + 1)
    assert not await connection_store.heartbeat(redis_client, "tab1", T0 + 2)
    assert await connection_store.move_connection(redis_client, "tab1", "room1", T0 + 2) is None
    assert await redis_client.hlen("lobby:connections") == 0
    assert await redis_client.zcard("lobby:connection-deadlines") == 0


async def test_a_challenge_id_is_never_reused(redis_client: aioredis.Redis) -> None:
    alice = await account(redis_client, "alice")
    await challenge_store.create_challenge(
        redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS, id="same"
    )
    with pytest.raises(ValueError, match="exists"):
        await challenge_store.create_challenge(
            redis_client, alice, None, GAME, "", Colour.MINE, False, T0, LIMITS, id="same"
        )


# --- live and finished games ----------------------------------------------------------------


async def started_game(redis: aioredis.Redis) -> tuple[LiveGame, Player, Player]:
    alice, bob = await account(redis, "alice"), await account(redis, "bob")
    made = await challenge_store.create_challenge(
        redis, alice, "bob", GAME, "", Colour.MINE, False, T0
    )
    accepted = await challenge_store.accept_challenge(redis, made.id, bob, T0 + 1)
    assert accepted.seats is not None
    live = LiveGame(made.id, GAME, "", accepted.seats, False, T0 + 2, waiting_for=alice.id)
    assert await game_store.store_live_games(redis, [live]) == [live]
    return live, alice, bob


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
    await redis_client.set(f"lobby:finished:{old.room_id}", json.dumps(old.to_data()))
    await redis_client.lpush(f"lobby:history:{alice.id}", old.room_id)
    await game_store.finish_game(redis_client, finished_at("new", T0 + 9, (bob, alice), GAME))
    games, _ = await game_store.search_finished(redis_client, Query(player=alice.id), T0 + 10)
    assert games == [finished_at("new", T0 + 9, (bob, alice), GAME), old]
    assert await game_store.index_finished_games(redis_client) == 0  # once is enough
