"""Rooms as values: one game between two seated players, and commands that change it.

A :class:`Room` holds the game's name and options, which player holds each seat (after any
swap), the version, the rules state, the move record, the outcome and the spectator count,
and what the lobby derives from it: whether it is rated, when it was made and when it last
saw a move.  :func:`decide` is the whole of the server's decisions: room + command -> new
room + events, or a ClientError and nothing changes.  Each command (move, resign, abort,
draw, takeback, rematch, spectator count, timeout, idle, presence, claim) is a command class
and a handler in ``HANDLERS``; the clock (lobby.clocks) is part of the room, charged at the commit
time the service passes.  :func:`idle_deadline` says when a game that sees no move ends.
:func:`room_doc` is the plain data clients see, :func:`room_changes` what a commit changed
in it (the diff), and :func:`room_from_doc` reads it back.  Names no game: everything goes
through ``rules.find_game``.  Imports rules, lobby.challenges (the rematch id), lobby.clocks,
protocol.errors and protocol.diff; no I/O.  Built with mypyc (setup.py), since every move runs
:func:`decide` and :func:`room_changes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, TypeAlias

from lobby import clocks
from lobby.challenges import rematch_id
from protocol.diff import Op, apply_copy, diff
from protocol.errors import (
    BadOptionsError,
    BadRequestError,
    CannotAbortError,
    CannotClaimError,
    CannotTakeBackError,
    GameNotOverError,
    GameOverError,
    NoOfferError,
    NotAPlayerError,
    NotYourTurnError,
    StaleVersionError,
    UnknownGameError,
)
from rules import find_game
from rules.api import GameRules, OptionsError, Outcome, PlainData, Seat, data_differ
from rules.pie import is_swap, is_swap_text

RoomId: TypeAlias = str
PlayerId: TypeAlias = str

_ROOM_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}$")
RESIGNATION = "resignation"
TIME = "time"
ABANDONMENT = "abandonment"
ABORTED = "aborted"
AGREEMENT = "agreement"
IDLE = "idle"
"""A game that saw no move for its idle limit (see :class:`IdleLimits`); nobody wins."""
DRAW_OFFER = "offer"
DRAW_ACCEPT = "accept"
DRAW_DECLINE = "decline"


@dataclass(slots=True, unsafe_hash=True, init=False)
class SeatHolder:
    """The player holding one seat (a value built by its own ``__init__``, as :class:`Room`
    is: two are read with every room)."""

    id: Final[PlayerId]
    name: Final[str]

    def __init__(self, id: PlayerId, name: str) -> None:
        self.id = id
        self.name = name


@dataclass(slots=True, unsafe_hash=True, init=False)
class Room:
    """One game in one room; ``state`` is the rules module's State value.

    ``position_version`` is the version of the last change to the game itself (move, swap,
    resign); a request made from an older version is stale.  Spectator counts change
    ``version`` but not the position, so they never make a move stale.

    A value: its fields are Final, set by its own ``__init__``, as a game's state is (see
    "Values" in :mod:`rules.api`): a room is made on every command.
    """

    id: Final[RoomId]
    game: Final[str]
    options: Final[str]
    seats: Final[tuple[SeatHolder, SeatHolder]]
    state: Final[Any]
    record: Final[tuple[str, ...]]
    version: Final[int]
    position_version: Final[int]
    outcome: Final[Outcome | None]
    spectators: Final[int]
    draw_offer: Final[PlayerId | None]
    """The player whose draw offer stands; it lapses when their opponent moves."""
    takeback_offer: Final[PlayerId | None]
    """The player asking to take their last move back; the request lapses with any move."""
    rematch_offers: Final[tuple[PlayerId, ...]]
    """Players who asked for a rematch of the finished game."""
    rematch: Final[RoomId | None]
    """The rematch's room once both players asked for it."""
    clock: Final[clocks.Clock | None]
    """The game clock; None for a game without a time control."""
    away: Final[tuple[float | None, float | None]]
    """Since when each seat's player has had no socket on the room (None: here)."""
    rated: Final[bool]
    """Whether the game counts for ratings (from its challenge or tournament)."""
    created: Final[float | None]
    """When the room was made, in seconds since the epoch (None in rooms made before it was
    kept)."""
    moved_at: Final[float | None]
    """When the last move was played, or the room made before any was: what idle games are
    judged by (None in rooms made before it was kept: they have no idle limit)."""

    def __init__(
        self,
        id: RoomId,
        game: str,
        options: str,
        seats: tuple[SeatHolder, SeatHolder],
        state: Any,
        record: tuple[str, ...] = (),
        version: int = 0,
        position_version: int = 0,
        outcome: Outcome | None = None,
        spectators: int = 0,
        draw_offer: PlayerId | None = None,
        takeback_offer: PlayerId | None = None,
        rematch_offers: tuple[PlayerId, ...] = (),
        rematch: RoomId | None = None,
        clock: clocks.Clock | None = None,
        away: tuple[float | None, float | None] = (None, None),
        rated: bool = False,
        created: float | None = None,
        moved_at: float | None = None,
    ) -> None:
        self.id = id
        self.game = game
        self.options = options
        self.seats = seats
        self.state = state
        self.record = record
        self.version = version
        self.position_version = position_version
        self.outcome = outcome
        self.spectators = spectators
        self.draw_offer = draw_offer
        self.takeback_offer = takeback_offer
        self.rematch_offers = rematch_offers
        self.rematch = rematch
        self.clock = clock
        self.away = away
        self.rated = rated
        self.created = created
        self.moved_at = moved_at

    @property
    def rules(self) -> GameRules:
        return find_game(self.game)

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def seats_of(self, player: PlayerId) -> list[Seat]:
        """The seats ``player`` holds (both when someone plays themselves)."""
        first, second = self.seats  # checked on every command: no loop over the seats
        if first.id == player:
            return [Seat.FIRST, Seat.SECOND] if second.id == player else [Seat.FIRST]
        return [Seat.SECOND] if second.id == player else []


