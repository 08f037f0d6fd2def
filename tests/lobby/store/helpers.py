"""What the lobby store tests share: cheap hashing, limits, a collector of lobby events,
and shortcuts that make accounts and start games."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from lobby.accounts import DEFAULT_LOGIN_LIMITS, LoginLimits, ScryptParams
from lobby.challenges import ChallengeLimits, Colour
from lobby.games import LiveGame
from lobby.identity import Player
from lobby.store import accounts as account_store
from lobby.store import challenges as challenge_store
from lobby.store import common as store_common
from lobby.store import games as game_store
from rules import GAMES

CHEAP = ScryptParams(n=2**8, r=8, p=1)
LIMITS = ChallengeLimits(max_open=3, lifetime=600)
GAME = sorted(GAMES)[0] if GAMES else "none"
T0 = 1_000_000.0


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
