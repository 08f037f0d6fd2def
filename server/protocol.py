"""The wire protocol, defined once: every message, field, error code, close code and size limit.

Frames are binary websocket messages holding one msgpack map; ``t`` names the message type.
Client requests carry a request id ``id`` (an integer or a short string); every reply and
error echoes it as ``ref``.  :func:`decode` is the only place where bytes become messages.
``python -m server.protocol`` writes ``client_js/protocol.js`` from the definitions here, so
the browser speaks exactly this protocol.  Imports only msgpack and the standard library.
"""

from __future__ import annotations

import dataclasses
import json
import struct
import sys
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any, ClassVar, TypeAlias

import msgpack

MAX_FRAME_BYTES = 4096
"""Largest frame a client may send; larger ones close the socket with 1009."""
MAX_ID_LENGTH = 64
"""Longest string accepted as a request id or room id."""

RequestId: TypeAlias = int | str


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
    # server to client (``lobby``, ``challenge``, ``tournaments``, ``tournament`` and ``pool``
    # are also replies of the same names)
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


class ErrorCode(StrEnum):
    """Why a request was refused; the request changed nothing."""

    BAD_REQUEST = "bad_request"
    UNKNOWN_TYPE = "unknown_type"
    UNKNOWN_ROOM = "unknown_room"
    NOT_JOINED = "not_joined"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    GAME_OVER = "game_over"
    STALE_VERSION = "stale_version"
    INVALID_MOVE = "invalid_move"
    ILLEGAL_MOVE = "illegal_move"
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTIONS = "bad_options"
    RATE_LIMITED = "rate_limited"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    CANNOT_ABORT = "cannot_abort"
    NO_OFFER = "no_offer"
    GAME_NOT_OVER = "game_not_over"
    UNKNOWN_PLAYER = "unknown_player"
    UNKNOWN_CHALLENGE = "unknown_challenge"
    OWN_CHALLENGE = "own_challenge"
    NOT_TARGET = "not_target"
    NOT_CHALLENGER = "not_challenger"
    ALREADY_ACCEPTED = "already_accepted"
    CHALLENGE_CLOSED = "challenge_closed"
    CHALLENGE_EXPIRED = "challenge_expired"
    GUEST_RATED = "guest_rated"
    LIMIT_REACHED = "limit_reached"
    BAD_CREDENTIALS = "bad_credentials"
    NAME_TAKEN = "name_taken"
    BAD_NAME = "bad_name"
    WEAK_PASSWORD = "weak_password"
    BAD_RECORD = "bad_record"
    CANNOT_CLAIM = "cannot_claim"
    CANNOT_TAKE_BACK = "cannot_take_back"
    CHAT_CLOSED = "chat_closed"
    UNKNOWN_LINE = "unknown_line"
    # tournaments (``lobby.tournaments.ErrorCode`` with ``_`` for ``-``)
    FULL = "full"
    STARTED = "started"
    FINISHED = "finished"
    NOT_STARTED = "not_started"
    GUEST_IN_RATED = "guest_in_rated"
    GUEST_CREATOR = "guest_creator"
    ALREADY_JOINED = "already_joined"
    IMPOSSIBLE_SETTINGS = "impossible_settings"
    TOO_EARLY = "too_early"
    TOO_FEW_PLAYERS = "too_few_players"
    ROUND_UNFINISHED = "round_unfinished"
    NO_MORE_ROUNDS = "no_more_rounds"
    NOT_OVER = "not_over"
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    RESULT_CONFLICT = "result_conflict"
    BAD_RESULT = "bad_result"


class CloseCode(IntEnum):
    """Websocket close codes the server uses (RFC 6455 section 7.4.1)."""

    NORMAL = 1000
    GOING_AWAY = 1001
    UNSUPPORTED_DATA = 1003
    POLICY_VIOLATION = 1008
    MESSAGE_TOO_BIG = 1009
    INTERNAL_ERROR = 1011
    TRY_AGAIN_LATER = 1013


class Role(StrEnum):
    """How a connection takes part in a room."""

    PLAYER = "player"
    SPECTATOR = "spectator"


