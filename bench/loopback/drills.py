"""The deployment drills: real games made through the lobby and played through HAProxy while
the deployment is hurt.

* ``load``: many games at once, the two players of each game on different server processes,
  spectators too; every client must see every version once and in order.
* ``faults``: pairs of accounts play rated games one after another, through every fault in
  turn: the Redis connections of both server processes reset (TCP RST, by a proxy of the
  drill's own between each process and Redis) under load and while idle, one server process
  SIGKILLed and restarted twice, Redis stopped with SIGTERM, with SIGKILL, and SIGKILLed
  while it rewrites its append-only file.  A seated player whose process was killed does not
  come back: the opponent must see them away within the presence lease, and claim the game
  for abandonment once the grace period has passed.
* ``slow_spectator``: a spectator that stops reading watches the games; the others play on
  and its server process lets it go (a full send queue, close code 1013, or no keepalive pong).

Every game is made as people make them: accounts registered (or guests made) over HTTP, a
direct challenge sent and accepted over the websocket, both through HAProxy.  Each player
resends an unanswered move with the same request id and version until it is answered, which
the protocol makes safe.  Moves are random legal moves of the registered games
(``rules.GAMES``), seeded per game.

The clients keep no stall timer: they learn of a gap only from the versions the server sends
(a diff that skips one, then ``sync``) and from the server's own repair of views it let fall
behind.  While the drill runs, :class:`Watch` compares every view with the version Redis
holds: a view still behind a version that Redis committed more than ``STUCK_SECONDS`` earlier,
counted from the end of the last fault, is *stuck*.  The lobby is checked as it goes too:
every game still live ``LISTED_SECONDS`` after it started (or after the last fault) must be in
its first player's live games.

Every drill ends by killing Redis once more and starting it from its append-only file, then
counts what it holds: an acknowledged move is *lost* if the room's record does not have it at
its ply, a finished game has a move *applied twice* (doubled) if its record holds more moves
than were acknowledged, and a finished game is *missing from the lobby* unless both players'
histories hold it and, when it was rated, both players' rating histories.  Used by
tests/deploy/test_drills.py and ``python -m bench.drills``; may import anything.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import re
import socket
import threading
import time
import traceback
import urllib.request
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.loopback import http
from bench.loopback.tcp_proxy import TcpProxy
from bench.loopback.topology import SECRET, Topology
from client import Client, RoomView, ServerReplyError
from lobby.identity import Player, issue_token, new_guest, player_from_data
from lobby.store import games as game_store
from lobby.store import ratings as rating_store
from rules import GAMES, find_game
from server import listing, outbox
from server.redis import store

SHORT_OPTIONS = {"ankor": "-size=3", "boche": "-size=4"}
"""Options that keep random games short, where a game's defaults make long ones."""
RETRIED = frozenset({"unavailable", "busy", "rate_limited"})
"""Error codes after which the protocol says to resend the same request."""
WAIT_SECONDS = 30.0
"""The longest any client waits for one thing before the drill fails."""
STUCK_SECONDS = 2.0
"""A view behind a version Redis committed this long ago (after the last fault) is stuck."""
LISTED_SECONDS = 3.0
"""A game live this long (after the last fault) must be in the lobby's live games."""
PRESENCE_LEASE = 3.0
"""The drill's servers' ``PRESENCE_LEASE_SECONDS``: a crashed process's players show away
after about this (plus a sweep, a third of it, and a commit's coalescing, a second)."""
SETTINGS = {
    "PRESENCE_LEASE_SECONDS": str(PRESENCE_LEASE),
    "GUESTS_PER_ADDRESS": "1000000",
    "REGISTRATIONS_PER_ADDRESS": "1000000",
    "MADE_PER_ADDRESS_PER_HOUR": "1000000",
    "GAMES_PER_HOUR": "1000000",
    "CHALLENGES_PER_PLAYER": "1000",
    "HASH_WAITING": "1000",
}
"""The servers' settings for the drills (README, "Limits and times"): every client comes from
one address, and players start far more games in an hour than people do."""
PASSWORD = "drill password"
T = TypeVar("T")
TEST_GAME = "tictactoe"


@dataclass
class Ack:
    room: str
    ply: int
    move: str
    version: int


@dataclass
class DrillReport:
    """What one drill did and what Redis holds afterwards; ``problems`` empty means passed."""

    drill: str
    games: int = 0
    games_finished: int = 0
    moves_acked: int = 0
    moves_in_redis: int = 0
    moves_lost: int = 0
    moves_applied_twice: int = 0
    views_stuck: int = 0
    lobby_missing: int = 0
    reconnects: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    notes: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stopped: bool = False
    """A game stopped with an error before the end, so the clients never settled."""


class Ledger:
    """What the clients of a drill did: acknowledged moves (and an event when their count
    reaches a mark), the games made, the links open, and a gate that holds new requests."""

    def __init__(self) -> None:
        self.acks: list[Ack] = []
        self.errors: Counter[str] = Counter()
        self.reconnects = 0
        self.tables: list[Table] = []
        self.links: list[Link] = []
        self.open = asyncio.Event()
        """Set while players may send moves and challenges (cleared to let Redis go idle)."""
        self.open.set()
        self.in_flight = 0
        """Moves and challenges sent and not yet answered."""
        self._marks: list[tuple[int, asyncio.Event]] = []

    def acked(self, ack: Ack) -> None:
        self.acks.append(ack)
        for count, event in self._marks:
            if len(self.acks) >= count:
                event.set()

    def mark(self, count: int) -> asyncio.Event:
        """An event set once ``count`` moves were acknowledged."""
        event = asyncio.Event()
        self._marks.append((count, event))
        if len(self.acks) >= count:
            event.set()
        return event

    async def idle(self) -> None:
        """Hold new moves and challenges and wait until none is in flight."""
        self.open.clear()
        async with asyncio.timeout(WAIT_SECONDS):
            while self.in_flight:
                await asyncio.sleep(0.01)  # the players' tasks decrement it

    @contextlib.asynccontextmanager
    async def sending(self) -> AsyncIterator[None]:
        """Around one request of a player: waits while the gate is shut, counts it in flight."""
        await self.open.wait()
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1


