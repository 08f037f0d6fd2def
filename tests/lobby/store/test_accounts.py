"""Accounts in Redis against a real redis-server: registration races, login limits and
delays, rehashing, finding players."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as aioredis

from lobby.accounts import LoginLimits, ScryptParams
from lobby.identity import Player, new_guest
from lobby.store import accounts as account_store
from lobby.store import connections as connection_store
from lobby.store.attempts import Window
from lobby.work_pool import WorkPool
from protocol.errors import (
    BadCredentialsError,
    BadNameError,
    NameTakenError,
    RateLimitedError,
    UnknownPlayerError,
)
from tests.lobby.store.helpers import CHEAP, T0, account, login


async def test_register_then_log_in_with_the_name_in_any_case(redis_client: aioredis.Redis) -> None:
    alice = await account(redis_client, "Alice")
    assert alice.id.startswith("u:") and not alice.guest
    assert await login(redis_client, "aLiCe", "Alice-password", "10.0.0.1", T0) == alice
    stored = await redis_client.get("{lobby}:account:alice")
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
    assert len(await redis_client.keys("{lobby}:account:*")) == 1
    assert len(await redis_client.keys("{lobby}:account-id:*")) == 1


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
