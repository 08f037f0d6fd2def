"""Key names carried over from earlier releases, renamed once at start.

The lobby's keys were ``lobby:...`` and the analyses' ``analysis:...``; they are now
``{lobby}:...`` and ``{analysis}:...``, hash tags that keep each family on one slot of a
Redis Cluster, so the scripts and transactions that touch several of its keys stay valid
there (see deploy/README.md).  A single Redis written by an earlier release has its keys
renamed when a process starts; the rename is idempotent, and several processes starting at
once may each run it (a key another process renamed first is simply gone).  A cluster is
always a new deployment, so it has nothing to rename.  No decisions; the client is an
argument.  Imports redis only.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

RENAMED_PREFIXES = (("lobby:", "{lobby}:"), ("analysis:", "{analysis}:"))
"""(old prefix, new prefix) of every renamed key family."""
SCAN_BATCH = 1000


async def rename_old_keys(client: aioredis.Redis) -> int:
    """Rename every key under an old prefix to its new name, unless a key of that name
    exists already (then the old one is left for the operator); returns how many were
    renamed."""
    renamed = 0
    for old, new in RENAMED_PREFIXES:
        async for raw in client.scan_iter(match=f"{old}*", count=SCAN_BATCH):
            name = raw.decode() if isinstance(raw, bytes) else str(raw)
            try:
                renamed += int(await client.renamenx(name, new + name[len(old) :]))
            except ResponseError as error:  # renamed meanwhile by another process
                if "no such key" not in str(error).lower():
                    raise
    return renamed
