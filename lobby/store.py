"""The lobby in Redis: accounts, login failures, challenges, presence, live and finished games.

A thin adapter: every decision is made by the pure modules (:mod:`lobby.accounts`,
:mod:`lobby.challenges`, :mod:`lobby.presence`, :mod:`lobby.games`); this module loads their
values, stores the results atomically and publishes what changed.  Every function receives the
Redis client and the current time as arguments.  Values are stored as JSON text, so they read
well in ``redis-cli``.

Keys (all under ``lobby:``):

=====================================  ======  ===============================================
``lobby:account:{name_key}``           string  Account JSON (name_key is the lower-case name)
``lobby:account-id:{player_id}``       string  name_key of the account with this id
``lobby:challenge:{id}``               string  Challenge JSON; closed ones expire after a day
``lobby:challenges:open``              zset    ids of open challenges, scored by expiry
``lobby:challenges:from:{player_id}``  set     ids of a player's open challenges
``lobby:challenges:to:{player_id}``    set     ids of open direct challenges to a player
``lobby:connections``                  hash    connection id to Connection JSON
``lobby:connection-deadlines``         zset    connection ids scored by heartbeat deadline
``lobby:live:{room_id}``               string  LiveGame JSON
``lobby:live-games``                   zset    room ids of live games, scored by start time
``lobby:playing:{player_id}``          set     room ids of a player's live games
``lobby:finished:{room_id}``           string  FinishedGame JSON (with the record)
``lobby:history:{player_id}``          list    room ids of a player's finished games, newest first
``lobby:archive``                      zset    room ids of every finished game, scored by end time
``lobby:archive:game:{game}``          zset    the same, of one game
``lobby:archive:player:{player_id}``   zset    the same, of one player's games
``lobby:archive:game:{g}:player:{id}`` zset    the same, of one player's games of one game
``lobby:archive:indexed``              string  set once the archive holds every finished game
``lobby:started:{player_id}``          zset    games a player started lately, scored by time
``lobby:made:address:{address}``       zset    challenges and games made from an address lately
``lobby:pool:queue``, ``...:entries``  zset    quick-pairing pools (:mod:`lobby.pool_store`)
=====================================  ======  ===============================================

Events are JSON objects published on the ``lobby`` channel after each commit, with ``t``:
``challenge`` (``challenge``: its data; ``status`` says what happened), ``presence``
(``player``: id, ``presence``: data or None once offline), ``live`` (``game``: LiveGame data,
new or changed), ``finished`` (``game``: FinishedGame data without its record).  The live
lines written together go out as one publication: a JSON array of their events.
Login, registration and guest limits live in :mod:`lobby.attempt_store`; passwords are hashed
in a :class:`lobby.work_pool.WorkPool`, never in the event loop.
Imports redis, the pure lobby modules, the attempt store and the hash pool; never
:mod:`server`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from lobby import accounts, attempt_store, challenges, presence
from lobby.accounts import (
    DEFAULT_LOGIN_LIMITS,
    DEFAULT_SCRYPT,
    Account,
    LoginLimits,
    ScryptParams,
)
from lobby.archive import Cursor, Query
from lobby.attempt_store import Delay, Gate, Window
from lobby.challenges import DEFAULT_LIMITS, Challenge, ChallengeLimits, Colour, Status
from lobby.games import FinishedGame, LiveGame
from lobby.identity import Player, PlayerId
from lobby.presence import HEARTBEAT_TTL, LOBBY, Connection, ConnectionId, Presence
from lobby.work_pool import DEFAULT_POOL, Reservation, WorkPool
from protocol.errors import (
    BadCredentialsError,
    CannotBeBotError,
    ChallengeExpiredError,
    NameTakenError,
    UnknownChallengeError,
    UnknownPlayerError,
    UnknownRoomError,
)

CHANNEL = "lobby"
"""The pub/sub channel of lobby events (live lists of challenges, presence and games)."""

CLOSED_CHALLENGE_TTL = 24 * 3600
"""Seconds a closed challenge stays readable, so a server that restarts between accepting and
creating the room can still read the seats by the challenge id."""

MAX_RETRIES = 50
"""Optimistic transactions retried this often under contention before giving up."""

Redis = aioredis.Redis
T = TypeVar("T")

_ACCOUNTS_KEY = "lobby:account:"
_ACCOUNT_ID_KEY = "lobby:account-id:"
_OPEN_KEY = "lobby:challenges:open"
_CONNECTIONS_KEY = "lobby:connections"
_DEADLINES_KEY = "lobby:connection-deadlines"
_LIVE_GAMES_KEY = "lobby:live-games"
_ARCHIVE_INDEXED_KEY = "lobby:archive:indexed"

# Creates an account and its id index together, or nothing if the name is taken.
_REGISTER_LUA = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('SET', KEYS[2], ARGV[2])
  return 1
end
return 0
"""

