"""Challenges as values, and their transitions as pure functions.

A challenge is direct (to one named player) or open (anyone may accept).  Every transition
takes a challenge and returns a new one, or raises a coded :class:`~protocol.errors.ClientError`
and changes nothing; :mod:`lobby.store.challenges` makes them atomic in Redis.  Accepting
decides the seats, so the server can create the room (room id = challenge id) from the
accepted value alone.  A rematch is an accepted challenge built from a finished game.
Imports :mod:`rules`, :mod:`lobby.identity`, :mod:`lobby.games`, :mod:`lobby.clocks` and
:mod:`protocol.errors`; never Redis.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from lobby.clocks import canonical_time_control
from lobby.games import FinishedGame
from lobby.identity import Player, player_data, player_from_data
from lobby.ratings import BOT_ID_PREFIX
from protocol.errors import (
    AlreadyAcceptedError,
    BadOptionsError,
    ChallengeClosedError,
    ChallengeExpiredError,
    GuestRatedError,
    LimitReachedError,
    NotAPlayerError,
    NotChallengerError,
    NotTargetError,
    OwnChallengeError,
    UnknownGameError,
)
from rules import find_game
from rules.api import OptionsError, Seat

ChallengeId = str


class Colour(Enum):
    """Who moves first, from the challenger's point of view."""

    MINE = "mine"
    """The challenger takes Seat.FIRST."""
    THEIRS = "theirs"
    """The accepter takes Seat.FIRST."""
    RANDOM = "random"
    """Decided at acceptance with the seed the caller passes."""


