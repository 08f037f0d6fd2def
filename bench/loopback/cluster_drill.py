"""The failover drill on a Redis Cluster: games go on while a master and then a server die.

A cluster of six server processes on loopback (three masters with a replica each, AOF with
``appendfsync always``, :mod:`bench.loopback.cluster`) and P ``python -m server`` processes
on it acknowledging a move once a replica holds it (``REDIS_REPLICA_ACKS=1``).  K games of
the loopback tic-tac-toe on a 6x6 board (six in a row) are played by two players each, on different
processes, resending an unanswered move with the same request id and reconnecting (to the
next process, resuming from the version they hold) when their socket closes.  A third into
the run the master holding the most games is SIGKILLed; two thirds in, a server process is;
then the dead master is started again (it rejoins as a replica).  The report: games, moves
acknowledged, acknowledged moves missing from Redis (lost), moves stored twice (doubled),
player views still behind Redis 2 s after the end (stuck), and the longest wait for an
acknowledgement.  Rooms are made directly in the cluster (the lobby's part is in the
single-Redis drills).  May import anything; only bench.drills imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.loopback import tictactoe
from bench.loopback.cluster import ClusterOfServers
from bench.loopback.drills import DrillReport
from bench.loopback.topology import ROOT, SECRET, Process
from client import Client, ServerReplyError
from lobby.identity import Player, issue_token, new_guest
from server.redis import store
from server.redis.cluster import cluster_client
from server.rooms import SeatHolder, new_room

OPTIONS = "-size=6"
MOVE_PAUSE = 0.1
"""Seconds each game waits between its moves, so a fault lands in the middle of games."""
RESEND_PAUSE = 0.1
SETTLE = 2.0
"""Seconds after the end by which every view must have caught up with Redis."""
_LOST_LINK = (ConnectionClosed, ConnectionError, OSError, InvalidHandshake, TimeoutError)


@dataclass
class _Servers:
    processes: list[Process]
    ports: list[int]
    alive: list[bool] = field(default_factory=list)

    def ws_url(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.ports[index]}/ws"


@dataclass
class _Player:
    """One player's socket and the server it is on; ``view`` is kept across reconnections."""

    player: Player
    server: int
    client: Client | None = None


@dataclass
class _Tally:
    acked: dict[str, dict[int, str]] = field(default_factory=dict)
    """Room -> version -> the move acknowledged at it."""
    reconnects: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    longest_pause: float = 0.0
    stopped: list[str] = field(default_factory=list)


async def cluster_drill(directory: Path, games: int, servers: int) -> DrillReport:
    """Run the drill in ``directory`` (logs and the nodes' data) and report."""
    report = DrillReport("cluster_failover")
    started = time.monotonic()
    cluster = ClusterOfServers(directory / "cluster")
    deployment = None
    with tictactoe.registered():
        try:
            await asyncio.to_thread(cluster.start)
            deployment = await _start_servers(directory, cluster, servers)
            await _play(cluster, deployment, games, report)
        finally:
            if deployment is not None:
                for process in deployment.processes:
                    process.kill()
            cluster.stop()
    report.seconds = time.monotonic() - started
    return report


async def _start_servers(directory: Path, cluster: ClusterOfServers, count: int) -> _Servers:
    env = {
        **{k: v for k, v in os.environ.items() if k != "REDIS_URL"},
        "REDIS_URL": cluster.url,
        "REDIS_REPLICA_ACKS": "1",
        "HOST": "127.0.0.1",
        "PORT": "0",
        "SESSION_SECRET": SECRET,
        "PYTHONPATH": str(ROOT),
    }
    processes = [
        Process(
            f"server {index}",
            [sys.executable, "-m", "bench.loopback.serve"],
            directory / f"server{index}.log",
            env,
            ready_line="listening on",
        )
        for index in range(count)
    ]
    for process in processes:
        await asyncio.to_thread(process.start)
    ports = [_port(process) for process in processes]
    return _Servers(processes, ports, [True] * count)


async def _play(
    cluster: ClusterOfServers, servers: _Servers, games: int, report: DrillReport
) -> None:
    client: Any = cluster_client(cluster.url, 16)
    tally = _Tally()
    rooms = [f"drill-{index}" for index in range(games)]
    try:
        tables = []
        for index, room in enumerate(rooms):
            first, second = new_guest(), new_guest()
            seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
            await store.create_room(client, new_room(room, "tictactoe", OPTIONS, seats))
            count = len(servers.ports)
            tables.append([_Player(first, index % count), _Player(second, (index + 1) % count)])
        tally.acked = {room: {} for room in rooms}
        play = asyncio.gather(
            *(_game(room, table, servers, tally) for room, table in zip(rooms, tables, strict=True))
        )
        faults = asyncio.create_task(_faults(cluster, servers, client, rooms, report))
        async with asyncio.timeout(300):
            await play
        await faults
        await asyncio.sleep(SETTLE)
        await _check(client, rooms, tables, tally, report)
    finally:
        for table in tables:
            for seat in table:
                if seat.client is not None:
                    with contextlib.suppress(Exception):
                        await seat.client.close()
        await client.aclose()


async def _faults(
    cluster: ClusterOfServers,
    servers: _Servers,
    client: Any,
    rooms: list[str],
    report: DrillReport,
) -> None:
    await asyncio.sleep(1.0)
    owners = Counter(client.get_node_from_key(store.room_key(room)).port for room in rooms)
    port = owners.most_common(1)[0][0]
    victim = next(node for node in cluster.nodes if node.port == port)
    killed_at = time.monotonic()
    cluster.kill(victim)
    await asyncio.to_thread(cluster.wait_ok)
    report.notes["master killed"] = f"{victim.address}, {owners[port]} of {len(rooms)} games"
    report.notes["replica took over after"] = f"{time.monotonic() - killed_at:.1f} s"
    await asyncio.sleep(1.0)
    servers.alive[0] = False
    servers.processes[0].kill()
    report.notes["server killed"] = "server 0"
    await asyncio.sleep(1.0)
    await asyncio.to_thread(cluster.restart, victim)
    await asyncio.to_thread(cluster.wait_replicated)
    report.notes["dead master back as replica"] = victim not in cluster.masters()


