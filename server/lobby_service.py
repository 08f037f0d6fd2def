"""The lobby over the wire: challenges to rooms, the live lobby feed, presence, live games.

The imperative shell around :mod:`lobby.store` (which holds the lobby's decisions and its
atomic Redis steps) for one server process:

* challenges: create, accept (the room is created from the accepted challenge, room id =
  challenge id, idempotently, so two accepts or a crash in between still make one room),
  decline, cancel;
* the feed: one subscription per process to the ``lobby`` channel, fanned out to the local
  sockets that follow the lobby, each seeing open challenges and the ones made to or by them;
  a follower gets a snapshot first, and again when the subscription was lost and restored;
* presence: a socket that follows the lobby is online until it closes; heartbeats renew it
  so a crashed process leaves no ghosts (the sweep drops lapsed connections);
* live games: every committed room change updates the lobby's live entry (move number,
  spectators, seats); a finished game goes to both players' histories and, when rated, to
  their ratings, exactly once;
* the periodic sweep (challenge expiry, lapsed presence), safe on any number of processes.

Holds no decisions; the Redis client is an argument.  Imports lobby, server.store, rooms,
protocol and errors.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from lobby import clocks, rating_store
from lobby import store as lobby_store
from lobby.challenges import DEFAULT_LIMITS, Challenge, ChallengeLimits, Colour, Status
from lobby.errors import LobbyError, UnknownChallengeError, UnknownRoomError
from lobby.games import LiveGame, finish
from lobby.identity import Player, is_guest_id
from lobby.presence import HEARTBEAT_TTL
from lobby.ratings import rating_pool
from server import store
from server.fanout import read_pubsub
from server.protocol import ServerLobby, ServerLobbyEvent, encode
from server.rooms import ABORTED, Room, SeatHolder, new_room, rematch_room
from server.service import RoomService, _storage

log = logging.getLogger(__name__)

SWEEP_EVERY = 15.0
"""Seconds between sweeps and heartbeats (well inside the presence TTL of 60 s)."""
STOP_SECONDS = 3.0
"""How long stopping waits for the lobby's own tasks and its event stream."""
LIVE_EVERY = 0.5
"""Least seconds between two updates of a game's lobby entry while the game goes on: changes
that come faster (a quick game's moves) fold into the next update, since each costs the lobby
a few Redis round trips.  The game's end is recorded at once."""


class Follower(Protocol):
    """A local socket following the lobby."""

    @property
    def player(self) -> Player: ...

    def push_frame(self, frame: bytes) -> None:
        """Queue a frame for sending; must not block."""


def is_visible(event: dict[str, Any], player_id: str) -> bool:
    """Whether a lobby event concerns a follower: a direct challenge only its two players."""
    if event.get("t") != "challenge":
        return True
    challenge = event["challenge"]
    if challenge.get("target") is None:
        return True
    return player_id in (challenge["challenger"]["id"], challenge["target"]["id"])


def seat_player(holder: SeatHolder) -> Player:
    return Player(holder.id, holder.name, is_guest_id(holder.id))


