"""Every refusal a client can meet, and what it becomes on the wire: one error tree, one code set.

A :class:`ClientError` is a request refused with nothing changed; its ``code`` is the wire
:class:`ErrorCode` that reaches the sender in an ``error`` frame (with the request id) or an
HTTP answer ``{"code", "message"}``.  The server, the lobby and the tournaments raise its
subclasses; the rules raise their own ValueErrors, which :func:`error_code` maps too.
:func:`http_status` and :func:`close_code` are the one place a refusal becomes an HTTP status
or a websocket close code.  Imports rules.api only.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import ClassVar, TypeAlias

from rules.api import IllegalMoveError, InvalidMoveError, OptionsError

RequestId: TypeAlias = int | str
"""A client's request id, echoed as ``ref``: an integer or a short string."""


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
    CANNOT_BE_BOT = "cannot_be_bot"
    UNKNOWN_LINE = "unknown_line"
    # tournaments (the codes of :class:`TournamentError`)
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


# --- frames that cannot be read: the socket closes ----------------------------------------------


class FrameError(Exception):
    """A frame that cannot be read at all; the connection closes with ``close_code``."""

    close_code: ClassVar[CloseCode] = CloseCode.UNSUPPORTED_DATA


class FrameTooLargeError(FrameError):
    close_code = CloseCode.MESSAGE_TOO_BIG


# --- the tree of refusals: an error frame or an HTTP answer, nothing changed ----------------


class ClientError(ValueError):
    """A request refused; the message is for a person to read, ``code`` for the program."""

    code: ErrorCode = ErrorCode.BAD_REQUEST


class MessageError(ClientError):
    """A readable frame that is not a valid request; answered with an error, ``ref`` echoed."""

    def __init__(self, message: str, ref: RequestId | None = None) -> None:
        super().__init__(message)
        self.ref = ref


class UnknownTypeError(MessageError):
    """A frame whose ``t`` names no client message."""

    code = ErrorCode.UNKNOWN_TYPE


class BadRequestError(ClientError):
    """A request whose fields are well formed but make no sense together."""


class NotAuthenticatedError(ClientError):
    """Missing or bad credentials: the websocket closes with 1008, HTTP answers 401."""

    code = ErrorCode.BAD_CREDENTIALS


class NoCredentialsError(NotAuthenticatedError):
    """No session token at all (rather than a bad one)."""


class RateLimitedError(ClientError):
    """Too many requests in a short time; ``retry_after`` says how many seconds to wait,
    where it is known."""

    code = ErrorCode.RATE_LIMITED

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BusyError(ClientError):
    """The room kept changing under the request; trying again is safe."""

    code = ErrorCode.BUSY


class UnavailableError(ClientError):
    """Storage did not answer; the request may be resent with the same id."""

    code = ErrorCode.UNAVAILABLE


# rooms and games


class UnknownRoomError(ClientError):
    """No live or finished game has this room id."""

    code = ErrorCode.UNKNOWN_ROOM


class UnknownGameError(ClientError):
    """The game is not one the rules know."""

    code = ErrorCode.UNKNOWN_GAME


class BadOptionsError(ClientError):
    """Game options or a time control the rules refuse; the message names the flag."""

    code = ErrorCode.BAD_OPTIONS


class NotJoinedError(ClientError):
    """A request about a room the connection has not joined."""

    code = ErrorCode.NOT_JOINED


class NotAPlayerError(ClientError):
    """The action belongs to the players of a game, and this person is not one of them
    (spectators included)."""

    code = ErrorCode.NOT_A_PLAYER


class NotYourTurnError(ClientError):
    code = ErrorCode.NOT_YOUR_TURN


class GameOverError(ClientError):
    code = ErrorCode.GAME_OVER


class StaleVersionError(ClientError):
    """The position changed after the version the request was made from."""

    code = ErrorCode.STALE_VERSION


class CannotAbortError(ClientError):
    """Abort is for games where a player has not moved yet; later, resign."""

    code = ErrorCode.CANNOT_ABORT


class NoOfferError(ClientError):
    """A draw offer to answer that is not there (never made, lapsed, or one's own)."""

    code = ErrorCode.NO_OFFER


class GameNotOverError(ClientError):
    """A rematch of a game that is still being played."""

    code = ErrorCode.GAME_NOT_OVER


class CannotTakeBackError(ClientError):
    """A takeback in a rated game, or asked by a player who has made no move."""

    code = ErrorCode.CANNOT_TAKE_BACK


class CannotClaimError(ClientError):
    """A claim of the win while the opponent is here, not yet away long enough, or in a
    correspondence game (where the clock settles absence)."""

    code = ErrorCode.CANNOT_CLAIM


class ChatClosedError(ClientError):
    """A chat the sender may not read or write (the spectators' chat, for a player while the
    game is on)."""

    code = ErrorCode.CHAT_CLOSED


class UnknownLineError(ClientError):
    """A chat line to report that the server does not keep (never said, or long gone)."""

    code = ErrorCode.UNKNOWN_LINE


