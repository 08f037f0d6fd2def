"""The bot accounts: stored once, found by name like any player, tokens the server accepts."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bots.accounts import (
    bot_player,
    bot_token,
    ensure_accounts,
    is_bot,
    level_of,
    shared_secret,
)
from lobby.accounts import check_new_account
from lobby.identity import verify_token
from lobby.store import accounts as account_store
from protocol.errors import BadNameError


async def test_bot_accounts_are_created_once_and_found_by_name(
    redis_client: aioredis.Redis,
) -> None:
    players = await ensure_accounts(redis_client, now=1.0)
    again = await ensure_accounts(redis_client, now=2.0)
    assert players == again
    assert [p.name for p in players] == ["bot-1", "bot-2", "bot-3", "bot-4"]
    stored = await account_store.get_account(redis_client, "BOT-3")
    assert stored is not None and stored.created == 1.0
    assert await account_store.find_player(redis_client, "bot-2", 0.0) == bot_player(2)
    assert await account_store.find_player(redis_client, "u:bot-4", 0.0) == bot_player(4)


def test_nobody_else_may_register_a_bot_name() -> None:
    with pytest.raises(BadNameError):
        check_new_account("Bot-7", "long enough password")


def test_bot_names_and_levels() -> None:
    assert is_bot("bot-1") and is_bot("u:bot-4") and not is_bot("robot-1")
    assert level_of("u:bot-3") == 3 and level_of(bot_player(2)) == 2
    for other in ("bot-9", "ann", "u:0123", "bot-x"):
        with pytest.raises(ValueError):
            level_of(other)


async def test_a_bot_token_verifies_with_the_shared_secret(redis_client: aioredis.Redis) -> None:
    secret = await shared_secret(redis_client, None)
    assert await shared_secret(redis_client, None) == secret
    assert await shared_secret(redis_client, b"configured") == b"configured"
    token = bot_token(secret, bot_player(1), now=100.0)
    assert verify_token(secret, token, 200.0) == bot_player(1)
