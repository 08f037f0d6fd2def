"""The deployment drills: real games through HAProxy while the deployment is hurt.

* ``load``: many games at once, the two players of each game on different server processes,
  spectators too; every client must see every version once and in order.
* ``kill_server``: SIGKILL one server process while many games are live; its clients
  reconnect through HAProxy, rejoin with their versions and resend what went unanswered.
* ``restart_redis``: SIGKILL and restart redis-server mid-play; the servers reconnect by
  themselves, clients see ``unavailable`` errors or a delay and resend.
* ``slow_spectator``: a spectator that stops reading watches the games; the others play on
  and its server process lets it go (a full send queue, close code 1013, or no keepalive pong).

Every drill ends by killing Redis once more and starting it from its append-only file, then
counts what it holds: an acknowledged move is *lost* if the room's record does not have it
at its ply, and a finished game has a move *applied twice* if its record holds more moves
than were acknowledged.  Each player resends an unanswered move with the same request id and
version until it is answered, which the protocol makes safe.  Moves are random legal moves
of the registered games (``rules.GAMES``), seeded per game.  Used by
tests/deploy/test_drills.py and ``python -m bench.drills``; may import anything.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import re
import socket
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from lobby.identity import Player, issue_token, new_guest
from rules import GAMES, find_game
from server import store
from server.client import Client, RoomView, ServerReplyError
from server.rooms import SeatHolder, new_room
from tests.deploy.topology import SECRET, Topology

SHORT_OPTIONS = {"ankor": "-size=3", "boche": "-size=4"}
"""Options that keep random games short, where a game's defaults make long ones."""
RETRIED = frozenset({"unavailable", "busy", "rate_limited"})
"""Error codes after which the protocol says to resend the same request."""
WAIT_SECONDS = 30.0
"""The longest any client waits for one thing before the drill fails."""
STALL_SECONDS = 2.0
"""A client that waited this long for a change asks the server to sync its view."""
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
    reconnects: int = 0
    stalled_syncs: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    notes: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stopped: bool = False
    """A game stopped with an error before the end, so the clients never settled."""


class Ledger:
    """Acknowledged moves of a drill, and an event when their count reaches a mark."""

    def __init__(self) -> None:
        self.acks: list[Ack] = []
        self.errors: Counter[str] = Counter()
        self.reconnects = 0
        self.stalled_syncs = 0
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


def token(player: Player) -> str:
    return issue_token(SECRET.encode(), player, time.time())


