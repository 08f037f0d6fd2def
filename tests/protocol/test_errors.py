"""Every refusal has one wire code and one HTTP status; anything unmapped is not recoverable."""

from __future__ import annotations

import pytest

from protocol import errors
from protocol.errors import CloseCode, ErrorCode, MessageError, UnknownTypeError
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError


@pytest.mark.parametrize(
    "error, code",
    [
        (errors.NotYourTurnError("x"), ErrorCode.NOT_YOUR_TURN),
        (errors.NotAPlayerError("x"), ErrorCode.NOT_A_PLAYER),
        (errors.GameOverError("x"), ErrorCode.GAME_OVER),
        (errors.StaleVersionError("x"), ErrorCode.STALE_VERSION),
        (errors.UnknownGameError("x"), ErrorCode.UNKNOWN_GAME),
        (errors.UnknownRoomError("x"), ErrorCode.UNKNOWN_ROOM),
        (errors.RateLimitedError("x"), ErrorCode.RATE_LIMITED),
        (InvalidMoveError("x"), ErrorCode.INVALID_MOVE),
        (IllegalMoveError("x"), ErrorCode.ILLEGAL_MOVE),
        (OptionsError("x"), ErrorCode.BAD_OPTIONS),
        (UnknownTypeError("x", 1), ErrorCode.UNKNOWN_TYPE),
        (MessageError("x", 1), ErrorCode.BAD_REQUEST),
    ],
)
def test_error_code_maps_each_refusal(error: Exception, code: ErrorCode) -> None:
    assert errors.error_code(error) is code
    assert isinstance(error, errors.RECOVERABLE)


def test_every_client_error_class_has_a_code() -> None:
    for cls in errors.ClientError.__subclasses__():
        if cls is not errors.TournamentError:
            errors.error_code(cls("x"))


def test_unexpected_exceptions_have_no_code() -> None:
    with pytest.raises(KeyError):
        errors.error_code(ZeroDivisionError())
    assert not isinstance(ZeroDivisionError(), errors.RECOVERABLE)


@pytest.mark.parametrize(
    "error, code",
    [
        (errors.AlreadyAcceptedError("x"), ErrorCode.ALREADY_ACCEPTED),
        (errors.OwnChallengeError("x"), ErrorCode.OWN_CHALLENGE),
        (errors.BadOptionsError("x"), ErrorCode.BAD_OPTIONS),
        (errors.RateLimitedError("x", 3.0), ErrorCode.RATE_LIMITED),
        (errors.NotAPlayerError("x"), ErrorCode.NOT_A_PLAYER),
        (errors.TournamentError(ErrorCode.FULL, "x"), ErrorCode.FULL),
    ],
)
def test_lobby_refusals_map_by_their_code(error: Exception, code: ErrorCode) -> None:
    assert errors.error_code(error) is code
    assert isinstance(error, errors.RECOVERABLE)


def test_every_refusal_class_has_its_own_wire_code() -> None:
    """Two classes of one code would be one refusal under two names.  A malformed frame
    shares bad_request with a malformed body, and a bad session token bad_credentials with a
    wrong password."""
    shared = (errors.MessageError, errors.NotAuthenticatedError, errors.NoCredentialsError)
    classes = [
        cls
        for cls in _subclasses(errors.ClientError)
        if cls is not errors.TournamentError and cls not in shared
    ]
    made = [errors.RateLimitedError("x", 1.0)] + [
        cls("x") for cls in classes if cls is not errors.RateLimitedError
    ]
    codes = [errors.error_code(error) for error in made]
    assert len(set(codes)) == len(codes) == len(classes) > 10


@pytest.mark.parametrize(
    "error, status",
    [
        (errors.BadCredentialsError("x"), 401),
        (errors.NotAuthenticatedError("x"), 401),
        (errors.NoCredentialsError("x"), 401),
        (errors.TournamentError(ErrorCode.GUEST_CREATOR, "x"), 401),
        (errors.UnknownRoomError("x"), 404),
        (errors.UnknownPlayerError("x"), 404),
        (errors.TournamentError(ErrorCode.UNKNOWN_TOURNAMENT, "x"), 404),
        (errors.NameTakenError("x"), 409),
        (errors.TournamentError(ErrorCode.FULL, "x"), 409),
        (errors.RateLimitedError("x", 2.0), 429),
        (errors.BadOptionsError("x"), 400),
        (errors.UnknownGameError("x"), 404),
        (OptionsError("x"), 400),
    ],
)
def test_http_status_of_each_refusal(error: Exception, status: int) -> None:
    assert errors.http_status(error) == status


def test_close_codes_of_the_errors_that_end_a_socket() -> None:
    assert errors.close_code(errors.FrameError("x")) is CloseCode.UNSUPPORTED_DATA
    assert errors.close_code(errors.FrameTooLargeError("x")) is CloseCode.MESSAGE_TOO_BIG
    assert errors.close_code(errors.NoCredentialsError("x")) is CloseCode.POLICY_VIOLATION
    assert errors.close_code(ZeroDivisionError()) is CloseCode.INTERNAL_ERROR


def _subclasses(cls: type[errors.ClientError]) -> list[type[errors.ClientError]]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found