# --- commands and events ---------------------------------------------------------------------


@dataclass(slots=True, unsafe_hash=True, init=False)
class Move:
    """``now`` is the commit time the service passes in; ``lag`` the mover's measured
    one-way network lag (credited up to ``clocks.MAX_LAG_CREDIT``).  A value built by its
    own ``__init__``, as :class:`Room` is: one is made for every move."""

    player: Final[PlayerId]
    version: Final[int]
    text: Final[str]
    now: Final[float]
    lag: Final[float]

    def __init__(
        self, player: PlayerId, version: int, text: str, now: float = 0.0, lag: float = 0.0
    ) -> None:
        self.player = player
        self.version = version
        self.text = text
        self.now = now
        self.lag = lag


@dataclass(frozen=True, slots=True)
class Resign:
    player: PlayerId
    version: int


@dataclass(frozen=True, slots=True)
class Abort:
    player: PlayerId
    version: int


@dataclass(frozen=True, slots=True)
class Draw:
    """Offer a draw, or accept or decline the standing offer (``action``)."""

    player: PlayerId
    version: int
    action: str


@dataclass(frozen=True, slots=True)
class Takeback:
    """Ask to take back one's last move, or accept or decline the opponent's asking
    (``action``: offer, accept, decline, as for draws)."""

    player: PlayerId
    version: int
    action: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Rematch:
    player: PlayerId


@dataclass(frozen=True, slots=True)
class SetSpectators:
    count: int


@dataclass(frozen=True, slots=True)
class Presence:
    """A seated player came (``here``) or left, at ``now``; the connection sends it."""

    player: PlayerId
    here: bool
    now: float


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim the win because the opponent has been away past ``clocks.AWAY_GRACE``."""

    player: PlayerId
    version: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Timeout:
    """End the game if the running clock's flag has fallen at ``now``."""

    now: float


@dataclass(frozen=True, slots=True)
class IdleLimits:
    """How long a game may see no move before it ends (seconds).  A game whose clock runs is
    ended by its clock instead; these cover the games no clock ends."""

    unstarted: float = 10 * 60
    """A live or untimed game in which nobody has moved yet: aborted."""
    unstarted_correspondence: float = 7 * clocks.DAY
    """A correspondence game in which nobody has moved yet (its clock starts with the first
    move): aborted."""
    untimed: float = 3 * clocks.DAY
    """An untimed game after its first move: ended with no winner (aborted while fewer than
    two moves were played)."""


