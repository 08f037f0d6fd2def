"""The limits on making challenges and games, counted in Redis: games in progress and games
started lately per player, and everything made lately from one address.

Keys:

=====================================  ======  ===============================================
``{lobby}:started:{player_id}``        zset    games a player started lately, scored by time
``{lobby}:made:address:{address}``     zset    challenges and games made from an address lately
``{lobby}:playing:{player_id}``        set     read here: a player's live games (written by
                                               :mod:`lobby.store.games`)
=====================================  ======  ===============================================

The limits and their refusals are :mod:`lobby.challenges`'.
"""

from __future__ import annotations

from collections.abc import Sequence

from lobby import challenges
from lobby.challenges import ChallengeLimits
from lobby.identity import Player, PlayerId
from lobby.store.common import Redis, lua, playing_key

_COUNT_CREATION = lua("count_creation")


async def count_creation(
    redis: Redis,
    what: str,
    now: float,
    limits: ChallengeLimits,
    starting: Sequence[Player] = (),
    address: str | None = None,
) -> None:
    """Count ``what`` (a challenge or a game's id) against the limits, atomically, or raise
    LimitReachedError and count nothing: a game ``starting`` for players (their games in
    progress and games started lately; bots are not held), and anything made from
    ``address`` (challenges and games made lately).  :func:`uncount_creation` takes it back
    when what was counted is not made after all."""
    limited = [player for player in starting if challenges.is_limited(player)]
    keys = [key for p in limited for key in (playing_key(p.id), _started_key(p.id))]
    if address is not None:
        keys.append(_made_key(address))
    if not keys:
        return
    kind, index = await redis.eval(
        _COUNT_CREATION,
        len(keys),
        *keys,
        repr(now),
        repr(now - limits.window),
        what,
        len(limited),
        limits.max_playing,
        limits.max_started,
        limits.max_per_address,
        max(1, int(limits.window)),
    )
    if kind:
        player = limited[int(index) - 1] if index else None
        kinds = {1: "playing", 2: "started", 3: "address"}
        raise challenges.limit_refusal(kinds[int(kind)], player, limits)


async def uncount_creation(
    redis: Redis, what: str, starting: Sequence[Player] = (), address: str | None = None
) -> None:
    """Take back what :func:`count_creation` counted for ``what``."""
    async with redis.pipeline(transaction=True) as pipe:
        for player in starting:
            pipe.zrem(_started_key(player.id), what)
        if address is not None:
            pipe.zrem(_made_key(address), what)
        await pipe.execute()


def _started_key(player_id: PlayerId) -> str:
    return f"{{lobby}}:started:{player_id}"


def _made_key(address: str) -> str:
    return f"{{lobby}}:made:address:{address}"
