"""Accounts in Redis: registration, login (with its limits and rehashing), bot accounts, and
finding a player by name or id.

Keys:

=====================================  ======  ===============================================
``{lobby}:account:{name_key}``         string  Account JSON (name_key is the lower-case name)
``{lobby}:account-id:{player_id}``     string  name_key of the account with this id
=====================================  ======  ===============================================

Login, registration and guest limits live in :mod:`lobby.store.attempts`; passwords are hashed
in a :class:`lobby.work_pool.WorkPool`, never in the event loop.  Online guests are found
among the connections (:mod:`lobby.store.connections`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from lobby import accounts
from lobby.accounts import DEFAULT_LOGIN_LIMITS, DEFAULT_SCRYPT, Account, LoginLimits, ScryptParams
from lobby.identity import Player
from lobby.store import attempts as attempt_store
from lobby.store import connections
from lobby.store.attempts import Delay, Gate, Window
from lobby.store.common import Redis, dump, history_key, load, lua, text
from lobby.work_pool import DEFAULT_POOL, Reservation, WorkPool
from protocol.errors import (
    BadCredentialsError,
    CannotBeBotError,
    NameTakenError,
    UnknownPlayerError,
)

_ACCOUNTS_KEY = "{lobby}:account:"
_ACCOUNT_ID_KEY = "{lobby}:account-id:"
_REGISTER = lua("register")
_MAKE_BOT = lua("make_bot")


async def register(
    redis: Redis,
    name: str,
    password: str,
    now: float,
    params: ScryptParams = DEFAULT_SCRYPT,
    *,
    pool: WorkPool = DEFAULT_POOL,
    gates: Sequence[Gate] = (),
) -> Account:
    """Store a new account; its name is unique whatever the case, even under a race.

    A name or password that may not be registered is refused before anything else; then
    ``gates`` (a per-address limit, say) count the attempt, and the password is hashed in
    ``pool``.  Raises BadNameError, WeakPasswordError, RateLimitedError, NameTakenError.
    """
    accounts.check_new_account(name, password)
    with pool.reserve() as hashing:
        await attempt_store.take(redis, gates, now)
        account = await hashing.run(accounts.new_account, name, password, now, params)
    if not await store_account(redis, account):
        raise NameTakenError(f"the name {name!r} is taken")
    return account


async def store_account(redis: Redis, account: Account) -> bool:
    """Store an account already built (a checked registration, or a system account under a
    reserved name); False, and nothing written, if its name is taken whatever the case."""
    key = accounts.name_key(account.player.name)
    created = await redis.eval(
        _REGISTER,
        2,
        _ACCOUNTS_KEY + key,
        _ACCOUNT_ID_KEY + account.player.id,
        dump(account.to_data()),
        key,
    )
    return bool(created)


async def get_account(redis: Redis, name: str) -> Account | None:
    """The account with this username (any case), or None."""
    raw = await redis.get(_ACCOUNTS_KEY + accounts.name_key(name))
    return None if raw is None else Account.from_data(load(raw))


async def login(
    redis: Redis,
    name: str,
    password: str,
    address: str,
    now: float,
    limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
    params: ScryptParams = DEFAULT_SCRYPT,
    *,
    device: str | None = None,
    pool: WorkPool = DEFAULT_POOL,
) -> Player:
    """The player whose name and password these are.

    Each attempt is counted against its limits before the password is checked, in one step
    with the check (so concurrent guesses cannot all pass): from an unknown device, against
    ``address``'s failures and the name's growing delay; from ``device`` (the id of a device
    this name signed in from before), against that device's own delay only.  Refused with
    RateLimitedError (nothing counted) while a limit holds; otherwise BadCredentialsError,
    which never says whether the name exists (an unknown name costs a hash too, so timing
    does not tell either).  A success is not counted as a failure and starts the delay
    afresh, and rehashes a password stored with parameters other than ``params``.
    """
    key = accounts.name_key(name)
    delays = accounts.delay_schedule(limits)
    gates: list[Gate] = (
        [Delay("login-device", device, delays, limits.window)]
        if device is not None
        else [
            Window("login-address", address, limits.per_address, limits.window),
            Delay("login-name", key, delays, limits.window),
        ]
    )
    with pool.reserve() as hashing:
        ticket = await attempt_store.take(redis, gates, now)
        account = await get_account(redis, name)
        if account is not None:
            stored = account.password_hash
        else:
            stored = await _dummy_hash(params, hashing)
        if await hashing.run(accounts.verify_password, password, stored) and account:
            await attempt_store.give_back(redis, ticket)
            if accounts.needs_rehash(account.password_hash, params):
                await _rehash(redis, account, password, params, hashing)
            return account.player
    raise BadCredentialsError("wrong username or password")


async def make_bot(redis: Redis, player: Player) -> Account:
    """Make ``player``'s account a bot account, for good; raises CannotBeBotError for a guest
    or an account that has finished a game (its games and rating were a person's)."""
    if player.guest:
        raise CannotBeBotError("a guest cannot be a bot: register an account for the program")
    done = await redis.eval(
        _MAKE_BOT, 2, _ACCOUNTS_KEY + accounts.name_key(player.name), history_key(player.id)
    )
    if done == -1:
        raise CannotBeBotError(
            f"{player.name} has played games: register a new account for the program"
        )
    account = await get_account(redis, player.name)
    if done == 0 or account is None:
        raise UnknownPlayerError(f"no account is called {player.name!r}")
    return account


async def find_player(redis: Redis, name_or_id: str, now: float) -> Player:
    """A registered player (by name or ``u:`` id) or an online guest (by name or ``g:`` id).

    Raises UnknownPlayerError.
    """
    given = name_or_id.strip()
    if given.startswith("u:"):
        key = await redis.get(_ACCOUNT_ID_KEY + given)
        account = None if key is None else await get_account(redis, text(key))
    elif given.startswith("g:"):
        account = None
    else:
        account = await get_account(redis, given)
    if account is not None:
        return account.player
    wanted = given.lower()
    for connection in await connections.stored(redis):
        player = connection.player
        if connection.is_alive(now) and (player.id == given or player.name.lower() == wanted):
            return player
    raise UnknownPlayerError(f"no player called {given!r} is registered or online")


async def _rehash(
    redis: Redis, account: Account, password: str, params: ScryptParams, hashing: Reservation
) -> None:
    fresh = await hashing.run(accounts.hash_password, password, params)
    updated = Account(player=account.player, password_hash=fresh, created=account.created)
    key = _ACCOUNTS_KEY + accounts.name_key(account.player.name)
    await redis.set(key, dump(updated.to_data()), xx=True)


_dummies: dict[ScryptParams, str] = {}


async def _dummy_hash(params: ScryptParams, hashing: Reservation) -> str:
    """A hash to check unknown names against, so they cost as much time as known ones (made
    once per process and parameters, in the caller's place in the hash pool)."""
    if params not in _dummies:
        _dummies[params] = await hashing.run(accounts.hash_password, secrets.token_hex(16), params)
    return _dummies[params]