async def _game(room: str, table: list[_Player], servers: _Servers, tally: _Tally) -> None:
    number = 0
    while True:
        view = await _on_socket(table[0], room, servers, tally, partial(_latest, room=room))
        doc = view.doc
        assert doc is not None
        if doc["outcome"] is not None or doc["to_move"] is None:
            return
        mover_id = doc["seats"][doc["to_move"]]["id"]
        seat = next(s for s in table if s.player.id == mover_id)
        own = await _on_socket(
            seat, room, servers, tally, partial(_at, room=room, version=view.version)
        )
        text = ""
        if own.doc is not None:
            state = tictactoe.from_data(own.doc["data"])
            text = tictactoe.move_text(next(tictactoe.legal_moves(state)))
        request = f"{room}-{number}"
        started = time.monotonic()
        version = await _resend(seat, room, servers, tally, text, own.version, request)
        tally.longest_pause = max(tally.longest_pause, time.monotonic() - started)
        tally.acked[room][version] = text
        number += 1
        for other in table:
            await _on_socket(other, room, servers, tally, partial(_at, room=room, version=version))
        await asyncio.sleep(MOVE_PAUSE)


async def _resend(
    seat: _Player,
    room: str,
    servers: _Servers,
    tally: _Tally,
    text: str,
    version: int,
    request: str,
) -> int:
    while True:
        try:
            client = await _connected(seat, room, servers, tally)
            return await client.move(room, text, version=version, request_id=request)
        except ServerReplyError as error:
            tally.errors[error.code] += 1
            if error.code != "unavailable":
                raise
        except _LOST_LINK:
            await _drop(seat)
        await asyncio.sleep(RESEND_PAUSE)


async def _on_socket(seat: _Player, room: str, servers: _Servers, tally: _Tally, wait: Any) -> Any:
    """``wait(client)`` on the seat's socket, reconnecting it while it is lost."""
    while True:
        try:
            client = await _connected(seat, room, servers, tally)
            return await wait(client)
        except _LOST_LINK:
            await _drop(seat)
            await asyncio.sleep(RESEND_PAUSE)


async def _connected(seat: _Player, room: str, servers: _Servers, tally: _Tally) -> Client:
    if seat.client is not None and not seat.client.closed:
        return seat.client
    held = seat.client.rooms.get(room) if seat.client is not None else None
    if seat.client is not None:
        tally.reconnects += 1
    while not servers.alive[seat.server]:
        seat.server = (seat.server + 1) % len(servers.ports)
    token = issue_token(SECRET.encode(), seat.player, 0, ttl=10**10)
    client = await Client.connect(servers.ws_url(seat.server), token)
    if held is not None and held.doc is not None:
        client.rooms[room] = held  # the page keeps its view and resumes from its version
        await client.join(room, version=held.version)
    else:
        await client.join(room)
    seat.client = client
    return client


async def _drop(seat: _Player) -> None:
    """The seat's socket is lost: close it, keeping its views to resume from."""
    if seat.client is not None:
        with contextlib.suppress(Exception):
            await seat.client.close()


async def _latest(client: Client, room: str) -> Any:
    return await client.wait_for(room, lambda view: not view.syncing, timeout=30)


async def _at(client: Client, room: str, version: int) -> Any:
    return await client.wait_version(room, version, timeout=30)


async def _check(
    client: Any,
    rooms: list[str],
    tables: list[list[_Player]],
    tally: _Tally,
    report: DrillReport,
) -> None:
    report.games = len(rooms)
    report.reconnects = tally.reconnects
    report.errors = tally.errors
    for room, table in zip(rooms, tables, strict=True):
        doc = await store.load_doc(client, room)
        if doc is None:
            report.problems.append(f"{room} is gone")
            continue
        record = doc["record"]
        report.games_finished += doc["outcome"] is not None
        report.moves_in_redis += len(record)
        # Versions count other commits too (presence, spectators): the acknowledged moves, in
        # the order of their versions, must be the record itself.
        acked = [text for _, text in sorted(tally.acked[room].items())]
        report.moves_acked += len(acked)
        report.moves_lost += sum((Counter(acked) - Counter(record)).values())
        report.moves_applied_twice += sum((Counter(record) - Counter(acked)).values())
        if acked != record and not report.moves_lost:
            report.problems.append(f"{room}: stored {record}, acknowledged {acked}")
        for seat in table:
            view = seat.client.rooms.get(room) if seat.client is not None else None
            if view is None or view.version < doc["version"]:
                report.views_stuck += 1
    report.notes["longest wait for an acknowledgement"] = f"{tally.longest_pause:.2f} s"
    for name, count in (
        ("lost", report.moves_lost),
        ("doubled", report.moves_applied_twice),
        ("stuck", report.views_stuck),
    ):
        if count:
            report.problems.append(f"{count} {name}")
    if report.games_finished < report.games:
        report.problems.append(f"{report.games - report.games_finished} games did not finish")


def _port(process: Process) -> int:
    for line in process.lines:
        found = re.match(r"listening on http://[^:]+:(\d+)", line)
        if found:
            return int(found.group(1))
    raise RuntimeError(f"{process.name} printed no port")
