"""The session secret in Redis: one for every server process and bot worker on that Redis,
so a token one of them signs (:mod:`lobby.identity`) the others accept.

Used when no ``SESSION_SECRET`` is configured.  The key keeps the name it was first stored
under, ``server:session_secret``, so a running deployment keeps its sessions.  Imports redis
only.
"""

from __future__ import annotations

import redis.asyncio as aioredis

SECRET_KEY = "server:session_secret"


async def session_secret(client: aioredis.Redis, fresh: bytes) -> bytes:
    """The secret shared by every process on this Redis (``fresh`` if none was set)."""
    await client.set(SECRET_KEY, fresh, nx=True)
    stored = await client.get(SECRET_KEY)
    assert stored is not None
    return stored if isinstance(stored, bytes) else str(stored).encode()
