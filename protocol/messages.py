"""The wire messages, defined once: every message type and field, and the size limits.

Frames are binary websocket messages holding one msgpack map; ``t`` names the message type.
Client requests carry a request id ``id`` (an integer or a short string); every reply and
error echoes it as ``ref``.  :func:`decode` is the only place where bytes become messages.
The error codes and close codes are in :mod:`protocol.errors`; ``python -m protocol`` writes
``client_js/protocol.js`` from both, so the browser speaks exactly this protocol.  Imports
msgpack, the standard library, :mod:`protocol.errors` and the rules API's move blocks (the
form in which ``moves`` lists a seat's moves).
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

import msgpack

from protocol.errors import (
    FrameError,
    FrameTooLargeError,
    MessageError,
    RequestId,
    UnknownTypeError,
)
from rules.api import expand_blocks

MAX_FRAME_BYTES = 4096
"""Largest frame a client may send; larger ones close the socket with 1009."""
MAX_ID_LENGTH = 64
"""Longest string accepted as a request id or room id."""


class MsgType(StrEnum):
    """The value of ``t`` in every frame."""

    # client to server
    JOIN = "join"
    SYNC = "sync"
    LEAVE = "leave"
    MOVE = "move"
    RESIGN = "resign"
    ABORT = "abort"
    DRAW = "draw"
    REMATCH = "rematch"
    LOBBY = "lobby"
    CHALLENGE = "challenge"
    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"
    CLAIM = "claim"
    PONG = "pong"
    TOURNAMENTS = "tournaments"
    TOURNAMENT = "tournament"
    POOL = "pool"
    LEAVE_POOL = "leave_pool"
    TAKEBACK = "takeback"
    CHAT = "chat"
    CHAT_HISTORY = "chat_history"
    CHAT_REPORT = "chat_report"
    MOVES = "moves"
    # server to client (``lobby``, ``challenge``, ``tournaments``, ``tournament``, ``pool``
    # and ``moves`` are also replies of the same names)
    WELCOME = "welcome"
    JOINED = "joined"
    LEFT = "left"
    SNAPSHOT = "snapshot"
    DIFF = "diff"
    OK = "ok"
    ERROR = "error"
    ACCEPTED = "accepted"
    LOBBY_EVENT = "lobby_event"
    TOURNAMENT_LISTED = "tournament_listed"
    TOURNAMENT_EVENT = "tournament_event"
    PING = "ping"
    REPORTED = "reported"


class DrawAction(StrEnum):
    """What a ``draw`` or ``takeback`` request does."""

    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


class ChatChannel(StrEnum):
    """A room's two chats, kept apart as Lichess keeps them: the players talk in ``players``,
    which spectators never see; spectators talk in ``spectators``, which the players see only
    once the game is over."""

    PLAYERS = "players"
    SPECTATORS = "spectators"


MAX_CHAT_LENGTH = 140
"""Longest chat message, in characters (after surrounding spaces are dropped)."""


class Role(StrEnum):
    """How a connection takes part in a room."""

    PLAYER = "player"
    SPECTATOR = "spectator"


# --- client to server -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClientJoin:
    """Watch a room (as its player if seated there, else as a spectator).

    Without ``version`` the reply stream is a snapshot; with the last version the client holds,
    the missing diffs when the server still has them, else a snapshot.  Then ``joined``.
    """

    TYPE: ClassVar[MsgType] = MsgType.JOIN
    id: RequestId
    room: str
    version: int | None = None


@dataclass(frozen=True, slots=True)
class ClientSync:
    """Ask for what follows ``version`` after a gap: diffs or a snapshot, then ``joined``."""

    TYPE: ClassVar[MsgType] = MsgType.SYNC
    id: RequestId
    room: str
    version: int


@dataclass(frozen=True, slots=True)
class ClientLeave:
    TYPE: ClassVar[MsgType] = MsgType.LEAVE
    id: RequestId
    room: str


@dataclass(frozen=True, slots=True)
class ClientMove:
    """Play ``move`` (the game's notation, or ``swap``) seen from room version ``version``.

    Resending the same ``id`` with the same ``version`` is safe: the move applies once and
    the resend gets the same answer.
    """

    TYPE: ClassVar[MsgType] = MsgType.MOVE
    id: RequestId
    room: str
    version: int
    move: str


@dataclass(frozen=True, slots=True)
class ClientResign:
    TYPE: ClassVar[MsgType] = MsgType.RESIGN
    id: RequestId
    room: str
    version: int


@dataclass(frozen=True, slots=True)
class ClientAbort:
    """End the game without a result; only before both players have moved."""

    TYPE: ClassVar[MsgType] = MsgType.ABORT
    id: RequestId
    room: str
    version: int


@dataclass(frozen=True, slots=True)
class ClientDraw:
    """Offer a draw, or accept or decline the opponent's offer (``action``)."""

    TYPE: ClassVar[MsgType] = MsgType.DRAW
    id: RequestId
    room: str
    version: int
    action: str


@dataclass(frozen=True, slots=True)
class ClientTakeback:
    """Ask to take back your last move (``offer``), or accept or decline the opponent's
    asking; off in rated games.  Granted, the game goes back to before the asker's last
    move."""

    TYPE: ClassVar[MsgType] = MsgType.TAKEBACK
    id: RequestId
    room: str
    version: int
    action: str


@dataclass(frozen=True, slots=True)
class ClientRematch:
    """Ask for a rematch of a finished game; once both players asked, the room names it."""

    TYPE: ClassVar[MsgType] = MsgType.REMATCH
    id: RequestId
    room: str


@dataclass(frozen=True, slots=True)
class ClientLobby:
    """Follow the lobby: answered by a ``lobby`` snapshot, then ``lobby_event`` frames."""

    TYPE: ClassVar[MsgType] = MsgType.LOBBY
    id: RequestId


@dataclass(frozen=True, slots=True)
class ClientChallenge:
    """Make a challenge: to ``target`` (a player's name or id), or open when it is absent."""

    TYPE: ClassVar[MsgType] = MsgType.CHALLENGE
    id: RequestId
    game: str
    options: str = ""
    colour: str = "random"
    rated: bool = False
    target: str | None = None
    time_control: str | None = None


@dataclass(frozen=True, slots=True)
class ClientAccept:
    """Accept a challenge; the reply ``accepted`` names the room (its id is the challenge's)."""

    TYPE: ClassVar[MsgType] = MsgType.ACCEPT
    id: RequestId
    challenge: str


@dataclass(frozen=True, slots=True)
class ClientDecline:
    TYPE: ClassVar[MsgType] = MsgType.DECLINE
    id: RequestId
    challenge: str


@dataclass(frozen=True, slots=True)
class ClientCancel:
    TYPE: ClassVar[MsgType] = MsgType.CANCEL
    id: RequestId
    challenge: str


@dataclass(frozen=True, slots=True)
class ClientClaim:
    """Claim the win of a live game whose opponent has been away longer than the grace
    period (the room's ``away`` and ``claim_after`` say when)."""

    TYPE: ClassVar[MsgType] = MsgType.CLAIM
    id: RequestId
    room: str
    version: int


@dataclass(frozen=True, slots=True)
class ClientPong:
    """The answer to ``ping``: ``id`` is the ping's ``n``; the server measures the lag."""

    TYPE: ClassVar[MsgType] = MsgType.PONG
    id: RequestId


@dataclass(frozen=True, slots=True)
class ClientTournaments:
    """Follow the list of tournaments: answered by ``tournaments`` (the list), then a
    ``tournament_listed`` frame for every event created or changed; ``follow`` false stops."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENTS
    id: RequestId
    follow: bool = True


@dataclass(frozen=True, slots=True)
class ClientTournament:
    """Follow one tournament: answered by ``tournament`` (the event with its standings), then
    a ``tournament_event`` frame holding the event afresh whenever it changes (a join, a
    withdrawal, a start, a round paired, a result); ``follow`` false stops."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENT
    id: RequestId
    tournament: str
    follow: bool = True


@dataclass(frozen=True, slots=True)
class ClientPool:
    """Quick pairing: wait in the pool of ``game`` (default options) with ``time_control``,
    rated or casual, or be paired at once with a player waiting there.  Answered by ``pool``;
    send it again every 10 s to stay (an entry lapses after 30 s); the socket closing, or
    ``leave_pool``, takes the player out."""

    TYPE: ClassVar[MsgType] = MsgType.POOL
    id: RequestId
    game: str
    time_control: str
    rated: bool = False


@dataclass(frozen=True, slots=True)
class ClientLeavePool:
    """Stop waiting in a quick-pairing pool; answered by ``pool`` (not waiting)."""

    TYPE: ClassVar[MsgType] = MsgType.LEAVE_POOL
    id: RequestId


@dataclass(frozen=True, slots=True)
class ClientChat:
    """Say ``text`` in the room's ``channel`` (a ``ChatChannel``); answered by ``chat`` with
    the line as the server keeps it, and every socket that may read the channel gets it too."""

    TYPE: ClassVar[MsgType] = MsgType.CHAT
    id: RequestId
    room: str
    channel: str
    text: str


@dataclass(frozen=True, slots=True)
class ClientChatHistory:
    """Ask for the lines the server keeps of one chat of the room: answered by ``chat`` with
    ``history`` true (replace what you show with it)."""

    TYPE: ClassVar[MsgType] = MsgType.CHAT_HISTORY
    id: RequestId
    room: str
    channel: str


@dataclass(frozen=True, slots=True)
class ClientChatReport:
    """Report the line ``line`` (its id) of one chat of the room to the operators; answered by
    ``reported``."""

    TYPE: ClassVar[MsgType] = MsgType.CHAT_REPORT
    id: RequestId
    room: str
    channel: str
    line: str


@dataclass(frozen=True, slots=True)
class ClientMoves:
    """Ask for the moves your seat ``seat`` (0 or 1) of a room you joined as its player could
    make in the room's position now: answered by ``moves``.  Ask again whenever the position
    changes; the position's data leaves them out, as only their player needs them."""

    TYPE: ClassVar[MsgType] = MsgType.MOVES
    id: RequestId
    room: str
    seat: int


ClientMessage: TypeAlias = (
    ClientJoin
    | ClientSync
    | ClientLeave
    | ClientMove
    | ClientResign
    | ClientAbort
    | ClientDraw
    | ClientTakeback
    | ClientRematch
    | ClientLobby
    | ClientChallenge
    | ClientAccept
    | ClientDecline
    | ClientCancel
    | ClientClaim
    | ClientPong
    | ClientTournaments
    | ClientTournament
    | ClientPool
    | ClientLeavePool
    | ClientChat
    | ClientChatHistory
    | ClientChatReport
    | ClientMoves
)

# --- server to client -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerWelcome:
    """First frame after connecting: who the server thinks you are."""

    TYPE: ClassVar[MsgType] = MsgType.WELCOME
    player: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerJoined:
    """Reply to join and sync, sent after the snapshot or diffs that bring you to ``version``."""

    TYPE: ClassVar[MsgType] = MsgType.JOINED
    ref: RequestId
    room: str
    version: int
    role: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class ServerLeft:
    TYPE: ClassVar[MsgType] = MsgType.LEFT
    ref: RequestId
    room: str


@dataclass(frozen=True, slots=True)
class ServerSnapshot:
    """The whole room state at ``version`` (see docs/protocol.md for its fields)."""

    TYPE: ClassVar[MsgType] = MsgType.SNAPSHOT
    room: str
    version: int
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerDiff:
    """Operations taking the room state from ``version - 1`` to ``version``.  The socket whose
    request committed it gets it with ``ref``, the request id, in place of ``ok``."""

    TYPE: ClassVar[MsgType] = MsgType.DIFF
    room: str
    version: int
    ops: list[Any]
    ref: RequestId | None = None


@dataclass(frozen=True, slots=True)
class ServerOk:
    """A move or resign was committed durably; ``version`` is the room's version after it."""

    TYPE: ClassVar[MsgType] = MsgType.OK
    ref: RequestId
    room: str
    version: int


@dataclass(frozen=True, slots=True)
class ServerError:
    TYPE: ClassVar[MsgType] = MsgType.ERROR
    ref: RequestId | None
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ServerLobby:
    """The lobby as it is now (reply to ``lobby``; sent again, ``ref`` null, after the server
    lost and regained its event stream): replace the whole lobby view with it."""

    TYPE: ClassVar[MsgType] = MsgType.LOBBY
    ref: RequestId | None
    lobby: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerLobbyEvent:
    """One change in the lobby (see docs/protocol.md for the events)."""

    TYPE: ClassVar[MsgType] = MsgType.LOBBY_EVENT
    event: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerChallenge:
    """Reply to ``challenge``, ``decline`` and ``cancel``: the challenge as it is now."""

    TYPE: ClassVar[MsgType] = MsgType.CHALLENGE
    ref: RequestId
    challenge: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerPing:
    """Answer at once with ``pong`` whose ``id`` is ``n``: the round trip measures the lag
    credited to your moves."""

    TYPE: ClassVar[MsgType] = MsgType.PING
    n: int


@dataclass(frozen=True, slots=True)
class ServerAccepted:
    """Reply to ``accept``: the accepted challenge and the room of its game."""

    TYPE: ClassVar[MsgType] = MsgType.ACCEPTED
    ref: RequestId
    challenge: dict[str, Any]
    room: str


@dataclass(frozen=True, slots=True)
class ServerTournaments:
    """Reply to ``tournaments``: upcoming, running and finished events (null after
    ``follow`` false)."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENTS
    ref: RequestId | None
    tournaments: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ServerTournament:
    """Reply to ``tournament``: the event as ``GET /api/tournaments/<id>`` gives it (null
    after ``follow`` false)."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENT
    ref: RequestId | None
    tournament: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ServerTournamentListed:
    """An event of the list was created or changed: its summary, to put in its place."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENT_LISTED
    tournament: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerTournamentEvent:
    """A followed event changed: the whole event afresh; keep the highest ``version``."""

    TYPE: ClassVar[MsgType] = MsgType.TOURNAMENT_EVENT
    tournament: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServerPool:
    """Reply to ``pool`` and ``leave_pool``: ``room`` is the game paired at once (go there), or
    null; ``waiting`` whether the player now waits in a pool.  A player who waited learns of
    the pairing from the lobby feed: a ``challenge`` event, accepted, whose challenger they
    are and whose id is the room's."""

    TYPE: ClassVar[MsgType] = MsgType.POOL
    ref: RequestId
    room: str | None
    waiting: bool


@dataclass(frozen=True, slots=True)
class ServerChat:
    """Lines of one chat of a room, oldest first, each ``{"id", "player", "name", "text",
    "at"}``: with ``history`` true, every line the server keeps (the reply to
    ``chat_history``); else new lines (with ``ref``, the reply to your ``chat``; the same line
    also comes without ``ref``, so keep each ``id`` once)."""

    TYPE: ClassVar[MsgType] = MsgType.CHAT
    ref: RequestId | None
    room: str
    channel: str
    lines: list[dict[str, Any]]
    history: bool = False


@dataclass(frozen=True, slots=True)
class ServerReported:
    """Reply to ``chat_report``: the report is kept for the operators."""

    TYPE: ClassVar[MsgType] = MsgType.REPORTED
    ref: RequestId
    room: str


@dataclass(frozen=True, slots=True)
class ServerMoves:
    """Reply to ``moves``: the moves seat ``seat`` could make in the position of
    ``position_version`` (the room's ``position_version`` then), as blocks (see
    docs/protocol.md): its legal moves when it is to move there, else the moves it may queue
    as premoves; none once the game is over."""

    TYPE: ClassVar[MsgType] = MsgType.MOVES
    ref: RequestId
    room: str
    seat: int
    position_version: int
    moves: list[Any]


ServerMessage: TypeAlias = (
    ServerWelcome
    | ServerJoined
    | ServerLeft
    | ServerSnapshot
    | ServerDiff
    | ServerOk
    | ServerError
    | ServerLobby
    | ServerLobbyEvent
    | ServerChallenge
    | ServerAccepted
    | ServerPing
    | ServerTournaments
    | ServerTournament
    | ServerTournamentListed
    | ServerTournamentEvent
    | ServerPool
    | ServerChat
    | ServerReported
    | ServerMoves
)

CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {
    cls.TYPE.value: cls
    for cls in (
        ClientJoin,
        ClientSync,
        ClientLeave,
        ClientMove,
        ClientResign,
        ClientAbort,
        ClientDraw,
        ClientTakeback,
        ClientRematch,
        ClientLobby,
        ClientChallenge,
        ClientAccept,
        ClientDecline,
        ClientCancel,
        ClientClaim,
        ClientPong,
        ClientTournaments,
        ClientTournament,
        ClientPool,
        ClientLeavePool,
        ClientChat,
        ClientChatHistory,
        ClientChatReport,
        ClientMoves,
    )
}
SERVER_MESSAGES: dict[str, type[ServerMessage]] = {
    cls.TYPE.value: cls
    for cls in (
        ServerWelcome,
        ServerJoined,
        ServerLeft,
        ServerSnapshot,
        ServerDiff,
        ServerOk,
        ServerError,
        ServerLobby,
        ServerLobbyEvent,
        ServerChallenge,
        ServerAccepted,
        ServerPing,
        ServerTournaments,
        ServerTournament,
        ServerTournamentListed,
        ServerTournamentEvent,
        ServerPool,
        ServerChat,
        ServerReported,
        ServerMoves,
    )
}

_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "room": (str,),
    "version": (int,),
    "move": (str,),
    "action": (str,),
    "game": (str,),
    "options": (str,),
    "colour": (str,),
    "rated": (bool,),
    "target": (str,),
    "time_control": (str,),
    "challenge": (str,),
    "tournament": (str,),
    "follow": (bool,),
    "channel": (str,),
    "text": (str,),
    "line": (str,),
    "seat": (int,),
}
MAX_TEXT_LENGTH = 256
"""Longest text field accepted (option text, a player's name, a move)."""
CHOICES: dict[str, frozenset[str]] = {
    "action": frozenset(DrawAction),
    "colour": frozenset({"mine", "theirs", "random"}),
    "channel": frozenset(ChatChannel),
}
"""The text fields of client messages that take one of a few values."""
ID_FIELDS = frozenset({"room", "challenge", "tournament", "line"})
"""The text fields of client messages that name something: at most MAX_ID_LENGTH long."""