class FrameError(Exception):
    """A frame that cannot be read at all; the connection closes with ``close_code``."""

    close_code: ClassVar[CloseCode] = CloseCode.UNSUPPORTED_DATA


class FrameTooLargeError(FrameError):
    close_code = CloseCode.MESSAGE_TOO_BIG


class MessageError(ValueError):
    """A readable frame that is not a valid request; answered with an error, ``ref`` echoed."""

    def __init__(self, message: str, ref: RequestId | None = None) -> None:
        super().__init__(message)
        self.ref = ref


class UnknownTypeError(MessageError):
    """A frame whose ``t`` names no client message."""


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
}
MAX_TEXT_LENGTH = 256
"""Longest text field accepted (option text, a player's name, a move)."""
_CHOICES: dict[str, frozenset[str]] = {
    "action": frozenset(DrawAction),
    "colour": frozenset({"mine", "theirs", "random"}),
    "channel": frozenset(ChatChannel),
}


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
            ids = ("room", "challenge", "tournament", "line")
            limit = MAX_ID_LENGTH if name in ids else MAX_TEXT_LENGTH
            if len(value) > limit:
                raise MessageError(f"{name} too long", ref)
            choices = _CHOICES.get(name)
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


VERSION_PREFIX = struct.Struct(">Q")
"""Published diff frames carry their version in 8 bytes in front, so the fan-out reads it
without decoding the frame."""


def _is_request_id(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value < 2**53
    return isinstance(value, str) and 0 < len(value) <= MAX_ID_LENGTH


# --- the JavaScript twin ----------------------------------------------------------------------


def javascript() -> str:
    """The text of ``client_js/protocol.js``: the same constants and message shapes."""

    def fields(cls: type) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    client = {name: fields(cls) for name, cls in CLIENT_MESSAGES.items()}
    server = {name: fields(cls) for name, cls in SERVER_MESSAGES.items()}
    parts = [
        "// Generated by `python -m server.protocol` from server/protocol.py: do not edit.",
        "// The wire protocol: msgpack maps whose `t` names the message type.",
        "",
        f"export const MAX_FRAME_BYTES = {MAX_FRAME_BYTES};",
        "",
        _js_enum("MsgType", {m.name: m.value for m in MsgType}),
        _js_enum("ErrorCode", {m.name: m.value for m in ErrorCode}),
        _js_enum("CloseCode", {m.name: int(m) for m in CloseCode}),
        _js_enum("Role", {m.name: m.value for m in Role}),
        _js_enum("DrawAction", {m.name: m.value for m in DrawAction}),
        _js_enum("ChatChannel", {m.name: m.value for m in ChatChannel}),
        f"export const MAX_CHAT_LENGTH = {MAX_CHAT_LENGTH};",
        "",
        "/** Fields of every message the client sends, by type. */",
        f"export const CLIENT_MESSAGES = Object.freeze({json.dumps(client, indent=2)});",
        "/** Fields of every message the server sends, by type (`lobby`, `challenge`,",
        " * `tournaments` and `tournament` are both a request and its reply). */",
        f"export const SERVER_MESSAGES = Object.freeze({json.dumps(server, indent=2)});",
        "",
    ]
    return "\n".join(parts)


def _js_enum(name: str, members: dict[str, object]) -> str:
    body = "".join(f"  {key}: {json.dumps(value)},\n" for key, value in members.items())
    return f"export const {name} = Object.freeze({{\n{body}}});\n"


JS_PATH = Path(__file__).resolve().parent.parent / "client_js" / "protocol.js"


def main() -> int:
    """Write client_js/protocol.js (``--check``: exit 1 if it is stale instead)."""
    text = javascript()
    if "--check" in sys.argv[1:]:
        current = JS_PATH.read_text() if JS_PATH.exists() else ""
        if current != text:
            print(f"{JS_PATH} is stale: run python -m server.protocol", file=sys.stderr)
            return 1
        return 0
    JS_PATH.write_text(text)
    print(f"wrote {JS_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
