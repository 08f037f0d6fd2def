"""A bot worker process: takes games from the queue in Redis and plays them over the websocket.

``python -m bots.worker --server http://HOST:PORT`` (``REDIS_URL`` names the Redis).  The
worker connects like a person, one socket per bot account it plays for, and every move goes
through the server's checks.  It plays several games at once (each an asyncio task that mostly
waits for the opponent); the searches run one at a time in a thread of their own, so the
sockets keep answering while the bot thinks.  A game is rebuilt from the room's record, so a
worker that takes over a dead worker's game resumes it where it stands.  Anything unexpected
in a game (a position the rules refuse, an error reply) is logged and the bot resigns that
game rather than hang.  After a game, the bot waits a while for a rematch offer and accepts it.
Imports bots, rules, lobby (through bots.accounts) and the server's client.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from pythonjsonlogger.json import JsonFormatter

from bots import queue
from bots.accounts import bot_token, level_of, shared_secret
from bots.levels import Level, find_level, time_budget
from bots.mcts import choose_move
from client import Client, RoomView, ServerReplyError
from lobby import clocks
from lobby.identity import Player
from lobby.store.common import connect
from rules import find_game
from rules.api import GameRules, Seat

log = logging.getLogger("bots.worker")

SLOTS = 32
"""Games one worker follows at once (they cost nothing while the opponent thinks)."""
CLAIM_IDLE = 10.0
"""Seconds a game's entry may go untouched before another worker takes it over."""
REMATCH_WAIT = 60.0
"""Seconds the bot stays in a finished room for a rematch offer."""
OPPONENT_WAIT = 3600.0
"""Seconds the bot waits for the opponent's move before it leaves the game to another worker
(the entry stays pending, so a worker takes it up again after the claim delay)."""
NICENESS = 10
"""A worker runs at a lower CPU priority than the server, so that on a shared machine the
bots' searches wait for people's moves, not the other way round."""
ROOMS_PER_SOCKET = 24
"""Games one socket follows; the server allows 32 rooms a socket (rematch waits included)."""
RETRYABLE = frozenset({"stale_version", "busy", "unavailable", "not_your_turn"})
"""Refusals that mean the room moved on or storage hiccuped: look again, do not resign."""


class BadPositionError(Exception):
    """The room's record does not replay through the rules."""


@dataclass
class Position:
    """The rules' state of one room, kept in step with its record (replays only what is new)."""

    game: GameRules
    options: Any
    state: Any
    plies: int = 0

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Position:
        """The position of a room state (``game``, ``options``, ``record``).

        Raises BadPositionError when the game is unknown or the record does not replay.
        """
        try:
            game = find_game(doc["game"])
            options = game.parse_options(doc["options"])
            position = cls(game, options, game.new_game(options))
        except (KeyError, ValueError) as error:
            raise BadPositionError(f"cannot set up the room's game: {error}") from error
        position.catch_up(doc)
        return position

    def catch_up(self, doc: dict[str, Any]) -> Any:
        """Play the moves of ``doc["record"]`` not yet played; the state after them."""
        record = doc["record"]
        if len(record) < self.plies:
            raise BadPositionError("the room's record got shorter")
        for index in range(self.plies, len(record)):
            try:
                self.state = self.game.play(
                    self.state, self.game.parse_move(self.state, record[index])
                )
            except ValueError as error:
                raise BadPositionError(f"move {index + 1} {record[index]!r}: {error}") from error
            self.plies = index + 1
        return self.state


def bot_seat(doc: dict[str, Any], bot_id: str) -> int | None:
    """The seat (0 or 1) the bot holds now (a swap exchanges seats), or None."""
    for seat, holder in enumerate(doc["seats"]):
        if holder["id"] == bot_id:
            return seat
    return None


def is_bot_turn(doc: dict[str, Any], bot_id: str) -> bool:
    to_move = doc.get("to_move")
    return doc.get("outcome") is None and to_move is not None and bot_seat(doc, bot_id) == to_move