class LobbyService:
    """Challenges, the lobby feed, presence and live games for one server process."""

    def __init__(
        self,
        client: aioredis.Redis,
        rooms: RoomService,
        limits: ChallengeLimits = DEFAULT_LIMITS,
        sweep_every: float = SWEEP_EVERY,
        clock: Callable[[], float] = time.time,
        presence_ttl: float = HEARTBEAT_TTL,
    ) -> None:
        self.client = client
        self.rooms = rooms
        self.limits = limits
        self.sweep_every = sweep_every
        self.clock = clock
        self.presence_ttl = presence_ttl
        self.followers: dict[str, Follower] = {}
        """Connection id to the local socket following the lobby."""
        self._pubsub = client.pubsub()
        self._tasks: list[asyncio.Task[None]] = []
        self._dirty: dict[str, Room] = {}
        self._sync_tasks: dict[str, asyncio.Task[None]] = {}
        self._ending: dict[str, asyncio.Event] = {}
        """Set when a room whose update waits out ``LIVE_EVERY`` ends: no more waiting."""

    async def start(self) -> None:
        await self._pubsub.subscribe(lobby_store.CHANNEL)
        self._tasks = [
            asyncio.create_task(self._read(), name="lobby-feed"),
            asyncio.create_task(self._sweep_loop(), name="lobby-sweep"),
        ]

    async def stop(self) -> None:
        """Stop the sweep, the event stream and pending lobby updates; bounded in time, so a
        Redis that does not answer cannot hold a shutdown up."""
        tasks = (*self._tasks, *self._sync_tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        try:
            await asyncio.wait_for(self._pubsub.aclose(), STOP_SECONDS)
        except (TimeoutError, RedisConnectionError, RedisTimeoutError, OSError):
            log.warning("the lobby's event stream did not close cleanly")

    # --- following the lobby -----------------------------------------------------------------

    async def follow(self, follower: Follower) -> tuple[str, dict[str, Any]]:
        """Start sending ``follower`` lobby events; returns its connection id and a snapshot.

        Subscribed before the snapshot is read, so no event falls between the two (an event
        already in the snapshot arrives again and changes nothing).
        """
        connection_id = uuid.uuid4().hex
        self.followers[connection_id] = follower
        try:
            await _storage(
                lobby_store.connect(
                    self.client,
                    connection_id,
                    follower.player,
                    self.clock(),
                    ttl=self.presence_ttl,
                )
            )
            snapshot = await self.snapshot(follower.player)
        except BaseException:
            self.followers.pop(connection_id, None)
            raise
        return connection_id, snapshot

    async def unfollow(self, connection_id: str) -> None:
        if self.followers.pop(connection_id, None) is not None:
            await lobby_store.disconnect(self.client, connection_id, self.clock())

    async def snapshot(self, player: Player) -> dict[str, Any]:
        """The lobby as ``player`` sees it now."""
        now = self.clock()
        client = self.client
        open_challenges = await _storage(lobby_store.open_challenges(client, now))
        mine = await _storage(lobby_store.player_challenges(client, player.id, now))
        live = await _storage(lobby_store.live_games(client))
        online = await _storage(lobby_store.online(client, now))
        return {
            "open": [c.to_data() for c in open_challenges],
            "incoming": [c.to_data() for c in mine.incoming],
            "outgoing": [c.to_data() for c in mine.outgoing],
            "live": [g.to_data() for g in live],
            "mine": [g.to_data() for g in live if g.has_player(player.id)],
            "online": [p.to_data() for p in online],
        }

    # --- challenges --------------------------------------------------------------------------

    async def create_challenge(
        self,
        player: Player,
        game: str,
        options: str,
        colour: str,
        rated: bool,
        target: str | None,
        time_control: str | None,
    ) -> Challenge:
        """Store and announce a challenge; raises LobbyError."""
        return await _storage(
            lobby_store.create_challenge(
                self.client,
                player,
                target,
                game,
                options,
                Colour(colour),
                rated,
                self.clock(),
                self.limits,
                time_control,
            )
        )

    async def accept(self, player: Player, challenge_id: str) -> tuple[Challenge, str]:
        """Accept a challenge and create its room; returns the challenge and the room id."""
        challenge = await _storage(
            lobby_store.accept_challenge(self.client, challenge_id, player, self.clock())
        )
        room_id = await self._open_room(challenge)
        return challenge, room_id

    async def decline(self, player: Player, challenge_id: str) -> Challenge:
        return await _storage(
            lobby_store.decline_challenge(self.client, challenge_id, player, self.clock())
        )

    async def cancel(self, player: Player, challenge_id: str) -> Challenge:
        return await _storage(
            lobby_store.cancel_challenge(self.client, challenge_id, player, self.clock())
        )

    async def restore_room(self, room_id: str) -> bool:
        """Create the room of an accepted challenge if its accepter's process did not get to
        it; returns whether the room exists now."""
        try:
            challenge = await _storage(lobby_store.get_challenge(self.client, room_id))
        except (UnknownChallengeError, ValueError):
            return False
        if challenge.status is not Status.ACCEPTED or challenge.seats is None:
            return False
        await self._open_room(challenge)
        return True

    async def _open_room(self, challenge: Challenge) -> str:
        assert challenge.seats is not None
        first, second = (SeatHolder(p.id, p.name) for p in challenge.seats)
        room = new_room(
            challenge.id, challenge.game, challenge.options, (first, second), challenge.time_control
        )
        await _storage(store.create_room(self.client, room))
        await _storage(
            lobby_store.add_live_game_from_challenge(self.client, challenge, self.clock())
        )
        return room.id

    # --- live games --------------------------------------------------------------------------

    def room_changed(self, room: Room, events: tuple[object, ...]) -> None:
        """Bring the room's lobby entry in step (soon; changes arriving meanwhile fold into
        one update)."""
        self._dirty[room.id] = room
        if room.id not in self._sync_tasks:
            self._sync_tasks[room.id] = asyncio.create_task(self._sync(room.id))
        elif room.outcome is not None or room.rematch is not None:
            ending = self._ending.get(room.id)
            if ending is not None:
                ending.set()

    async def wait_synced(self) -> None:
        """Wait until every pending live-list update is done (for orderly shutdown, tests)."""
        while self._sync_tasks:
            await asyncio.gather(*self._sync_tasks.values(), return_exceptions=True)

    async def _sync(self, room_id: str) -> None:
        try:
            while room_id in self._dirty:
                room = self._dirty.pop(room_id)
                try:
                    await self._sync_room(room)
                except Exception:
                    log.warning("lobby entry of room %s not updated", room_id, exc_info=True)
                if room.outcome is None and room.rematch is None:
                    await self._fold(room_id)
        finally:
            self._sync_tasks.pop(room_id, None)

    async def _fold(self, room_id: str) -> None:
        """Let changes fold for ``LIVE_EVERY`` seconds, or until the room's game ends."""
        ending = self._ending[room_id] = asyncio.Event()
        dirty = self._dirty.get(room_id)
        if dirty is not None and (dirty.outcome is not None or dirty.rematch is not None):
            ending.set()
        try:
            async with asyncio.timeout(LIVE_EVERY):
                await ending.wait()
        except TimeoutError:
            pass
        finally:
            del self._ending[room_id]

    async def _sync_room(self, room: Room) -> None:
        client = self.client
        players = (seat_player(room.seats[0]), seat_player(room.seats[1]))
        try:
            live: LiveGame | None = await lobby_store.live_game(client, room.id)
        except UnknownRoomError:
            live = None  # a room made outside the lobby, or finished already
        rated = live.rated if live is not None else False
        if live is not None and room.outcome is None:
            to_move = room.rules.to_move(room.state)
            await lobby_store.update_live_game(
                client,
                room.id,
                len(room.record),
                room.spectators,
                players,
                None if to_move is None else room.seats[to_move].id,
                None if room.clock is None else clocks.deadline(room.clock),
            )
        elif live is not None and room.outcome is not None:
            outcome = room.outcome
            if live.rated and outcome.reason != ABORTED:
                score = 0.5 if outcome.winner is None else (1.0 if outcome.winner == 0 else 0.0)
                try:
                    pool = rating_pool(room.game, players[0], players[1])
                    await rating_store.apply_result(
                        client, pool, room.id, players[0], players[1], score, self.clock()
                    )
                except rating_store.UnratedGameError:
                    pass
            current = LiveGame(
                live.room_id,
                live.game,
                live.options,
                players,
                live.rated,
                live.started,
                len(room.record),
                room.spectators,
                live.time_control,
            )
            finished = finish(current, room.record, outcome.winner, outcome.reason, self.clock())
            await lobby_store.finish_game(client, finished)
        if room.rematch is not None:
            if live is None:
                try:
                    rated = (await lobby_store.finished_game(client, room.id)).rated
                except UnknownRoomError:
                    rated = False
            new = rematch_room(room)
            await lobby_store.add_live_game(
                client,
                LiveGame(
                    room_id=new.id,
                    game=new.game,
                    options=new.options,
                    players=(seat_player(new.seats[0]), seat_player(new.seats[1])),
                    rated=rated,
                    started=self.clock(),
                ),
            )

    # --- the feed and the sweep --------------------------------------------------------------

    def _deliver(self, event: dict[str, Any]) -> None:
        frame = encode(ServerLobbyEvent(event))
        for follower in tuple(self.followers.values()):
            if is_visible(event, follower.player.id):
                follower.push_frame(frame)

    async def _read(self) -> None:
        await read_pubsub(self._pubsub, "lobby feed", self._on_message, None, self._restored)

    def _restored(self) -> None:
        asyncio.create_task(self._resend_snapshots())

    def _on_message(self, message: dict[str, Any]) -> None:
        if message["type"] != "message":
            return
        try:
            event = lobby_store.decode_event(message["data"])
        except ValueError:
            log.warning("unreadable lobby event %r", message["data"])
            return
        self._deliver(event)

    async def _resend_snapshots(self) -> None:
        """After the feed was lost, events may be missing: send every follower the lobby."""
        for follower in tuple(self.followers.values()):
            try:
                snapshot = await self.snapshot(follower.player)
            except Exception:
                log.warning("lobby snapshot not resent", exc_info=True)
                return
            follower.push_frame(encode(ServerLobby(None, snapshot)))

    async def sweep(self) -> None:
        """Renew the local connections, expire overdue challenges, drop lapsed connections."""
        now = self.clock()
        for connection_id in tuple(self.followers):
            ttl = self.presence_ttl
            alive = await lobby_store.heartbeat(self.client, connection_id, now, ttl)
            follower = self.followers.get(connection_id)
            if not alive and follower is not None:
                await lobby_store.connect(self.client, connection_id, follower.player, now, ttl=ttl)
        await lobby_store.sweep_challenges(self.client, now)
        await lobby_store.sweep_presence(self.client, now)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_every)
            try:
                await self.sweep()
            except Exception:
                log.warning("lobby sweep failed", exc_info=True)


def lobby_error_status(error: LobbyError) -> int:
    """The HTTP status of a lobby refusal."""
    return {
        "bad-credentials": 401,
        "rate-limited": 429,
        "name-taken": 409,
        "unknown-room": 404,
        "unknown-player": 404,
    }.get(error.code, 400)
