"""Who is online and where, as plain values.

Presence is counted per connection, not per player: a player may have several tabs open, each
somewhere else (the lobby, or a room), and stays online while any of them is alive.  Every
connection carries a deadline that heartbeats push forward, so when a server process dies its
connections lapse on their own instead of leaving ghosts.  :mod:`lobby.store.connections` keeps
the connections in Redis; the functions here decide what they mean at a given time.
Pure; imports :mod:`lobby.identity`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lobby.identity import Player, PlayerId, player_data, player_from_data

ConnectionId = str

LOBBY = "lobby"
"""Where a connection is when it is not in a room (room ids never take this value)."""

HEARTBEAT_TTL = 60.0
"""Seconds a connection counts as alive after its last heartbeat (the server beats every 20)."""


@dataclass(frozen=True, slots=True)
class Connection:
    """One live connection (one browser tab) of a player."""

    id: ConnectionId
    player: Player
    where: str
    deadline: float

    def is_alive(self, now: float) -> bool:
        return now < self.deadline

    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "player": player_data(self.player),
            "where": self.where,
            "deadline": self.deadline,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Connection:
        try:
            return cls(
                id=str(data["id"]),
                player=player_from_data(data["player"]),
                where=str(data["where"]),
                deadline=float(data["deadline"]),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not connection data: {error!r}") from error


@dataclass(frozen=True, slots=True)
class Presence:
    """A player who is online: how many live connections, and the places they are in."""

    player: Player
    connections: int
    places: tuple[str, ...]

    @property
    def rooms(self) -> tuple[str, ...]:
        return tuple(place for place in self.places if place != LOBBY)

    def to_data(self) -> dict[str, Any]:
        return {
            "player": player_data(self.player),
            "connections": self.connections,
            "places": list(self.places),
        }


def connect(
    id: ConnectionId, player: Player, now: float, where: str = LOBBY, ttl: float = HEARTBEAT_TTL
) -> Connection:
    """A new connection, alive for ``ttl`` seconds unless a heartbeat renews it."""
    return Connection(id=id, player=player, where=where, deadline=now + ttl)


def heartbeat(connection: Connection, now: float, ttl: float = HEARTBEAT_TTL) -> Connection:
    """The connection renewed for another ``ttl`` seconds from ``now``."""
    return Connection(connection.id, connection.player, connection.where, now + ttl)


def move(connection: Connection, where: str, now: float, ttl: float = HEARTBEAT_TTL) -> Connection:
    """The connection moved to ``where`` (the lobby or a room id); moving renews it too."""
    return Connection(connection.id, connection.player, where, now + ttl)


def who_is_online(connections: Iterable[Connection], now: float) -> list[Presence]:
    """Everyone with at least one live connection, by name (case-insensitive), then id."""
    by_player: dict[PlayerId, list[Connection]] = {}
    for connection in connections:
        if connection.is_alive(now):
            by_player.setdefault(connection.player.id, []).append(connection)
    presences = [_presence(group) for group in by_player.values()]
    return sorted(presences, key=lambda p: (p.player.name.lower(), p.player.id))


def presence_of(
    player_id: PlayerId, connections: Iterable[Connection], now: float
) -> Presence | None:
    """The player's presence, or None if no connection of theirs is alive."""
    group = [c for c in connections if c.player.id == player_id and c.is_alive(now)]
    return _presence(group) if group else None


def spectators(
    connections: Iterable[Connection], room_id: str, now: float, players: Iterable[PlayerId] = ()
) -> int:
    """How many distinct people other than ``players`` have a live connection in the room."""
    seated = set(players)
    return len(
        {
            c.player.id
            for c in connections
            if c.where == room_id and c.is_alive(now) and c.player.id not in seated
        }
    )


def _presence(group: list[Connection]) -> Presence:
    # The name in the newest connection wins, in case it changed between connections.
    newest = max(group, key=lambda c: c.deadline)
    places = sorted({c.where for c in group}, key=lambda w: (w != LOBBY, w))
    return Presence(player=newest.player, connections=len(group), places=tuple(places))
