"""Quick pairing: pools of players waiting for a game, as values, and the game two of them make.

A pool is one game with its default options, one time control of :data:`TIME_CONTROLS`, rated
or casual.  A player waits in at most one pool at a time; the first compatible player already
waiting is paired with whoever joins: in a rated pool (accounts only) their ratings must lie
within both players' :func:`rating_range`, which widens the longer a player waits (from
:data:`RATING_RANGE` by :data:`RANGE_WIDENS_PER_SECOND` up to :data:`WIDEST_RATING_RANGE`), so
that nobody waits for ever for a close match; in a casual pool anyone pairs with anyone, guests
included.  An entry lapses :data:`ENTRY_SECONDS` after it was last renewed, so a player whose
page or server went away leaves the pool by itself.  The pairing itself is atomic in Redis
(:mod:`lobby.store.pools`); this module makes the accepted challenge the room is created from.
Imports :mod:`lobby.challenges`, :mod:`lobby.clocks`, :mod:`lobby.identity`,
:mod:`protocol.errors` and :mod:`rules`; never Redis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lobby.challenges import Challenge, Colour, Status, decide_seats
from lobby.clocks import canonical_time_control
from lobby.identity import Player, player_data, player_from_data
from protocol.errors import BadOptionsError, GuestRatedError, UnknownGameError
from rules import find_game

TIME_CONTROLS = ("3+2", "5+3", "10+5", "15+10", "1d", "3d")
"""The pools' time controls: live minutes+increment, and correspondence days per move."""
RATING_RANGE = 300.0
"""How far apart two rated players' ratings may be for a rated pool to pair them, at first."""
RANGE_WIDENS_PER_SECOND = 10.0
"""Rating points a waiting player's range grows by each second they wait."""
WIDEST_RATING_RANGE = 800.0
"""The widest a range grows (reached after 50 s)."""
ENTRY_SECONDS = 30.0
"""Seconds a pool entry lives unless renewed (the page renews it every 10 s)."""
MAX_WAITING = 1000
"""Players waiting in all pools together at most; past it, joining is refused."""
ID_PREFIX = "qp-"
"""The rooms (and accepted challenges) of quick pairings start with this."""


def rating_range(waited: float) -> float:
    """How far from their rating a player who has waited ``waited`` seconds may be paired
    (the store's pairing script computes the same)."""
    return min(WIDEST_RATING_RANGE, RATING_RANGE + RANGE_WIDENS_PER_SECOND * max(0.0, waited))


@dataclass(frozen=True, slots=True)
class Pool:
    """One pool: a game (default options), a canonical time control, rated or casual."""

    game: str
    time_control: str
    rated: bool

    @property
    def name(self) -> str:
        """The pool's key in the store, e.g. ``boche/5+3/casual``."""
        return f"{self.game}/{self.time_control}/{'rated' if self.rated else 'casual'}"


@dataclass(frozen=True, slots=True)
class Entry:
    """A player waiting in a pool: their rating in the game (None in a casual pool), the socket
    that waits (its closing takes the entry away) and when the entry lapses."""

    player: Player
    pool: str
    rating: float | None
    connection: str
    expires: float

    def to_data(self) -> dict[str, Any]:
        return {
            "player": player_data(self.player),
            "pool": self.pool,
            "rating": self.rating,
            "connection": self.connection,
            "expires": self.expires,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Entry:
        """The entry :meth:`to_data` described; raises ValueError on other data."""
        try:
            rating = data["rating"]
            return cls(
                player=player_from_data(data["player"]),
                pool=str(data["pool"]),
                rating=None if rating is None else float(rating),
                connection=str(data["connection"]),
                expires=float(data["expires"]),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not pool entry data: {error}") from error


def pool_for(player: Player, game: str, time_control: str, rated: bool) -> Pool:
    """The pool ``player`` asks for; raises UnknownGameError, BadOptionsError (a time control
    the pools do not offer) or GuestRatedError."""
    try:
        name = find_game(game).NAME
    except ValueError as error:
        raise UnknownGameError(str(error)) from error
    try:
        control = canonical_time_control(time_control)
    except ValueError as error:
        raise BadOptionsError(str(error)) from error
    if control not in TIME_CONTROLS:
        offered = ", ".join(TIME_CONTROLS)
        raise BadOptionsError(f"quick pairing offers the time controls {offered}")
    if rated and player.guest:
        raise GuestRatedError("guests play casual games only: choose a casual pool")
    return Pool(name, control, rated)


def paired_challenge(
    pool: Pool, waiting: Player, joining: Player, id: str, now: float, seed: int
) -> Challenge:
    """The accepted challenge of a pairing: the player who waited is its challenger (so their
    page goes to the game when the challenge's acceptance is announced), seats by lot."""
    return Challenge(
        id=id,
        challenger=waiting,
        target=joining,
        game=pool.game,
        options="",
        colour=Colour.RANDOM,
        rated=pool.rated,
        created=now,
        expires=now,
        time_control=pool.time_control,
        status=Status.ACCEPTED,
        accepter=joining,
        seats=decide_seats(waiting, joining, Colour.RANDOM, seed),
        closed=now,
    )
