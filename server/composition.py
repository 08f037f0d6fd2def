"""The parts of one server process, built in one place and handed what they need.

:func:`compose` builds the fan-out, the room service, the lobby, tournament and push
services, the adjudicator and the work pools from the settings, a Redis client and the
session secret, each given its collaborators at construction; :func:`start` and :func:`stop`
run them in order.  Two callbacks point back at parts built later, since the parts need each
other both ways: a commit tells the lobby, the tournaments and the notifications
(``RoomService(on_commit=...)``), and a change another process committed tells the room
service to bring its copy forward (``Fanout(on_remote=...)``).  They are closures over the parts
of the same call, which nothing calls before :func:`start`.  The HTTP handlers read the
:class:`Runtime` from ``request.app.state.runtime`` (:func:`server.web.runtime_of`).
Imports redis and the server's services; no Starlette.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass

import redis.asyncio as aioredis

from lobby.accounts import LoginLimits
from lobby.challenges import ChallengeLimits
from lobby.work_pool import WorkPool
from protocol.errors import CloseCode
from server.adjudicator import Adjudicator
from server.connection import Connection
from server.fanout import Fanout
from server.lobby_service import LobbyService
from server.metrics import Metrics
from server.push_service import PushService, PushSettings
from server.redis.cluster import Durability
from server.redis.store import NO_REPLICAS
from server.rooms import IdleLimits, Room
from server.service import RoomService
from server.settings import Settings
from server.tournament_service import TournamentService

SHUT_WAIT = 5.0
"""Seconds a shutdown waits for the sockets it closed to finish leaving, before Redis goes."""

REPLAY_WORKERS = 1
REPLAY_WAITING = 8
"""Imported records replay one at a time per process, with at most 8 more waiting; a request
beyond that is refused (429, retry in a second)."""


@dataclass
class Runtime:
    """What :func:`compose` builds and the handlers use."""

    settings: Settings
    client: aioredis.Redis
    secret: bytes
    service: RoomService
    fanout: Fanout
    metrics: Metrics
    connections: set[Connection]
    """The sockets open on this process."""
    lobby: LobbyService
    tournaments: TournamentService
    push: PushService
    adjudicator: Adjudicator
    hash_pool: WorkPool
    """Where passwords are hashed (registration and login), never in the event loop."""
    replay_pool: WorkPool
    """Where imported records replay through the rules (``POST /api/records``)."""
    login_limits: LoginLimits


def compose(
    settings: Settings,
    client: aioredis.Redis,
    secret: bytes,
    durability: Durability = NO_REPLICAS,
) -> Runtime:
    """Every part of one process for ``settings``, wired; nothing runs until :func:`start`;
    commits wait for what ``durability`` asks."""
    process_id = uuid.uuid4().hex
    metrics = Metrics()
    connections: set[Connection] = set()

    def on_remote(room_id: str, version: int, frame: bytes | None) -> None:
        service.follow(room_id, version, frame)

    async def on_resubscribed(room_ids: list[str]) -> None:
        for connection in list(connections):
            await connection.catch_up_all()

    def on_commit(room: Room, events: tuple[object, ...]) -> None:
        lobby.room_changed(room, events)
        tournaments.room_changed(room, events)
        push.room_changed(room, events)

    fanout = Fanout(client, process_id, on_remote, on_resubscribed, metrics=metrics)
    service = RoomService(
        client,
        fanout,
        metrics,
        process_id,
        settings.diff_history,
        idle_limits=IdleLimits(
            unstarted=settings.idle_unstarted_seconds,
            unstarted_correspondence=settings.idle_unstarted_correspondence_seconds,
            untimed=settings.idle_untimed_seconds,
        ),
        count_every=settings.count_commit_seconds,
        presence_lease=settings.presence_lease_seconds,
        durability=durability,
        on_commit=on_commit,
    )
    lobby = LobbyService(
        client,
        service,
        ChallengeLimits(
            max_open=settings.challenges_per_player,
            lifetime=settings.challenge_lifetime,
            max_playing=settings.games_in_progress,
            max_started=settings.games_per_hour,
            max_per_address=settings.made_per_address_per_hour,
        ),
        sweep_every=settings.lobby_sweep_seconds,
        presence_ttl=settings.presence_ttl,
        drain_every=settings.lobby_drain_seconds,
        live_limit=settings.lobby_live_limit,
    )
    tournaments = TournamentService(
        client, rooms=service, step_every=settings.tournament_step_seconds
    )
    push = PushService(
        client,
        PushSettings(
            settings.push_services,
            settings.push_contact,
            settings.push_devices,
            settings.push_queue,
        ),
        metrics.pushes,
    )
    return Runtime(
        settings=settings,
        client=client,
        secret=secret,
        service=service,
        fanout=fanout,
        metrics=metrics,
        connections=connections,
        lobby=lobby,
        tournaments=tournaments,
        push=push,
        adjudicator=Adjudicator(service),
        hash_pool=WorkPool(settings.hash_workers, settings.hash_waiting),
        replay_pool=WorkPool(
            REPLAY_WORKERS,
            REPLAY_WAITING,
            busy="the server is busy replaying records: try again in a second",
            name="record-replay",
        ),
        login_limits=LoginLimits(
            per_address=settings.login_per_address,
            window=settings.login_window,
            free_attempts=settings.login_free_attempts,
            first_delay=settings.login_first_delay,
            max_delay=settings.login_max_delay,
        ),
    )


async def start(runtime: Runtime) -> None:
    """Start the parts' background work: the fan-out first, so commits reach the sockets."""
    await runtime.fanout.start()
    await runtime.lobby.start()
    runtime.adjudicator.start()
    runtime.service.presence.start()
    await runtime.tournaments.start()
    await runtime.push.start()


async def stop(runtime: Runtime) -> None:
    """Close the sockets, let them leave through Redis, stop every part, close the client."""
    try:
        for connection in list(runtime.connections):
            await connection.shut(CloseCode.GOING_AWAY)
        # Each socket leaves its rooms, the lobby and the pools through Redis as it ends:
        # the client stays open until they are done (or SHUT_WAIT has passed).
        deadline = time.monotonic() + SHUT_WAIT
        while runtime.connections and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
    finally:
        # The lobby's sweep must stop whatever happened above: left running, it would keep
        # expiring challenges and presence on this Redis.
        await runtime.adjudicator.stop()
        await runtime.tournaments.stop()
        await runtime.lobby.stop()
    await runtime.push.stop()
    await runtime.fanout.stop()
    runtime.hash_pool.shutdown()
    runtime.replay_pool.shutdown()
    await runtime.service.aclose()
    await runtime.client.aclose(close_connection_pool=True)
