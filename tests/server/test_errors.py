"""Every refusal has one wire code; anything unmapped is not recoverable."""

from __future__ import annotations

import pytest

from lobby import errors as lobby_errors
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError
from server import errors
from server.protocol import ErrorCode, MessageError, UnknownTypeError


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
        errors.error_code(cls("x"))


def test_unexpected_exceptions_have_no_code() -> None:
    with pytest.raises(KeyError):
        errors.error_code(ZeroDivisionError())
    assert not isinstance(ZeroDivisionError(), errors.RECOVERABLE)


@pytest.mark.parametrize(
    "error, code",
    [
        (lobby_errors.AlreadyAcceptedError("x"), ErrorCode.ALREADY_ACCEPTED),
        (lobby_errors.OwnChallengeError("x"), ErrorCode.OWN_CHALLENGE),
        (lobby_errors.BadOptionsError("x"), ErrorCode.BAD_OPTIONS),
        (lobby_errors.RateLimitedError("x", 3.0), ErrorCode.RATE_LIMITED),
        (lobby_errors.NotAPlayerError("x"), ErrorCode.NOT_A_PLAYER),
    ],
)
def test_lobby_refusals_map_by_their_code(error: Exception, code: ErrorCode) -> None:
    assert errors.error_code(error) is code
    assert isinstance(error, errors.RECOVERABLE)


def test_every_lobby_refusal_has_its_own_wire_code() -> None:
    classes = lobby_errors.LobbyError.__subclasses__()
    made = [lobby_errors.RateLimitedError("x", 1.0)] + [
        cls("x") for cls in classes if cls is not lobby_errors.RateLimitedError
    ]
    codes = [errors.error_code(error) for error in made]
    assert ErrorCode.BAD_REQUEST not in codes and len(codes) == len(classes) > 10