DEFAULT_IDLE_LIMITS = IdleLimits()


@dataclass(frozen=True, slots=True)
class Idle:
    """End the game if it has seen no move past its idle limit at ``now``."""

    now: float
    limits: IdleLimits


Command: TypeAlias = (
    Move
    | Resign
    | Abort
    | Draw
    | Takeback
    | Rematch
    | SetSpectators
    | Timeout
    | Idle
    | Presence
    | Claim
)


@dataclass(slots=True, unsafe_hash=True, init=False)
class MovePlayed:
    """A value built by its own ``__init__``, as :class:`Room` is: one per move."""

    seat: Final[Seat]
    text: Final[str]

    def __init__(self, seat: Seat, text: str) -> None:
        self.seat = seat
        self.text = text


@dataclass(frozen=True, slots=True)
class SeatsSwapped:
    seats: tuple[SeatHolder, SeatHolder]


@dataclass(frozen=True, slots=True)
class GameEnded:
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class SpectatorsChanged:
    count: int


@dataclass(frozen=True, slots=True)
class DrawOffered:
    player: PlayerId | None
    """Who offers now; None when an offer was declined or lapsed."""


@dataclass(frozen=True, slots=True)
class TakebackOffered:
    player: PlayerId | None
    """Who asks now; None when the asking was declined, lapsed or granted."""


@dataclass(frozen=True, slots=True)
class MovesTakenBack:
    plies: int
    """How many moves the game has now."""


@dataclass(frozen=True, slots=True)
class RematchAsked:
    player: PlayerId


@dataclass(frozen=True, slots=True)
class RematchAgreed:
    room: RoomId


@dataclass(frozen=True, slots=True)
class PresenceChanged:
    away: tuple[float | None, float | None]


Event: TypeAlias = (
    MovePlayed
    | SeatsSwapped
    | GameEnded
    | SpectatorsChanged
    | DrawOffered
    | TakebackOffered
    | MovesTakenBack
    | RematchAsked
    | RematchAgreed
    | PresenceChanged
)


@dataclass(slots=True, unsafe_hash=True, init=False)
class Transition:
    """The room after a command and what happened; no events means nothing changed.  A
    value built by its own ``__init__``, as :class:`Room` is: one per command."""

    room: Final[Room]
    events: Final[tuple[Event, ...]]

    def __init__(self, room: Room, events: tuple[Event, ...]) -> None:
        self.room = room
        self.events = events


def new_room(
    room_id: RoomId,
    game: str,
    options: str,
    seats: tuple[SeatHolder, SeatHolder],
    time_control: str | None = None,
    rated: bool = False,
    now: float | None = None,
) -> Room:
    """A room at version 0 for a new game made at ``now``; raises UnknownGameError or
    BadOptionsError."""
    try:
        control = clocks.parse_time_control(time_control)
    except ValueError as error:
        raise BadOptionsError(str(error)) from error
    if not _ROOM_ID_RE.match(room_id):
        raise BadRequestError(f"room id {room_id!r} must be 1 to 64 letters, digits, . _ -")
    try:
        rules = find_game(game)
    except ValueError as error:
        raise UnknownGameError(str(error)) from error
    try:
        parsed = rules.parse_options(options)
    except OptionsError as error:
        raise BadOptionsError(str(error)) from error
    return Room(
        id=room_id,
        game=rules.NAME,
        options=rules.options_text(parsed),
        seats=seats,
        state=rules.new_game(parsed),
        clock=None if control is None else clocks.new_clock(control),
        rated=rated,
        created=now,
        moved_at=now,
    )


def decide(room: Room, command: Command) -> Transition:
    """Apply ``command`` to ``room``; raises a ClientError or a rules error, changing nothing."""
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise BadRequestError(f"rooms do not know the command {type(command).__name__}")
    return handler(room, command)