class BadRecordError(ClientError):
    """A game record that does not replay: the message names the move and the reason."""

    code = ErrorCode.BAD_RECORD


# the lobby: challenges, pools, accounts


class UnknownPlayerError(ClientError):
    """The named player has no account and is not online."""

    code = ErrorCode.UNKNOWN_PLAYER


class UnknownChallengeError(ClientError):
    """No challenge has this id (never made, or closed long ago)."""

    code = ErrorCode.UNKNOWN_CHALLENGE


class OwnChallengeError(ClientError):
    """A player tried to accept (or direct a challenge to) themselves."""

    code = ErrorCode.OWN_CHALLENGE


class NotTargetError(ClientError):
    """Only the player a direct challenge names may accept or decline it."""

    code = ErrorCode.NOT_TARGET


class NotChallengerError(ClientError):
    """Only the player who made a challenge may cancel it."""

    code = ErrorCode.NOT_CHALLENGER


class AlreadyAcceptedError(ClientError):
    """The challenge was accepted already (perhaps by someone else a moment earlier)."""

    code = ErrorCode.ALREADY_ACCEPTED


class ChallengeClosedError(ClientError):
    """The challenge was declined or cancelled."""

    code = ErrorCode.CHALLENGE_CLOSED


class ChallengeExpiredError(ClientError):
    """The challenge's time ran out before it was accepted."""

    code = ErrorCode.CHALLENGE_EXPIRED


class GuestRatedError(ClientError):
    """Guests play casual games only."""

    code = ErrorCode.GUEST_RATED


class LimitReachedError(ClientError):
    """A per-account limit (open challenges, say) is reached."""

    code = ErrorCode.LIMIT_REACHED


class BadCredentialsError(ClientError):
    """Wrong username or password (the message never says which)."""

    code = ErrorCode.BAD_CREDENTIALS


class NameTakenError(ClientError):
    """Another account has this username (names are unique whatever their case)."""

    code = ErrorCode.NAME_TAKEN


class BadNameError(ClientError):
    """A username that breaks the naming rule or is reserved for the system."""

    code = ErrorCode.BAD_NAME


class WeakPasswordError(ClientError):
    """A password too short (or too long) to accept."""

    code = ErrorCode.WEAK_PASSWORD


class CannotBeBotError(ClientError):
    """Only an account that has finished no game may become a bot account (a guest may not):
    a person's games and rating never pass to a program."""

    code = ErrorCode.CANNOT_BE_BOT


# tournaments


class TournamentError(ClientError):
    """A refused tournament request; its ``code`` (one of the tournament codes) says why."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- from exceptions to the wire ------------------------------------------------------------

RECOVERABLE: tuple[type[BaseException], ...] = (
    ClientError,
    InvalidMoveError,
    IllegalMoveError,
    OptionsError,
)
"""Exceptions answered with an error frame; anything else closes the socket with 1011."""

_RULES_CODES: dict[type[BaseException], ErrorCode] = {
    InvalidMoveError: ErrorCode.INVALID_MOVE,
    IllegalMoveError: ErrorCode.ILLEGAL_MOVE,
    OptionsError: ErrorCode.BAD_OPTIONS,
}

HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.BAD_CREDENTIALS: 401,
    ErrorCode.GUEST_CREATOR: 401,
    ErrorCode.UNKNOWN_ROOM: 404,
    ErrorCode.UNKNOWN_GAME: 404,
    ErrorCode.UNKNOWN_PLAYER: 404,
    ErrorCode.UNKNOWN_TOURNAMENT: 404,
    ErrorCode.NAME_TAKEN: 409,
    ErrorCode.CANNOT_BE_BOT: 409,
    ErrorCode.GAME_NOT_OVER: 409,
    ErrorCode.FULL: 409,
    ErrorCode.STARTED: 409,
    ErrorCode.FINISHED: 409,
    ErrorCode.ALREADY_JOINED: 409,
    ErrorCode.RATE_LIMITED: 429,
}
"""The HTTP status of a refusal by its code; every other code answers 400."""


def error_code(error: BaseException) -> ErrorCode:
    """The wire code of a recoverable error; raises KeyError for any other exception."""
    if isinstance(error, ClientError):
        return error.code
    for cls in type(error).__mro__:
        code = _RULES_CODES.get(cls)
        if code is not None:
            return code
    raise KeyError(f"no error code for {type(error).__name__}")


def http_status(error: BaseException) -> int:
    """The HTTP status that answers a recoverable error; raises KeyError for any other."""
    return HTTP_STATUS.get(error_code(error), 400)


def close_code(error: BaseException) -> CloseCode:
    """The close code of an error that ends a websocket: an unreadable frame, bad
    credentials at connect, or (anything else) an internal error."""
    if isinstance(error, FrameError):
        return error.close_code
    if isinstance(error, NotAuthenticatedError):
        return CloseCode.POLICY_VIOLATION
    return CloseCode.INTERNAL_ERROR