def token(player: Player) -> str:
    return issue_token(SECRET.encode(), player, time.time())


class Link:
    """One person's websocket through HAProxy, which reconnects and rejoins when it drops."""

    def __init__(self, ws_url: str, player: Player, ledger: Ledger) -> None:
        self.ws_url = ws_url
        self.player = player
        self.ledger = ledger
        self.client: Client | None = None
        self.gone = False
        """Left for good with its server process (the drill's abandoned players)."""
        self.served_by: list[str] = []
        """The server line (``s0``, ``s1``...) of each connection, from HAProxy's header."""
        self.seen: dict[str, list[tuple[int, int, str | None]]] = {}
        """Per room, each applied diff's (version, record length, last move)."""
        self.left: dict[str, RoomView] = {}
        """The views of the rooms this link left, as they were when it left."""
        self.follows_lobby = False
        """Follows the lobby on every connection (a guest must, to be challenged by name)."""
        self.closing = False
        self._keeper: asyncio.Task[None] | None = None
        self._reconnecting = asyncio.Lock()
        ledger.links.append(self)

    async def open(self, avoid: str | None = None, want: str | None = None) -> None:
        """Connect; with ``avoid`` (or ``want``), reconnect (a few times) until another
        process (that one) serves us."""
        for attempt in range(8):
            client = await Client.connect(self.ws_url, token(self.player), timeout=WAIT_SECONDS)
            served = client.socket.response.headers.get("X-Served-By", "?")
            if attempt == 7 or (served != avoid and want in (None, served)):
                break
            await client.close()
        if self.follows_lobby:
            await client.follow_lobby()
        self._adopt(client, served)

    def _adopt(self, client: Client, served: str) -> None:
        self.client = client
        self.served_by.append(served)
        client.on_diff = self._on_diff
        if self._keeper is None:
            self._keeper = asyncio.create_task(self._keep(), name=f"keep {self.player.id}")

    async def _keep(self) -> None:
        """Reconnect as soon as the connection drops, as the site's page does, whether or
        not anything waits on this link then."""
        while not self.closing:
            await asyncio.sleep(0.05)  # polls the connection's state
            client = self.client
            if client is None or not client.closed or self.gone:
                continue
            try:
                await self.reconnect(client)
            except Exception as error:  # noqa: BLE001 - counted; the next turn tries again
                self.ledger.errors[f"reconnect: {type(error).__name__}"] += 1

    def _on_diff(self, room: str, version: int) -> None:
        assert self.client is not None
        view = self.client.rooms[room]
        assert view.doc is not None
        record = view.doc["record"]
        self.seen.setdefault(room, []).append(
            (version, len(record), record[-1] if record else None)
        )

    @property
    def current(self) -> Client:
        assert self.client is not None
        return self.client

    def view(self, room: str) -> RoomView | None:
        """This link's view of ``room``, joined or left."""
        if room in self.left:
            return self.left[room]
        return None if self.client is None else self.client.rooms.get(room)

    async def join(self, room: str) -> RoomView:
        view: RoomView = await self._retry(lambda: self.current.join(room))
        return view

    async def leave(self, room: str) -> None:
        """Leave ``room``, keeping its view for the final checks."""
        view = self.current.rooms[room]
        await self._retry(lambda: self.current.leave(room))
        self.left[room] = view

    async def challenge(self, game: str, options: str, rated: bool, target: Player) -> str:
        """A direct challenge to ``target`` (we play first); its id."""
        made = await self._retry(
            lambda: self.current.challenge(
                game, options, colour="mine", rated=rated, target=target.name
            )
        )
        return str(made["id"])

    async def accept(self, challenge: str) -> str:
        """Accept a challenge made to us; the room's id.  A resent accept whose first send
        went through is refused as ``already_accepted``: only we could have accepted it."""
        try:
            return str(await self._retry(lambda: self.current.accept(challenge)))
        except ServerReplyError as error:
            if error.code != "already_accepted":
                raise
            return challenge

    async def reconnect(self, broken: Client) -> None:
        """A new connection through HAProxy, in place of ``broken``, that rejoins every room
        from its version (nothing, if another task reconnected already)."""
        async with self._reconnecting:
            if self.client is broken and not self.closing:
                await self._reconnect(broken)

    async def _reconnect(self, old: Client) -> None:
        await old.close()
        self.ledger.reconnects += 1
        deadline = time.monotonic() + WAIT_SECONDS
        attempt = 0
        while True:
            client = None
            try:
                client = await Client.connect(self.ws_url, token(self.player), timeout=10)
                served = client.socket.response.headers.get("X-Served-By", "?")
                for room, view in old.rooms.items():
                    client.rooms[room] = view
                    await client.join(room)  # from the view's version, if it has one yet
                if self.follows_lobby:
                    await client.follow_lobby()
            except (OSError, ConnectionError, ConnectionClosed, TimeoutError) as error:
                self.ledger.errors[type(error).__name__] += 1
            except InvalidHandshake as error:  # HAProxy's 502/503 while a process fails over
                self.ledger.errors[type(error).__name__] += 1
            except ServerReplyError as error:
                if error.code not in RETRIED:
                    raise
                self.ledger.errors[error.code] += 1
            else:
                self._adopt(client, served)
                return
            if client is not None:
                await client.close()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.player.id} could not reconnect")
            attempt += 1
            await backoff(attempt)

    async def wait_for(self, room: str, predicate: Callable[[RoomView], bool]) -> RoomView:
        """Wait until the view of ``room`` satisfies ``predicate``, reconnecting when the
        connection drops; nothing is asked of the server on a timer."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            client = self.current
            try:
                return await client.wait_for(room, predicate, max(0.0, deadline - time.monotonic()))
            except ConnectionError:
                await self.reconnect(client)
            except TimeoutError as error:
                view = self.current.rooms.get(room)
                at = None if view is None else view.version
                raise TimeoutError(
                    f"{self.player.id} waited {WAIT_SECONDS} s in {room} at version {at}"
                ) from error

    async def move(self, room: str, text: str, version: int, request_id: str) -> int:
        """Send the move until it is answered; the version it committed as."""
        return int(
            await self._retry(
                lambda: self.current.move(room, text, version=version, request_id=request_id)
            )
        )

    async def claim(self, room: str) -> None:
        """Claim the game for the opponent's abandonment, resending while refused to wait."""
        await self._retry(
            lambda: self.current.request(
                {"t": "claim", "room": room, "version": self.current.rooms[room].version}
            )
        )

    async def _retry(self, request: Callable[[], Awaitable[Any]]) -> Any:
        attempt = 0
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            client = self.current
            try:
                async with self.ledger.sending():
                    return await request()
            except ServerReplyError as error:
                if error.code not in RETRIED:
                    raise
                self.ledger.errors[error.code] += 1
                attempt += 1
                await backoff(attempt)
            except (ConnectionError, ConnectionClosed, TimeoutError) as error:
                self.ledger.errors[type(error).__name__] += 1
                await self.reconnect(client)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.player.id}: no answer within {WAIT_SECONDS} s")

    async def close(self) -> None:
        self.closing = True
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        if self.client is not None:
            await self.client.close()


