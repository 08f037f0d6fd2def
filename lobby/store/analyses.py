"""The queue of game analyses in Redis, and the analysis kept for each room.

Keys:

=========================  ======  ==========================================================
``{analysis}:queue``       list    jobs (JSON: room, game, options, moves), oldest at the right
``{analysis}:room:{room}`` string  JSON ``{"status": "queued"}``, then the analysis:
                                   ``{"status": "done", "plies": [...]}`` (or ``"failed"``
                                   with a message, for a record that does not replay)
=========================  ======  ==========================================================

A game is analysed once: a request for a room that has an entry gets that entry back and
queues nothing.  The queue holds at most :data:`MAX_QUEUED` jobs; beyond that a request is
refused until the analysts catch up.  A queued entry expires after :data:`QUEUED_TTL`, so a
job lost with an analyst that died can be asked for again; an analysis is kept for
:data:`DONE_TTL`.  The server asks and reads (asyncio); the analysts take and store
(blocking calls: an analyst does one thing at a time).  Imports redis and the store's
transaction helper.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis
import redis.asyncio as aioredis

from lobby.store.common import optimistic

QUEUE = "{analysis}:queue"
MAX_QUEUED = 32
"""Games waiting for an analyst at most (a game of a hundred moves takes an analyst about
a minute of one core at most)."""
QUEUED_TTL = 30 * 60
"""Seconds a request waits for its analysis before it may be made again."""
DONE_TTL = 30 * 24 * 3600
"""Seconds an analysis is kept (then a new request analyses the game again)."""


class QueueFullError(Exception):
    """:data:`MAX_QUEUED` games already wait for an analyst."""


@dataclass(frozen=True, slots=True)
class AnalysisJob:
    """One game to analyse: its room and what replays it."""

    room: str
    game: str
    options: str
    moves: tuple[str, ...]

    def to_json(self) -> str:
        data = {"room": self.room, "game": self.game, "options": self.options}
        return json.dumps({**data, "moves": list(self.moves)})

    @classmethod
    def from_json(cls, text: str | bytes) -> AnalysisJob:
        """Raises ValueError for anything :meth:`to_json` did not write."""
        try:
            data = json.loads(text)
            return cls(
                str(data["room"]),
                str(data["game"]),
                str(data["options"]),
                tuple(str(m) for m in data["moves"]),
            )
        except (KeyError, TypeError, json.JSONDecodeError) as error:
            raise ValueError(f"not an analysis job: {error}") from error


def result_key(room: str) -> str:
    return f"{{analysis}}:room:{room}"


async def status(client: aioredis.Redis, room: str) -> dict[str, Any]:
    """The room's analysis entry, or ``{"status": "none"}``."""
    raw = await client.get(result_key(room))
    return {"status": "none"} if raw is None else cast(dict[str, Any], json.loads(raw))


async def request(client: aioredis.Redis, job: AnalysisJob) -> dict[str, Any]:
    """Queue ``job`` unless its room has an entry; the room's entry after the request.

    Raises QueueFullError when :data:`MAX_QUEUED` jobs wait.
    """
    key = result_key(job.room)

    async def attempt(pipe: Any) -> dict[str, Any]:
        await pipe.watch(key, QUEUE)
        raw = await pipe.get(key)
        if raw is not None:
            return cast(dict[str, Any], json.loads(raw))
        if await pipe.llen(QUEUE) >= MAX_QUEUED:
            raise QueueFullError(f"{MAX_QUEUED} games already wait for analysis")
        pipe.multi()
        pipe.set(key, json.dumps({"status": "queued"}), ex=QUEUED_TTL)
        pipe.lpush(QUEUE, job.to_json())
        await pipe.execute()
        return {"status": "queued"}

    return await optimistic(client, attempt, QUEUE)


def take(client: redis.Redis, timeout: float) -> str | bytes | None:
    """The oldest job's JSON, waiting up to ``timeout`` seconds for one (None if none)."""
    reply = cast(tuple[bytes, bytes] | None, client.brpop([QUEUE], timeout=timeout))
    return None if reply is None else reply[1]


def store(client: redis.Redis, room: str, entry: dict[str, Any]) -> None:
    """Keep a room's finished analysis (or its failure) for :data:`DONE_TTL`."""
    client.set(result_key(room), json.dumps(entry), ex=DONE_TTL)
