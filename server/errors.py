"""Errors a client can cause, and the one mapping from exception classes to wire error codes.

A :class:`ClientError` (or a rules error, a lobby refusal, or a malformed request) becomes an
``error`` frame with its code and the request id; the request changed nothing.  Lobby
refusals and tournament refusals carry a stable ``code`` of their own, which
:func:`error_code` maps too.  Imports rules.api, lobby.errors, lobby.tournaments and
server.protocol only.
"""

from __future__ import annotations

from lobby.errors import LobbyError
from lobby.tournaments import TournamentError
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError
from server.protocol import ErrorCode, MessageError, UnknownTypeError


class ClientError(Exception):
    """A request the server refuses; the message is for the player to read."""


class UnknownRoomError(ClientError):
    pass


class NotJoinedError(ClientError):
    """A request about a room the connection has not joined."""


class NotAPlayerError(ClientError):
    """A move or resign from someone who holds no seat in the room (spectators included)."""


class NotYourTurnError(ClientError):
    pass


class GameOverError(ClientError):
    pass


class StaleVersionError(ClientError):
    """The position changed after the version the request was made from."""


class UnknownGameError(ClientError):
    pass


class BadOptionsError(ClientError):
    pass


class BadRequestError(ClientError):
    pass


class RateLimitedError(ClientError):
    pass


class BusyError(ClientError):
    """The room kept changing under the request; trying again is safe."""


class UnavailableError(ClientError):
    """Storage did not answer; the request may be resent with the same id."""


class CannotAbortError(ClientError):
    """Abort is for games where a player has not moved yet; later, resign."""


class NoOfferError(ClientError):
    """A draw offer to answer that is not there (never made, lapsed, or one's own)."""


class GameNotOverError(ClientError):
    """A rematch of a game that is still being played."""


class CannotTakeBackError(ClientError):
    """A takeback in a rated game, or asked by a player who has made no move."""


class ChatClosedError(ClientError):
    """A chat the sender may not read or write (the spectators' chat, for a player while the
    game is on)."""


class UnknownLineError(ClientError):
    """A chat line to report that the server does not keep (never said, or long gone)."""


class CannotClaimError(ClientError):
    """A claim of the win while the opponent is here, not yet away long enough, or in a
    correspondence game (where the clock settles absence)."""


_CODES: dict[type[BaseException], ErrorCode] = {
    UnknownTypeError: ErrorCode.UNKNOWN_TYPE,
    MessageError: ErrorCode.BAD_REQUEST,
    BadRequestError: ErrorCode.BAD_REQUEST,
    UnknownRoomError: ErrorCode.UNKNOWN_ROOM,
    NotJoinedError: ErrorCode.NOT_JOINED,
    NotAPlayerError: ErrorCode.NOT_A_PLAYER,
    NotYourTurnError: ErrorCode.NOT_YOUR_TURN,
    GameOverError: ErrorCode.GAME_OVER,
    StaleVersionError: ErrorCode.STALE_VERSION,
    InvalidMoveError: ErrorCode.INVALID_MOVE,
    IllegalMoveError: ErrorCode.ILLEGAL_MOVE,
    UnknownGameError: ErrorCode.UNKNOWN_GAME,
    BadOptionsError: ErrorCode.BAD_OPTIONS,
    OptionsError: ErrorCode.BAD_OPTIONS,
    RateLimitedError: ErrorCode.RATE_LIMITED,
    BusyError: ErrorCode.BUSY,
    UnavailableError: ErrorCode.UNAVAILABLE,
    CannotAbortError: ErrorCode.CANNOT_ABORT,
    NoOfferError: ErrorCode.NO_OFFER,
    CannotClaimError: ErrorCode.CANNOT_CLAIM,
    ChatClosedError: ErrorCode.CHAT_CLOSED,
    CannotTakeBackError: ErrorCode.CANNOT_TAKE_BACK,
    UnknownLineError: ErrorCode.UNKNOWN_LINE,
    GameNotOverError: ErrorCode.GAME_NOT_OVER,
}

_LOBBY_CODES: dict[str, ErrorCode] = {
    "unknown-player": ErrorCode.UNKNOWN_PLAYER,
    "unknown-challenge": ErrorCode.UNKNOWN_CHALLENGE,
    "unknown-game": ErrorCode.UNKNOWN_GAME,
    "unknown-room": ErrorCode.UNKNOWN_ROOM,
    "own-challenge": ErrorCode.OWN_CHALLENGE,
    "not-target": ErrorCode.NOT_TARGET,
    "not-challenger": ErrorCode.NOT_CHALLENGER,
    "not-a-player": ErrorCode.NOT_A_PLAYER,
    "already-accepted": ErrorCode.ALREADY_ACCEPTED,
    "challenge-closed": ErrorCode.CHALLENGE_CLOSED,
    "challenge-expired": ErrorCode.CHALLENGE_EXPIRED,
    "bad-options": ErrorCode.BAD_OPTIONS,
    "guest-rated": ErrorCode.GUEST_RATED,
    "limit-reached": ErrorCode.LIMIT_REACHED,
    "rate-limited": ErrorCode.RATE_LIMITED,
    "bad-credentials": ErrorCode.BAD_CREDENTIALS,
    "name-taken": ErrorCode.NAME_TAKEN,
    "bad-name": ErrorCode.BAD_NAME,
    "weak-password": ErrorCode.WEAK_PASSWORD,
    "bad-record": ErrorCode.BAD_RECORD,
}
"""Lobby refusal codes (``LobbyError.code``) to wire codes; an unlisted one is a bad request."""

RECOVERABLE: tuple[type[BaseException], ...] = (
    ClientError,
    MessageError,
    InvalidMoveError,
    IllegalMoveError,
    OptionsError,
    LobbyError,
    TournamentError,
)
"""Exceptions answered with an error frame; anything else closes the socket with 1011."""


def error_code(error: BaseException) -> ErrorCode:
    """The wire code of a recoverable error (its nearest mapped class); raises KeyError."""
    if isinstance(error, LobbyError):
        return _LOBBY_CODES.get(error.code, ErrorCode.BAD_REQUEST)
    if isinstance(error, TournamentError):
        return ErrorCode(error.code.value.replace("-", "_"))
    for cls in type(error).__mro__:
        code = _CODES.get(cls)
        if code is not None:
            return code
    raise KeyError(f"no error code for {type(error).__name__}")
