"""Live and finished games in Redis: the live lines, each player's games in progress and
history, the finished games with their records, and the archive searched by game, player and
time.

Keys:

=========================================  ======  ===============================================
``{lobby}:live:{room_id}``                 string  LiveGame JSON
``{lobby}:live-games``                     zset    room ids of live games, scored by start time
``{lobby}:playing:{player_id}``            set     room ids of a player's live games
``{lobby}:finished:{room_id}``             string  FinishedGame JSON (with the record)
``{lobby}:history:{player_id}``            list    a player's finished games' room ids, newest first
``{lobby}:archive``                        zset    every finished game's room id, by end time
``{lobby}:archive:game:{game}``            zset    the same, of one game
``{lobby}:archive:player:{player_id}``     zset    the same, of one player's games
``{lobby}:archive:game:{g}:player:{id}``   zset    the same, of one player's games of one game
``{lobby}:archive:indexed``                string  set once the archive holds every finished game
=========================================  ======  ===============================================

Live lines are announced as ``live`` events, finished games as ``finished`` ones (see
:mod:`lobby.store.common`); the values are :mod:`lobby.games`', the search's query and cursor
:mod:`lobby.archive`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

from lobby.archive import Cursor, Query
from lobby.games import FinishedGame, LiveGame, LiveLine
from lobby.identity import Player, PlayerId
from lobby.store.accounts import find_player
from lobby.store.common import (
    LOBBY_TAG,
    Redis,
    dump,
    finished_key,
    history_key,
    load,
    lua,
    optimistic,
    playing_key,
    publish,
    publish_dumped,
    text,
    texts,
    transaction_client,
)
from protocol.errors import UnknownRoomError

_LIVE_GAMES_KEY = "{lobby}:live-games"
_ARCHIVE_INDEXED_KEY = "{lobby}:archive:indexed"
_STORE_LIVE = lua("store_live")


STORE_LIVE_CHUNK = 200
"""Live lines one script writes at most: a drain of a thousand rooms holds Redis for five
short scripts, not one long one."""


async def store_live_games(redis: Redis, games: Sequence[LiveGame]) -> list[LiveGame]:
    """:func:`store_live_lines` for lines given as :class:`LiveGame` values."""
    lines = [LiveLine.of(live) for live in games]
    kept = set(map(id, await store_live_lines(redis, lines)))
    return [live for live, line in zip(games, lines, strict=True) if id(line) in kept]


async def store_live_lines(redis: Redis, lines: Sequence[LiveLine]) -> list[LiveLine]:
    """Write live lines (new or changed games), a script per :data:`STORE_LIVE_CHUNK` lines,
    and announce those written in one publication; returns them.  A line is not written over
    a newer one of its room, nor once its game is finished, so writing the same line twice,
    or an old one late, is safe.  Each line is made JSON once, for both."""
    if not lines:
        return []
    encoded = [dump(line.data) for line in lines]
    written: list[int] = []
    # On a cluster, on the {lobby} master itself: a cluster pipeline runs no scripts.
    async with transaction_client(redis, LOBBY_TAG) as client:
        script = client.register_script(_STORE_LIVE)
        for start in range(0, len(lines), STORE_LIVE_CHUNK):
            keys: list[str] = [_LIVE_GAMES_KEY]
            args: list[str | int] = []
            for line, text in zip(
                lines[start : start + STORE_LIVE_CHUNK],
                encoded[start : start + STORE_LIVE_CHUNK],
                strict=True,
            ):
                first, second = line.player_ids
                keys += [
                    _live_key(line.room_id),
                    finished_key(line.room_id),
                    playing_key(first),
                    playing_key(second),
                ]
                args += [text, line.version, line.room_id, repr(line.started)]
            written += [int(done) for done in await script(keys=keys, args=args)]
    stored = [i for i, done in enumerate(written) if done]
    if stored:
        await publish_dumped(redis, [live_event_text(encoded[i]) for i in stored])
    return [lines[i] for i in stored]


def live_event_text(line_text: str) -> str:
    """The ``live`` event of a line already made JSON: what :func:`dump` makes of
    ``{"t": "live", "game": data}`` (sorted keys, "game" first), without encoding it again."""
    return f'{{"game":{line_text},"t":"live"}}'


async def live_games(redis: Redis, limit: int) -> list[LiveGame]:
    """The ``limit`` games in progress that started last, oldest first."""
    rooms = texts(await redis.zrange(_LIVE_GAMES_KEY, 0, limit - 1, desc=True))
    return await _live_games(redis, rooms)


async def live_count(redis: Redis) -> int:
    """How many games are in progress."""
    return int(await redis.zcard(_LIVE_GAMES_KEY))


async def current_games(redis: Redis, player_id: PlayerId) -> list[LiveGame]:
    """A player's games in progress, oldest first."""
    rooms = texts(await redis.smembers(playing_key(player_id)))
    return await _live_games(redis, rooms)