# Marks an account a bot account unless it has finished a game (KEYS: the account, its
# history); 1 done (or already a bot), 0 no such account, -1 it has played.
_MAKE_BOT_LUA = """
local raw = redis.call('GET', KEYS[1])
if not raw then
  return 0
end
if redis.call('LLEN', KEYS[2]) > 0 then
  return -1
end
local account = cjson.decode(raw)
account['bot'] = true
redis.call('SET', KEYS[1], cjson.encode(account))
return 1
"""

# Stores a connection and its deadline together; when renewing (ARGV[4] == 1), only if the
# connection is still there.
_SAVE_CONNECTION_LUA = """
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

# Writes a live line unless its game is finished or a newer line is stored (a slow writer never
# puts back an older state, nor a finished game).
_STORE_LIVE_LUA = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local old = redis.call('GET', KEYS[1])
if old and (cjson.decode(old)['version'] or 0) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[3])
return 1
"""

# Checks and counts one creation against its limits, all or nothing: KEYS are, for each limited
# player, their live games' set and their started zset, then the address's zset if there is
# one; returns {0, 0}, or {1, i} (player i has too many games in progress), {2, i} (player i
# started too many lately), {3, 0} (the address made too many lately).
_COUNT_CREATION_LUA = """
local now, since, member = ARGV[1], ARGV[2], ARGV[3]
local players, window = tonumber(ARGV[4]), ARGV[8]
for i = 1, players do
  redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', since)
  if redis.call('SCARD', KEYS[2 * i - 1]) >= tonumber(ARGV[5]) then return {1, i} end
  if redis.call('ZCARD', KEYS[2 * i]) >= tonumber(ARGV[6]) then return {2, i} end
end
local address = KEYS[2 * players + 1]
if address then
  redis.call('ZREMRANGEBYSCORE', address, '-inf', since)
  if redis.call('ZCARD', address) >= tonumber(ARGV[7]) then return {3, 0} end
end
for i = 1, players do
  redis.call('ZADD', KEYS[2 * i], now, member)
  redis.call('EXPIRE', KEYS[2 * i], window)
end
if address then
  redis.call('ZADD', address, now, member)
  redis.call('EXPIRE', address, window)
end
return {0, 0}
"""

# Removes the connections whose deadline has passed and returns their JSON; a heartbeat that
# lands first keeps its connection, since the check and the removal are one step.
_SWEEP_CONNECTIONS_LUA = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local gone = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  if data then table.insert(gone, data) end
end
return gone
"""


# --- accounts -------------------------------------------------------------------------------


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
        _REGISTER_LUA,
        2,
        _ACCOUNTS_KEY + key,
        _ACCOUNT_ID_KEY + account.player.id,
        _dump(account.to_data()),
        key,
    )
    return bool(created)


async def get_account(redis: Redis, name: str) -> Account | None:
    """The account with this username (any case), or None."""
    raw = await redis.get(_ACCOUNTS_KEY + accounts.name_key(name))
    return None if raw is None else Account.from_data(_load(raw))


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
        _MAKE_BOT_LUA,
        2,
        _ACCOUNTS_KEY + accounts.name_key(player.name),
        _history_key(player.id),
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
    text = name_or_id.strip()
    if text.startswith("u:"):
        key = await redis.get(_ACCOUNT_ID_KEY + text)
        account = None if key is None else await get_account(redis, _text(key))
    elif text.startswith("g:"):
        account = None
    else:
        account = await get_account(redis, text)
    if account is not None:
        return account.player
    wanted = text.lower()
    for connection in await _connections(redis):
        player = connection.player
        if connection.is_alive(now) and (player.id == text or player.name.lower() == wanted):
            return player
    raise UnknownPlayerError(f"no player called {text!r} is registered or online")


# --- challenges -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerChallenges:
    """A player's open challenges: the direct ones made to them, and their own."""

    incoming: list[Challenge]
    outgoing: list[Challenge]