class Link:
    """One person's websocket through HAProxy, which reconnects and rejoins when it drops."""

    def __init__(self, ws_url: str, player: Player, ledger: Ledger) -> None:
        self.ws_url = ws_url
        self.player = player
        self.ledger = ledger
        self.client: Client | None = None
        self.served_by: list[str] = []
        """The server line (``s0``, ``s1``...) of each connection, from HAProxy's header."""
        self.seen: dict[str, list[tuple[int, int, str | None]]] = {}
        """Per room, each applied diff's (version, record length, last move)."""

    async def open(self, avoid: str | None = None) -> None:
        """Connect; with ``avoid``, reconnect (a few times) until another process serves us."""
        for _ in range(8):
            client = await Client.connect(self.ws_url, token(self.player), timeout=WAIT_SECONDS)
            served = client.socket.response.headers.get("X-Served-By", "?")
            if served != avoid:
                break
            await client.close()
        self._adopt(client, served)

    def _adopt(self, client: Client, served: str) -> None:
        self.client = client
        self.served_by.append(served)
        client.on_diff = self._on_diff

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

    async def join(self, room: str) -> RoomView:
        return await self._retry(lambda: self.current.join(room))

    async def reconnect(self) -> None:
        """A new connection through HAProxy that rejoins every room from its version."""
        old = self.current
        await old.close()
        self.ledger.reconnects += 1
        deadline = time.monotonic() + WAIT_SECONDS
        attempt = 0
        while True:
            try:
                client = await Client.connect(self.ws_url, token(self.player), timeout=10)
                served = client.socket.response.headers.get("X-Served-By", "?")
                for room, view in old.rooms.items():
                    client.rooms[room] = view
                    await client.join(room, version=view.version)
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
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.player.id} could not reconnect")
            attempt += 1
            await backoff(attempt)

    async def wait_for(self, room: str, predicate: Callable[[RoomView], bool]) -> RoomView:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                return await self.current.wait_for(room, predicate, STALL_SECONDS)
            except ConnectionError:
                await self.reconnect()
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
                # Nothing came for a while: ask for what this view may have missed.  Around a
                # Redis restart diffs can go astray (see the report of bench.drills): the
                # server's catch-up after its pub/sub link returns is not retried when Redis
                # is still loading, and server.client ignores an error answering its own
                # sync and then stays "syncing" for good.
                view = self.current.rooms[room]
                self.ledger.stalled_syncs += 1
                body = {"t": "sync", "room": room, "version": view.version}
                await self._retry(lambda body=body: self.current.request(dict(body)))

    async def move(self, room: str, text: str, version: int, request_id: str) -> int:
        """Send the move until it is answered; the version it committed as."""
        return await self._retry(
            lambda: self.current.move(room, text, version=version, request_id=request_id)
        )

    async def _retry(self, request: Callable[[], Any]) -> Any:
        attempt = 0
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                return await request()
            except ServerReplyError as error:
                if error.code not in RETRIED:
                    raise
                self.ledger.errors[error.code] += 1
                attempt += 1
                await backoff(attempt)
            except (ConnectionError, ConnectionClosed, TimeoutError) as error:
                self.ledger.errors[type(error).__name__] += 1
                await self.reconnect()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.player.id}: no answer within {WAIT_SECONDS} s")

    async def close(self) -> None:
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

    @property
    def links(self) -> list[Link]:
        return [*self.players, *self.spectators]


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
    return "server" if GAMES else "tests.e2e.serve"


async def set_tables(
    topology: Topology, redis: aioredis.Redis, ledger: Ledger, games: int, spectators: int
) -> list[Table]:
    """Create ``games`` rooms and connect their players on two different processes."""
    if not GAMES:
        from tests.server import tictactoe  # noqa: PLC0415

        GAMES[TEST_GAME] = tictactoe  # type: ignore[assignment]
    kinds = drill_games()
    tables = []
    for number in range(games):
        game, options = kinds[number % len(kinds)]
        first, second = new_guest(), new_guest()
        seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
        room = f"drill-{number}-{os.urandom(3).hex()}"
        await store.create_room(redis, new_room(room, game, options, seats))
        a, b = Link(topology.ws_url, first, ledger), Link(topology.ws_url, second, ledger)
        await a.open()
        await b.open(avoid=a.served_by[-1])
        watchers = [Link(topology.ws_url, new_guest(), ledger) for _ in range(spectators)]
        for watcher in watchers:
            await watcher.open()
        table = Table(room, game, (a, b), watchers, number)
        for link in table.links:
            await link.join(room)
        tables.append(table)
    return tables


async def play_table(table: Table, ledger: Ledger) -> None:
    """Both players play random legal moves until the game ends."""
    rng = random.Random(table.seed)
    await gather_or_fail(
        [asyncio.create_task(play_seat(table, link, rng, ledger)) for link in table.players]
    )


async def play_seat(table: Table, link: Link, rng: random.Random, ledger: Ledger) -> None:
    rules = find_game(table.game)
    me = link.player.id

    def my_turn_or_over(view: RoomView) -> bool:
        doc = view.doc
        assert doc is not None
        if doc["outcome"] is not None or doc["to_move"] is None:
            return True
        return bool(doc["seats"][doc["to_move"]]["id"] == me)

    while True:
        view = await link.wait_for(table.room, my_turn_or_over)
        doc = view.doc
        assert doc is not None
        if doc["outcome"] is not None or doc["to_move"] is None:
            return
        legal = doc["data"].get("legal") if isinstance(doc["data"], dict) else None
        if not legal:
            state = rules.from_data(doc["data"])
            legal = [rules.move_text(m) for m in rules.legal_moves(state)]
        text = rng.choice(sorted(legal))
        ply = len(doc["record"])
        version = await link.move(table.room, text, view.version, f"{table.room}.{ply}")
        ledger.acked(Ack(table.room, ply, text, version))
        # The acknowledgement may overtake the diff (after a gap the view syncs first):
        # decide the next move only on a view that holds this one.
        await link.wait_for(table.room, lambda v, version=version: v.version >= version)


