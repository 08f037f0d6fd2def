"""``python -m bots``: the bot pool: N worker processes and the part that accepts challenges.

The supervisor creates the bot accounts (idempotently), starts ``--workers`` processes of
:mod:`bots.worker` and starts a new one whenever one exits, so a game whose worker died is
taken over (after the claim delay) and goes on.  In its own event loop it follows the lobby
as every bot (which lists the bots as online) and accepts each challenge made to one, then
queues the game for the workers.  Several supervisors on one server may run at once: accepting
is atomic, so each challenge is queued once.  Rated challenges are accepted: the server rates
games against a bot in the game's computer pool (lobby.ratings.rating_pool), apart from people's.
It stops when the process that started it is gone (``--parent``).
Imports bots, client and lobby.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import redis.asyncio as aioredis

from bots import queue
from bots.accounts import bot_token, ensure_accounts, shared_secret
from bots.worker import add_shared_options, run_command, watch_parent, ws_url
from client import Client, ServerReplyError
from lobby.identity import Player
from lobby.store.common import connect

log = logging.getLogger("bots.pool")

RESTART_DELAY = 0.5
"""Seconds between a worker's exit and its replacement (no tight loop on a crashing worker)."""


@dataclass
class Acceptor:
    """Follows the lobby as one bot and accepts every challenge made to it."""

    redis: aioredis.Redis
    ws_url: str
    secret: bytes
    player: Player
    handled: set[str] = field(default_factory=set)

    async def run(self) -> None:
        delay = 0.1
        while True:
            try:
                client = await Client.connect(self.ws_url, bot_token(self.secret, self.player))
            except (OSError, ConnectionError, TimeoutError) as error:
                log.warning("%s cannot connect: %s", self.player.name, error)
                await asyncio.sleep(delay)
                delay = min(5.0, delay * 2)
                continue
            delay = 0.1
            log.info("%s follows the lobby", self.player.name)
            try:
                lobby = await client.follow_lobby()
                for challenge in list(lobby["incoming"]):
                    await self.answer(client, challenge)
                while True:
                    # Read the raw events rather than the client's lobby copy: an event that
                    # lands with the snapshot reply is recorded there but may miss the copy.
                    await client.wait_lobby(partial(_has_events, client), timeout=3600)
                    events = list(client.lobby_events)
                    del client.lobby_events[: len(events)]
                    for event in events:
                        if self._is_new_challenge(event):
                            await self.answer(client, event["challenge"])
            except (ConnectionError, TimeoutError) as error:
                log.warning("%s lost the lobby: %s", self.player.name, error)
            except Exception:
                log.exception("%s: the lobby feed failed; reconnecting", self.player.name)
                await asyncio.sleep(delay)
            finally:
                await client.close()

    def _is_new_challenge(self, event: dict[str, Any]) -> bool:
        """An open challenge made to this bot that it has not answered yet."""
        if event.get("t") != "challenge":
            return False
        challenge = event["challenge"]
        target = challenge.get("target") or {}
        return (
            challenge.get("status") == "open"
            and target.get("id") == self.player.id
            and challenge["id"] not in self.handled
        )

    async def answer(self, client: Client, challenge: dict[str, Any]) -> None:
        """Accept the challenge (rated ones too: they count in the game's computer pool) and
        queue the game."""
        challenge_id = str(challenge["id"])
        if challenge_id in self.handled:
            return
        self.handled.add(challenge_id)
        try:
            room = await client.accept(challenge_id)
        except ServerReplyError as error:
            log.info("%s: challenge %s not taken: %s", self.player.name, challenge_id, error)
            return
        await queue.enqueue(self.redis, room, self.player.id)
        log.info("%s accepted challenge %s: room %s queued", self.player.name, challenge_id, room)


@dataclass
class Supervisor:
    """Keeps ``workers`` worker processes running; it prints ``{name} {pid} {started}`` when
    one starts and ``{name} {pid} {exited}`` when one exits (the bot workers' lines are
    what the tests read to find them, so other processes say it in other words)."""

    command: list[str]
    workers: int
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    name: str = "bot worker"
    started: str = "started"
    exited: str = "exited"

    def start_one(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen([*self.command, "--parent", str(os.getpid())])
        print(f"{self.name} {process.pid} {self.started}", flush=True)
        return process

    async def run(self, stop: asyncio.Event) -> None:
        self.processes = [self.start_one() for _ in range(self.workers)]
        try:
            while not stop.is_set():
                for index, process in enumerate(self.processes):
                    code = process.poll()
                    if code is not None:
                        log.warning("%s %s exited with %s: replaced", self.name, process.pid, code)
                        print(f"{self.name} {process.pid} {self.exited}", flush=True)
                        await asyncio.sleep(RESTART_DELAY)
                        self.processes[index] = self.start_one()
                try:
                    await asyncio.wait_for(stop.wait(), 0.2)
                except TimeoutError:
                    pass
        finally:
            for process in self.processes:
                process.terminate()
            for process in self.processes:
                try:
                    await asyncio.to_thread(process.wait, 10)
                except subprocess.TimeoutExpired:
                    process.kill()


async def amain(args: argparse.Namespace) -> None:
    client = await connect(args.redis)
    try:
        configured = os.environ.get("SESSION_SECRET")
        secret = await shared_secret(client, configured.encode() if configured else None)
        players = await ensure_accounts(client)
        await queue.ensure_group(client)
        url = ws_url(args.server)
        command = [
            sys.executable,
            "-m",
            "bots.worker",
            "--server",
            args.server,
            "--redis",
            args.redis,
            "--slots",
            str(args.slots),
            "--claim-idle",
            str(args.claim_idle),
            "--rematch-wait",
            str(args.rematch_wait),
        ]
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        tasks = [asyncio.create_task(Acceptor(client, url, secret, p).run()) for p in players]
        tasks.append(asyncio.create_task(watch_parent(args.parent, stop)))
        print(f"bots {', '.join(p.name for p in players)} serving {url}", flush=True)
        analyst = [sys.executable, "-m", "bots.analyst", "--redis", args.redis]
        analysts = Supervisor(
            analyst, args.analysts, name="game analyst", started="is running", exited="stopped"
        )
        tasks.append(asyncio.create_task(analysts.run(stop)))
        try:
            await Supervisor(command, args.workers).run(stop)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await client.aclose()


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bots", description=__doc__)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("BOT_WORKERS", "1")))
    parser.add_argument(
        "--analysts",
        type=int,
        default=int(os.environ.get("ANALYSTS", "1")),
        help="processes that analyse finished games (python -m bots.analyst)",
    )
    add_shared_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(amain, parser(), argv)


def _has_events(client: Client, _lobby: dict[str, Any]) -> bool:
    return bool(client.lobby_events)
