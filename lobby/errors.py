"""The lobby's refusals: one exception class per reason, each with a stable ``code``.

A refusal means nothing changed.  The server maps ``code`` to its wire error code without
naming every class (``LobbyError.code`` is the one attribute it reads); the message is for a
person to read.  Standard library only.
"""

from __future__ import annotations

from typing import ClassVar


class LobbyError(ValueError):
    """Base of every lobby refusal; ``code`` is stable and machine-readable."""

    code: ClassVar[str] = "lobby-error"


class UnknownPlayerError(LobbyError):
    """The named player has no account and is not online."""

    code = "unknown-player"


class UnknownChallengeError(LobbyError):
    """No challenge has this id (never made, or closed long ago)."""

    code = "unknown-challenge"


class UnknownGameError(LobbyError):
    """The game is not one the rules know."""

    code = "unknown-game"


class UnknownRoomError(LobbyError):
    """No live or finished game has this room id."""

    code = "unknown-room"


class OwnChallengeError(LobbyError):
    """A player tried to accept (or direct a challenge to) themselves."""

    code = "own-challenge"


class NotTargetError(LobbyError):
    """Only the player a direct challenge names may accept or decline it."""

    code = "not-target"


class NotChallengerError(LobbyError):
    """Only the player who made a challenge may cancel it."""

    code = "not-challenger"


class NotAPlayerError(LobbyError):
    """The action belongs to the players of a game, and this person is not one of them."""

    code = "not-a-player"


class AlreadyAcceptedError(LobbyError):
    """The challenge was accepted already (perhaps by someone else a moment earlier)."""

    code = "already-accepted"


class ChallengeClosedError(LobbyError):
    """The challenge was declined or cancelled."""

    code = "challenge-closed"


class ChallengeExpiredError(LobbyError):
    """The challenge's time ran out before it was accepted."""

    code = "challenge-expired"


class BadOptionsError(LobbyError):
    """Game options the rules refuse; the message is the rules' reason, naming the flag."""

    code = "bad-options"


class GuestRatedError(LobbyError):
    """Guests play casual games only."""

    code = "guest-rated"


class LimitReachedError(LobbyError):
    """A per-account limit (open challenges, say) is reached."""

    code = "limit-reached"


class RateLimitedError(LobbyError):
    """Too many attempts in a short time; ``retry_after`` says how many seconds to wait."""

    code = "rate-limited"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BadCredentialsError(LobbyError):
    """Wrong username or password (the message never says which)."""

    code = "bad-credentials"


class NameTakenError(LobbyError):
    """Another account has this username (names are unique whatever their case)."""

    code = "name-taken"


class BadNameError(LobbyError):
    """A username that breaks the naming rule or is reserved for the system."""

    code = "bad-name"


class WeakPasswordError(LobbyError):
    """A password too short (or too long) to accept."""

    code = "weak-password"


class BadRecordError(LobbyError):
    """A game record that does not replay: the message names the move and the reason."""

    code = "bad-record"