async def settle(tables: list[Table], redis_url: str) -> None:
    """Wait until every client holds the room's version that Redis holds now."""
    redis = aioredis.Redis.from_url(redis_url)
    try:
        for table in tables:
            version = await store.current_version(redis, table.room)
            assert version is not None
            for link in table.links:
                await link.wait_for(table.room, lambda v, version=version: v.version >= version)
    finally:
        await redis.aclose()


async def account(
    report: DrillReport, topology: Topology, tables: list[Table], ledger: Ledger
) -> None:
    """Kill Redis, start it from its files, and count what survived against the ledger; the
    clients' views are checked too unless the drill stopped early."""
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
    report.stalled_syncs = ledger.stalled_syncs
    report.errors = ledger.errors
    if report.moves_lost:
        report.problems.append(f"{report.moves_lost} acknowledged moves are not in Redis")
    if report.moves_applied_twice:
        report.problems.append(f"{report.moves_applied_twice} moves in Redis were never acked")
    if report.games_finished != report.games:
        report.problems.append(f"only {report.games_finished}/{report.games} games finished")
    for table in tables:
        if settled and table.room in finished:
            for link in table.links:
                report.problems += check_views(link, table.room, records[table.room])


def check_views(link: Link, room: str, record: list[str]) -> list[str]:
    """What a client saw must be the stored game: every applied version newer than the last,
    every record it held a prefix of the final one, and the same final record."""
    problems = []
    who = f"{link.player.id} in {room}"
    view = link.current.rooms[room]
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
    applied = link.current.rooms[room].applied
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


# --- the drills --------------------------------------------------------------------------------


async def load_drill(topology: Topology, games: int = 24, spectators: int = 1) -> DrillReport:
    report = DrillReport("load across processes")
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    tables = await set_tables(topology, redis, ledger, games, spectators)
    try:
        await gather_or_fail([asyncio.create_task(play_table(t, ledger)) for t in tables])
        await settle(tables, topology.redis_url)
        report.seconds = time.perf_counter() - started
        for table in tables:
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
        report.problems.append(f"{type(error).__name__}: {error}")
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await redis.aclose()
        await close_all(tables)
    await account(report, topology, tables, ledger)
    return report


async def kill_server_drill(
    topology: Topology, games: int = 24, spectators: int = 1, victim: int = 0
) -> DrillReport:
    report = DrillReport("SIGKILL a server process")
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    tables = await set_tables(topology, redis, ledger, games, spectators)
    name = f"s{victim}"
    try:
        playing = [asyncio.create_task(play_table(t, ledger)) for t in tables]
        await wait_or_fail(ledger.mark(2 * games), playing)
        live = sum(not task.done() for task in playing)
        on_victim = [link for t in tables for link in t.links if link.served_by[-1] == name]
        await asyncio.to_thread(topology.kill_server, victim)
        report.notes["games live at the kill"] = live
        report.notes["sockets on the killed process"] = len(on_victim)
        await gather_or_fail(playing)
        await settle(tables, topology.redis_url)
        report.seconds = time.perf_counter() - started
        if live < games // 2:
            report.problems.append(f"only {live} games were live at the kill")
        # A socket whose game had nothing left to send it need not come back.
        back = [link for link in on_victim if len(link.served_by) > 1]
        report.notes["of which reconnected"] = len(back)
        if not back:
            report.problems.append(f"no socket of {name} reconnected")
        if any(link.served_by[-1] == name for link in back):
            report.problems.append(f"a socket reconnected to the killed {name}")
    except Exception as error:  # a stuck game: still count what Redis kept
        report.problems.append(f"{type(error).__name__}: {error}")
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await redis.aclose()
        await close_all(tables)
    await account(report, topology, tables, ledger)
    return report