def decode(frame: bytes) -> ClientMessage:
    """The client message in ``frame``.

    Raises FrameTooLargeError, FrameError (not msgpack, not a map), UnknownTypeError, or
    MessageError (missing field, wrong type) carrying the request id when there is one.
    """
    if len(frame) > MAX_FRAME_BYTES:
        raise FrameTooLargeError(f"frame of {len(frame)} bytes exceeds {MAX_FRAME_BYTES}")
    try:
        body = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except Exception as error:  # msgpack raises several unrelated classes on garbage
        raise FrameError(f"undecodable frame: {error}") from error
    if not isinstance(body, dict):
        raise FrameError("a frame must hold a msgpack map")
    ref = body.get("id")
    if not _is_request_id(ref):
        raise MessageError("every request needs an id: an integer or a short string")
    kind = body.get("t")
    cls = CLIENT_MESSAGES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise UnknownTypeError(f"unknown message type {kind!r}", ref)
    values: dict[str, Any] = {}
    for name, optional in _DECODED_FIELDS[cls]:
        if name == "id":
            values["id"] = ref
            continue
        value = body.get(name)
        if value is None:
            if optional:
                continue  # an optional field: the message's default
            raise MessageError(f"{kind} needs the field {name!r}", ref)
        types = _FIELD_TYPES[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise MessageError(f"field {name!r} of {kind} has the wrong type", ref)
        if isinstance(value, str):
            limit = MAX_ID_LENGTH if name in ID_FIELDS else MAX_TEXT_LENGTH
            if len(value) > limit:
                raise MessageError(f"{name} too long", ref)
            choices = CHOICES.get(name)
            if choices is not None and value not in choices:
                raise MessageError(
                    f"field {name!r} must be one of {', '.join(sorted(choices))}", ref
                )
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise MessageError(f"field {name!r} must not be negative", ref)
        values[name] = value
    return cls(**values)


_DECODED_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {
    cls: tuple((f.name, f.default is not dataclasses.MISSING) for f in dataclasses.fields(cls))
    for cls in CLIENT_MESSAGES.values()
}
"""Each client message's fields and whether each may be left out, read once, not per frame."""


def encode(message: ServerMessage | ClientMessage) -> bytes:
    """The frame for ``message`` (the server encodes each diff once for all its sockets)."""
    body: dict[str, Any] = {"t": message.TYPE.value}
    for field in dataclasses.fields(message):
        body[field.name] = getattr(message, field.name)
    frame: bytes = msgpack.packb(body, use_bin_type=True)
    return frame


def encode_diff(room: str, version: int, ops: list[Any]) -> bytes:
    """The frame of a diff, built directly because it is encoded on every move."""
    frame: bytes = msgpack.packb(
        {"t": "diff", "room": room, "version": version, "ops": ops}, use_bin_type=True
    )
    return frame


def diff_reply(frame: bytes, ref: RequestId) -> bytes:
    """The frame of :func:`encode_diff` with ``ref`` added: the reply to the request that
    committed the diff, without encoding the operations again."""
    if frame[0] != 0x84:  # a fixmap of the four fields encode_diff writes
        raise ValueError("not a frame of encode_diff")
    packed_ref: bytes = msgpack.packb(ref, use_bin_type=True)
    return b"\x85" + frame[1:] + _REF_KEY + packed_ref


_REF_KEY: bytes = msgpack.packb("ref")


def decode_server(frame: bytes) -> dict[str, Any]:
    """A server frame as plain data, for clients written in Python; raises FrameError."""
    try:
        body = msgpack.unpackb(frame, raw=False)
    except Exception as error:
        raise FrameError(f"undecodable frame: {error}") from error
    if not isinstance(body, dict) or body.get("t") not in SERVER_MESSAGES:
        raise FrameError("not a server message")
    return body


def listed_moves(blocks: list[Any]) -> list[str]:
    """The move texts that the blocks of a ``moves`` reply stand for, in order."""
    return list(expand_blocks(blocks))


VERSION_PREFIX = struct.Struct(">Q")
"""Published diff frames carry their version in 8 bytes in front, so the fan-out reads it
without decoding the frame."""


def _is_request_id(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value < 2**53
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH
