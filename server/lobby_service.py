"""The lobby over the wire: challenges to rooms, the live lobby feed, presence, live games.

The imperative shell around :mod:`lobby.store` (which holds the lobby's decisions and its
atomic Redis steps) for one server process:

* challenges: create, accept (the room is created from the accepted challenge, room id =
  challenge id, idempotently, so two accepts or a crash in between still make one room),
  decline, cancel; and the limits on what players and addresses create
  (:class:`lobby.challenges.ChallengeLimits`), rematches included;
* the feed: one subscription per process to the ``lobby`` channel, fanned out to the local
  sockets that follow the lobby, each seeing open challenges and the ones made to or by them;
  a follower gets a snapshot first, and again when the subscription was lost and restored;
* presence: a socket that follows the lobby is online until it closes; heartbeats renew it
  so a crashed process leaves no ghosts (the sweep drops lapsed connections);
* live games, drained from the outbox (:mod:`server.outbox`) that every room's creation and
  every listed change leave in the same Redis script as the room itself: each pass writes the
  live lines of every marked room in one round trip and announces them in one publication,
  and each finished room goes (once: every step is idempotent on the room id) to its rating
  when rated and to both players' histories, leaving the live list; a mark is cleared only
  after, and only if no newer change came meanwhile, so a crash at any point is made good by
  the next pass of any process.  The lobby's reply lists the newest live games only
  (``live_limit``) with their count;
* quick pairing (:mod:`lobby.pools`): a join pairs at once or waits, atomically in Redis;
* the periodic sweep (challenge expiry, lapsed presence), safe on any number of processes.

Holds no decisions; the Redis client is an argument.  Imports lobby, server.redis.store, rooms,
protocol and errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from lobby import bot_strength, pools
from lobby.challenges import (
    DEFAULT_LIMITS,
    Challenge,
    ChallengeLimits,
    Colour,
    Status,
    is_limited,
    rematch_id,
)
from lobby.identity import Player
from lobby.presence import HEARTBEAT_TTL
from lobby.ratings import COMPUTER_POOL_SUFFIX, DEFAULT_RATING
from lobby.store import challenges as challenge_store
from lobby.store import common as store_common
from lobby.store import connections as connection_store
from lobby.store import creations as creation_store
from lobby.store import games as game_store
from lobby.store import pools as pool_store
from lobby.store import ratings as rating_store
from protocol.errors import LimitReachedError, UnknownChallengeError
from protocol.messages import ServerLobby, ServerLobbyEvent, encode
from server import listing, outbox
from server.fanout import new_pubsub, read_pubsub
from server.redis import clock_store, store
from server.rooms import GameEnded, Room, SeatHolder, new_room
from server.service import RoomService, _storage

log = logging.getLogger(__name__)

SWEEP_EVERY = 15.0
"""Seconds between sweeps and heartbeats (well inside the presence TTL of 60 s)."""
STOP_SECONDS = 3.0
"""How long stopping waits for the lobby's own tasks and its event stream."""
DRAIN_EVERY = 0.5
"""Seconds between two passes over the outbox: every change of every room in that time goes
into one pass (one round trip of writes, one publication).  A game's end in this process
starts a pass at once."""
DRAIN_BATCH = 1000
"""Rooms one pass takes from the outbox at most; the rest wait for the next."""
DRAIN_LEASE = 2.0
"""Seconds a drainer holds the outbox before another process may take it over.  It gives it
back at the end of its pass (a pass takes milliseconds), or, when Redis went away before it
could, at the start of its next; this only counts when it died, and is how long the lobby
then stands still."""
LIVE_LIMIT = 100
"""Live games in the lobby's reply at most (the newest; ``live_count`` says how many there
are): with thousands of games a full list would make every reply hundreds of kilobytes."""


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
        drain_every: float = DRAIN_EVERY,
        live_limit: int = LIVE_LIMIT,
    ) -> None:
        self.client = client
        self.rooms = rooms
        self.limits = limits
        self.sweep_every = sweep_every
        self.clock = clock
        self.presence_ttl = presence_ttl
        self.drain_every = drain_every
        self.live_limit = live_limit
        self.followers: dict[str, Follower] = {}
        """Connection id to the local socket following the lobby."""
        self._pubsub = new_pubsub(client)
        self._tasks: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()
        """Set to start a pass over the outbox now (a game ended here)."""
        self._passed = asyncio.Event()
        """Set after each pass over the outbox (what :meth:`wait_drained` waits for)."""
        self._unreleased: str | None = None
        """The token of this process's lease when Redis failed before it was given back."""
        self._stopping = asyncio.Event()
        """Set by :meth:`stop`: the drainer ends even where a cancellation met its own
        timeout and was taken for that timeout's expiry."""

    async def start(self) -> None:
        await self._pubsub.subscribe(store_common.CHANNEL)
        self._tasks = [
            asyncio.create_task(self._read(), name="lobby-feed"),
            asyncio.create_task(self._sweep_loop(), name="lobby-sweep"),
            asyncio.create_task(self._drain_loop(), name="lobby-outbox"),
        ]

    async def stop(self) -> None:
        """Stop the sweep, the event stream and the outbox's drainer; bounded in time, so a
        Redis that does not answer cannot hold a shutdown up (what is left in the outbox
        stays there for the next pass of any process)."""
        tasks = self._tasks
        self._stopping.set()
        self._wake.set()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)
        try:
            closing = self._pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.wait_for(closing, STOP_SECONDS)
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
                connection_store.connect(
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
            await connection_store.disconnect(self.client, connection_id, self.clock())

    async def snapshot(self, player: Player) -> dict[str, Any]:
        """The lobby as ``player`` sees it now."""
        now = self.clock()
        client = self.client
        open_challenges = await _storage(challenge_store.open_challenges(client, now))
        mine = await _storage(challenge_store.player_challenges(client, player.id, now))
        live = await _storage(game_store.live_games(client, self.live_limit))
        live_count = await _storage(game_store.live_count(client))
        playing = await _storage(game_store.current_games(client, player.id))
        online = await _storage(connection_store.online(client, now))
        return {
            "open": [c.to_data() for c in open_challenges],
            "incoming": [c.to_data() for c in mine.incoming],
            "outgoing": [c.to_data() for c in mine.outgoing],
            "live": [g.to_data() for g in live],
            "live_count": live_count,
            "mine": [g.to_data() for g in playing],
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
        address: str | None = None,
    ) -> Challenge:
        """Store and announce a challenge made from ``address``; raises ClientError.  A
        ``target`` of :data:`~lobby.bot_strength.MATCHING_BOT` challenges the computer level
        nearest the player's rating in ``game``."""
        client, now = self.client, self.clock()
        if target == bot_strength.MATCHING_BOT:
            target = await self._matching_bot(player, game)
        made = f"challenge:{uuid.uuid4().hex}"
        await _storage(creation_store.count_creation(client, made, now, self.limits, (), address))
        try:
            return await _storage(
                challenge_store.create_challenge(
                    client,
                    player,
                    target,
                    game,
                    options,
                    Colour(colour),
                    rated,
                    now,
                    self.limits,
                    time_control,
                )
            )
        except BaseException:
            await creation_store.uncount_creation(client, made, (), address)
            raise

    async def _matching_bot(self, player: Player, game: str) -> str:
        """The name of the bot account whose level's measured rating is nearest the player's."""
        rating = DEFAULT_RATING
        if not player.guest:
            in_game = await rating_store.get_rating(self.client, game, player.id)
            pool = game + COMPUTER_POOL_SUFFIX
            against_computer = await rating_store.get_rating(self.client, pool, player.id)
            rating = bot_strength.strength_to_match(in_game, against_computer)
        level = bot_strength.matching_level(bot_strength.measured().get(game, {}), rating)
        return f"bot-{level}"

    async def accept(
        self, player: Player, challenge_id: str, address: str | None = None
    ) -> tuple[Challenge, str]:
        """Accept a challenge (from ``address``) and create its room, within both players'
        limits; returns the challenge and the room id."""
        client, now = self.client, self.clock()
        open_one = await _storage(challenge_store.get_challenge(client, challenge_id))
        starting = (open_one.challenger, player)
        address = address if is_limited(player) else None
        await _storage(
            creation_store.count_creation(client, challenge_id, now, self.limits, starting, address)
        )
        try:
            challenge = await _storage(
                challenge_store.accept_challenge(client, challenge_id, player, now)
            )
        except BaseException:
            await creation_store.uncount_creation(client, challenge_id, starting, address)
            raise
        room_id = await self._open_room(challenge)
        return challenge, room_id

    @contextlib.asynccontextmanager
    async def rematch_start(
        self, player: Player, room_id: str, address: str | None = None
    ) -> AsyncIterator[None]:
        """Around ``player``'s rematch request: when it is the request that agrees the
        rematch, count the game it starts against both players' limits (and the address's)
        first, and take it back if the request fails; raises LimitReachedError."""
        room = (await self.rooms.current(room_id)).room
        offers = room.rematch_offers
        agreeing = (
            room.outcome is not None
            and room.rematch is None
            and player.id not in offers
            and all(seat.id in offers for seat in room.seats if seat.id != player.id)
            and bool(room.seats_of(player.id))
        )
        if not agreeing:
            yield
            return
        client, made = self.client, rematch_id(room_id)
        starting = (listing.player(room.seats[0]), listing.player(room.seats[1]))
        address = address if is_limited(player) else None
        await _storage(
            creation_store.count_creation(
                client, made, self.clock(), self.limits, starting, address
            )
        )
        try:
            yield
        except BaseException:
            await creation_store.uncount_creation(client, made, starting, address)
            raise

    async def decline(self, player: Player, challenge_id: str) -> Challenge:
        return await _storage(
            challenge_store.decline_challenge(self.client, challenge_id, player, self.clock())
        )

    async def cancel(self, player: Player, challenge_id: str) -> Challenge:
        return await _storage(
            challenge_store.cancel_challenge(self.client, challenge_id, player, self.clock())
        )

    # --- quick pairing -----------------------------------------------------------------------

    async def join_pool(
        self,
        player: Player,
        game: str,
        time_control: str,
        rated: bool,
        connection: str,
        address: str | None = None,
    ) -> str | None:
        """Join (or renew) ``player``'s wait in a quick-pairing pool from the socket
        ``connection``: the room of the game when a player waiting there was paired with
        them (or when they were paired while waiting themselves), else None.  The game
        counts against both players' limits like an accepted challenge; raises ClientError
        (LimitReachedError, GuestRatedError, BadOptionsError...)."""
        client, now = self.client, self.clock()
        pool = pools.pool_for(player, game, time_control, rated)
        rating = None
        if rated:
            rating = (await _storage(rating_store.get_rating(client, pool.game, player.id))).rating
        room_id = pools.ID_PREFIX + uuid.uuid4().hex[:20]
        address = address if is_limited(player) else None
        await _storage(
            creation_store.count_creation(client, room_id, now, self.limits, (player,), address)
        )
        entry = pools.Entry(player, pool.name, rating, connection, now + pools.ENTRY_SECONDS)
        try:
            joined = await _storage(pool_store.join(client, entry, now, room_id))
        except BaseException:
            await creation_store.uncount_creation(client, room_id, (player,), address)
            raise
        if joined.partner is None:  # waiting, or paired already: nothing is made now
            await creation_store.uncount_creation(client, room_id, (player,), address)
            return joined.room
        partner = joined.partner
        # The partner was within the limits when they joined; the game is counted for them
        # as far as it fits now.
        with contextlib.suppress(LimitReachedError):
            await _storage(
                creation_store.count_creation(client, room_id, now, self.limits, (partner.player,))
            )
        seed = secrets.randbits(32)
        challenge = pools.paired_challenge(pool, partner.player, player, room_id, now, seed)
        await _storage(challenge_store.store_accepted(client, challenge))
        return await self._open_room(challenge)

    async def leave_pool(self, player: Player, connection: str = "") -> bool:
        """Stop ``player``'s wait (only the entry of ``connection`` when given)."""
        return await _storage(pool_store.leave(self.client, player.id, connection))

    async def restore_room(self, room_id: str) -> bool:
        """Create the room of an accepted challenge if its accepter's process did not get to
        it; returns whether the room exists now."""
        try:
            challenge = await _storage(challenge_store.get_challenge(self.client, room_id))
        except (UnknownChallengeError, ValueError):
            return False
        if challenge.status is not Status.ACCEPTED or challenge.seats is None:
            return False
        await self._open_room(challenge)
        return True

    async def _open_room(self, challenge: Challenge) -> str:
        """Create the room of an accepted challenge (its creation leaves the mark that lists
        it, in the same step)."""
        assert challenge.seats is not None
        first, second = (SeatHolder(p.id, p.name) for p in challenge.seats)
        room = new_room(
            challenge.id,
            challenge.game,
            challenge.options,
            (first, second),
            challenge.time_control,
            challenge.rated,
            self.clock(),
        )
        await _storage(store.create_room(self.client, room, self.rooms.idle_limits))
        self._wake.set()  # listed at once: the players' lobbies show the game as it starts
        return room.id

    # --- live games, from the outbox ---------------------------------------------------------

    def room_changed(self, room: Room, events: tuple[object, ...]) -> None:
        """A change this process committed: a game's end is drained at once (everything else
        waits for the next pass)."""
        if any(isinstance(event, GameEnded) for event in events):
            self._wake.set()

    async def wait_drained(self) -> None:
        """Wait until the outbox is empty: every committed change is in the lobby (for tests
        and the operator; the drainer may run in another process)."""
        while await outbox.pending(self.client):
            self._passed.clear()
            self._wake.set()
            await self._passed.wait()

    async def drain(self) -> int:
        """One pass over the outbox, if no other process is making one; returns how many
        rooms it brought in step.  Raises what Redis raises (the marks then stay)."""
        client = self.client
        if self._unreleased is not None:
            await outbox.release_lease(client, self._unreleased)
            self._unreleased = None
        token = uuid.uuid4().hex
        if not await outbox.take_lease(client, token, DRAIN_LEASE):
            return 0
        self._unreleased = token
        try:
            raw = await outbox.marks(client, DRAIN_BATCH)
            marks = {}
            done: dict[str, bytes] = {}
            for room_id, mark in raw.items():
                try:
                    marks[room_id] = listing.parse_mark(room_id, mark)
                except ValueError:
                    log.warning("unreadable outbox mark of room %s dropped: %r", room_id, mark)
                    done[room_id] = mark
            live = {room_id: m.live for room_id, m in marks.items() if m.live is not None}
            await game_store.store_live_lines(client, list(live.values()))
            done.update((room_id, raw[room_id]) for room_id in live)
            await clock_store.set_idle_deadlines(
                client, {room_id: m.idle_at for room_id, m in marks.items()}
            )
            for room_id, m in marks.items():
                if m.live is None:
                    try:
                        await self._archive(room_id)
                    except Exception:
                        log.warning("finished room %s not archived", room_id, exc_info=True)
                        continue
                    done[room_id] = raw[room_id]
            await outbox.clear(client, done)
            return len(done)
        finally:
            await outbox.release_lease(client, token)
            self._unreleased = None

    async def _archive(self, room_id: str) -> None:
        """Bring a finished room's game to its rating (when rated) and both players'
        histories, off the live list; each step is idempotent on the room id."""
        loaded = await store.load_room(self.client, room_id)
        if loaded is None:
            return
        room, now = loaded.room, self.clock()
        rating = listing.rating_result(room)
        if rating is not None:
            await rating_store.apply_result(
                self.client,
                rating.pool,
                room.id,
                rating.first,
                rating.second,
                rating.first_score,
                now,
            )
        await game_store.finish_game(self.client, listing.finished_game(room, now))

    async def _drain_loop(self) -> None:
        reindexed = -math.inf
        while not self._stopping.is_set():
            try:
                if time.monotonic() - reindexed >= outbox.REINDEX_EVERY:
                    await outbox.reindex(self.client)  # on a cluster: see server.outbox
                    reindexed = time.monotonic()
                await self.drain()
            except Exception:
                log.warning("lobby outbox not drained", exc_info=True)
            self._passed.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.drain_every):
                    await self._wake.wait()
            self._wake.clear()

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
        if message["type"] != "message" or not self.followers:
            return  # a process with nobody in the lobby reads nothing of the feed
        try:
            events = store_common.decode_events(message["data"])
        except ValueError:
            log.warning("unreadable lobby event %r", message["data"])
            return
        for event in events:
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
            alive = await connection_store.heartbeat(self.client, connection_id, now, ttl)
            follower = self.followers.get(connection_id)
            if not alive and follower is not None:
                await connection_store.connect(
                    self.client, connection_id, follower.player, now, ttl=ttl
                )
        await challenge_store.sweep_challenges(self.client, now)
        await connection_store.sweep_presence(self.client, now)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_every)
            try:
                await self.sweep()
            except Exception:
                log.warning("lobby sweep failed", exc_info=True)