async def create_challenge(
    redis: Redis,
    challenger: Player,
    target: str | None,
    game: str,
    options: str,
    colour: Colour,
    rated: bool,
    now: float,
    limits: ChallengeLimits = DEFAULT_LIMITS,
    time_control: str | None = None,
    id: str | None = None,
) -> Challenge:
    """Store and announce a new challenge; ``target`` is a player's name or id, or None.

    Raises UnknownPlayerError and everything :func:`lobby.challenges.create` raises; the
    per-account limit holds even when one player creates challenges from two processes.
    """
    target_player = None if target is None else await find_player(redis, target, now)
    challenge_id = id if id is not None else secrets.token_urlsafe(9)
    from_key = _from_key(challenger.id)

    async def attempt(pipe: Any) -> Challenge:
        await pipe.watch(from_key, _challenge_key(challenge_id))
        if await pipe.exists(_challenge_key(challenge_id)):
            raise ValueError(f"a challenge with id {challenge_id!r} exists already")
        mine = _texts(await pipe.smembers(from_key))
        deadlines = await pipe.zmscore(_OPEN_KEY, mine) if mine else []
        open_count = sum(1 for deadline in deadlines if deadline is not None and deadline > now)
        challenge = challenges.create(
            challenge_id,
            challenger,
            target_player,
            game,
            options,
            colour,
            rated,
            now,
            open_count,
            limits,
            time_control,
        )
        pipe.multi()
        _queue_challenge(pipe, challenge)
        await pipe.execute()
        return challenge

    created = await _optimistic(redis, attempt)
    await _publish(redis, {"t": "challenge", "challenge": created.to_data()})
    return created


async def get_challenge(redis: Redis, challenge_id: str) -> Challenge:
    """The stored challenge as it is (an overdue one may still say open); raises
    UnknownChallengeError."""
    raw = await redis.get(_challenge_key(challenge_id))
    if raw is None:
        raise UnknownChallengeError(f"no challenge {challenge_id!r}")
    return Challenge.from_data(_load(raw))


async def accept_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float, seed: int | None = None
) -> Challenge:
    """Accept a challenge exactly once, even when several processes try at the same moment.

    Returns the accepted challenge with its seats: the server creates the room from it, with
    room id = challenge id.  ``seed`` resolves a random colour (a fresh one if None).  Raises
    UnknownChallengeError and everything :func:`lobby.challenges.accept` raises.
    """
    chosen = seed if seed is not None else secrets.randbits(32)
    return await _transition(
        redis, challenge_id, now, lambda c: challenges.accept(c, player, now, chosen)
    )


async def decline_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float
) -> Challenge:
    """Decline a direct challenge; raises as :func:`lobby.challenges.decline` does."""
    return await _transition(redis, challenge_id, now, lambda c: challenges.decline(c, player, now))


async def cancel_challenge(
    redis: Redis, challenge_id: str, player: Player, now: float
) -> Challenge:
    """Cancel one's own challenge; raises as :func:`lobby.challenges.cancel` does."""
    return await _transition(redis, challenge_id, now, lambda c: challenges.cancel(c, player, now))


async def open_challenges(redis: Redis, now: float) -> list[Challenge]:
    """Open challenges anyone may accept, oldest first (overdue ones are expired first)."""
    await sweep_challenges(redis, now)
    ids = _texts(await redis.zrange(_OPEN_KEY, 0, -1))
    found = await _challenges(redis, ids)
    return sorted((c for c in found if c.is_open), key=lambda c: (c.created, c.id))


async def player_challenges(redis: Redis, player_id: PlayerId, now: float) -> PlayerChallenges:
    """The open challenges made to and by a player, oldest first."""
    await sweep_challenges(redis, now)
    incoming_ids = await redis.smembers(_to_key(player_id))
    outgoing_ids = await redis.smembers(_from_key(player_id))
    incoming = await _challenges(redis, _texts(incoming_ids))
    outgoing = await _challenges(redis, _texts(outgoing_ids))
    return PlayerChallenges(
        incoming=sorted(incoming, key=lambda c: (c.created, c.id)),
        outgoing=sorted(outgoing, key=lambda c: (c.created, c.id)),
    )