def _decide_move(room: Room, command: Command) -> Transition:
    assert isinstance(command, Move)
    rules = room.rules
    _check_player(room, command.player, command.version)
    seat = rules.to_move(room.state)
    if seat is None:
        raise GameOverError("the game is over")
    if room.seats[seat].id != command.player:
        raise NotYourTurnError(f"it is {room.seats[seat].name}'s turn")
    move = rules.parse_move(room.state, command.text)
    state = rules.play(room.state, move)
    clock = room.clock
    if clock is not None:
        clock = clocks.charge(clock, seat, command.now, command.lag)
        if clocks.is_out_of_time(clock, seat):
            return _end_on_time(room, clock, seat)
    text = rules.move_text(move)
    events: list[Event] = [MovePlayed(seat, text)]
    seats = room.seats
    if is_swap(move):
        seats = (seats[1], seats[0])
        events.append(SeatsSwapped(seats))
        if clock is not None:
            clock = clocks.swap_seats(clock)
    outcome = rules.outcome(state)
    if clock is not None and outcome is None:
        following = rules.to_move(state)
        if following is not None:
            clock = clocks.start(clock, following, command.now)
    if outcome is not None:
        events.append(GameEnded(outcome))
    draw_offer = room.draw_offer
    if draw_offer is not None and draw_offer != command.player:
        draw_offer = None  # the opponent moved instead of answering: the offer lapses
        events.append(DrawOffered(None))
    if room.takeback_offer is not None:
        events.append(TakebackOffered(None))  # any move ends the asking
    version = room.version + 1
    # Built field by field: dataclasses.replace costs several times more, on every move.
    new = Room(
        id=room.id,
        game=room.game,
        options=room.options,
        seats=seats,
        state=state,
        record=(*room.record, text),
        version=version,
        position_version=version,
        outcome=outcome,
        spectators=room.spectators,
        draw_offer=None if outcome is not None else draw_offer,
        takeback_offer=None,
        rematch_offers=room.rematch_offers,
        rematch=room.rematch,
        clock=clock,
        away=room.away,
        rated=room.rated,
        created=room.created,
        moved_at=command.now,
    )
    return Transition(new, tuple(events))


def _decide_timeout(room: Room, command: Command) -> Transition:
    """A flag fall loses in every game (see lobby.clocks); anything else changes nothing, so
    any number of processes may ask and the game ends once."""
    assert isinstance(command, Timeout)
    if room.outcome is not None or room.clock is None:
        return Transition(room, ())
    seat = clocks.flagged(room.clock, command.now)
    if seat is None:
        return Transition(room, ())
    return _end_on_time(room, room.clock, seat)


def idle_deadline(room: Room, limits: IdleLimits) -> float | None:
    """When ``room`` ends for want of moves unless one is played first; None when no idle
    limit applies (the game is over, its clock runs and ends it on time, or the room is older
    than the times it keeps)."""
    clock = room.clock
    if room.outcome is not None or room.moved_at is None:
        return None
    if clock is not None and clock.running is not None:
        return None
    if room.record:
        return room.moved_at + limits.untimed
    if clock is not None and clock.control.kind is clocks.Kind.CORRESPONDENCE:
        return room.moved_at + limits.unstarted_correspondence
    return room.moved_at + limits.unstarted


def _decide_idle(room: Room, command: Command) -> Transition:
    """A game past its idle limit ends with no winner: aborted while fewer than two moves
    were played (nobody really started), else ended as idle.  Anything else changes nothing,
    so any number of processes may ask and the game ends once."""
    assert isinstance(command, Idle)
    deadline = idle_deadline(room, command.limits)
    if deadline is None or command.now < deadline:
        return Transition(room, ())
    outcome = Outcome(winner=None, reason=ABORTED if len(room.record) < 2 else IDLE)
    version = room.version + 1
    new = replace(room, outcome=outcome, version=version, position_version=version, draw_offer=None)
    return Transition(new, (GameEnded(outcome),))


def _decide_presence(room: Room, command: Command) -> Transition:
    """Presence is kept while the game is on; after it, nobody waits for anyone."""
    assert isinstance(command, Presence)
    seats = room.seats_of(command.player)
    if not seats or room.outcome is not None:
        return Transition(room, ())
    away = list(room.away)
    for seat in seats:
        if command.here:
            away[seat] = None
        elif away[seat] is None:
            away[seat] = command.now
    if tuple(away) == room.away:
        return Transition(room, ())
    new = replace(room, away=(away[0], away[1]), version=room.version + 1)
    return Transition(new, (PresenceChanged(new.away),))