def clock_seconds(doc: dict[str, Any], seat: int, now: float | None = None) -> float | None:
    """The share of the bot's live clock to spend on this move, or None without a clock.

    Reads the room's ``clock`` through :mod:`lobby.clocks`: the time left is the seat's at
    ``now`` (the running clock has been ticking since the server started it, whatever the
    bot's own delays), the increment is the control's per-move time.  A correspondence clock
    counts days: the level's own budget is far inside it, so it adds no limit.
    """
    data = doc.get("clock")
    if not isinstance(data, dict):
        return None
    try:
        clock = clocks.clock_from_data(data)
    except (KeyError, TypeError, ValueError):
        log.warning("room %s: unreadable clock %r", doc.get("room"), data)
        return None
    if clock.control.kind is not clocks.Kind.LIVE:
        return None
    left = clocks.remaining_at(clock, Seat(seat), time.time() if now is None else now)
    return time_budget(left, clock.control.per_move, len(doc.get("record", ())))


def think(
    game: GameRules, state: Any, level: Level, rng: random.Random, doc: dict[str, Any], seat: int
) -> Any:
    """The bot's move; the clock's share is taken when the search starts, so time spent
    waiting behind other games' searches is not spent twice."""
    return choose_move(game, state, level, rng, seconds=clock_seconds(doc, seat))


