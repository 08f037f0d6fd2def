"""What a player who is not looking is told, and where it may be sent: pure decisions, no I/O.

A player away from their game's page (no socket on the room: ``Room.away``) learns by Web
Push that it is their move, or that the game ended, on any device where they turned
notifications on.  A player on the page learns it there and gets nothing pushed.  Bots and
guests without a subscription simply have nowhere to be told.

A subscription names the push service's address that the browser was given; the server
posts to it.  So that nobody can make the server post to an address of their choosing (a
machine on its own network, say), an address must be ``https`` on one of the push services
browsers use, as listed in ``PUSH_SERVICES`` (:data:`server.settings.BROWSER_PUSH_SERVICES`
unless the operator says otherwise).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from server.rooms import GameEnded, MovePlayed, Room, SeatsSwapped

MAX_ENDPOINT_LENGTH = 1024
"""Longest push address taken (real ones are under 600 characters)."""
P256DH_BYTES = 65
"""An uncompressed P-256 public key, as the browser's ``p256dh`` key is."""
AUTH_BYTES = 16
"""The browser's authentication secret."""


class BadSubscriptionError(ValueError):
    """A subscription that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Subscription:
    """Where one browser of a player receives pushes, and its keys to encrypt them with."""

    endpoint: str
    p256dh: str
    auth: str

    def to_data(self) -> dict[str, Any]:
        """The form pywebpush and browsers use (``PushSubscription.toJSON()``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


@dataclass(frozen=True, slots=True)
class Notice:
    """One push to one player: shown as a notification that opens ``url``."""

    player: str
    title: str
    body: str
    url: str
    tag: str
    """A newer notice with the same tag replaces the older on the device (one per game)."""

    def payload(self) -> dict[str, str]:
        return {"title": self.title, "body": self.body, "url": self.url, "tag": self.tag}


def notices_for(room: Room, events: tuple[object, ...]) -> list[Notice]:
    """The pushes a committed change calls for: the player now to move, if away from the
    page, hears it is their move; at the end, each player away hears the result.  Nothing
    is built for a change that calls for none (most moves: the mover's opponent is here)."""
    for event in events:
        if isinstance(event, GameEnded):
            return [
                Notice(
                    holder.id,
                    f"{_title(room)} against {room.seats[1 - index].name}: {_result(room, index)}",
                    _reason(event.outcome.reason),
                    _url(room),
                    room.id,
                )
                for index, holder in enumerate(room.seats)
                if room.away[index] is not None
            ]
    if room.away == (None, None) or room.outcome is not None:
        return []
    if not any(isinstance(event, MovePlayed | SeatsSwapped) for event in events):
        return []
    seat = room.rules.to_move(room.state)
    if seat is None or room.away[int(seat)] is None:
        return []
    index = int(seat)
    opponent = room.seats[1 - index].name
    last = room.record[-1] if room.record else ""
    return [
        Notice(
            room.seats[index].id,
            f"Your move in {_title(room)} against {opponent}",
            f"{opponent} played {last} (move {len(room.record)})." if last else "",
            _url(room),
            room.id,
        )
    ]


def _title(room: Room) -> str:
    return room.game.capitalize()


def _url(room: Room) -> str:
    return f"/#/room/{room.id}"


def _result(room: Room, index: int) -> str:
    assert room.outcome is not None
    if room.outcome.winner is None:
        return "a draw"
    return "you won" if int(room.outcome.winner) == index else "you lost"


def _reason(reason: str) -> str:
    return f"{reason[:1].upper()}{reason[1:]}." if reason else ""


def subscription(endpoint: str, p256dh: str, auth: str, services: tuple[str, ...]) -> Subscription:
    """A browser's subscription (``PushSubscription.toJSON()``), checked; ``services`` are
    the hosts it may name (see :func:`check_endpoint`)."""
    check_endpoint(endpoint, services)
    return Subscription(
        endpoint, _key(p256dh, "p256dh", P256DH_BYTES), _key(auth, "auth", AUTH_BYTES)
    )


def check_endpoint(endpoint: str, services: tuple[str, ...]) -> None:
    """Raises BadSubscriptionError unless ``endpoint`` is on a push service of ``services``:
    ``https`` on a host listed (``*.`` for any subdomain), or plain ``http`` on a
    ``host:port`` listed (a push service of the operator's own on loopback, as tests use)."""
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as error:
        raise BadSubscriptionError(f"the push address is not a URL: {error}") from error
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None:
        raise BadSubscriptionError("the push address may not carry a user name or password")
    for service in services:
        if parts.scheme == "https" and _host_matches(host, service):
            return
        if parts.scheme == "http" and port is not None and service == f"{host}:{port}":
            return
    raise BadSubscriptionError(
        f"this server sends notifications only through the browsers' push services, not {host!r}"
    )


def _host_matches(host: str, service: str) -> bool:
    if service.startswith("*."):
        return host.endswith(service[1:]) and len(host) > len(service) - 1
    return host == service


def _key(value: str, name: str, size: int) -> str:
    """A URL-safe base64 key of ``size`` bytes, as browsers give them."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadSubscriptionError(f"the subscription's {name} key is not base64") from error
    if len(raw) != size:
        raise BadSubscriptionError(f"the subscription's {name} key must be {size} bytes")
    return value