def _decide_claim(room: Room, command: Command) -> Transition:
    """The opponent of a live (or untimed) game left and stayed away past the grace period:
    the player who stayed may take the win instead of waiting.  Correspondence games have no
    claim: being away between moves is how they are played, and the clock ends them."""
    assert isinstance(command, Claim)
    seats = _check_player(room, command.player, command.version)
    if room.clock is not None and room.clock.control.kind is clocks.Kind.CORRESPONDENCE:
        raise CannotClaimError("correspondence games end on time, not on absence")
    fallen = None if room.clock is None else clocks.flagged(room.clock, command.now)
    if room.clock is not None and fallen is not None:
        return _end_on_time(room, room.clock, fallen)  # a fallen flag decides first
    seat = seats[0]
    since = room.away[seat.other]
    if len(seats) == 2 or since is None:
        raise CannotClaimError("your opponent is here")
    if command.now < since + clocks.AWAY_GRACE:
        raise CannotClaimError(
            f"your opponent may come back for {since + clocks.AWAY_GRACE - command.now:.0f} s"
        )
    outcome = Outcome(winner=seat, reason=ABANDONMENT)
    version = room.version + 1
    clock = None if room.clock is None else clocks.stop(room.clock, command.now)
    new = replace(
        room,
        outcome=outcome,
        version=version,
        position_version=version,
        draw_offer=None,
        clock=clock,
    )
    return Transition(new, (GameEnded(outcome),))


def _end_on_time(room: Room, clock: clocks.Clock, seat: Seat) -> Transition:
    left = min(0.0, clock.remaining[seat])
    remaining = (left, clock.remaining[1]) if seat is Seat.FIRST else (clock.remaining[0], left)
    outcome = Outcome(winner=seat.other, reason=TIME)
    version = room.version + 1
    new = replace(
        room,
        outcome=outcome,
        version=version,
        position_version=version,
        draw_offer=None,
        clock=replace(clock, remaining=remaining, running=None),
    )
    return Transition(new, (GameEnded(outcome),))


def _decide_resign(room: Room, command: Command) -> Transition:
    assert isinstance(command, Resign)
    seats = _check_player(room, command.player, command.version)
    # Someone playing both sides resigns the side to move.
    to_move = room.rules.to_move(room.state)
    loser = to_move if to_move in seats else seats[0]
    outcome = Outcome(winner=loser.other, reason=RESIGNATION)
    version = room.version + 1
    new = replace(room, outcome=outcome, version=version, position_version=version, draw_offer=None)
    return Transition(new, (GameEnded(outcome),))


def _decide_abort(room: Room, command: Command) -> Transition:
    assert isinstance(command, Abort)
    _check_player(room, command.player, command.version)
    if len(room.record) >= 2:
        raise CannotAbortError("both players have moved: resign instead of aborting")
    outcome = Outcome(winner=None, reason=ABORTED)
    version = room.version + 1
    new = replace(room, outcome=outcome, version=version, position_version=version, draw_offer=None)
    return Transition(new, (GameEnded(outcome),))


def _decide_draw(room: Room, command: Command) -> Transition:
    """Draws by agreement are open to every game: the server names no game, and agreeing
    to share a game needs no rule of the game's own."""
    assert isinstance(command, Draw)
    _check_player(room, command.player, command.version)
    offer = room.draw_offer
    theirs = offer is not None and offer != command.player
    if command.action == DRAW_ACCEPT or (command.action == DRAW_OFFER and theirs):
        if not theirs:
            raise NoOfferError("there is no draw offer from your opponent to accept")
        outcome = Outcome(winner=None, reason=AGREEMENT)
        version = room.version + 1
        new = replace(
            room, outcome=outcome, version=version, position_version=version, draw_offer=None
        )
        return Transition(new, (DrawOffered(None), GameEnded(outcome)))
    if command.action == DRAW_OFFER:
        if offer == command.player:
            return Transition(room, ())  # offered already
        new = replace(room, draw_offer=command.player, version=room.version + 1)
        return Transition(new, (DrawOffered(command.player),))
    if command.action == DRAW_DECLINE:
        if offer is None:
            raise NoOfferError("there is no draw offer to decline")
        # Declining the opponent's offer, or taking back one's own.
        new = replace(room, draw_offer=None, version=room.version + 1)
        return Transition(new, (DrawOffered(None),))
    raise BadRequestError(f"a draw is offered, accepted or declined, not {command.action!r}")


