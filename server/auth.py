"""Who is on the other end of a request: session tokens to players, and one-click guests.

A thin layer over :mod:`lobby.identity`, which signs and checks the tokens; the secret and
the clock are arguments.  Imports lobby.identity and protocol.errors (its refusals).
"""

from __future__ import annotations

from lobby.identity import BadTokenError, Player, issue_token, new_guest, verify_token
from protocol.errors import NoCredentialsError, NotAuthenticatedError


def authenticate(secret: bytes, token: str | None, now: float) -> Player:
    """The player a session token names; raises NotAuthenticatedError (NoCredentialsError
    without a token)."""
    if not token:
        raise NoCredentialsError("a session token is required: ?token=...")
    try:
        return verify_token(secret, token, now)
    except BadTokenError as error:
        raise NotAuthenticatedError(str(error)) from error


def guest_session(secret: bytes, now: float) -> tuple[Player, str]:
    """A new guest and their session token."""
    player = new_guest()
    return player, issue_token(secret, player, now)
