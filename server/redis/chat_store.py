"""Room chats and chat reports in Redis.

* ``room:{id}:chat:players``, ``room:{id}:chat:spectators``  lists of msgpack lines, the
  newest at the end, trimmed to the last ``ChatLimits.kept`` (the room's hash tag, so they
  sit with the room on Redis Cluster)
* ``chat:rate:{player}``  lines said in the current window (expires with it)
* ``chat:reports``  list of JSON reports, the newest first, trimmed to ``reports_kept``:
  ``{"at", "room", "channel", "line": {"id", "player", "name", "text", "at"},
  "reporter": {"id", "name"}}``; an operator reads them with ``LRANGE chat:reports 0 -1``

A line is kept and published on the room's channel in one transaction, so what a reload reads
is what the sockets were sent.  No decisions here; the Redis client is an argument.  Imports
redis, msgpack, chat, fanout and store.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
import redis.asyncio as aioredis

from protocol.messages import ChatChannel
from server.chat import ChatLimits, ChatLine
from server.fanout import chat_publication
from server.redis.cluster import is_cluster
from server.redis.store import channel

REPORTS_KEY = "chat:reports"


def chat_key(room_id: str, chat: ChatChannel) -> str:
    return f"room:{{{room_id}}}:chat:{chat.value}"


async def keep_and_publish(
    client: aioredis.Redis,
    room_id: str,
    chat: ChatChannel,
    line: ChatLine,
    kept: int,
    frame: bytes,
    readers: tuple[bool, bool],
) -> None:
    """Append ``line`` to the room's chat (keeping the last ``kept``) and publish ``frame``
    to the sockets of ``readers`` (players, spectators) on every process."""
    key = chat_key(room_id, chat)
    async with client.pipeline(transaction=True) as pipe:
        pipe.rpush(key, msgpack.packb(line.to_data(), use_bin_type=True))
        pipe.ltrim(key, -kept, -1)
        publication = chat_publication(frame, *readers)
        if is_cluster(client):  # the room's shard only, as its diffs
            pipe.spublish(channel(room_id), publication)
        else:
            pipe.publish(channel(room_id), publication)
        await pipe.execute()


async def lines(client: aioredis.Redis, room_id: str, chat: ChatChannel) -> list[ChatLine]:
    """The lines kept of the room's chat, oldest first."""
    stored = await client.lrange(chat_key(room_id, chat), 0, -1)
    return [ChatLine.from_data(msgpack.unpackb(data, raw=False)) for data in stored]


async def take_turn(client: aioredis.Redis, player: str, limits: ChatLimits) -> bool:
    """Count one line said by ``player``; False when that is past the limit of its window."""
    key = f"chat:rate:{player}"
    async with client.pipeline(transaction=True) as pipe:
        pipe.set(key, 0, ex=max(1, round(limits.window)), nx=True)
        pipe.incr(key)
        _, said = await pipe.execute()
    return int(said) <= limits.per_window


async def keep_report(client: aioredis.Redis, report: dict[str, Any], kept: int) -> None:
    """Keep ``report`` for the operators, newest first, at most ``kept`` of them."""
    async with client.pipeline(transaction=True) as pipe:
        pipe.lpush(REPORTS_KEY, json.dumps(report, ensure_ascii=False))
        pipe.ltrim(REPORTS_KEY, 0, kept - 1)
        await pipe.execute()


async def reports(client: aioredis.Redis, count: int = 100) -> list[dict[str, Any]]:
    """The newest ``count`` reports, newest first."""
    return [json.loads(data) for data in await client.lrange(REPORTS_KEY, 0, count - 1)]
