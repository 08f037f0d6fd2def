"""Room chat requests: say a line, read a chat's kept lines, report a line.

The shell around :mod:`server.chat`: it reads whether the room's game is over (from the room
service), checks the sender's access and rate, and keeps, publishes and reports through
:mod:`server.redis.chat_store`.  The socket's role in the room (player or spectator) is the one it
joined as.  Imports chat, chat_store, protocol, errors and the room service.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import redis.asyncio as aioredis

from protocol.errors import RateLimitedError, UnknownLineError
from protocol.messages import ChatChannel, Role, ServerChat, encode
from server.chat import ChatLimits, ChatLine, check_access, clean_text, readers
from server.redis import chat_store
from server.service import RoomService, _storage


class ChatService:
    """The chats of every room, for the sockets of one process."""

    def __init__(self, client: aioredis.Redis, rooms: RoomService, limits: ChatLimits) -> None:
        self.client = client
        self.rooms = rooms
        self.limits = limits

    async def say(
        self, room_id: str, role: Role, player_id: str, name: str, chat: ChatChannel, text: str
    ) -> ChatLine:
        """Keep and send a line; raises BadRequestError, NotAPlayerError, ChatClosedError,
        RateLimitedError or UnavailableError, and then nothing was said."""
        over = await self._over(room_id)
        check_access(role, over, chat)
        kept = clean_text(text)
        await self._take_turn(player_id)
        line = ChatLine(secrets.token_hex(6), player_id, name, kept, time.time())
        frame = encode(ServerChat(None, room_id, chat.value, [line.to_data()]))
        await _storage(
            chat_store.keep_and_publish(
                self.client, room_id, chat, line, self.limits.kept, frame, readers(chat, over)
            )
        )
        return line

    async def history(self, room_id: str, role: Role, chat: ChatChannel) -> list[ChatLine]:
        """The kept lines of a chat the socket may read; raises as :meth:`say` does."""
        check_access(role, await self._over(room_id), chat)
        return await _storage(chat_store.lines(self.client, room_id, chat))

    async def report(
        self, room_id: str, role: Role, player_id: str, name: str, chat: ChatChannel, line_id: str
    ) -> None:
        """Keep a report of a line of a chat the reporter reads; raises UnknownLineError or
        RateLimitedError (a report counts as a line said, so reports cannot flood)."""
        check_access(role, await self._over(room_id), chat)
        await self._take_turn(player_id)
        kept = await _storage(chat_store.lines(self.client, room_id, chat))
        line = next((line for line in kept if line.id == line_id), None)
        if line is None:
            raise UnknownLineError(f"no line {line_id!r} in this chat")
        report: dict[str, Any] = {
            "at": time.time(),
            "room": room_id,
            "channel": chat.value,
            "line": line.to_data(),
            "reporter": {"id": player_id, "name": name},
        }
        await _storage(chat_store.keep_report(self.client, report, self.limits.reports_kept))

    async def _take_turn(self, player_id: str) -> None:
        if not await _storage(chat_store.take_turn(self.client, player_id, self.limits)):
            raise RateLimitedError(
                f"at most {self.limits.per_window} chat messages and reports in "
                f"{self.limits.window:g} s"
            )

    async def _over(self, room_id: str) -> bool:
        return (await self.rooms.room(room_id)).room.outcome is not None