async def count_creation(
    redis: Redis,
    what: str,
    now: float,
    limits: ChallengeLimits,
    starting: Sequence[Player] = (),
    address: str | None = None,
) -> None:
    """Count ``what`` (a challenge or a game's id) against the limits, atomically, or raise
    LimitReachedError and count nothing: a game ``starting`` for players (their games in
    progress and games started lately; bots are not held), and anything made from
    ``address`` (challenges and games made lately).  :func:`uncount_creation` takes it back
    when what was counted is not made after all."""
    limited = [player for player in starting if challenges.is_limited(player)]
    keys = [key for p in limited for key in (_playing_key(p.id), _started_key(p.id))]
    if address is not None:
        keys.append(_made_key(address))
    if not keys:
        return
    kind, index = await redis.eval(
        _COUNT_CREATION_LUA,
        len(keys),
        *keys,
        repr(now),
        repr(now - limits.window),
        what,
        len(limited),
        limits.max_playing,
        limits.max_started,
        limits.max_per_address,
        max(1, int(limits.window)),
    )
    if kind:
        player = limited[int(index) - 1] if index else None
        kinds = {1: "playing", 2: "started", 3: "address"}
        raise challenges.limit_refusal(kinds[int(kind)], player, limits)


async def uncount_creation(
    redis: Redis, what: str, starting: Sequence[Player] = (), address: str | None = None
) -> None:
    """Take back what :func:`count_creation` counted for ``what``."""
    async with redis.pipeline(transaction=True) as pipe:
        for player in starting:
            pipe.zrem(_started_key(player.id), what)
        if address is not None:
            pipe.zrem(_made_key(address), what)
        await pipe.execute()


async def sweep_challenges(redis: Redis, now: float) -> list[Challenge]:
    """Expire every open challenge whose time has run out; returns them (each announced)."""
    due = _texts(await redis.zrangebyscore(_OPEN_KEY, "-inf", now))
    expired = []
    for challenge_id in due:
        try:
            await _transition(redis, challenge_id, now, _refuse_unexpired)
        except ChallengeExpiredError:
            expired.append(await get_challenge(redis, challenge_id))
        except (UnknownChallengeError, _NotDueError):
            # Closed or gone meanwhile: drop the stale index entry.
            await redis.zrem(_OPEN_KEY, challenge_id)
    return expired


async def rematch_challenge(
    redis: Redis, room_id: str, by: Player, now: float, id: str | None = None
) -> Challenge:
    """An accepted rematch of a finished game, stored once under its id and announced.

    Idempotent on ``id`` (default :func:`lobby.challenges.rematch_id`): when both players ask
    at once, both get the one stored first.  Raises UnknownRoomError, NotAPlayerError.
    """
    finished = await finished_game(redis, room_id)
    challenge = challenges.rematch(finished, by, id or challenges.rematch_id(room_id), now)
    return await store_accepted(redis, challenge)


async def store_accepted(redis: Redis, challenge: Challenge) -> Challenge:
    """Store a challenge accepted as it was made (a rematch, a quick pairing) once under its
    id and announce it; returns the one stored first when the id was taken already."""
    stored = await redis.set(
        _challenge_key(challenge.id),
        _dump(challenge.to_data()),
        nx=True,
        ex=CLOSED_CHALLENGE_TTL,
    )
    if not stored:
        return await get_challenge(redis, challenge.id)
    await _publish(redis, {"t": "challenge", "challenge": challenge.to_data()})
    return challenge


# --- presence -------------------------------------------------------------------------------


async def connect(
    redis: Redis,
    connection_id: ConnectionId,
    player: Player,
    now: float,
    where: str = LOBBY,
    ttl: float = HEARTBEAT_TTL,
) -> Presence:
    """Record a new connection of ``player``; returns (and announces) their presence."""
    if ttl <= 0:
        raise ValueError("a connection needs a positive ttl")
    await _save_connection(redis, presence.connect(connection_id, player, now, where, ttl))
    current = await _announce_presence(redis, player.id, now)
    assert current is not None  # the connection just saved is alive
    return current


