"""Connections in Redis, hence who is online and where: connect, heartbeat, move, disconnect,
and the sweep of connections whose process died.

Keys:

=====================================  ======  ===============================================
``{lobby}:connections``                hash    connection id to Connection JSON
``{lobby}:connection-deadlines``       zset    connection ids scored by heartbeat deadline
=====================================  ======  ===============================================

Each change announces the player's new presence (a ``presence`` event, see
:mod:`lobby.store.common`); the decisions are :mod:`lobby.presence`'s.
"""

from __future__ import annotations

from collections.abc import Iterable

from lobby import presence
from lobby.identity import Player, PlayerId
from lobby.presence import HEARTBEAT_TTL, LOBBY, Connection, ConnectionId, Presence
from lobby.store.common import Redis, dump, load, lua, publish

_CONNECTIONS_KEY = "{lobby}:connections"
_DEADLINES_KEY = "{lobby}:connection-deadlines"
_SAVE_CONNECTION = lua("save_connection")
_SWEEP_CONNECTIONS = lua("sweep_connections")


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
    redis: Redis, connection_id: ConnectionId, where: str, now: float, ttl: float = HEARTBEAT_TTL
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
    return presence.who_is_online(await stored(redis), now)


async def player_presence(redis: Redis, player_id: PlayerId, now: float) -> Presence | None:
    """One player's presence, or None if they are offline."""
    return presence.presence_of(player_id, await stored(redis), now)


async def room_spectators(
    redis: Redis, room_id: str, now: float, players: Iterable[PlayerId] = ()
) -> int:
    """How many people other than ``players`` watch the room now."""
    return presence.spectators(await stored(redis), room_id, now, players)


async def sweep_presence(redis: Redis, now: float) -> list[Connection]:
    """Drop the connections whose heartbeat lapsed (their process died); returns them.

    Announces the new presence of each player concerned.
    """
    raw = await redis.eval(_SWEEP_CONNECTIONS, 2, _DEADLINES_KEY, _CONNECTIONS_KEY, now)
    gone = [Connection.from_data(load(item)) for item in raw]
    for player_id in sorted({c.player.id for c in gone}):
        await _announce_presence(redis, player_id, now)
    return gone


# --- live and finished games ----------------------------------------------------------------


async def stored(redis: Redis) -> list[Connection]:
    """Every stored connection, lapsed ones too (the sweep may not have run yet)."""
    raw = await redis.hgetall(_CONNECTIONS_KEY)
    return [Connection.from_data(load(value)) for value in raw.values()]


async def _save_connection(redis: Redis, connection: Connection, renew: bool = False) -> bool:
    """Store a connection; with ``renew``, only if it is still stored (a heartbeat racing a
    disconnect or a sweep must not bring it back).  Returns whether it was stored."""
    saved = await redis.eval(
        _SAVE_CONNECTION,
        2,
        _CONNECTIONS_KEY,
        _DEADLINES_KEY,
        connection.id,
        dump(connection.to_data()),
        connection.deadline,
        int(renew),
    )
    return bool(saved)


async def _connection(redis: Redis, connection_id: ConnectionId) -> Connection | None:
    raw = await redis.hget(_CONNECTIONS_KEY, connection_id)
    return None if raw is None else Connection.from_data(load(raw))


async def _announce_presence(redis: Redis, player_id: PlayerId, now: float) -> Presence | None:
    current = await player_presence(redis, player_id, now)
    await publish(
        redis,
        {
            "t": "presence",
            "player": player_id,
            "presence": None if current is None else current.to_data(),
        },
    )
    return current