async def finish_game(redis: Redis, finished: FinishedGame) -> bool:
    """Move a game from the live list to both players' histories, once (False if it was
    finished already)."""
    room_id = finished.room_id
    live_key, done_key = _live_key(room_id), finished_key(room_id)

    async def attempt(pipe: Any) -> bool:
        await pipe.watch(done_key)
        if await pipe.exists(done_key):
            await pipe.unwatch()
            return False
        pipe.multi()
        pipe.set(done_key, dump(finished.to_data()))
        pipe.delete(live_key)
        pipe.zrem(_LIVE_GAMES_KEY, room_id)
        for player in finished.players:
            pipe.srem(playing_key(player.id), room_id)
            pipe.lpush(history_key(player.id), room_id)
        _index_finished(pipe, finished)
        await pipe.execute()
        return True

    done = await optimistic(redis, attempt)
    if done:
        summary = finished.to_data()
        del summary["record"]
        await publish(redis, {"t": "finished", "game": summary})
    return done


async def finished_game(redis: Redis, room_id: str) -> FinishedGame:
    """A finished game with its record; raises UnknownRoomError."""
    raw = await redis.get(finished_key(room_id))
    if raw is None:
        raise UnknownRoomError(f"no finished game in room {room_id!r}")
    return FinishedGame.from_data(load(raw))


async def finished_games(
    redis: Redis, player_id: PlayerId, start: int = 0, count: int = 20
) -> list[FinishedGame]:
    """A player's finished games, newest first, ``count`` of them from ``start``."""
    rooms = await redis.lrange(history_key(player_id), start, start + count - 1)
    if not rooms:
        return []
    raws = await redis.mget([finished_key(room) for room in texts(rooms)])
    return [FinishedGame.from_data(load(raw)) for raw in raws if raw is not None]


async def adopt_finished_games(redis: Redis, guest: Player, account: Player) -> int:
    """Hand a guest's finished games to the account they have just made: the account's
    history and archive entries are the guest's, and each game names the account where it
    named the guest.  Returns how many games moved.  (Guests have no ratings to move; their
    games in progress stay theirs.)"""
    rooms = texts(await redis.lrange(history_key(guest.id), 0, -1))
    if not rooms:
        return 0
    raws = await redis.mget([finished_key(room) for room in rooms])
    games = [FinishedGame.from_data(load(raw)) for raw in raws if raw is not None]
    async with redis.pipeline(transaction=True) as pipe:
        for game in games:
            players = (
                account if game.players[0].id == guest.id else game.players[0],
                account if game.players[1].id == guest.id else game.players[1],
            )
            moved = dataclasses.replace(game, players=players)
            pipe.set(finished_key(game.room_id), dump(moved.to_data()))
            pipe.zrem(_archive_key(None, guest.id), game.room_id)
            pipe.zrem(_archive_key(game.game, guest.id), game.room_id)
            _index_finished(pipe, moved)
        pipe.rpush(history_key(account.id), *rooms)  # newest first, as the guest's
        pipe.delete(history_key(guest.id))
        await pipe.execute()
    return len(games)