async def backoff(attempt: int) -> None:
    """The client's retry policy after a refusal that says "resend": a growing pause."""
    await asyncio.sleep(min(0.5, 0.01 * 2**attempt))


@dataclass
class Table:
    """One game: its room, its two players' links and its spectators' links."""

    room: str
    game: str
    players: tuple[Link, Link]
    spectators: list[Link]
    seed: int
    started: float = field(default_factory=time.monotonic)
    """When its room was made (the drill's monotonic clock)."""

    @property
    def links(self) -> list[Link]:
        return [*self.players, *self.spectators]


@dataclass
class Pair:
    """Two people who play each other, game after game, and those who watch them."""

    players: tuple[Link, Link]
    spectators: list[Link]
    rated: bool
    number: int
    games: int = 0


def drill_games() -> list[tuple[str, str]]:
    """(game, options) for the drills: every registered game, with short options."""
    chosen = []
    for name in sorted(GAMES) or [TEST_GAME]:
        options = SHORT_OPTIONS.get(name, "")
        try:
            find_game(name).parse_options(options)
        except (ValueError, KeyError):
            options = ""
        chosen.append((name, options))
    return chosen


def server_module() -> str:
    """``python -m server``, or the test server that registers tic-tac-toe when no game is."""
    return "server" if GAMES else "bench.loopback.serve"


async def person(topology: Topology, account: str | None) -> Player:
    """A guest (``account`` None) or a new account of that name, made over HTTP through
    HAProxy as a browser makes them."""
    for attempt in range(100):
        if account is None:
            answer = await http.request(f"{topology.base_url}/api/guest", {})
        else:
            body = {"name": account, "password": PASSWORD}
            answer = await http.request(f"{topology.base_url}/api/register", body)
        if answer.status == 200:
            return player_from_data(answer.json["player"])
        if answer.status not in (429, 502, 503):  # a busy hashing pool or a process failing over
            raise AssertionError(f"{account or 'guest'}: {answer.status} {answer.text}")
        await backoff(attempt)
    raise TimeoutError(f"{account or 'guest'} was never made")


async def seat_pairs(
    topology: Topology, ledger: Ledger, pairs: int, spectators: int, rated: bool
) -> list[Pair]:
    """``pairs`` pairs of people (accounts when ``rated``, else guests), the two of each pair
    on different server processes, each pair with its spectators."""
    if not GAMES:
        from bench.loopback import tictactoe  # noqa: PLC0415

        GAMES[TEST_GAME] = tictactoe  # type: ignore[assignment]
    tag = os.urandom(2).hex()
    making = asyncio.Semaphore(4)  # a browser's pace, not a flood of password hashes

    async def made(name: str | None) -> Player:
        async with making:
            return await person(topology, name)

    names: list[str | None] = []
    for number in range(pairs):
        names += [f"p{tag}n{number}a", f"p{tag}n{number}b"] if rated else [None, None]
        names += [None] * spectators
    people = iter(await asyncio.gather(*(made(name) for name in names)))
    seated = []
    for number in range(pairs):
        a = Link(topology.ws_url, next(people), ledger)
        b = Link(topology.ws_url, next(people), ledger)
        b.follows_lobby = not rated  # a guest is found by name only while online
        await a.open()
        await b.open(avoid=a.served_by[-1])
        watchers = [Link(topology.ws_url, next(people), ledger) for _ in range(spectators)]
        for watcher in watchers:
            await watcher.open()
        seated.append(Pair((a, b), watchers, rated, number))
    return seated


async def new_table(pair: Pair, ledger: Ledger) -> Table:
    """A game made through the lobby (a direct challenge, accepted), joined by everyone."""
    number = pair.number + 1000 * pair.games
    kinds = drill_games()
    game, options = kinds[number % len(kinds)]
    a, b = pair.players
    challenge = await a.challenge(game, options, pair.rated, b.player)
    room = await b.accept(challenge)
    pair.games += 1
    table = Table(room, game, (a, b), pair.spectators, number)
    ledger.tables.append(table)
    for link in table.links:
        await link.join(room)
    return table


async def play_table(table: Table, ledger: Ledger, pause: float = 0.0, plies: int = 0) -> None:
    """Both players play random legal moves until the game ends (or ``plies`` were made),
    ``pause`` seconds after each of their turns comes."""
    rng = random.Random(table.seed)
    await gather_or_fail(
        [
            asyncio.create_task(play_seat(table, link, rng, ledger, pause, plies))
            for link in table.players
        ]
    )