@dataclass
class Worker:
    """Plays the queued games of every bot account, for as long as it runs."""

    redis: aioredis.Redis
    ws_url: str
    secret: bytes
    name: str
    slots: int = SLOTS
    claim_idle: float = CLAIM_IDLE
    rematch_wait: float = REMATCH_WAIT
    rng: random.Random = field(default_factory=random.Random)
    clients: dict[str, list[Client]] = field(default_factory=dict)
    active: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    games_played: int = 0

    def __post_init__(self) -> None:
        self._search = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search")
        self._connecting: dict[str, asyncio.Lock] = {}
        self._waiting: set[asyncio.Task[None]] = set()

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Take and play games until ``stop`` is set (or forever)."""
        stop = stop or asyncio.Event()
        await queue.ensure_group(self.redis)
        idle_ms = int(self.claim_idle * 1000)
        kept = 0.0
        try:
            while not stop.is_set():
                free = self.slots - len(self.active)
                jobs: list[queue.Job] = []
                if free > 0:
                    jobs = await queue.reclaim(self.redis, self.name, idle_ms, free)
                    jobs = [job for job in jobs if job.entry not in self.active]
                    if len(jobs) < free:
                        jobs += await queue.take(self.redis, self.name, free - len(jobs), 200)
                else:
                    await asyncio.sleep(0.2)
                for job in jobs:
                    self.start(job)
                if time.monotonic() - kept > self.claim_idle / 3:
                    kept = time.monotonic()
                    await queue.keep(self.redis, self.name, list(self.active))
        finally:
            for task in (*self.active.values(), *self._waiting):
                task.cancel()
            await asyncio.gather(*self.active.values(), *self._waiting, return_exceptions=True)
            for sockets in self.clients.values():
                for client in sockets:
                    await client.close()
            self._search.shutdown(wait=False, cancel_futures=True)

    def start(self, job: queue.Job) -> None:
        task = asyncio.create_task(self._play_job(job), name=f"game-{job.room}")
        self.active[job.entry] = task

    async def _play_job(self, job: queue.Job) -> None:
        try:
            finished = await self.play(job.room, job.bot)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: unexpected error", job.room)
            await self._resign_unexpected(job)
            finished = True
        finally:
            self.active.pop(job.entry, None)
        if finished:
            await queue.done(self.redis, job.entry)
            self.games_played += 1

    async def play(self, room: str, bot_id: str) -> bool:
        """Play the bot's side of ``room`` to the end, then answer a rematch.

        Returns False when the game is left unfinished (the opponent went silent), so the
        entry stays for another worker.
        """
        level = find_level(level_of(bot_id))
        client = await self._client(bot_id, room)
        view = await client.join(room)
        if view.doc is None or bot_seat(view.doc, bot_id) is None:
            log.warning("room %s: %s holds no seat there", room, bot_id)
            await _leave(client, room)
            return True
        position: Position | None = None
        after = 0
        while True:
            try:

                def ready(v: RoomView, after: int = after) -> bool:
                    return v.version >= after and (
                        v.doc is not None
                        and (v.doc["outcome"] is not None or is_bot_turn(v.doc, bot_id))
                    )

                view = await client.wait_for(room, ready, timeout=OPPONENT_WAIT)
            except TimeoutError:
                await _leave(client, room)
                return False
            except ConnectionError:
                client = await self._client(bot_id, room)
                await client.join(room)
                continue
            doc = view.doc
            assert doc is not None
            if doc["outcome"] is not None:
                break
            version = view.version
            try:
                if position is None:
                    position = Position.of(doc)
                state = position.catch_up(doc)
                seat = bot_seat(doc, bot_id)
                assert seat is not None
                move = await asyncio.get_running_loop().run_in_executor(
                    self._search,
                    think,
                    position.game,
                    state,
                    level,
                    random.Random(self.rng.random()),
                    doc,
                    seat,
                )
                text = position.game.move_text(move)
                after = await client.move(room, text, version=version)
            except ServerReplyError as error:
                if error.code in RETRYABLE:
                    after = version + 1
                    continue
                if error.code == "game_over":
                    break
                await self._resign(client, room, f"the server refused the move: {error}")
                break
            except ConnectionError:
                client = await self._client(bot_id, room)
                await client.join(room)
                after = 0
            except BadPositionError as error:
                await self._resign(client, room, f"bad position: {error}")
                break
        # The rematch wait holds no slot and no queue entry: the game itself is over.
        task = asyncio.create_task(self._rematch(client, room, bot_id))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)
        return True

    async def _rematch(self, client: Client, room: str, bot_id: str) -> None:
        """Wait for the opponent's rematch offer; accept it and queue the new game."""

        def offered(view: RoomView) -> bool:
            assert view.doc is not None
            rematch = view.doc.get("rematch") or {}
            return any(p != bot_id for p in rematch.get("offers", ()))

        try:
            await client.wait_for(room, offered, timeout=self.rematch_wait)
            await client.rematch(room)
            view = await client.wait_for(
                room, lambda v: bool((v.doc or {}).get("rematch", {}).get("room")), timeout=10
            )
            assert view.doc is not None
            new_room = view.doc["rematch"]["room"]
            await queue.enqueue(self.redis, new_room, bot_id)
            log.info("room %s: rematch accepted in room %s", room, new_room)
        except (TimeoutError, ConnectionError, ServerReplyError):
            pass
        finally:
            await _leave(client, room)

    async def _resign_unexpected(self, job: queue.Job) -> None:
        """After an error the game loop did not expect: resign the game rather than leave it
        hanging (best effort, on a fresh look at the room)."""
        try:
            client = await self._client(job.bot, job.room)
            view = await client.join(job.room)
            if view.doc is not None and view.doc["outcome"] is None:
                await self._resign(client, job.room, "unexpected error")
            await _leave(client, job.room)
        except Exception:
            log.exception("room %s: could not resign", job.room)

    async def _resign(self, client: Client, room: str, why: str) -> None:
        log.error("room %s: resigning: %s", room, why)
        try:
            await client.resign(room)
        except (ServerReplyError, ConnectionError, TimeoutError) as error:
            log.error("room %s: the resignation failed too: %s", room, error)

    async def _client(self, bot_id: str, room: str) -> Client:
        """A socket of the bot with room for one more game (a new one when all are full or
        dropped: the server lets one socket watch a limited number of rooms)."""
        lock = self._connecting.setdefault(bot_id, asyncio.Lock())
        async with lock:
            sockets = self.clients.setdefault(bot_id, [])
            sockets[:] = [c for c in sockets if not c.closed]
            for client in sockets:
                if room in client.rooms or len(client.rooms) < ROOMS_PER_SOCKET:
                    client.rooms.setdefault(room, RoomView(room))  # reserved until joined
                    return client
            player = Player(bot_id, bot_id.removeprefix("u:"), guest=False)
            delay = 0.1
            while True:
                try:
                    client = await Client.connect(self.ws_url, bot_token(self.secret, player))
                    break
                except (OSError, ConnectionError, TimeoutError) as error:
                    log.warning("cannot connect as %s: %s", player.name, error)
                    await asyncio.sleep(delay)
                    delay = min(5.0, delay * 2)
            sockets.append(client)
            client.rooms.setdefault(room, RoomView(room))
            return client