async def restart_redis_drill(
    topology: Topology, games: int = 24, spectators: int = 1
) -> DrillReport:
    report = DrillReport("restart Redis")
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    tables = await set_tables(topology, redis, ledger, games, spectators)
    processes = range(len(topology.servers))
    try:
        playing = [asyncio.create_task(play_table(t, ledger)) for t in tables]
        await wait_or_fail(ledger.mark(2 * games), playing)
        live = sum(not task.done() for task in playing)
        before = [
            (await asyncio.to_thread(metrics, topology, i))["browne_moves_total"] for i in processes
        ]
        acked_before = len(ledger.acks)
        await asyncio.to_thread(topology.restart_redis)
        report.notes["games live at the restart"] = live
        await gather_or_fail(playing)
        await settle(tables, topology.redis_url)
        report.seconds = time.perf_counter() - started
        after = [
            (await asyncio.to_thread(metrics, topology, i))["browne_moves_total"] for i in processes
        ]
        report.notes["moves acked after the restart"] = len(ledger.acks) - acked_before
        report.notes["moves per process after the restart"] = [
            int(a - b) for a, b in zip(after, before, strict=True)
        ]
        if any(a <= b for a, b in zip(after, before, strict=True)):
            report.problems.append(
                f"a process committed nothing after the restart: {before} {after}"
            )
        health = [await asyncio.to_thread(healthz, topology, i) for i in processes]
        if health != [200] * len(health):
            report.problems.append(f"/healthz after the restart: {health}")
        if live < games // 2:
            report.problems.append(f"only {live} games were live at the restart")
    except Exception as error:  # a stuck game: still count what Redis kept
        report.problems.append(f"{type(error).__name__}: {error}")
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await redis.aclose()
        await close_all(tables)
    await account(report, topology, tables, ledger)
    return report


async def slow_spectator_drill(
    topology: Topology, games: int = 32, seconds: float = 75.0
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
    started = time.perf_counter()
    ledger = Ledger()
    redis = aioredis.Redis.from_url(topology.redis_url)
    stuck = StuckSpectator(topology)
    await asyncio.to_thread(stuck.open)
    index = int(stuck.served_by[1:])
    all_tables: list[Table] = []
    values: dict[str, float] = {}
    try:
        rounds = 0
        while time.perf_counter() - started < seconds:
            tables = await set_tables(topology, redis, ledger, games, 0)
            all_tables += tables
            await asyncio.to_thread(stuck.watch, [t.room for t in tables])
            await gather_or_fail([asyncio.create_task(play_table(t, ledger)) for t in tables])
            await settle(tables, topology.redis_url)
            await close_all(tables)
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
        report.problems.append(f"{type(error).__name__}: {error}")
        report.stopped = True
        report.seconds = time.perf_counter() - started
    finally:
        await redis.aclose()
        await close_all(all_tables)
        stuck.close()
    await account(report, topology, all_tables, ledger)
    return report


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


async def wait_or_fail(event: asyncio.Event, tasks: list[asyncio.Task[None]]) -> None:
    """Wait for ``event``; if a task fails first, cancel them all and raise its error."""
    waiter = asyncio.create_task(event.wait())
    pending: set[asyncio.Task[Any]] = {waiter, *tasks}
    try:
        async with asyncio.timeout(WAIT_SECONDS):
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


async def gather_or_fail(tasks: list[asyncio.Task[None]]) -> None:
    """Wait for every task; on the first failure cancel the others, then raise it."""
    try:
        async with asyncio.timeout(2 * WAIT_SECONDS):
            await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def close_all(tables: list[Table]) -> None:
    for table in tables:
        for link in table.links:
            await link.close()


DRILLS = {
    "load": load_drill,
    "kill_server": kill_server_drill,
    "restart_redis": restart_redis_drill,
    "slow_spectator": slow_spectator_drill,
}