async def heartbeat(
    redis: Redis, connection_id: ConnectionId, now: float, ttl: float = HEARTBEAT_TTL
) -> bool:
    """Keep a connection alive; False if it had already lapsed (the caller connects anew)."""
    connection = await _connection(redis, connection_id)
    if connection is None or not connection.is_alive(now):
        return False
    return await _save_connection(redis, presence.heartbeat(connection, now, ttl), renew=True)


async def move_connection(
    redis: Redis,
    connection_id: ConnectionId,
    where: str,
    now: float,
    ttl: float = HEARTBEAT_TTL,
) -> Presence | None:
    """Move a connection to the lobby or a room; returns (and announces) the presence.

    Returns None, changing nothing, if the connection is unknown or lapsed.
    """
    connection = await _connection(redis, connection_id)
    if connection is None or not connection.is_alive(now):
        return None
    if not await _save_connection(redis, presence.move(connection, where, now, ttl), renew=True):
        return None
    return await _announce_presence(redis, connection.player.id, now)


async def disconnect(redis: Redis, connection_id: ConnectionId, now: float) -> Presence | None:
    """Forget a connection; returns the player's remaining presence (None once offline)."""
    connection = await _connection(redis, connection_id)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hdel(_CONNECTIONS_KEY, connection_id)
        pipe.zrem(_DEADLINES_KEY, connection_id)
        await pipe.execute()
    if connection is None:
        return None
    return await _announce_presence(redis, connection.player.id, now)


async def online(redis: Redis, now: float) -> list[Presence]:
    """Everyone online now (lapsed connections do not count, swept or not)."""
    return presence.who_is_online(await _connections(redis), now)


async def player_presence(redis: Redis, player_id: PlayerId, now: float) -> Presence | None:
    """One player's presence, or None if they are offline."""
    return presence.presence_of(player_id, await _connections(redis), now)


async def room_spectators(
    redis: Redis, room_id: str, now: float, players: Iterable[PlayerId] = ()
) -> int:
    """How many people other than ``players`` watch the room now."""
    return presence.spectators(await _connections(redis), room_id, now, players)


async def sweep_presence(redis: Redis, now: float) -> list[Connection]:
    """Drop the connections whose heartbeat lapsed (their process died); returns them.

    Announces the new presence of each player concerned.
    """
    raw = await redis.eval(_SWEEP_CONNECTIONS_LUA, 2, _DEADLINES_KEY, _CONNECTIONS_KEY, now)
    gone = [Connection.from_data(_load(item)) for item in raw]
    for player_id in sorted({c.player.id for c in gone}):
        await _announce_presence(redis, player_id, now)
    return gone


# --- live and finished games ----------------------------------------------------------------


async def store_live_games(redis: Redis, lines: Sequence[LiveGame]) -> list[LiveGame]:
    """Write live lines (new or changed games), in one round trip, and announce those written
    in one publication; returns them.  A line is not written over a newer one of its room, nor
    once its game is finished, so writing the same line twice, or an old one late, is safe."""
    if not lines:
        return []
    script = redis.register_script(_STORE_LIVE_LUA)
    async with redis.pipeline(transaction=False) as pipe:
        for live in lines:
            first, second = live.players
            await script(
                keys=[
                    _live_key(live.room_id),
                    _finished_key(live.room_id),
                    _LIVE_GAMES_KEY,
                    _playing_key(first.id),
                    _playing_key(second.id),
                ],
                args=[_dump(live.to_data()), live.version, live.room_id, repr(live.started)],
                client=pipe,
            )
        written = await pipe.execute()
    stored = [live for live, done in zip(lines, written, strict=True) if done]
    if stored:
        await _publish_all(redis, [{"t": "live", "game": live.to_data()} for live in stored])
    return stored


async def live_games(redis: Redis, limit: int) -> list[LiveGame]:
    """The ``limit`` games in progress that started last, oldest first."""
    rooms = _texts(await redis.zrange(_LIVE_GAMES_KEY, 0, limit - 1, desc=True))
    return await _live_games(redis, rooms)


async def live_count(redis: Redis) -> int:
    """How many games are in progress."""
    return int(await redis.zcard(_LIVE_GAMES_KEY))


