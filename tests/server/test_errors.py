"""Every refusal has one wire code; anything unmapped is not recoverable."""

from __future__ import annotations

import pytest

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
