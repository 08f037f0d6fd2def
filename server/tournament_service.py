"""Tournaments over the wire: requests, the scheduler step, and results from finished rooms.

The imperative shell around :mod:`lobby.store.tournaments` (which commits every transition of
:mod:`lobby.tournaments` once, whatever races) for one server process:

* requests: create, join, withdraw, list, get (standings, pairings, crosstable);
* the scheduler step, run periodically by every process: starts due events (or cancels those
  short of players), pairs each next round, finishes events; each transition is committed by
  one process only, and the rooms of the games it created are opened idempotently on the game
  id (their creation lists them live, in the same step), so a crash between the commit and
  the rooms is repaired by the next step;
* results: a committed room change whose room is a tournament game (room id = game id)
  records the game's result at once and pairs the next round when it was the last game; the
  step also reads the rooms of every unfinished game, so a result whose process died before
  recording it is recorded by the next step of any process;
* ratings: a rated event's rooms are rated rooms, so the lobby's outbox applies each finished
  game to both players' ratings exactly once, as for any rated game;
* the feed: one subscription per process to the ``tournaments`` channel, on which every commit
  is announced with the event's summary. Local sockets following the list get each summary;
  sockets following an event get the whole event afresh, read once per change for all of
  them (changes arriving meanwhile, or in a short pause after each push, fold into one).
  After the subscription was lost and restored, every follower gets a fresh copy, as notices
  may have been missed.

Holds no decisions; the Redis client is an argument. Imports lobby, server.redis.store, rooms,
service, errors and protocol.
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

from lobby.identity import Player, is_guest_id
from lobby.store import ratings as rating_store
from lobby.store import tournaments as ts
from lobby.tournaments import lifecycle, model, standings
from lobby.tournaments.model import Game, Settings, Status, Step, Tournament
from protocol.errors import BadRequestError, ClientError, ErrorCode, TournamentError
from protocol.messages import (
    ServerTournament,
    ServerTournamentEvent,
    ServerTournamentListed,
    ServerTournaments,
    encode,
)
from server.fanout import new_pubsub, read_pubsub
from server.redis import store
from server.rooms import ABORTED, DEFAULT_IDLE_LIMITS, Resign, Room, SeatHolder, new_room
from server.service import RoomService, _storage

log = logging.getLogger(__name__)

_MAX_STEPS = 50
"""Transitions one call of :meth:`TournamentService.advance` makes at most (a guard: each
pass either commits or finds another process's commit)."""

STEP_EVERY = 5.0
"""Seconds between scheduler steps (a round is paired at once when its last game ends; the
step starts events at their time and repairs what a dead process left undone)."""

MAX_FOLLOWED = 8
"""Events one socket may follow at once."""

STOP_SECONDS = 3.0
"""How long stopping waits for the event stream to close."""

PUSH_GAP = 0.2
"""Least seconds between two pushes of one event (the first change is pushed at once)."""
PUSH_COST_FACTOR = 4.0
"""Pushes of one event pause this many times the time the last one took: building a
1,000-player Swiss (standings and crosstable) takes about 0.2 s of CPU, so its followers get
it about once a second during a round's burst of results, at a fifth of a core at most."""

RESEND_ATTEMPTS = 8
"""Tries to resend the followed events after the feed returns (about 8 s in all)."""


def time_control(settings: Settings) -> str:
    """The rooms' time control text (minutes+increment), as challenges write it."""
    return f"{settings.clock_seconds / 60:g}+{settings.increment_seconds}"


def tournament_of(room_id: str) -> str | None:
    """The tournament a room belongs to, from its id (``<tournament>.<round>...``)."""
    head, dot, _ = room_id.partition(".")
    return head if dot and head.startswith("t") else None


def first_score(game: Game, room: Room) -> float | None:
    """The first player's score in a finished room (seats may have swapped since the start:
    the winner is found by id); an aborted game counts as drawn. None while it is played."""
    outcome = room.outcome
    if outcome is None:
        return None
    if outcome.winner is None or outcome.reason == ABORTED:
        return 0.5
    return 1.0 if room.seats[int(outcome.winner)].id == game.first else 0.0


def details(t: Tournament) -> dict[str, Any]:
    """An event for its page, JSON-ready: summary, settings, entrants, every game (its room
    id is its id), standings and the crosstable."""
    s = t.settings
    return {
        **ts.summary(t),
        "creator": t.creator,
        "settings": model.to_data(t)["settings"],
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "ends_at": t.ends_at,
        "time_control": time_control(s),
        "entrants": [
            {
                "id": e.id,
                "name": e.name,
                "rating": e.rating,
                "seed": e.seed,
                "withdrawn": e.withdrawn,
            }
            for e in t.entrants
        ],
        "games": [
            {
                "id": g.id,
                "round": g.round,
                "board": g.board,
                "first": g.first,
                "second": g.second,
                "score": g.score,
                "forfeit": g.forfeit,
                "replay": g.replay,
                "room": None if g.is_bye else g.id,
            }
            for g in t.games
        ],
        "standings": [row.to_data() for row in standings.standings(t)],
        "crosstable": standings.crosstable(t),
    }


class Follower(Protocol):
    """A local socket following the list or some events."""

    def push_frame(self, frame: bytes) -> None:
        """Queue a frame for sending; must not block."""


class TournamentService:
    """Tournament requests, the periodic step and room results for one server process."""

    def __init__(
        self,
        client: aioredis.Redis,
        clock: Callable[[], float] = time.time,
        step_every: float = STEP_EVERY,
        rooms: RoomService | None = None,
    ) -> None:
        self.client = client
        self.clock = clock
        """Now, in seconds since the epoch (tests replace it)."""
        self.step_every = step_every
        self.rooms = rooms
        """A withdrawal resigns the player's game in progress through it (None: no rooms, as
        in tests of the events alone)."""
        self._loop: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.list_followers: set[Follower] = set()
        """Local sockets following the list of events."""
        self.followers: dict[str, set[Follower]] = {}
        """Event id to the local sockets following it."""
        self._pubsub = new_pubsub(client)
        self._feed: asyncio.Task[None] | None = None
        self._pushed: dict[str, int] = {}
        """The version last pushed of each followed event (older notices are skipped)."""
        self._dirty: set[str] = set()
        self._pushing: dict[str, asyncio.Task[None]] = {}

    async def start(self) -> None:
        await self._pubsub.subscribe(ts.CHANNEL)
        self._feed = asyncio.create_task(self._read(), name="tournament-feed")
        self._loop = asyncio.create_task(self._step_loop(), name="tournament-step")

    async def stop(self) -> None:
        loops = [task for task in (self._loop, self._feed) if task is not None]
        tasks = [*self._pending, *self._pushing.values(), *loops]
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            closing = self._pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.wait_for(closing, STOP_SECONDS)
        except (TimeoutError, RedisConnectionError, RedisTimeoutError, OSError):
            log.warning("the tournaments' event stream did not close cleanly")

    # --- requests ----------------------------------------------------------------------------

    async def create(self, player: Player, settings: Settings) -> Tournament:
        """Store a new event; raises TournamentError."""
        tournament_id = "t" + uuid.uuid4().hex[:12]
        return await _storage(ts.create(self.client, tournament_id, player, settings, self.clock()))

    async def join(self, player: Player, tournament_id: str) -> Tournament:
        """Enter ``player`` at their rating in the event's game; raises TournamentError."""
        t = await self.get(tournament_id)
        rating = 1500.0
        if not player.guest:
            rating = (await rating_store.get_rating(self.client, t.settings.game, player.id)).rating
        change = await _storage(ts.join(self.client, tournament_id, player, rating, self.clock()))
        await self._open(change.tournament, change.new_games)
        return change.tournament

    async def withdraw(self, player: Player, tournament_id: str) -> Tournament:
        """Withdraw ``player`` (forfeiting their remaining games once running)."""
        change = await _storage(ts.withdraw(self.client, tournament_id, player.id, self.clock()))
        await self._open(change.tournament, change.new_games)
        for game in change.tournament.games:
            if game.forfeit and game.second is not None and player.id in game.pairing:
                await self._resign(game.id, player.id)
        if change.tournament.status is Status.RUNNING:
            await self.advance(tournament_id)
        return change.tournament

    async def _resign(self, room_id: str, player_id: str) -> None:
        """End a forfeited game's room as a resignation (the result the event recorded), so
        nobody plays on in it; a room already over is left as it is."""
        if self.rooms is None:
            return
        try:
            loaded = await self.rooms.room(room_id)
            if loaded.room.outcome is None:
                await self.rooms.command(room_id, Resign(player_id, loaded.room.version))
        except ClientError as error:
            log.info("forfeited room %s not resigned: %s", room_id, error)

    async def get(self, tournament_id: str) -> Tournament:
        """The stored event; raises TournamentError (unknown-tournament)."""
        t = await _storage(ts.load(self.client, tournament_id))
        if t is None:
            raise TournamentError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id}")
        return t

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """Upcoming, running and finished events for the tournaments page."""
        return {
            status.value: await _storage(ts.listed(self.client, status))
            for status in (Status.CREATED, Status.RUNNING, Status.FINISHED)
        }

    # --- following -------------------------------------------------------------------------

    async def follow_list(self, follower: Follower) -> dict[str, list[dict[str, Any]]]:
        """Send ``follower`` every change of the list from now on; returns the list.

        Registered before the list is read, so no change falls between the two (a change
        the list already shows arrives again with the same or a lower ``version``).
        """
        self.list_followers.add(follower)
        try:
            return await self.listing()
        except BaseException:
            self.list_followers.discard(follower)
            raise

    def unfollow_list(self, follower: Follower) -> None:
        self.list_followers.discard(follower)

    async def follow(self, follower: Follower, tournament_id: str) -> dict[str, Any]:
        """Send ``follower`` the event afresh whenever it changes; returns it now.

        Registered before the event is read, as for the list. Raises TournamentError
        (unknown-tournament) and BadRequestError past :data:`MAX_FOLLOWED` events.
        """
        followed = sum(follower in group for group in self.followers.values())
        group = self.followers.setdefault(tournament_id, set())
        if follower not in group and followed >= MAX_FOLLOWED:
            if not group:
                del self.followers[tournament_id]
            raise BadRequestError(f"one connection may follow {MAX_FOLLOWED} tournaments")
        group.add(follower)
        try:
            return details(await self.get(tournament_id))
        except BaseException:
            self.unfollow(follower, tournament_id)
            raise

    def unfollow(self, follower: Follower, tournament_id: str) -> None:
        group = self.followers.get(tournament_id)
        if group is None:
            return
        group.discard(follower)
        if not group:
            del self.followers[tournament_id]
            self._pushed.pop(tournament_id, None)

    def unfollow_all(self, follower: Follower) -> None:
        """Forget a socket that closed."""
        self.list_followers.discard(follower)
        for tournament_id in [t for t, group in self.followers.items() if follower in group]:
            self.unfollow(follower, tournament_id)

    def _announced(self, summary: dict[str, Any]) -> None:
        """A change committed by any process: forward its summary, and read the event again
        for its local followers (once, however many notices come meanwhile)."""
        if self.list_followers:
            frame = encode(ServerTournamentListed(summary))
            for follower in tuple(self.list_followers):
                follower.push_frame(frame)
        tournament_id = summary["id"]
        if tournament_id not in self.followers:
            return
        if summary["version"] <= self._pushed.get(tournament_id, 0):
            return
        self._dirty.add(tournament_id)
        if tournament_id not in self._pushing:
            self._pushing[tournament_id] = asyncio.create_task(self._push(tournament_id))

    async def _push(self, tournament_id: str) -> None:
        try:
            while tournament_id in self._dirty:
                self._dirty.discard(tournament_id)
                try:
                    t = await self.get(tournament_id)
                except Exception:
                    log.warning("tournament %s not pushed", tournament_id, exc_info=True)
                    continue
                group = self.followers.get(tournament_id)
                if not group or t.version <= self._pushed.get(tournament_id, 0):
                    continue
                self._pushed[tournament_id] = t.version
                began = time.perf_counter()
                frame = encode(ServerTournamentEvent(details(t)))
                spent = time.perf_counter() - began
                for follower in tuple(group):
                    follower.push_frame(frame)
                # A large event's results come in bursts: changes arriving during this pause
                # fold into the next push, so it costs a bounded share of the process.
                await asyncio.sleep(max(PUSH_GAP, PUSH_COST_FACTOR * spent))
        finally:
            self._pushing.pop(tournament_id, None)

    async def _read(self) -> None:
        await read_pubsub(self._pubsub, "tournament feed", self._on_message, None, self._restored)

    def _restored(self) -> None:
        task = asyncio.create_task(self._resend())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _on_message(self, message: dict[str, Any]) -> None:
        if message["type"] != "message":
            return
        try:
            summary = ts.decode_notice(message["data"])
        except ValueError:
            log.warning("unreadable tournament notice %r", message["data"])
            return
        self._announced(summary)

    async def _resend(self) -> None:
        """After the feed was lost, notices may be missing: send every follower a fresh copy.

        Redis may still refuse reads just after it is back (a pooled connection closed, the
        data loading): each copy that fails is tried again with a growing pause, as skipping
        it would leave its followers on a stale copy.
        """
        pending: list[str | None] = [None, *self.followers]  # None: the list
        for attempt in range(RESEND_ATTEMPTS):
            if attempt:
                await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
            failed: list[str | None] = []
            for tournament_id in pending:
                try:
                    await self._resend_one(tournament_id)
                except Exception:
                    failed.append(tournament_id)
            if not failed:
                return
            pending = failed
        log.warning("tournaments %s not resent", pending)

    async def _resend_one(self, tournament_id: str | None) -> None:
        if tournament_id is None:
            if self.list_followers:
                frame = encode(ServerTournaments(None, await self.listing()))
                for follower in tuple(self.list_followers):
                    follower.push_frame(frame)
            return
        if tournament_id not in self.followers:
            return  # nobody follows it any more
        t = await self.get(tournament_id)
        self._pushed[tournament_id] = t.version
        frame = encode(ServerTournament(None, details(t)))
        for follower in tuple(self.followers.get(tournament_id, ())):
            follower.push_frame(frame)

    # --- the scheduler -----------------------------------------------------------------------

    async def step(self) -> None:
        """Advance every due event: safe on any number of processes at once."""
        for tournament_id in await ts.due(self.client, self.clock()):
            try:
                await self.advance(tournament_id)
            except Exception:
                log.warning("tournament %s not advanced", tournament_id, exc_info=True)

    async def advance(self, tournament_id: str) -> Tournament:
        """Bring one event up to date: rooms for its open games, results of finished rooms,
        then whatever is due (start, cancel, pair, finish), until nothing is."""
        for _ in range(_MAX_STEPS):
            t = await self.get(tournament_id)
            if t.status is Status.RUNNING and await self._collect(t):
                continue  # results recorded: decide again on the new state
            now = self.clock()
            step = lifecycle.next_step(t, now)
            if step is None:
                return t
            try:
                if step is Step.START:
                    change = await ts.start(self.client, tournament_id, now)
                elif step is Step.CANCEL:
                    change = await ts.cancel(self.client, tournament_id)
                elif step is Step.PAIR:
                    change = await ts.pair_round(self.client, tournament_id, t.round + 1, now)
                else:
                    change = await ts.finish(self.client, tournament_id, now)
            except TournamentError as error:
                # Another process moved the event on between our read and our decision.
                log.info("tournament %s: %s refused (%s)", tournament_id, step, error.code)
                continue
            await self._open(change.tournament, change.new_games)
        return await self.get(tournament_id)

    async def _collect(self, t: Tournament) -> bool:
        """Open the room of every unfinished game (idempotent) and record the results of
        finished ones; whether any result was recorded."""
        recorded = False
        for game in t.games:
            if game.is_over or game.is_bye:
                continue
            loaded = await store.load_room(self.client, game.id)
            if loaded is None:
                await self._open(t, [game])
                continue
            score = first_score(game, loaded.room)
            if score is not None:
                recorded = await self._record(t, game, score) or recorded
        return recorded

    async def _record(self, t: Tournament, game: Game, score: float) -> bool:
        try:
            change = await ts.record_result(self.client, t.id, game.id, score, self.clock())
        except TournamentError as error:
            if error.code is ErrorCode.RESULT_CONFLICT:
                return False  # forfeited (withdrawal) before the board's result came in
            raise
        await self._open(change.tournament, change.new_games)
        return change.changed

    @staticmethod
    def _player(t: Tournament, player_id: str) -> Player:
        entrant = t.entrant(player_id)
        name = entrant.name if entrant is not None else player_id
        return Player(player_id, name, is_guest_id(player_id))

    async def _open(self, t: Tournament, games: list[Game]) -> None:
        """Create the rooms of ``games`` (idempotent on the game id; creating a room lists it
        live)."""
        s = t.settings
        limits = DEFAULT_IDLE_LIMITS if self.rooms is None else self.rooms.idle_limits
        for game in games:
            if game.is_bye or game.is_over:
                continue
            assert game.second is not None
            first, second = (self._player(t, p) for p in (game.first, game.second))
            seats = (SeatHolder(first.id, first.name), SeatHolder(second.id, second.name))
            control = time_control(s)
            room = new_room(game.id, s.game, s.options, seats, control, s.rated, self.clock())
            await _storage(store.create_room(self.client, room, limits))

    async def _step_loop(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:
                log.warning("tournament step failed", exc_info=True)
            await asyncio.sleep(self.step_every)

    # --- results from rooms ------------------------------------------------------------------

    def room_changed(self, room: Room, events: tuple[object, ...]) -> None:
        """A committed room change: a finished tournament game is recorded at once (and the
        next round paired if it was the last)."""
        if room.outcome is None:
            return
        tournament_id = tournament_of(room.id)
        if tournament_id is None:
            return
        task = asyncio.create_task(self._finished(tournament_id))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _finished(self, tournament_id: str) -> None:
        try:
            await self.advance(tournament_id)
        except TournamentError as error:
            if error.code is not ErrorCode.UNKNOWN_TOURNAMENT:  # else: not a tournament room
                log.warning("tournament %s result not recorded: %s", tournament_id, error)
        except Exception:
            log.warning("tournament %s result not recorded", tournament_id, exc_info=True)

    async def wait_idle(self) -> None:
        """Wait until results being recorded are done (for orderly shutdown, tests)."""
        while self._pending:
            await asyncio.gather(*tuple(self._pending), return_exceptions=True)