async def play_seat(
    table: Table, link: Link, rng: random.Random, ledger: Ledger, pause: float, plies: int
) -> None:
    rules = find_game(table.game)
    me = link.player.id

    def done(doc: dict[str, Any]) -> bool:
        over = doc["outcome"] is not None or doc["to_move"] is None
        return over or 0 < plies <= len(doc["record"])

    def my_turn_or_done(view: RoomView) -> bool:
        doc = view.doc
        assert doc is not None
        return done(doc) or bool(doc["seats"][doc["to_move"]]["id"] == me)

    while True:
        view = await link.wait_for(table.room, my_turn_or_done)
        doc = view.doc
        assert doc is not None
        if done(doc):
            return
        if pause:
            await asyncio.sleep(pause)
        state = rules.from_data(doc["data"])
        text = rng.choice(sorted(rules.move_text(m) for m in rules.legal_moves(state)))
        ply = len(doc["record"])
        version = await link.move(table.room, text, view.version, f"{table.room}.{ply}")
        ledger.acked(Ack(table.room, ply, text, version))
        # The acknowledgement may overtake the diff (after a gap the view syncs first):
        # decide the next move only on a view that holds this one.
        await link.wait_for(table.room, partial(holds, version))


def holds(version: int, view: RoomView) -> bool:
    return view.version >= version


async def finish_table(table: Table) -> None:
    """Every link waits for the game's end, then leaves the room."""
    for link in table.links:
        await link.wait_for(table.room, lambda v: v.doc is not None and v.doc["outcome"])
        await link.leave(table.room)


async def play_pair(
    pair: Pair, ledger: Ledger, pause: float, until: asyncio.Event | None = None
) -> None:
    """The pair plays one game, or games one after another until ``until`` is set."""
    while True:
        table = await new_table(pair, ledger)
        await play_table(table, ledger, pause)
        await finish_table(table)
        if until is None or until.is_set():
            return


class Watch:
    """Compares every view of the drill's links with the versions Redis holds, and the live
    games with the lobby, a few times a second (see the module's docstring)."""

    def __init__(self, redis: aioredis.Redis, ledger: Ledger, every: float = 0.2) -> None:
        self.redis = redis
        self.ledger = ledger
        self.every = every
        self.quiet_since = time.monotonic()
        """When the last fault ended (the drill's start when there was none)."""
        self.in_fault = False
        self.faults: list[tuple[str, float]] = []
        """Each fault and how long it lasted (seconds)."""
        self.stuck: dict[tuple[str, str], int] = {}
        """(player id, room) -> the version it was stuck behind."""
        self.stuck_how: dict[tuple[str, str], str] = {}
        """(player id, room) -> when and how far behind it was found stuck (and caught up)."""
        self._found: dict[tuple[str, str], float] = {}
        """Stuck views not caught up yet, and when they were found stuck."""
        self.unlisted: dict[str, str] = {}
        """Rooms found live and not in the lobby's live games, and when."""
        self._unlisted_at: dict[str, float] = {}
        """Rooms found unlisted and not listed since, and when they were found."""
        self.ended: set[str] = set()
        """Rooms found finished (no longer looked for in the live games)."""
        self.samples: dict[str, deque[tuple[float, int]]] = {}
        self.worst = 0.0
        """The longest any view was seen behind a version Redis held, counted from the end
        of the last fault (seconds; only up to about ``STUCK_SECONDS``, past which it is
        stuck)."""
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._last_listing = 0.0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="watch")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    @contextlib.asynccontextmanager
    async def fault(self, name: str) -> AsyncIterator[None]:
        """Around one fault and its repair: nothing counts as stuck or unlisted during it."""
        self.in_fault = True
        started = time.monotonic()
        try:
            yield
        finally:
            self.quiet_since = time.monotonic()
            self.faults.append((name, round(self.quiet_since - started, 1)))
            self.in_fault = False

    async def _run(self) -> None:
        # Ends on the flag too: a cancellation that lands inside redis-py may come out as a
        # lost connection, which the loop below takes for a fault and rides out.
        while not self._stopping:
            await asyncio.sleep(self.every)
            try:
                await self.look()
            except (OSError, ConnectionError, aioredis.RedisError):
                pass  # Redis is away: a fault, whose end restarts the clock

    async def look(self) -> None:
        now = time.monotonic()
        views = [
            (link, room, view)
            for link in self.ledger.links
            if not link.gone and link.client is not None
            for room, view in list(link.client.rooms.items())
            if view.doc is not None
        ]
        rooms = sorted({room for _, room, _ in views})
        versions = await store.current_versions(self.redis, rooms)
        for room, version in zip(rooms, versions, strict=True):
            if version is not None:
                history = self.samples.setdefault(room, deque())
                history.append((now, version))
                while len(history) > 1 and history[1][0] <= now - STUCK_SECONDS:
                    history.popleft()
        for link, room, view in views:
            key = (link.player.id, room)
            found = self._found.get(key)
            if found is not None and view.version >= self.stuck[key]:
                del self._found[key]
                self.stuck_how[key] += f"; caught up {now - found:.1f} s later"
            kept = self.samples.get(room)
            if not kept or view.version >= kept[-1][1] or self.in_fault:
                continue
            # The view has been behind since Redis first held a version past it.
            since = next(when for when, version in kept if version > view.version)
            self.worst = max(self.worst, now - max(since, self.quiet_since))
            when, committed = kept[0]
            if when <= now - STUCK_SECONDS and now - self.quiet_since > STUCK_SECONDS:
                if view.version < committed and key not in self.stuck:
                    self.stuck[key] = committed
                    self._found[key] = now
                    last = self.faults[-1][0] if self.faults else "none"
                    self.stuck_how[key] = (
                        f"at {view.version} behind {committed},"
                        f" {now - self.quiet_since:.1f} s after the fault {last!r},"
                        f" served by {link.served_by}"
                    )
        if now - self._last_listing > 1.0 and not self.in_fault:
            self._last_listing = now
            await self.look_at_lobby(now)

    async def look_at_lobby(self, now: float) -> None:
        """Every game live since long enough is among its first player's live games."""
        due = now - LISTED_SECONDS
        for table in list(self.ledger.tables):
            room = table.room
            if room in self.ended or max(table.started, self.quiet_since) > due:
                continue
            if room in self.unlisted and room not in self._unlisted_at:
                continue  # listed at last
            first = table.players[0].player.id
            listed = await game_store.current_games(self.redis, first)
            if any(game.room_id == room for game in listed):
                if room in self._unlisted_at:
                    late = now - self._unlisted_at.pop(room)
                    self.unlisted[room] += f"; listed {late:.1f} s later"
                continue
            doc = await store.load_doc(self.redis, room)
            if doc is None or doc["outcome"] is not None:
                self.ended.add(room)
                self._unlisted_at.pop(room, None)
            elif room not in self.unlisted:
                self._unlisted_at[room] = now
                last = self.faults[-1][0] if self.faults else "none"
                self.unlisted[room] = (
                    f"{now - table.started:.1f} s after it started,"
                    f" {now - self.quiet_since:.1f} s after the fault {last!r}"
                )