def _decide_takeback(room: Room, command: Command) -> Transition:
    """As on Lichess: a player asks to take back their last move, and the opponent grants it
    or not.  Granted, the game goes back to just before the asker's last move (so the
    opponent's reply goes too, when there was one), through the same commit as a move.
    Rated games have no takebacks.  The clocks keep the times they show, and the clock of the
    player to move runs from now (none runs if the game is back at its start)."""
    assert isinstance(command, Takeback)
    _check_player(room, command.player, command.version)
    if room.rated:
        raise CannotTakeBackError("rated games have no takebacks")
    offer = room.takeback_offer
    theirs = offer is not None and offer != command.player
    if command.action == DRAW_ACCEPT or (command.action == DRAW_OFFER and theirs):
        if not theirs or offer is None:
            raise NoOfferError("your opponent has not asked to take a move back")
        return _take_back(room, offer, command.now)
    if command.action == DRAW_OFFER:
        if offer == command.player:
            return Transition(room, ())  # asked already
        if takeback_point(room, command.player) is None:
            raise CannotTakeBackError("you have made no move to take back")
        new = replace(room, takeback_offer=command.player, version=room.version + 1)
        return Transition(new, (TakebackOffered(command.player),))
    if command.action == DRAW_DECLINE:
        if offer is None:
            raise NoOfferError("nobody asked to take a move back")
        new = replace(room, takeback_offer=None, version=room.version + 1)
        return Transition(new, (TakebackOffered(None),))
    raise BadRequestError(f"a takeback is offered, accepted or declined, not {command.action!r}")


def takeback_point(room: Room, player: PlayerId) -> int | None:
    """How many moves the game keeps if ``player``'s takeback is granted: those before their
    last move (None if they have made none)."""
    _, movers = replay(room, len(room.record))
    holders = starting_seats(room)
    last = None
    for ply, (seat, text) in enumerate(zip(movers, room.record, strict=True)):
        if seat is not None and holders[seat].id == player:
            last = ply
        if is_swap_text(text):
            holders = (holders[1], holders[0])
    return last


def replay(room: Room, plies: int) -> tuple[Any, list[Seat | None]]:
    """The rules state after the record's first ``plies`` moves, and the seat to move before
    each of them (a forced pass means the seats need not take turns); raises BadRequestError
    for a number of moves the game does not have."""
    if not 0 <= plies <= len(room.record):
        raise BadRequestError(f"the game has moves 0 to {len(room.record)}, not {plies}")
    rules = room.rules
    state = rules.new_game(rules.parse_options(room.options))
    movers: list[Seat | None] = []
    for text in room.record[:plies]:
        movers.append(rules.to_move(state))
        state = rules.play(state, rules.parse_move(state, text))
    return state, movers


def _take_back(room: Room, asker: PlayerId, now: float) -> Transition:
    plies = takeback_point(room, asker)
    if plies is None:
        raise CannotTakeBackError("there is no move of theirs to take back")
    state, _ = replay(room, plies)
    record = room.record[:plies]
    swaps = sum(1 for text in room.record[plies:] if is_swap_text(text))
    seats = room.seats if swaps % 2 == 0 else (room.seats[1], room.seats[0])
    events: list[Event] = [TakebackOffered(None), MovesTakenBack(plies)]
    if seats != room.seats:
        events.append(SeatsSwapped(seats))
    clock = room.clock
    if clock is not None:
        clock = clocks.stop(clock, now)
        if swaps % 2 == 1:
            clock = clocks.swap_seats(clock)
        following = room.rules.to_move(state)
        if record and following is not None:
            clock = clocks.start(clock, following, now)
    version = room.version + 1
    new = replace(
        room,
        seats=seats,
        state=state,
        record=record,
        version=version,
        position_version=version,
        draw_offer=None,
        takeback_offer=None,
        clock=clock,
        moved_at=now,
    )
    return Transition(new, tuple(events))


