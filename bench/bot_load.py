"""``python -m bench.bot_load``: do bot games slow people's games?  Move round trips with and
without 50 concurrent bot games on the same machine.

Starts its own redis-server and one ``python -m server`` (no bots of its own), then measures
``--pairs`` pairs of guests playing each other (a move every ``--think`` seconds each, sent as
soon as it is their turn after that pause): the round trip of each move, from sending it to
its ``ok``.  First with no bots, then with ``python -m bots --workers W`` running and
``--bot-games`` guests each playing a bot of ``--level`` (a new game when one ends).  Prints
the p50 and p99 of both phases.  Imports anything.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.server_load import percentile
from bots.accounts import bot_player
from bots.worker import Position
from client import Client, RoomView, ServerReplyError
from lobby.identity import issue_token, new_guest
from server.redis.embedded_redis import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent
SECRET = b"bench-bot-load"
STALL = 60.0


@dataclass
class Phase:
    round_trips: list[float] = field(default_factory=list)
    bot_moves: int = 0
    bot_games: int = 0
    stalls: int = 0
    """Waits of more than STALL seconds for the opponent's move (given up, game resigned)."""


def token() -> str:
    return issue_token(SECRET, new_guest(), time.time())


def my_turn_or_over(me: str) -> Any:
    def check(view: RoomView) -> bool:
        doc = view.doc
        assert doc is not None
        return doc["outcome"] is not None or doc["seats"][doc["to_move"]]["id"] == me

    return check


async def random_move(client: Client, room: str, position: Position, rng: random.Random) -> float:
    """Play a random legal move in the client's turn; the round trip in seconds."""
    view = client.rooms[room]
    assert view.doc is not None
    state = position.catch_up(view.doc)
    move = rng.choice(list(position.game.legal_moves(state)))
    sent = time.perf_counter()
    await client.move(room, position.game.move_text(move), version=view.version)
    return time.perf_counter() - sent


async def challenged_game(
    challenger: Client, accepter: Client | None, game: str, target: str | None
) -> str:
    """A room between the two (or the challenger and a bot, which accepts on its own)."""
    made = await challenger.challenge(game, colour="random", target=target)
    if accepter is not None:
        return await accepter.accept(made["id"])
    await challenger.wait_lobby(
        lambda _: any(
            e["t"] == "challenge"
            and e["challenge"]["id"] == made["id"]
            and e["challenge"]["status"] == "accepted"
            for e in challenger.lobby_events
        ),
        timeout=60,
    )
    return str(made["id"])


async def human_pair(args: argparse.Namespace, phase: Phase, until: float, seed: int) -> None:
    rng = random.Random(seed)
    ann = await Client.connect(args.ws_url, token())
    bob = await Client.connect(args.ws_url, token())
    try:
        await ann.follow_lobby()
        while time.monotonic() < until:
            room = await challenged_game(ann, bob, args.game, target=None)
            await asyncio.gather(*(c.join(room) for c in (ann, bob)))
            await asyncio.gather(
                *(play_side(c, room, args, phase, until, rng, True) for c in (ann, bob))
            )
    finally:
        await ann.close()
        await bob.close()


async def bot_opponent(args: argparse.Namespace, phase: Phase, until: float, seed: int) -> None:
    rng = random.Random(seed)
    guest = await Client.connect(args.ws_url, token())
    try:
        await guest.follow_lobby()
        while time.monotonic() < until:
            room = await challenged_game(guest, None, args.game, bot_player(args.level).name)
            await guest.join(room)
            await play_side(guest, room, args, phase, until, rng, False)
            phase.bot_games += 1
    finally:
        await guest.close()