async def current_games(redis: Redis, player_id: PlayerId) -> list[LiveGame]:
    """A player's games in progress, oldest first."""
    rooms = _texts(await redis.smembers(_playing_key(player_id)))
    return await _live_games(redis, rooms)


async def finish_game(redis: Redis, finished: FinishedGame) -> bool:
    """Move a game from the live list to both players' histories, once (False if it was
    finished already)."""
    room_id = finished.room_id
    live_key, finished_key = _live_key(room_id), _finished_key(room_id)

    async def attempt(pipe: Any) -> bool:
        await pipe.watch(finished_key)
        if await pipe.exists(finished_key):
            await pipe.unwatch()
            return False
        pipe.multi()
        pipe.set(finished_key, _dump(finished.to_data()))
        pipe.delete(live_key)
        pipe.zrem(_LIVE_GAMES_KEY, room_id)
        for player in finished.players:
            pipe.srem(_playing_key(player.id), room_id)
            pipe.lpush(_history_key(player.id), room_id)
        _index_finished(pipe, finished)
        await pipe.execute()
        return True

    done = await _optimistic(redis, attempt)
    if done:
        summary = finished.to_data()
        del summary["record"]
        await _publish(redis, {"t": "finished", "game": summary})
    return done


async def finished_game(redis: Redis, room_id: str) -> FinishedGame:
    """A finished game with its record; raises UnknownRoomError."""
    raw = await redis.get(_finished_key(room_id))
    if raw is None:
        raise UnknownRoomError(f"no finished game in room {room_id!r}")
    return FinishedGame.from_data(_load(raw))


async def finished_games(
    redis: Redis, player_id: PlayerId, start: int = 0, count: int = 20
) -> list[FinishedGame]:
    """A player's finished games, newest first, ``count`` of them from ``start``."""
    rooms = await redis.lrange(_history_key(player_id), start, start + count - 1)
    if not rooms:
        return []
    raws = await redis.mget([_finished_key(room) for room in _texts(rooms)])
    return [FinishedGame.from_data(_load(raw)) for raw in raws if raw is not None]


async def search_finished(
    redis: Redis, query: Query, now: float
) -> tuple[list[FinishedGame], Cursor | None]:
    """A page of finished games matching ``query``, newest first, and the cursor of the next
    page (None on the last).  A player named rather than given by id must be registered or
    online: raises UnknownPlayerError otherwise."""
    await index_finished_games(redis)
    player_id = None
    if query.player is not None:
        player_id = query.player
        if not player_id.startswith(("u:", "g:")):
            player_id = (await find_player(redis, query.player, now)).id
    key = _archive_key(query.game, player_id)
    before, until = query.before, query.until
    high: float | str = "+inf" if until is None else f"({until!r}"
    skip = 0
    if before is not None and (until is None or before.finished < until):
        high = before.finished
        skip = int(await redis.zcount(key, before.finished, before.finished))
    low: float | str = "-inf" if query.since is None else query.since
    scored = await redis.zrevrangebyscore(
        key, high, low, start=0, num=query.limit + 1 + skip, withscores=True
    )
    found = [(_text(room), float(when)) for room, when in cast(list[tuple[bytes, float]], scored)]
    if before is not None:
        found = [(room, when) for room, when in found if before.comes_after(when, room)]
    page = found[: query.limit]
    if not page:
        return [], None
    raws = await redis.mget([_finished_key(room) for room, _ in page])
    games = [FinishedGame.from_data(_load(r)) for r in raws if r is not None]
    last_room, last_when = page[-1]
    more = len(found) > query.limit
    return games, Cursor(last_when, last_room) if more else None


async def index_finished_games(redis: Redis, batch: int = 200) -> int:
    """Bring every finished game kept before the archive existed into it, once (a mark says
    it is done; running it again, or in two processes at once, adds nothing twice).  Returns
    how many games it indexed."""
    if await redis.exists(_ARCHIVE_INDEXED_KEY):
        return 0
    count = 0
    async for keys in _scan_batches(redis, _finished_key("*"), batch):
        raws = await redis.mget(keys)
        async with redis.pipeline(transaction=True) as pipe:
            for raw in raws:
                if raw is not None:
                    _index_finished(pipe, FinishedGame.from_data(_load(raw)))
                    count += 1
            await pipe.execute()
    await redis.set(_ARCHIVE_INDEXED_KEY, "1")
    return count


