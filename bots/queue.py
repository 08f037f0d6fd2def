"""The queue of bot games in Redis: a stream read by a consumer group of workers.

``bots:games`` holds one entry per game a bot must play (``room``, ``bot``: the bot's player
id).  Workers read it through the group ``workers``; an entry stays pending until its game is
over.  A worker touches its pending entries every few seconds (``XCLAIM`` to itself resets
their idle time), so an entry idle for longer than the claim delay belongs to a worker that
died, and any worker takes it over (``XAUTOCLAIM``) and resumes the game from the room's
state.  Imports redis only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

STREAM = "bots:games"
GROUP = "workers"


@dataclass(frozen=True, slots=True)
class Job:
    """One game for one bot: the stream entry, the room, and the bot's player id."""

    entry: str
    room: str
    bot: str


async def ensure_group(redis: aioredis.Redis) -> None:
    """Create the stream and its group if missing (every worker and the acceptor call it)."""
    try:
        await redis.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise


async def enqueue(redis: aioredis.Redis, room: str, bot: str) -> str:
    """Add a game for ``bot`` in ``room``; returns the entry id."""
    entry = await redis.xadd(STREAM, {"room": room, "bot": bot})
    return _text(entry)


async def take(redis: aioredis.Redis, worker: str, count: int, block_ms: int) -> list[Job]:
    """Up to ``count`` new games for ``worker``, waiting up to ``block_ms`` for one."""
    replies = cast(
        list[tuple[bytes, list[tuple[bytes, dict[bytes | str, bytes | str]]]]] | None,
        await redis.xreadgroup(GROUP, worker, {STREAM: ">"}, count=count, block=block_ms),
    )
    jobs: list[Job] = []
    for _stream, entries in replies or []:
        jobs.extend(_job(entry, fields) for entry, fields in entries if fields)
    return jobs


async def reclaim(redis: aioredis.Redis, worker: str, idle_ms: int, count: int) -> list[Job]:
    """Games of workers silent for ``idle_ms``, now ``worker``'s (at most ``count``)."""
    reply = await redis.xautoclaim(STREAM, GROUP, worker, idle_ms, "0-0", count=count)
    entries = reply[1] if len(reply) > 1 else []
    jobs = []
    for entry, fields in entries:
        if fields:
            jobs.append(_job(entry, fields))
        else:  # deleted meanwhile
            await redis.xack(STREAM, GROUP, entry)
    return jobs


async def keep(redis: aioredis.Redis, worker: str, entries: list[str]) -> None:
    """Tell the others ``worker`` is alive and still playing ``entries``."""
    if entries:
        ids: list[int | bytes | str | memoryview[int]] = list(entries)
        await redis.xclaim(STREAM, GROUP, worker, 0, ids, justid=True)


async def done(redis: aioredis.Redis, entry: str) -> None:
    """The game is over for the bot: drop its entry."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.xack(STREAM, GROUP, entry)
        pipe.xdel(STREAM, entry)
        await pipe.execute()


def _job(entry: bytes | str, fields: dict[bytes | str, bytes | str]) -> Job:
    data = {_text(k): _text(v) for k, v in fields.items()}
    return Job(_text(entry), data.get("room", ""), data.get("bot", ""))


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