def _decide_rematch(room: Room, command: Command) -> Transition:
    """Both players must ask; the second request names the rematch's room (exactly once)."""
    assert isinstance(command, Rematch)
    if not room.seats_of(command.player):
        raise NotAPlayerError("only the two players of this room may ask for a rematch")
    if room.outcome is None:
        raise GameNotOverError("a rematch is for a finished game")
    if command.player in room.rematch_offers:
        return Transition(room, ())
    offers = (*room.rematch_offers, command.player)
    events: list[Event] = [RematchAsked(command.player)]
    rematch = room.rematch
    if {s.id for s in room.seats} <= set(offers):
        rematch = rematch_id(room.id)
        events.append(RematchAgreed(rematch))
    new = replace(room, rematch_offers=offers, rematch=rematch, version=room.version + 1)
    return Transition(new, tuple(events))


def _decide_spectators(room: Room, command: Command) -> Transition:
    assert isinstance(command, SetSpectators)
    if command.count == room.spectators or command.count < 0:
        return Transition(room, ())
    new = replace(room, spectators=command.count, version=room.version + 1)
    return Transition(new, (SpectatorsChanged(command.count),))


HANDLERS: dict[type, Callable[[Room, Command], Transition]] = {
    Move: _decide_move,
    Resign: _decide_resign,
    Abort: _decide_abort,
    Draw: _decide_draw,
    Takeback: _decide_takeback,
    Rematch: _decide_rematch,
    SetSpectators: _decide_spectators,
    Timeout: _decide_timeout,
    Idle: _decide_idle,
    Presence: _decide_presence,
    Claim: _decide_claim,
}


def _check_player(room: Room, player: PlayerId, version: int) -> list[Seat]:
    """The seats of ``player`` in a game still on, seen from a current version."""
    seats = room.seats_of(player)
    if not seats:
        raise NotAPlayerError("only the two players of this room may do that")
    if version < room.position_version or version > room.version:
        raise StaleVersionError(
            f"the room is at version {room.version}; you sent version {version}"
        )
    if room.outcome is not None:
        raise GameOverError("the game is over")
    return seats


# --- plain data ------------------------------------------------------------------------------


def room_doc(room: Room) -> dict[str, Any]:
    """The room as the plain data that clients hold and diffs change."""
    return _room_doc(room, room.rules.to_data(room.state))


def room_changes(
    old: Room, old_doc: dict[str, Any], new: Room, described: bool = True
) -> tuple[dict[str, Any], list[Op]]:
    """``new``'s document and the diff operations that turn ``old_doc``, the document of
    ``old``, into it.

    Where the position changed and the game's rules can say what that changed in their data
    (``data_changes``, :class:`rules.api.DataChanges`), they do, and neither the whole data
    nor a comparison of two is made; the room's own fields are compared as usual.  Pass
    ``described=False`` when ``old_doc``'s data may not be what these rules write for
    ``old`` (a document another release stored): the whole documents are then compared,
    which also brings the data up to date.
    """
    old_data = old_doc["data"]
    if new.state is old.state:
        data = old_data
        data_ops: list[Op] = []
    else:
        describe = data_differ(new.rules) if described else None
        if describe is None:
            doc = room_doc(new)
            return doc, diff(old_doc, doc)
        data_ops = describe(old.state, new.state, old_data)
        data = apply_copy(old_data, data_ops)
    doc = _room_doc(new, data)
    # The data is the very same object on both sides: the comparison passes it by.
    ops = diff({**old_doc, "data": data}, doc)
    ops.extend([op[0], ["data", *op[1]], *op[2:]] for op in data_ops)
    return doc, ops