async def _leave(client: Client, room: str) -> None:
    """Stop watching a room (the server limits the rooms one socket watches)."""
    if room in client.rooms and not client.closed:
        try:
            await client.leave(room)
        except (ServerReplyError, ConnectionError, TimeoutError) as error:
            log.warning("room %s: leaving failed: %s", room, error)


def ws_url(server: str) -> str:
    """``ws://HOST:PORT/ws`` for a server's ``http://HOST:PORT``."""
    base = server.rstrip("/")
    if base.startswith("http"):
        base = "ws" + base[len("http") :]
    return base if base.endswith("/ws") else base + "/ws"


async def watch_parent(parent: int | None, stop: asyncio.Event) -> None:
    """Set ``stop`` once the process that started this one is gone (no orphans)."""
    if parent is None:
        return
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
            return
        await asyncio.sleep(0.5)


async def amain(args: argparse.Namespace) -> None:
    if args.nice:
        os.nice(args.nice)  # people's games first: the server's processes get the CPU first
    client = await connect(args.redis)
    try:
        configured = os.environ.get("SESSION_SECRET")
        secret = await shared_secret(client, configured.encode() if configured else None)
        worker = Worker(
            client,
            ws_url(args.server),
            secret,
            args.name,
            slots=args.slots,
            claim_idle=args.claim_idle,
            rematch_wait=args.rematch_wait,
        )
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        watcher = asyncio.create_task(watch_parent(args.parent, stop))
        await worker.run(stop)
        watcher.cancel()
    finally:
        await client.aclose()


def add_shared_options(parser: argparse.ArgumentParser) -> None:
    """The options the pool and its workers share: where the server and Redis are, and how
    games are taken from the queue."""
    parser.add_argument("--server", default=os.environ.get("BOT_SERVER", "http://127.0.0.1:8000"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
    parser.add_argument("--slots", type=int, default=SLOTS)
    parser.add_argument("--claim-idle", type=float, default=CLAIM_IDLE)
    parser.add_argument("--rematch-wait", type=float, default=REMATCH_WAIT)
    parser.add_argument("--parent", type=int, default=None)


def run_command(
    amain: Callable[[argparse.Namespace], Coroutine[Any, Any, None]],
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
) -> int:
    """Parse ``argv`` and run ``amain`` until it ends or the user interrupts it; logs are lines
    of words, or one JSON object per line with ``LOG_FORMAT=json`` (as the server's)."""
    handler = logging.StreamHandler()
    if os.environ.get("LOG_FORMAT") == "json":
        fields = {"asctime": "time", "levelname": "level", "name": "logger"}
        formats = "%(asctime)s %(levelname)s %(name)s %(message)s"
        handler.setFormatter(JsonFormatter(formats, rename_fields=fields))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    args = parser.parse_args(argv)
    try:
        asyncio.run(amain(args))
    except KeyboardInterrupt:
        pass
    return 0


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bots.worker", description=__doc__)
    add_shared_options(parser)
    parser.add_argument("--name", default=f"worker-{os.getpid()}")
    parser.add_argument("--nice", type=int, default=NICENESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(amain, parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