async def account(
    report: DrillReport, topology: Topology, ledger: Ledger, watch: Watch | None = None
) -> None:
    """Kill Redis, start it from its files, and count what survived against the ledger and
    what the lobby holds; the clients' views are checked too unless the drill stopped early."""
    tables = ledger.tables
    settled = not report.stopped
    await asyncio.to_thread(topology.restart_redis)
    redis = aioredis.Redis.from_url(topology.redis_url)
    try:
        records: dict[str, list[str]] = {}
        finished: set[str] = set()
        for table in tables:
            doc = await store.load_doc(redis, table.room)
            records[table.room] = [] if doc is None else list(doc["record"])
            if doc is not None and doc["outcome"] is not None:
                finished.add(table.room)
        report.games_finished = len(finished)
        missing = await missing_from_lobby(redis, [t for t in tables if t.room in finished])
    finally:
        await redis.aclose()
    report.games = len(tables)
    report.moves_acked = len(ledger.acks)
    report.moves_in_redis = sum(len(r) for r in records.values())
    acked_per_room: Counter[str] = Counter()
    for ack in ledger.acks:
        record = records[ack.room]
        acked_per_room[ack.room] += 1
        if ack.ply >= len(record) or record[ack.ply] != ack.move:
            report.moves_lost += 1
    # A game that stopped may hold a move whose sender was cancelled before its answer.
    for room in finished:
        report.moves_applied_twice += max(0, len(records[room]) - acked_per_room[room])
    report.reconnects = ledger.reconnects
    report.errors = ledger.errors
    unlisted = {} if watch is None else watch.unlisted
    report.lobby_missing = len(set(unlisted) | set(missing))
    if watch is not None:
        report.views_stuck = len(watch.stuck)
        report.notes["faults (seconds each)"] = watch.faults
        report.notes["longest behind after a fault (s)"] = round(watch.worst, 2)
        for (player, room), version in sorted(watch.stuck.items())[:5]:
            how = watch.stuck_how[player, room]
            report.problems.append(f"{player}'s view of {room} stuck behind {version}: {how}")
    if report.moves_lost:
        report.problems.append(f"{report.moves_lost} acknowledged moves are not in Redis")
    if report.moves_applied_twice:
        report.problems.append(f"{report.moves_applied_twice} moves in Redis were never acked")
    if report.games_finished != report.games:
        report.problems.append(f"only {report.games_finished}/{report.games} games finished")
    for room, when in sorted(unlisted.items())[:5]:
        report.problems.append(f"{room} was live and not in the lobby's live games, {when}")
    for room, why in sorted(missing.items())[:5]:
        report.problems.append(f"{room} finished and {why}")
    for table in tables:
        if settled and table.room in finished:
            for link in table.links:
                if not link.gone:
                    report.problems += check_views(link, table.room, records[table.room])


async def missing_from_lobby(redis: aioredis.Redis, tables: list[Table]) -> dict[str, str]:
    """The finished games missing from a player's history or rating history, and what is
    missing; waits first (bounded) for the lobby to follow every committed change."""
    async with asyncio.timeout(WAIT_SECONDS):
        while await outbox.pending(redis):
            await asyncio.sleep(0.1)  # every process drains the outbox twice a second
    missing: dict[str, str] = {}
    histories: dict[str, set[str]] = {}
    ratings: dict[tuple[str, str], set[str]] = {}
    for table in tables:
        loaded = await store.load_room(redis, table.room)
        assert loaded is not None
        rating = listing.rating_result(loaded.room)
        for link in table.players:
            player = link.player.id
            if player not in histories:
                games = await game_store.finished_games(redis, player, 0, 10**6)
                histories[player] = {game.room_id for game in games}
            if table.room not in histories[player]:
                missing[table.room] = f"is not in {player}'s history"
            if rating is None:
                continue
            if (rating.pool, player) not in ratings:
                rated = await rating_store.history(redis, rating.pool, player, 10**6)
                ratings[rating.pool, player] = {entry["game_id"] for entry in rated}
            if table.room not in ratings[rating.pool, player]:
                missing[table.room] = f"is not in {player}'s {rating.pool} rating history"
    return missing


def check_views(link: Link, room: str, record: list[str]) -> list[str]:
    """What a client saw must be the stored game: every applied version newer than the last,
    every record it held a prefix of the final one, and the same final record."""
    problems = []
    who = f"{link.player.id} in {room}"
    view = link.view(room)
    if view is None:
        return [f"{who} has no view of the room"]
    if view.applied != sorted(set(view.applied)):
        problems.append(f"{who} applied versions out of order or twice: {view.applied}")
    for version, length, last in link.seen.get(room, []):
        if length > len(record) or (length and record[length - 1] != last):
            problems.append(f"{who} held a record that is not the game's at version {version}")
            break
    if view.doc is None or list(view.doc["record"]) != record:
        problems.append(f"{who} ended with another record than Redis holds")
    return problems