def _room_doc(room: Room, data: PlainData) -> dict[str, Any]:
    rules = room.rules
    outcome = room.outcome
    to_move = None if outcome is not None else rules.to_move(room.state)
    scores = rules.scores(room.state)
    return {
        "room": room.id,
        "game": room.game,
        "options": room.options,
        "colours": list(rules.SEAT_NAMES),
        "seats": [{"id": s.id, "name": s.name} for s in room.seats],
        "version": room.version,
        "position_version": room.position_version,
        "to_move": None if to_move is None else int(to_move),
        "data": data,
        "record": list(room.record),
        "outcome": None
        if outcome is None
        else {
            "winner": None if outcome.winner is None else int(outcome.winner),
            "reason": outcome.reason,
        },
        "scores": None if scores is None else list(scores),
        "spectators": room.spectators,
        "draw_offer": room.draw_offer,
        "takeback_offer": room.takeback_offer,
        "rematch": {"offers": list(room.rematch_offers), "room": room.rematch},
        "clock": None if room.clock is None else clocks.clock_data(_shown_clock(room)),
        "away": list(room.away),
        "claim_after": clocks.AWAY_GRACE,
        "rated": room.rated,
        "created": room.created,
        "moved_at": room.moved_at,
    }


def _shown_clock(room: Room) -> clocks.Clock:
    """The clock as clients see it: none runs once the game is over, however it ended."""
    assert room.clock is not None
    if room.outcome is not None and room.clock.running is not None:
        return replace(room.clock, running=None)
    return room.clock


def rematch_room(room: Room, now: float | None = None) -> Room:
    """The new room of an agreed rematch, made at ``now``: same game, options, time control
    and rating, and whoever moved first in this game moves second (a swap does not change who
    moved first)."""
    if room.rematch is None:
        raise ValueError(f"room {room.id} has no agreed rematch")
    first, second = starting_seats(room)
    control = None if room.clock is None else clocks.time_control_text(room.clock.control)
    return new_room(
        room.rematch, room.game, room.options, (second, first), control, room.rated, now
    )


def starting_seats(room: Room) -> tuple[SeatHolder, SeatHolder]:
    """Who held each seat at the start: every swap in the record exchanged them."""
    swaps = sum(1 for text in room.record if is_swap_text(text))
    return room.seats if swaps % 2 == 0 else (room.seats[1], room.seats[0])


def room_from_doc(doc: dict[str, Any]) -> Room:
    """The room that :func:`room_doc` described; raises ValueError on other data."""
    try:
        rules = find_game(doc["game"])
        outcome_data = doc["outcome"]
        outcome = (
            None
            if outcome_data is None
            else Outcome(
                winner=None if outcome_data["winner"] is None else Seat(outcome_data["winner"]),
                reason=str(outcome_data["reason"]),
            )
        )
        first, second = (SeatHolder(str(s["id"]), str(s["name"])) for s in doc["seats"])
        return Room(
            id=str(doc["room"]),
            game=rules.NAME,
            options=str(doc["options"]),
            seats=(first, second),
            state=rules.from_data(doc["data"]),
            record=tuple(str(text) for text in doc["record"]),
            version=int(doc["version"]),
            position_version=int(doc["position_version"]),
            outcome=outcome,
            spectators=int(doc["spectators"]),
            # Rooms stored before draw offers and rematches have neither field.
            draw_offer=doc.get("draw_offer"),
            takeback_offer=doc.get("takeback_offer"),
            rematch_offers=tuple(str(p) for p in (doc.get("rematch") or {}).get("offers", ())),
            rematch=(doc.get("rematch") or {}).get("room"),
            clock=None if doc.get("clock") is None else clocks.clock_from_data(doc["clock"]),
            away=_away_from_doc(doc.get("away")),
            # Rooms stored before ratings and idle limits were kept in them have none of these.
            rated=bool(doc.get("rated", False)),
            created=_time_from_doc(doc.get("created")),
            moved_at=_time_from_doc(doc.get("moved_at")),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a room document: {error}") from error


def _time_from_doc(data: Any) -> float | None:
    return None if data is None else float(data)


def _away_from_doc(data: Any) -> tuple[float | None, float | None]:
    if not data:
        return (None, None)
    first, second = (None if x is None else float(x) for x in data)
    return (first, second)


def seat_role(room: Room, player: PlayerId) -> Seat | None:
    """The seat a joining player takes part as (the first they hold), or None to watch."""
    seats = room.seats_of(player)
    return seats[0] if seats else None