async def search_finished(
    redis: Redis, query: Query, now: float
) -> tuple[list[FinishedGame], Cursor | None]:
    """A page of finished games matching ``query``, newest first, and the cursor of the next
    page (None on the last).  A player named rather than given by id must be registered or
    online: raises UnknownPlayerError otherwise."""
    await index_finished_games(redis)
    player_id = None
    if query.player is not None:
        player_id = query.player
        if not player_id.startswith(("u:", "g:")):
            player_id = (await find_player(redis, query.player, now)).id
    key = _archive_key(query.game, player_id)
    before, until = query.before, query.until
    high: float | str = "+inf" if until is None else f"({until!r}"
    skip = 0
    if before is not None and (until is None or before.finished < until):
        high = before.finished
        skip = int(await redis.zcount(key, before.finished, before.finished))
    low: float | str = "-inf" if query.since is None else query.since
    scored = await redis.zrevrangebyscore(
        key, high, low, start=0, num=query.limit + 1 + skip, withscores=True
    )
    found = [(text(room), float(when)) for room, when in cast(list[tuple[bytes, float]], scored)]
    if before is not None:
        found = [(room, when) for room, when in found if before.comes_after(when, room)]
    page = found[: query.limit]
    if not page:
        return [], None
    raws = await redis.mget([finished_key(room) for room, _ in page])
    games = [FinishedGame.from_data(load(r)) for r in raws if r is not None]
    last_room, last_when = page[-1]
    more = len(found) > query.limit
    return games, Cursor(last_when, last_room) if more else None


async def index_finished_games(redis: Redis, batch: int = 200) -> int:
    """Bring every finished game kept before the archive existed into it, once (a mark says
    it is done; running it again, or in two processes at once, adds nothing twice).  Returns
    how many games it indexed."""
    if await redis.exists(_ARCHIVE_INDEXED_KEY):
        return 0
    count = 0
    async for keys in _scan_batches(redis, finished_key("*"), batch):
        raws = await redis.mget(keys)
        async with redis.pipeline(transaction=True) as pipe:
            for raw in raws:
                if raw is not None:
                    _index_finished(pipe, FinishedGame.from_data(load(raw)))
                    count += 1
            await pipe.execute()
    await redis.set(_ARCHIVE_INDEXED_KEY, "1")
    return count


async def _live_games(redis: Redis, rooms: list[str]) -> list[LiveGame]:
    if not rooms:
        return []
    raws = await redis.mget([_live_key(room) for room in rooms])
    found = [LiveGame.from_data(load(raw)) for raw in raws if raw is not None]
    return sorted(found, key=lambda g: (g.started, g.room_id))


def _index_finished(pipe: Any, finished: FinishedGame) -> None:
    """Queue the archive entries of a finished game on a pipeline (the same end time as its
    score in every index, so writing them again changes nothing)."""
    entry = {finished.room_id: finished.finished}
    pipe.zadd(_archive_key(None, None), entry)
    pipe.zadd(_archive_key(finished.game, None), entry)
    for player in {p.id for p in finished.players}:
        pipe.zadd(_archive_key(None, player), entry)
        pipe.zadd(_archive_key(finished.game, player), entry)


async def _scan_batches(redis: Redis, pattern: str, batch: int) -> AsyncIterator[list[str]]:
    """The keys matching ``pattern``, in batches of about ``batch``."""
    cursor: int = 0
    while True:
        cursor, keys = await redis.scan(cursor, match=pattern, count=batch)
        if keys:
            yield texts(keys)
        if cursor == 0:
            return


def _archive_key(game: str | None, player_id: PlayerId | None) -> str:
    key = "{lobby}:archive"
    if game is not None:
        key += f":game:{game}"
    if player_id is not None:
        key += f":player:{player_id}"
    return key


def _live_key(room_id: str) -> str:
    return f"{{lobby}}:live:{room_id}"