async def play_side(
    client: Client,
    room: str,
    args: argparse.Namespace,
    phase: Phase,
    until: float,
    rng: random.Random,
    measured: bool,
) -> None:
    assert client.player is not None
    me = client.player["id"]
    view = client.rooms[room]
    assert view.doc is not None
    position = Position.of(view.doc)
    while time.monotonic() < until:
        try:
            view = await client.wait_for(room, my_turn_or_over(me), timeout=STALL)
        except TimeoutError:
            phase.stalls += 1
            break
        assert view.doc is not None
        if view.doc["outcome"] is not None:
            return
        if not measured:
            phase.bot_moves += 1
        await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
        try:
            trip = await random_move(client, room, position, rng)
        except ServerReplyError as error:
            if error.code == "game_over":
                return
            raise
        if measured:
            phase.round_trips.append(trip)
    with contextlib.suppress(ServerReplyError, ConnectionError, TimeoutError):
        await client.resign(room)


async def measure(args: argparse.Namespace, bot_games: int) -> Phase:
    phase = Phase()
    until = time.monotonic() + args.seconds
    tasks = [human_pair(args, phase, until, seed) for seed in range(args.pairs)]
    tasks += [bot_opponent(args, phase, until, 1000 + seed) for seed in range(bot_games)]
    await asyncio.gather(*tasks)
    return phase


def start(
    command: list[str], env: dict[str, str], ready: str, log: Path | None = None
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    stdout = process.stdout
    assert stdout is not None
    for line in stdout:
        if line.startswith(ready):
            # keep reading: a child whose pipe fills up blocks on its next log line
            threading.Thread(target=_keep_reading, args=(stdout, log), daemon=True).start()
            return process
    raise RuntimeError(f"{command} did not start")


def _keep_reading(source: IO[str], log: Path | None) -> None:
    if log is None:
        for _ in source:
            pass
        return
    with log.open("a") as sink:
        for line in source:
            sink.write(line)
            sink.flush()


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def report(name: str, phase: Phase, seconds: float) -> str:
    trips = phase.round_trips
    return (
        f"{name:<22} {len(trips):>7} {percentile(trips, 0.5) * 1000:>8.1f} "
        f"{percentile(trips, 0.99) * 1000:>8.1f} {phase.bot_moves / seconds:>12.1f} "
        f"{phase.bot_games:>10} {phase.stalls:>7}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_load", description=__doc__)
    parser.add_argument("--bot-games", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="bot worker processes")
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=10, help="pairs of people measured")
    parser.add_argument("--think", type=float, default=0.5, help="seconds before each move")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--game", default="osbox")
    parser.add_argument("--log", type=Path, default=None, help="append the bots' log here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        redis = EmbeddedRedis(Path(directory) / "redis", tcp=True)
        redis_url = redis.start()
        port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "PORT": str(port),
            "SESSION_SECRET": SECRET.decode(),
            "BOT_WORKERS": "0",
            "PYTHONPATH": str(ROOT),
        }
        args.ws_url = f"ws://127.0.0.1:{port}/ws"
        server = start([sys.executable, "-m", "server"], env, "listening on")
        bots = None
        try:
            alone = asyncio.run(measure(args, 0))
            bots = start(
                [sys.executable, "-m", "bots", "--workers", str(args.workers)]
                + ["--server", f"http://127.0.0.1:{port}", "--redis", redis_url],
                env,
                "bots ",
                args.log,
            )
            loaded = asyncio.run(measure(args, args.bot_games))
        finally:
            if bots is not None:
                stop(bots)
            stop(server)
            redis.stop()
    print(
        f"{args.pairs} pairs of people playing {args.game}, a move every ~{args.think} s each; "
        f"{args.seconds:.0f} s per phase; bots: {args.workers} worker processes, level "
        f"{args.level}, on {os.cpu_count()} cores"
    )
    header = f"{'':<22} {'moves':>7} {'p50 ms':>8} {'p99 ms':>8} {'bot moves/s':>12}"
    print(f"{header} {'bot games':>10} {'stalls':>7}")
    print(report("no bots", alone, args.seconds))
    print(report(f"{args.bot_games} bot games", loaded, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