def every_version_once(link: Link, room: str) -> bool:
    """Without reconnections a client applies each version after its join exactly once."""
    view = link.view(room)
    assert view is not None
    applied = view.applied
    return applied == list(range(applied[0], applied[0] + len(applied)))


def metrics(topology: Topology, index: int) -> dict[str, float]:
    """One server process's /metrics, as name{labels} -> value (blocking; use a thread)."""
    with urllib.request.urlopen(f"{topology.server_url(index)}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def healthz(topology: Topology, index: int) -> int:
    try:
        with urllib.request.urlopen(f"{topology.server_url(index)}/healthz", timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


# --- the deployment ----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def deployment(directory: Path, servers: int = 2) -> AsyncIterator[Deployment]:
    """Redis, ``servers`` server processes (each reaching Redis through a TCP proxy of its
    own) and HAProxy, with the drills' settings; stopped after."""
    topology = Topology(directory, servers, server_module(), SETTINGS)
    proxies = Proxies(topology.redis_port, servers)
    await asyncio.to_thread(proxies.start)
    topology.route_redis(proxies.ports)
    try:
        await asyncio.to_thread(topology.start)
        try:
            yield Deployment(topology, proxies)
        finally:
            await asyncio.to_thread(topology.stop)
    finally:
        await asyncio.to_thread(proxies.stop)


class Proxies:
    """One TCP proxy to Redis per server process, run by an event loop of their own in a
    thread, so the servers' way to Redis never waits on the drill's clients."""

    def __init__(self, redis_port: int, count: int) -> None:
        self.redis_port = redis_port
        self.count = count
        self.proxies: list[TcpProxy] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="proxies", daemon=True)

    @property
    def ports(self) -> list[int]:
        return [proxy.port for proxy in self.proxies]

    def start(self) -> None:
        self.thread.start()
        self.proxies = [self._run(TcpProxy(self.redis_port).start()) for _ in range(self.count)]

    def reset_all(self) -> int:
        """Reset (TCP RST) every connection through the proxies; how many there were."""
        return sum(self._run(proxy.reset_all()) for proxy in self.proxies)

    def stop(self) -> None:
        for proxy in self.proxies:
            self._run(proxy.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(WAIT_SECONDS)


@dataclass
class Deployment:
    topology: Topology
    proxies: Proxies

    async def reset_redis_connections(self) -> int:
        """Reset (TCP RST) every connection between a server process and Redis; how many."""
        return await asyncio.to_thread(self.proxies.reset_all)


# --- the drills --------------------------------------------------------------------------------


async def load_drill(deployed: Deployment, games: int = 24, spectators: int = 1) -> DrillReport:
    report = DrillReport("load across processes")
    topology = deployed.topology
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    watch = Watch(redis, ledger)
    try:
        pairs = await seat_pairs(topology, ledger, games, spectators, rated=False)
        watch.start()
        await gather_or_fail([asyncio.create_task(play_pair(p, ledger, 0.0)) for p in pairs])
        report.seconds = time.perf_counter() - started
        for table in ledger.tables:
            a, b = table.players
            if a.served_by[-1] == b.served_by[-1]:
                report.problems.append(f"both players of {table.room} on {a.served_by[-1]}")
            for link in table.links:
                if not every_version_once(link, table.room):
                    report.problems.append(f"{link.player.id} missed or repeated a version")
        per_process = [
            (await asyncio.to_thread(metrics, topology, i))["browne_moves_total"]
            for i in range(len(topology.servers))
        ]
        report.notes["moves per process"] = [int(m) for m in per_process]
        if sum(per_process) != len(ledger.acks) or min(per_process) == 0:
            report.problems.append(f"moves per process {per_process} vs {len(ledger.acks)} acked")
    except Exception as error:  # a stuck game: still count what Redis kept
        report.problems.append(failure(error))
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await watch.stop()
        await redis.aclose()
        await close_all(ledger)
    await account(report, topology, ledger, watch)
    return report


@dataclass
class Abandoned:
    """A game whose first player's process is killed and who never comes back."""

    table: Table
    killed_at: float = 0.0
    away_after: float | None = None
    """Seconds from the kill until the opponent saw the player away."""
    claimed: str | None = None
    """How the game ended once the opponent claimed it."""


async def abandon_tables(
    deployed: Deployment, ledger: Ledger, count: int, victim: int
) -> list[Abandoned]:
    """``count`` rated games, two moves each made, whose first player is served by process
    ``victim`` and the second by another."""
    topology = deployed.topology
    tables = []
    for number in range(count):
        tag = os.urandom(2).hex()
        first = await person(topology, f"q{tag}n{number}a")
        second = await person(topology, f"q{tag}n{number}b")
        a, b = Link(topology.ws_url, first, ledger), Link(topology.ws_url, second, ledger)
        await a.open(want=f"s{victim}")
        await b.open(avoid=f"s{victim}")
        if a.served_by[-1] != f"s{victim}" or b.served_by[-1] == f"s{victim}":
            raise AssertionError(f"HAProxy placed the abandoned game on {a.served_by, b.served_by}")
        table = await new_table(Pair((a, b), [], True, 500 + number), ledger)
        await play_table(table, ledger, plies=4)
        tables.append(Abandoned(table))
    return tables


async def see_away(abandoned: Abandoned) -> None:
    """The opponent waits to see the abandoned player away."""
    table = abandoned.table
    stayer = table.players[1]
    await stayer.wait_for(table.room, lambda v: v.doc is not None and v.doc["away"][0])
    abandoned.away_after = round(time.monotonic() - abandoned.killed_at, 1)


async def claim_abandoned(abandoned: Abandoned) -> None:
    """Once the grace period has passed, the opponent claims the game."""
    table = abandoned.table
    stayer = table.players[1]
    view = await stayer.wait_for(table.room, lambda v: v.doc is not None and v.doc["away"][0])
    assert view.doc is not None
    due = float(view.doc["away"][0]) + float(view.doc["claim_after"]) + 0.5
    await asyncio.sleep(max(0.0, due - time.time()))
    await stayer.claim(table.room)
    view = await stayer.wait_for(table.room, lambda v: v.doc is not None and v.doc["outcome"])
    assert view.doc is not None
    outcome = view.doc["outcome"]
    abandoned.claimed = f"{outcome['reason']}, winner seat {outcome['winner']}"


async def faults_drill(
    deployed: Deployment,
    games: int = 24,
    spectators: int = 1,
    quiet: float = 5.0,
    abandoned: int = 2,
    pause: float = 0.1,
    victim: int = 0,
) -> DrillReport:
    """``games`` pairs play rated games one after another (``pause`` seconds to think before
    each move) through each fault in turn, with ``quiet`` seconds after each; ``abandoned``
    games lose their first player with process ``victim``'s first crash."""
    report = DrillReport("faults through the lobby")
    topology = deployed.topology
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    watch = Watch(redis, ledger)
    until = asyncio.Event()
    playing: list[asyncio.Task[None]] = []
    left: list[Abandoned] = []
    waiting: list[asyncio.Task[None]] = []
    try:
        pairs = await seat_pairs(topology, ledger, games, spectators, rated=True)
        left = await abandon_tables(deployed, ledger, abandoned, victim)
        watch.start()
        playing = [asyncio.create_task(play_pair(p, ledger, pause, until)) for p in pairs]
        await wait_or_fail(ledger.mark(4 * games), playing, 2 * WAIT_SECONDS)

        async def crash_server() -> None:
            for gone in left:
                gone.table.players[0].gone = True
                gone.killed_at = time.monotonic()
            await asyncio.to_thread(topology.kill_server, victim)
            waiting.extend(asyncio.create_task(see_away(gone)) for gone in left)
            await hold(1.0, playing)  # its sockets fail over to the other process meanwhile
            await asyncio.to_thread(topology.restart_server, victim)
            left.clear()  # the second crash abandons nobody

        async def resets_under_load() -> None:
            reset = []
            for _ in range(3):
                reset.append(await deployed.reset_redis_connections())
                await hold(0.5, playing)
            report.notes["connections reset under load"] = reset

        async def resets_while_idle() -> None:
            await ledger.idle()
            try:
                await asyncio.sleep(0.5)
                report.notes[
                    "connections reset while idle"
                ] = await deployed.reset_redis_connections()
                await asyncio.sleep(0.5)
            finally:
                ledger.open.set()

        async def stop_redis() -> None:
            await asyncio.to_thread(topology.terminate_redis)
            await asyncio.to_thread(topology.start_redis)

        async def kill_redis() -> None:
            await asyncio.to_thread(topology.restart_redis)

        async def kill_redis_rewriting() -> None:
            await asyncio.to_thread(topology.kill_redis_rewriting)
            await asyncio.to_thread(topology.start_redis)

        abandoning = list(left)
        faults: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            (f"s{victim} SIGKILL", crash_server),  # first: the claim's grace runs meanwhile
            ("Redis links reset under load", resets_under_load),
            ("Redis links reset while idle", resets_while_idle),
            ("Redis SIGTERM", stop_redis),
            ("Redis SIGKILL", kill_redis),
            ("Redis SIGKILL in a rewrite", kill_redis_rewriting),
            (f"s{victim} SIGKILL again", crash_server),
        ]
        live = []
        for name, fault in faults:
            live.append(sum(is_live(table) for table in ledger.tables))
            async with watch.fault(name):
                await fault()
            await hold(quiet, playing)
        report.notes["games live at each fault"] = live
        left = abandoning
        waiting += [asyncio.create_task(claim_abandoned(gone)) for gone in left]
        until.set()
        await gather_or_fail(playing + waiting, timeout=3 * WAIT_SECONDS)
        report.seconds = time.perf_counter() - started
        check_abandoned(report, left)
        health = [await asyncio.to_thread(healthz, topology, i) for i in range(2)]
        if health != [200, 200]:
            report.problems.append(f"/healthz after the faults: {health}")
        if ledger.reconnects == 0:
            report.problems.append("no socket reconnected after the crashes")
    except Exception as error:  # a stuck game: still count what Redis kept
        report.problems.append(failure(error))
        report.stopped = True
        report.seconds = time.perf_counter() - started
        for task in playing + waiting:
            task.cancel()
        await asyncio.gather(*playing, *waiting, return_exceptions=True)
    finally:
        await watch.stop()
        await redis.aclose()
        await close_all(ledger)
    await account(report, topology, ledger, watch)
    return report


def is_live(table: Table) -> bool:
    """Whether the game is still being played, as its second player sees it."""
    view = table.players[1].view(table.room)
    return view is not None and view.doc is not None and view.doc["outcome"] is None


def check_abandoned(report: DrillReport, left: list[Abandoned]) -> None:
    """Each abandoned player was seen away within the lease, the sweep that finds it lapsed
    (every third of the lease), the presence commit's coalescing (a second) and 3 s to spare
    on a busy machine; and each game ended for abandonment, won by the player who stayed."""
    bound = PRESENCE_LEASE * 4 / 3 + 1.0 + 3.0
    report.notes["abandoned players seen away after (s)"] = [gone.away_after for gone in left]
    report.notes["abandoned games ended"] = [gone.claimed for gone in left]
    for gone in left:
        room = gone.table.room
        if gone.away_after is None or gone.away_after > bound:
            report.problems.append(f"{room}: away after {gone.away_after} s, not within {bound}")
        if gone.claimed != "abandonment, winner seat 1":
            report.problems.append(f"{room}: the claim ended it as {gone.claimed}")


async def slow_spectator_drill(
    deployed: Deployment, games: int = 32, seconds: float = 75.0
) -> DrillReport:
    """A spectator watches every game but reads nothing; rounds of ``games`` games are played
    (new rooms it also watches) until its process lets go of it, for at most ``seconds``.

    Two things can end it: its send queue (``Settings.send_queue`` frames) fills, and the
    process counts a 1013 close; or uvicorn's keepalive gets no pong (a ping every 20 s,
    20 s to answer).  Before the send queue fills, the socket buffers on the way fill, above
    all the server's kernel send buffer (autotuned up to the ``tcp_wmem`` maximum, 4 MB on
    Linux), which takes some ten thousand diffs.
    """
    report = DrillReport("slow spectator")
    topology = deployed.topology
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    watch = Watch(redis, ledger)
    stuck = StuckSpectator(topology)
    await asyncio.to_thread(stuck.open)
    index = int(stuck.served_by[1:])
    values: dict[str, float] = {}
    try:
        watch.start()
        rounds = 0
        while time.perf_counter() - started < seconds:
            pairs = await seat_pairs(topology, ledger, games, 0, rated=False)
            tables = [await new_table(pair, ledger) for pair in pairs]
            await asyncio.to_thread(stuck.watch, [t.room for t in tables])
            await gather_or_fail([asyncio.create_task(play_through(t, ledger)) for t in tables])
            for table in tables:
                for link in table.links:
                    await link.close()
            rounds += 1
            # Every other socket is closed now: the process should hold none once it let go.
            values = await asyncio.to_thread(metrics, topology, index)
            if values["browne_connections"] == 0:
                break
        else:
            report.problems.append(f"the stuck spectator was still served after {seconds} s")
        report.seconds = time.perf_counter() - started
        report.notes["rounds"] = rounds
        report.notes["let go after s"] = round(report.seconds, 1)
        report.notes["closed for a full send queue (1013)"] = int(
            values.get('browne_closes_total{code="1013"}', 0)
        )
        report.notes["moves the stuck spectator was sent"] = len(ledger.acks)
        report.notes["server RSS MB"] = process_rss_mb(topology.servers[index].pid)
    except Exception as error:  # a stuck game: still count what Redis kept
        report.problems.append(failure(error))
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await watch.stop()
        await redis.aclose()
        await close_all(ledger)
        stuck.close()
    await account(report, topology, ledger, watch)
    return report


async def play_through(table: Table, ledger: Ledger) -> None:
    await play_table(table, ledger)
    await finish_table(table)


class StuckSpectator:
    """A websocket client (written out by hand, so nothing reads for it) that joins rooms and
    never reads a byte: its receive buffer is kept small so the server feels it at once."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.sock: socket.socket | None = None
        self.served_by = "?"
        self.sent = 0
        self.watched: list[str] = []

    def open(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(WAIT_SECONDS)
        sock.connect(("127.0.0.1", self.topology.listen_port))
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /ws?token={token(new_guest())} HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{self.topology.listen_port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        sock.sendall(request.encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):  # the response head only, byte by byte
            byte = sock.recv(1)
            if not byte:
                raise ConnectionError("closed during the handshake")
            head += byte
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode(errors="replace"))
        found = re.search(rb"(?im)^x-served-by: *(\S+)", head)
        self.served_by = found.group(1).decode() if found else "?"
        self.sock = sock

    def watch(self, rooms: list[str]) -> None:
        """Leave the rooms watched so far (a connection may watch 32) and join ``rooms``."""
        for room in self.watched:
            self._send({"t": "leave", "id": f"l-{room}", "room": room})
        for room in rooms:
            self._send({"t": "join", "id": f"j-{room}", "room": room})
        self.watched = list(rooms)

    def _send(self, body: dict[str, Any]) -> None:
        assert self.sock is not None
        payload = msgpack.packb(body, use_bin_type=True)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        if len(payload) < 126:
            head = bytes([0x82, 0x80 | len(payload)])
        else:
            head = bytes([0x82, 0x80 | 126]) + len(payload).to_bytes(2, "big")
        try:
            self.sock.sendall(head + mask + masked)
            self.sent += 1
        except OSError:
            pass  # closed by the server: nothing more to watch

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


def process_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def failure(error: BaseException) -> str:
    """An error that stopped a drill, and the lines of the drill where it came from."""
    here = [
        f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == __file__
    ]
    return f"{type(error).__name__}: {error} (at {', '.join(here[-3:])})"


async def wait_or_fail(
    event: asyncio.Event, tasks: list[asyncio.Task[None]], timeout: float = WAIT_SECONDS
) -> None:
    """Wait for ``event``; if a task fails first, cancel them all and raise its error."""
    waiter = asyncio.create_task(event.wait())
    pending: set[asyncio.Task[Any]] = {waiter, *tasks}
    try:
        async with asyncio.timeout(timeout):
            while not waiter.done():
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task is not waiter:
                        task.result()
    except BaseException:
        waiter.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(waiter, *tasks, return_exceptions=True)
        raise


async def gather_or_fail(
    tasks: list[asyncio.Task[None]], timeout: float = 2 * WAIT_SECONDS
) -> None:
    """Wait for every task; on the first failure cancel the others, then raise it."""
    try:
        async with asyncio.timeout(timeout):
            await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def hold(seconds: float, tasks: list[asyncio.Task[None]]) -> None:
    """Let ``seconds`` pass; if one of ``tasks`` fails meanwhile, raise its error."""
    deadline = time.monotonic() + seconds
    pending = set(tasks)
    while pending and deadline > time.monotonic():
        done, pending = await asyncio.wait(
            pending, timeout=deadline - time.monotonic(), return_when=asyncio.FIRST_COMPLETED
        )
        for task in done:
            task.result()
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))


async def close_all(ledger: Ledger) -> None:
    for link in ledger.links:
        await link.close()


DRILLS: dict[str, Callable[..., Awaitable[DrillReport]]] = {
    "load": load_drill,
    "faults": faults_drill,
    "slow_spectator": slow_spectator_drill,
}
