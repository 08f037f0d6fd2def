"""The bot accounts: one registered account per level, ``bot-1`` ... ``bot-4``.

A bot is an ordinary registered player to the server (``u:bot-N``), so a person challenges
it by name like anyone else; the reserved ``bot-`` prefix (nobody may register it) is what
marks it as a bot, for the lobby page and for anything that keeps bots apart.  Its password
is random and thrown away: a bot signs its own session token with the secret the server
processes share (``SESSION_SECRET``, or the one kept in Redis), so no password is ever stored
that could be guessed.  Imports lobby only.
"""

from __future__ import annotations

import secrets
import time

import redis.asyncio as aioredis

from bots.levels import LEVELS
from lobby.accounts import Account, hash_password, name_key
from lobby.identity import Player, issue_token
from lobby.store import accounts as account_store
from lobby.store import secrets as secret_store

PREFIX = "bot-"
"""Every bot's name starts with this (a reserved prefix: people cannot register it)."""

TOKEN_TTL = 24 * 3600.0
"""Seconds a bot's session token lasts; a worker signs a new one at each start."""


def bot_player(level: int) -> Player:
    """The account that plays at ``level``; raises ValueError for an unknown level."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    return Player(id=f"u:{PREFIX}{level}", name=f"{PREFIX}{level}", guest=False)


def bot_players() -> list[Player]:
    """Every bot, by level."""
    return [bot_player(level) for level in sorted(LEVELS)]


def is_bot(name_or_id: str) -> bool:
    """Whether a player name or id is a bot's (``bot-2`` or ``u:bot-2``)."""
    text = name_or_id.removeprefix("u:")
    return name_key(text).startswith(PREFIX)


def level_of(player: Player | str) -> int:
    """The level a bot plays at, from its name or id; raises ValueError for another player."""
    text = (player.name if isinstance(player, Player) else player).removeprefix("u:")
    number = text[len(PREFIX) :] if name_key(text).startswith(PREFIX) else ""
    if not number.isdigit() or int(number) not in LEVELS:
        raise ValueError(f"{text!r} is not a bot")
    return int(number)


async def ensure_accounts(redis: aioredis.Redis, now: float | None = None) -> list[Player]:
    """Store the bot accounts that are missing (idempotent, safe on several processes).

    The register route refuses reserved names, so the account is written under the lobby's
    own keys with :func:`lobby.store.accounts.store_account`, the set-if-absent step of
    registration.
    """
    created = time.time() if now is None else now
    players = bot_players()
    for player in players:
        if await account_store.get_account(redis, player.name) is not None:
            continue
        account = Account(player, hash_password(secrets.token_urlsafe(32)), created)
        await account_store.store_account(redis, account)
    return players


async def shared_secret(redis: aioredis.Redis, configured: bytes | None) -> bytes:
    """The servers' session secret: ``configured`` (SESSION_SECRET) or the one in Redis."""
    if configured:
        return configured
    return await secret_store.session_secret(redis, secrets.token_bytes(32))


def bot_token(secret: bytes, player: Player, now: float | None = None) -> str:
    """A session token for a bot, as the server would issue at login."""
    return issue_token(secret, player, time.time() if now is None else now, ttl=TOKEN_TTL)