def decode_events(raw: bytes | str) -> list[dict[str, Any]]:
    """The lobby events of one publication on :data:`CHANNEL` (one, or an array of them)."""
    data = _load(raw)
    events = data if isinstance(data, list) else [data]
    if not all(isinstance(event, dict) and "t" in event for event in events):
        raise ValueError("not a lobby event")
    return events


# --- helpers --------------------------------------------------------------------------------


class _NotDueError(Exception):
    """Raised inside a sweep when a challenge is not (or no longer) due to expire."""


def _refuse_unexpired(challenge: Challenge) -> Challenge:
    raise _NotDueError(challenge.id)


async def _transition(
    redis: Redis, challenge_id: str, now: float, change: Callable[[Challenge], Challenge]
) -> Challenge:
    """Apply a pure transition atomically, or expire the challenge if its time has run out.

    An overdue challenge is stored as expired (and announced) before ChallengeExpiredError is
    raised, which is how expiry is cleaned lazily.
    """
    key = _challenge_key(challenge_id)

    async def attempt(pipe: Any) -> tuple[Challenge, bool]:
        await pipe.watch(key)
        raw = await pipe.get(key)
        if raw is None:
            raise UnknownChallengeError(f"no challenge {challenge_id!r}")
        current = Challenge.from_data(_load(raw))
        overdue = challenges.is_expired(current, now)
        new = challenges.expire(current, now) if overdue else change(current)
        pipe.multi()
        _queue_challenge(pipe, new)
        await pipe.execute()
        return new, overdue

    new, overdue = await _optimistic(redis, attempt)
    await _publish(redis, {"t": "challenge", "challenge": new.to_data()})
    if overdue:
        raise ChallengeExpiredError("this challenge has expired")
    return new


def _queue_challenge(pipe: Any, challenge: Challenge) -> None:
    """Queue the writes that store a challenge and keep the indexes in step with its status."""
    key = _challenge_key(challenge.id)
    to_key = None if challenge.target is None else _to_key(challenge.target.id)
    if challenge.status is Status.OPEN:
        pipe.set(key, _dump(challenge.to_data()))
        pipe.zadd(_OPEN_KEY, {challenge.id: challenge.expires})
        pipe.sadd(_from_key(challenge.challenger.id), challenge.id)
        if to_key is not None:
            pipe.sadd(to_key, challenge.id)
    else:
        pipe.set(key, _dump(challenge.to_data()), ex=CLOSED_CHALLENGE_TTL)
        pipe.zrem(_OPEN_KEY, challenge.id)
        pipe.srem(_from_key(challenge.challenger.id), challenge.id)
        if to_key is not None:
            pipe.srem(to_key, challenge.id)