class Status(Enum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class ChallengeLimits:
    """Per-account and per-address limits on what players create, and how long a challenge
    waits for an answer.  Bots are held to none of the per-account game limits: they only
    accept, and the people who challenge them are held to theirs."""

    max_open: int = 10
    """Open challenges one player may have at once (direct and open together)."""
    lifetime: float = 30 * 60
    """Seconds before an unanswered challenge expires."""
    max_playing: int = 30
    """Games one player may have in progress (as the live list counts them) when another
    starts, by a challenge accepted or a rematch agreed."""
    max_started: int = 120
    """Games one player may start in ``window`` seconds."""
    max_per_address: int = 300
    """Challenges made and games started from one network address in ``window`` seconds
    (guests are free to make, so this is what holds a flood of them)."""
    window: float = 3600.0
    """The sliding window of ``max_started`` and ``max_per_address``, in seconds."""


DEFAULT_LIMITS = ChallengeLimits()


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge and where it stands.

    ``options`` is the game's canonical option text (empty for the defaults).  ``seats`` is
    None until the challenge is accepted, then the (FIRST, SECOND) players.  ``time_control``
    stays None until clocks exist; it is carried as an opaque plain value.
    """

    id: ChallengeId
    challenger: Player
    target: Player | None
    game: str
    options: str
    colour: Colour
    rated: bool
    created: float
    expires: float
    time_control: str | None = None
    status: Status = Status.OPEN
    accepter: Player | None = None
    seats: tuple[Player, Player] | None = None
    closed: float | None = None
    rematch_of: str | None = None

    @property
    def is_open(self) -> bool:
        """Open to everyone (no target), as opposed to direct."""
        return self.target is None

    def player_at(self, seat: Seat) -> Player:
        """The player holding ``seat``; raises ValueError before acceptance."""
        if self.seats is None:
            raise ValueError(f"challenge {self.id} has no seats until it is accepted")
        return self.seats[seat]

    def to_data(self) -> dict[str, Any]:
        """Plain data (JSON- and msgpack-safe) for storage and for the wire."""
        return {
            "id": self.id,
            "challenger": player_data(self.challenger),
            "target": None if self.target is None else player_data(self.target),
            "game": self.game,
            "options": self.options,
            "colour": self.colour.value,
            "rated": self.rated,
            "created": self.created,
            "expires": self.expires,
            "time_control": self.time_control,
            "status": self.status.value,
            "accepter": None if self.accepter is None else player_data(self.accepter),
            "seats": None if self.seats is None else [player_data(p) for p in self.seats],
            "closed": self.closed,
            "rematch_of": self.rematch_of,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Challenge:
        """The challenge :meth:`to_data` described; raises ValueError on other data."""
        try:
            seats = data["seats"]
            return cls(
                id=str(data["id"]),
                challenger=player_from_data(data["challenger"]),
                target=None if data["target"] is None else player_from_data(data["target"]),
                game=str(data["game"]),
                options=str(data["options"]),
                colour=Colour(data["colour"]),
                rated=bool(data["rated"]),
                created=float(data["created"]),
                expires=float(data["expires"]),
                time_control=data["time_control"],
                status=Status(data["status"]),
                accepter=None if data["accepter"] is None else player_from_data(data["accepter"]),
                seats=None
                if seats is None
                else (player_from_data(seats[0]), player_from_data(seats[1])),
                closed=None if data["closed"] is None else float(data["closed"]),
                rematch_of=data.get("rematch_of"),
            )
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"not challenge data: {error}") from error


def canonical_options(game: str, text: str) -> tuple[str, str]:
    """The registry name of ``game`` and the canonical form of its option text.

    Raises UnknownGameError, or BadOptionsError with the rules' reason (which names the flag).
    """
    try:
        rules = find_game(game)
    except ValueError as error:
        raise UnknownGameError(str(error)) from error
    try:
        options = rules.parse_options(text)
    except OptionsError as error:
        raise BadOptionsError(str(error)) from error
    return rules.NAME, rules.options_text(options)


def create(
    id: ChallengeId,
    challenger: Player,
    target: Player | None,
    game: str,
    options: str,
    colour: Colour,
    rated: bool,
    now: float,
    open_count: int,
    limits: ChallengeLimits = DEFAULT_LIMITS,
    time_control: str | None = None,
) -> Challenge:
    """A new open challenge; ``open_count`` is how many open ones the challenger already has.

    Raises OwnChallengeError (a direct challenge to oneself), GuestRatedError (a guest on
    either side of a rated challenge), LimitReachedError, UnknownGameError, BadOptionsError.
    """
    if target is not None and target.id == challenger.id:
        raise OwnChallengeError("you cannot challenge yourself")
    if rated and (challenger.guest or (target is not None and target.guest)):
        raise GuestRatedError("guests play casual games only: make the challenge unrated")
    if open_count >= limits.max_open:
        raise LimitReachedError(
            f"you already have {open_count} open challenges (the limit is {limits.max_open}): "
            "cancel one first"
        )
    name, canonical = canonical_options(game, options)
    try:
        time_control = canonical_time_control(time_control)
    except ValueError as error:
        raise BadOptionsError(str(error)) from error
    return Challenge(
        id=id,
        challenger=challenger,
        target=target,
        game=name,
        options=canonical,
        colour=colour,
        rated=rated,
        created=now,
        expires=now + limits.lifetime,
        time_control=time_control,
    )


def is_expired(challenge: Challenge, now: float) -> bool:
    """Whether an open challenge's time has run out (closed ones never expire)."""
    return challenge.status is Status.OPEN and now >= challenge.expires


def accept(challenge: Challenge, player: Player, now: float, seed: int) -> Challenge:
    """The accepted challenge, with seats decided (``seed`` resolves a random colour).

    Raises OwnChallengeError, NotTargetError (a direct challenge to someone else),
    GuestRatedError (a guest accepting a rated open challenge), AlreadyAcceptedError,
    ChallengeClosedError, ChallengeExpiredError.
    """
    _check_still_open(challenge, now)
    if player.id == challenge.challenger.id:
        raise OwnChallengeError("you cannot accept your own challenge")
    if challenge.target is not None and challenge.target.id != player.id:
        raise NotTargetError(f"this challenge is for {challenge.target.name}, not for you")
    if challenge.rated and player.guest:
        raise GuestRatedError("guests play casual games only: this challenge is rated")
    return replace(
        challenge,
        status=Status.ACCEPTED,
        accepter=player,
        seats=decide_seats(challenge.challenger, player, challenge.colour, seed),
        closed=now,
    )


def decline(challenge: Challenge, player: Player, now: float) -> Challenge:
    """The declined challenge; only the target of a direct challenge may decline it.

    Raises NotTargetError, AlreadyAcceptedError, ChallengeClosedError, ChallengeExpiredError.
    """
    _check_still_open(challenge, now)
    if challenge.target is None or challenge.target.id != player.id:
        raise NotTargetError("only the player a direct challenge names may decline it")
    return replace(challenge, status=Status.DECLINED, closed=now)


def cancel(challenge: Challenge, player: Player, now: float) -> Challenge:
    """The cancelled challenge; only its challenger may cancel it.

    Raises NotChallengerError, AlreadyAcceptedError, ChallengeClosedError,
    ChallengeExpiredError.
    """
    _check_still_open(challenge, now)
    if player.id != challenge.challenger.id:
        raise NotChallengerError("only the player who made a challenge may cancel it")
    return replace(challenge, status=Status.CANCELLED, closed=now)


def expire(challenge: Challenge, now: float) -> Challenge:
    """The expired challenge; raises ValueError if it is closed or its time has not come."""
    if not is_expired(challenge, now):
        raise ValueError(f"challenge {challenge.id} is not due to expire at {now}")
    return replace(challenge, status=Status.EXPIRED, closed=now)


def is_limited(player: Player) -> bool:
    """Whether the per-account game limits hold ``player`` (everyone but the bots)."""
    return not player.id.startswith(BOT_ID_PREFIX)


def limit_refusal(kind: str, player: Player | None, limits: ChallengeLimits) -> LimitReachedError:
    """The refusal for a limit :func:`lobby.store.creations.count_creation` found reached:
    ``kind`` is ``playing`` or ``started`` (held by ``player``), or ``address``."""
    window = f"{limits.window / 3600:g} h"
    name = "" if player is None else player.name
    if kind == "playing":
        return LimitReachedError(
            f"{name} has {limits.max_playing} games in progress, the limit: finish one first"
        )
    if kind == "started":
        return LimitReachedError(
            f"{name} started {limits.max_started} games in the last {window}, the limit"
        )
    return LimitReachedError(
        f"{limits.max_per_address} challenges and games were made from your network address "
        f"in the last {window}, the limit: try again later"
    )


def decide_seats(
    challenger: Player, accepter: Player, colour: Colour, seed: int
) -> tuple[Player, Player]:
    """The (FIRST, SECOND) players for a colour choice; ``seed`` decides RANDOM reproducibly."""
    challenger_first = {
        Colour.MINE: True,
        Colour.THEIRS: False,
        Colour.RANDOM: random.Random(seed).random() < 0.5,
    }[colour]
    return (challenger, accepter) if challenger_first else (accepter, challenger)


def rematch(finished: FinishedGame, by: Player, id: ChallengeId, now: float) -> Challenge:
    """An accepted challenge for a rematch: same game and options, first move to the other.

    ``by`` (one of the two players) is the challenger.  The seat that moved first in
    ``finished`` moves second now; a swap played in the old game (the pie rule) does not
    change who moved first, so it does not change the rematch's seats.  The options text is
    carried as it was, so the swap offer (``-swap``/``-no_swap``) is the same.
    Raises NotAPlayerError.
    """
    first, second = finished.players
    if by.id not in (first.id, second.id):
        raise NotAPlayerError("only the players of a game may ask for a rematch")
    other = second if by.id == first.id else first
    colour = Colour.MINE if by.id == second.id else Colour.THEIRS
    return Challenge(
        id=id,
        challenger=by,
        target=other,
        game=finished.game,
        options=finished.options,
        colour=colour,
        rated=finished.rated,
        created=now,
        expires=now,
        time_control=finished.time_control,
        status=Status.ACCEPTED,
        accepter=other,
        seats=(second, first),
        closed=now,
        rematch_of=finished.room_id,
    )


def rematch_id(room_id: str) -> ChallengeId:
    """The id of the rematch of a room's game: the same for both players who ask for it, and
    short and plain whatever the room id (a rematch of a rematch does not grow)."""
    return "rm-" + hashlib.blake2b(room_id.encode(), digest_size=8).hexdigest()


def _check_still_open(challenge: Challenge, now: float) -> None:
    if challenge.status is Status.ACCEPTED:
        raise AlreadyAcceptedError("this challenge has been accepted already")
    if challenge.status is Status.EXPIRED or is_expired(challenge, now):
        raise ChallengeExpiredError("this challenge has expired")
    if challenge.status is not Status.OPEN:
        raise ChallengeClosedError(f"this challenge was {challenge.status.value}")
