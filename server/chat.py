"""Room chat as values: who may read and write each of a room's two chats, and the lines.

Lichess keeps a game's chats apart, and so do we: the two players talk in the ``players``
chat, which spectators never read or write; spectators talk in the ``spectators`` chat, which
the players join only once the game is over (so nobody can pass them advice meanwhile).  A
line is plain text of at most ``MAX_CHAT_LENGTH`` characters, control characters dropped.
Muting a user is a choice of each viewer and lives in the page.  Imports protocol.messages and
protocol.errors; no I/O.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from protocol.errors import BadRequestError, ChatClosedError, NotAPlayerError
from protocol.messages import MAX_CHAT_LENGTH, ChatChannel, Role


@dataclass(frozen=True, slots=True)
class ChatLimits:
    """How much anyone may say, and how much is kept (settings; README, "Limits")."""

    per_window: int = 5
    """Lines one player may say in ``window`` seconds, over every room."""
    window: float = 10.0
    kept: int = 100
    """Lines kept per chat of a room (the oldest go first)."""
    reports_kept: int = 10_000
    """Reports kept for the operators (the oldest go first)."""


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One thing said: ``id`` is unique in its chat, ``at`` seconds since the epoch."""

    id: str
    player: str
    name: str
    text: str
    at: float

    def to_data(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "player": self.player,
            "name": self.name,
            "text": self.text,
            "at": self.at,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ChatLine:
        return cls(
            str(data["id"]),
            str(data["player"]),
            str(data["name"]),
            str(data["text"]),
            float(data["at"]),
        )


def check_access(role: Role, over: bool, channel: ChatChannel) -> None:
    """Whether a socket taking part as ``role`` may read and write ``channel`` of a room
    whose game is ``over`` or not; raises NotAPlayerError or ChatClosedError."""
    if channel is ChatChannel.PLAYERS and role is not Role.PLAYER:
        raise NotAPlayerError("the players' chat is for the two players only")
    if channel is ChatChannel.SPECTATORS and role is Role.PLAYER and not over:
        raise ChatClosedError("the spectators' chat opens to the players when the game is over")


def readers(channel: ChatChannel, over: bool) -> tuple[bool, bool]:
    """Who reads a line said now in ``channel``: (the players, the spectators)."""
    if channel is ChatChannel.PLAYERS:
        return (True, False)
    return (over, True)


def clean_text(text: str) -> str:
    """The text as it is kept: control characters dropped, spaces around it too; raises
    BadRequestError when nothing is left or it is too long."""
    kept = "".join(c for c in text if unicodedata.category(c)[0] != "C" or c == " ").strip()
    if not kept:
        raise BadRequestError("a chat message needs some text")
    if len(kept) > MAX_CHAT_LENGTH:
        raise BadRequestError(
            f"a chat message is at most {MAX_CHAT_LENGTH} characters (this one has {len(kept)})"
        )
    return kept