async def _optimistic(redis: Redis, attempt: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``attempt`` (WATCH, read, decide, MULTI, write) until no watched key changed."""
    async with redis.pipeline(transaction=True) as pipe:
        for _ in range(MAX_RETRIES):
            try:
                return await attempt(pipe)
            except WatchError:
                await pipe.reset()  # type: ignore[no-untyped-call]
    raise RuntimeError(f"lobby transaction still contended after {MAX_RETRIES} tries")


async def _challenges(redis: Redis, ids: list[str]) -> list[Challenge]:
    if not ids:
        return []
    raws = await redis.mget([_challenge_key(i) for i in ids])
    found = (Challenge.from_data(_load(raw)) for raw in raws if raw is not None)
    return [c for c in found if c.status is Status.OPEN]


async def _rehash(
    redis: Redis, account: Account, password: str, params: ScryptParams, hashing: Reservation
) -> None:
    fresh = await hashing.run(accounts.hash_password, password, params)
    updated = Account(player=account.player, password_hash=fresh, created=account.created)
    key = _ACCOUNTS_KEY + accounts.name_key(account.player.name)
    await redis.set(key, _dump(updated.to_data()), xx=True)


_dummies: dict[ScryptParams, str] = {}


async def _dummy_hash(params: ScryptParams, hashing: Reservation) -> str:
    """A hash to check unknown names against, so they cost as much time as known ones (made
    once per process and parameters, in the caller's place in the hash pool)."""
    if params not in _dummies:
        _dummies[params] = await hashing.run(accounts.hash_password, secrets.token_hex(16), params)
    return _dummies[params]


async def _save_connection(redis: Redis, connection: Connection, renew: bool = False) -> bool:
    """Store a connection; with ``renew``, only if it is still stored (a heartbeat racing a
    disconnect or a sweep must not bring it back).  Returns whether it was stored."""
    saved = await redis.eval(
        _SAVE_CONNECTION_LUA,
        2,
        _CONNECTIONS_KEY,
        _DEADLINES_KEY,
        connection.id,
        _dump(connection.to_data()),
        connection.deadline,
        int(renew),
    )
    return bool(saved)


async def _connection(redis: Redis, connection_id: ConnectionId) -> Connection | None:
    raw = await redis.hget(_CONNECTIONS_KEY, connection_id)
    return None if raw is None else Connection.from_data(_load(raw))


async def _connections(redis: Redis) -> list[Connection]:
    raw = await redis.hgetall(_CONNECTIONS_KEY)
    return [Connection.from_data(_load(value)) for value in raw.values()]


async def _announce_presence(redis: Redis, player_id: PlayerId, now: float) -> Presence | None:
    current = await player_presence(redis, player_id, now)
    await _publish(
        redis,
        {
            "t": "presence",
            "player": player_id,
            "presence": None if current is None else current.to_data(),
        },
    )
    return current


async def _live_games(redis: Redis, rooms: list[str]) -> list[LiveGame]:
    if not rooms:
        return []
    raws = await redis.mget([_live_key(room) for room in rooms])
    found = [LiveGame.from_data(_load(raw)) for raw in raws if raw is not None]
    return sorted(found, key=lambda g: (g.started, g.room_id))


async def _publish(redis: Redis, event: dict[str, Any]) -> None:
    await redis.publish(CHANNEL, _dump(event))


async def _publish_all(redis: Redis, events: list[dict[str, Any]]) -> None:
    await redis.publish(CHANNEL, _dump(events))


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _texts(values: Iterable[object]) -> list[str]:
    return [_text(value) for value in values]


def _dump(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _load(raw: bytes | str) -> Any:
    return json.loads(raw)


def _index_finished(pipe: Any, finished: FinishedGame) -> None:
    """Queue the archive entries of a finished game on a pipeline (the same end time as its
    score in every index, so writing them again changes nothing)."""
    entry = {finished.room_id: finished.finished}
    pipe.zadd(_archive_key(None, None), entry)
    pipe.zadd(_archive_key(finished.game, None), entry)
    for player in {p.id for p in finished.players}:
        pipe.zadd(_archive_key(None, player), entry)
        pipe.zadd(_archive_key(finished.game, player), entry)


async def _scan_batches(redis: Redis, pattern: str, batch: int) -> AsyncIterator[list[str]]:
    """The keys matching ``pattern``, in batches of about ``batch``."""
    cursor: int = 0
    while True:
        cursor, keys = await redis.scan(cursor, match=pattern, count=batch)
        if keys:
            yield _texts(keys)
        if cursor == 0:
            return


def _archive_key(game: str | None, player_id: PlayerId | None) -> str:
    key = "lobby:archive"
    if game is not None:
        key += f":game:{game}"
    if player_id is not None:
        key += f":player:{player_id}"
    return key


def _challenge_key(challenge_id: str) -> str:
    return f"lobby:challenge:{challenge_id}"


def _from_key(player_id: PlayerId) -> str:
    return f"lobby:challenges:from:{player_id}"


def _to_key(player_id: PlayerId) -> str:
    return f"lobby:challenges:to:{player_id}"


def _live_key(room_id: str) -> str:
    return f"lobby:live:{room_id}"


def _playing_key(player_id: PlayerId) -> str:
    return f"lobby:playing:{player_id}"


def _finished_key(room_id: str) -> str:
    return f"lobby:finished:{room_id}"


def _history_key(player_id: PlayerId) -> str:
    return f"lobby:history:{player_id}"


def _started_key(player_id: PlayerId) -> str:
    return f"lobby:started:{player_id}"


def _made_key(address: str) -> str:
    return f"lobby:made:address:{address}"
