"""One websocket: a receiver that decodes and dispatches requests, and the frames it sends.

Every outgoing frame (replies, snapshots, diffs) is written at once when the socket takes it
(the usual case: the ASGI send returns without waiting), with no task or queue per frame,
which is the hot path of every diff sent.  Only when the peer reads slowly and the send has
to wait does a task finish it, and the frames sent meanwhile wait behind it in a bounded
backlog, so a socket sees its frames in the order they were sent.  A frame is written by the
server's direct frame writer where it offers one (:mod:`server.websocket_protocol`), else as
an ASGI websocket message (no per-message wrapper object).  Requests of one socket are
handled one at a time.
Recoverable errors become ``error`` frames echoing the request id; garbage closes with 1003,
oversized frames with 1009, an unexpected exception with 1011 (logged with its traceback).
Lobby requests (challenges, following the lobby) go to the lobby service, following
tournaments to the tournament service, chat requests to the chat service (as the player or
spectator the socket joined the room as).
Imports protocol, errors, rooms, chat, the room, chat, lobby and tournament services.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, cast

from starlette.types import Receive, Send

from lobby.clocks import Kind, LagMeter
from lobby.identity import Player, player_data
from protocol import messages
from protocol.errors import (
    RECOVERABLE,
    BadRequestError,
    CloseCode,
    FrameError,
    MessageError,
    NotAPlayerError,
    NotJoinedError,
    RateLimitedError,
    RequestId,
    UnavailableError,
    UnknownRoomError,
    close_code,
    error_code,
)
from protocol.messages import (
    ChatChannel,
    ClientAbort,
    ClientAccept,
    ClientCancel,
    ClientChallenge,
    ClientChat,
    ClientChatHistory,
    ClientChatReport,
    ClientClaim,
    ClientDecline,
    ClientDraw,
    ClientJoin,
    ClientLeave,
    ClientLeavePool,
    ClientLobby,
    ClientMessage,
    ClientMove,
    ClientMoves,
    ClientPong,
    ClientPool,
    ClientRematch,
    ClientResign,
    ClientSync,
    ClientTakeback,
    ClientTournament,
    ClientTournaments,
    Role,
    ServerAccepted,
    ServerChallenge,
    ServerChat,
    ServerError,
    ServerJoined,
    ServerLeft,
    ServerLobby,
    ServerMoves,
    ServerOk,
    ServerPing,
    ServerPool,
    ServerReported,
    ServerTournament,
    ServerTournaments,
    ServerWelcome,
    encode,
)
from server.chat import ChatLimits
from server.chat_service import ChatService
from server.lobby_service import LobbyService
from server.metrics import Metrics
from server.rooms import Abort, Claim, Draw, Move, Rematch, Resign, Takeback, seat_role
from server.service import RoomService
from server.settings import Settings
from server.tournament_service import TournamentService
from server.websocket_protocol import WriteBinary

log = logging.getLogger(__name__)

MAX_ROOMS_PER_CONNECTION = 32
_SLOW_DOWN = "too many requests: slow down"
CATCH_UP_ATTEMPTS = 8
"""Tries to read what a socket missed while storage is away (about 8 s in all)."""


@dataclass
class Watch:
    """A room this socket watches; ``version`` is None while it is being brought up to date,
    and diffs arriving meanwhile wait in ``pending``."""

    role: Role
    seat: int | None
    version: int | None = None
    pending: list[tuple[int, bytes]] = field(default_factory=list)
    counted: bool = False
    """Whether this socket is in the room's spectator count."""


class TokenBucket:
    """Requests allowed at ``rate`` per second with bursts up to ``burst``; the clock is passed."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.updated = now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Connection:
    """The server side of one websocket, for one authenticated player."""

    def __init__(
        self,
        receive: Receive,
        send: Send,
        player: Player,
        service: RoomService,
        metrics: Metrics,
        settings: Settings,
        lobby: LobbyService | None = None,
        tournaments: TournamentService | None = None,
        address: str | None = None,
        write_binary: WriteBinary | None = None,
    ) -> None:
        self._receive = receive
        self._asgi_send = send
        self._write_binary = write_binary
        """The server's direct frame writer, where it offers one (see
        :mod:`server.websocket_protocol`); else every frame goes through ``send``."""
        self.player = player
        self.address = address
        """The peer's network address, where known (the lobby's per-address limits)."""
        self.service = service
        self.lobby = lobby
        self.tournaments = tournaments
        self.chat_limits = ChatLimits(
            settings.chat_per_window,
            settings.chat_window_seconds,
            settings.chat_kept,
            settings.chat_reports_kept,
        )
        self._chat_service: ChatService | None = None
        self.socket_id = uuid.uuid4().hex
        """This socket's own id (its quick-pairing entry names it)."""
        self.pooled = False
        """Whether this socket may have a player waiting in a quick-pairing pool (its closing
        then takes the entry away)."""
        self.lobby_connection: str | None = None
        """This socket's presence id while it follows the lobby."""
        self._lobby_held: list[bytes] | None = None
        """Lobby events that arrive while a snapshot is read, sent after it."""
        self.metrics = metrics
        self.watching: dict[str, Watch] = {}
        self.send_limit = settings.send_queue
        """Frames that may wait behind a slow send before the socket is dropped."""
        self._backlog: deque[bytes] | None = None
        """Frames waiting behind a send under way; None when no send is under way."""
        self._sender: asyncio.Task[None] | None = None
        self._receiver: asyncio.Task[None] | None = None
        self._receiving = False
        """True while the receiver waits for the peer's next frame (and may be cancelled)."""
        self._let_go = False
        """True once a peer that reads nothing was let go (see :meth:`_let_go_of_peer`)."""
        self._closer: asyncio.Task[None] | None = None
        self.bucket = TokenBucket(settings.rate_per_second, settings.rate_burst, time.monotonic())
        self.close_code: CloseCode | None = None
        self.lag = LagMeter()
        """This socket's network lag, credited (boundedly) to the player's moves."""
        self._open = True
        """False once a close was sent or the peer is gone: nothing more may be sent."""
        self._gap_fillers: set[asyncio.Task[None]] = set()
        """Reads of diffs this socket missed (see :meth:`_fill_gap`)."""
        self._answered: tuple[str, int] | None = None
        """The room and version of a diff that went out as the reply to the request being
        handled (requests are handled one at a time)."""

    async def run(self) -> None:
        """Serve the socket until either side closes it (the socket is already accepted)."""
        self.metrics.connections += 1
        try:
            self._send(encode(ServerWelcome(player_data(self.player))))
            self._receiver = asyncio.create_task(self._receive_loop())
            await self._receiver
        except asyncio.CancelledError:
            if not self._let_go:
                raise
        except Exception:
            log.exception("connection of %s failed", self.player.id)
            self.close_code = CloseCode.INTERNAL_ERROR
        finally:
            self.metrics.connections -= 1
            if self._backlog is not None:
                self._backlog.clear()
            for task in tuple(self._gap_fillers):
                task.cancel()
            await self._leave_all()
            await self._unfollow()
            await self._leave_pool()
            if self.tournaments is not None:
                self.tournaments.unfollow_all(self)
            for helper in (self._sender, self._closer):
                if helper is not None:
                    try:
                        await helper
                    except asyncio.CancelledError:
                        pass
            await self._close(self.close_code or CloseCode.NORMAL)

    def push(self, room_id: str, version: int, frame: bytes) -> None:
        """Queue a diff frame unless this socket has it already (the fan-out calls this)."""
        watch = self.watching.get(room_id)
        if watch is None:
            return
        if watch.version is None:
            watch.pending.append((version, frame))
        elif version == watch.version + 1:
            watch.version = version
            self._send(frame)
        elif version > watch.version:
            # The versions in between are committed but reach this process later: a commit
            # here and another process's publication overtook each other (or a commit run
            # again after a Redis restart).  Bring the socket up to date from Redis first.
            self._fill_gap(room_id, watch, (version, frame))

    def behind(self, room_id: str, version: int) -> None:
        """Read the diffs up to ``version`` that this socket was never given (the fan-out's
        check found Redis ahead); nothing if it has them or is being brought up to date."""
        watch = self.watching.get(room_id)
        if watch is not None and watch.version is not None and watch.version < version:
            self._fill_gap(room_id, watch)

    def push_reply(self, room_id: str, version: int, frame: bytes, reply: bytes) -> None:
        """Queue ``reply``, the diff that answers this socket's request; :meth:`_ok` then sends
        nothing more.  If the socket has that version already, or is being brought up to
        date, the plain diff goes the usual way and ``ok`` answers."""
        watch = self.watching.get(room_id)
        if watch is None or watch.version is None or version != watch.version + 1:
            self.push(room_id, version, frame)  # and ``ok`` answers
            return
        watch.version = version
        self._answered = (room_id, version)
        self._send(reply)

    def push_chat(self, room_id: str, players: bool, spectators: bool, frame: bytes) -> None:
        """Queue a chat line's frame if this socket reads that chat (the fan-out calls this)."""
        watch = self.watching.get(room_id)
        if watch is not None and (players if watch.role is Role.PLAYER else spectators):
            self._send(frame)

    def push_frame(self, frame: bytes) -> None:
        """Queue a lobby frame (the lobby feed calls this)."""
        if self._lobby_held is not None:
            self._lobby_held.append(frame)
        else:
            self._send(frame)

    def _fill_gap(
        self, room_id: str, watch: Watch, arrived: tuple[int, bytes] | None = None
    ) -> None:
        """Hold the diff that ``arrived`` (and the diffs after it) while the versions this
        socket missed are read from Redis, then send them all in order, as a join does."""
        held = watch.version
        assert held is not None
        self.metrics.gaps_filled += 1
        watch.version = None
        if arrived is not None:
            watch.pending.append(arrived)
        task = asyncio.create_task(self._send_missed(room_id, watch, held))
        self._gap_fillers.add(task)
        task.add_done_callback(self._gap_fillers.discard)

    async def _send_missed(self, room_id: str, watch: Watch, held: int) -> None:
        for attempt in range(CATCH_UP_ATTEMPTS):
            if attempt:
                await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
            if self.watching.get(room_id) is not watch or watch.version is not None:
                return  # left the room, or a join brought it up to date meanwhile
            try:
                version, frames = await self.service.catch_up(room_id, held)
                break
            except RECOVERABLE:
                continue  # storage away (a restart loading its data): try again shortly
        else:
            # Storage stayed away: send what arrived; the client sees the gap and syncs.
            version, frames = held, []
        if self.watching.get(room_id) is not watch or watch.version is not None:
            return
        self._send_caught_up(watch, version, frames)

    def _send_caught_up(self, watch: Watch, version: int, frames: list[bytes]) -> int:
        """Send what storage had up to ``version``, then the diffs that arrived meanwhile and
        are newer, and follow the room from there; returns the version the socket is at."""
        for frame in frames:
            self._send(frame)
        for pending_version, frame in watch.pending:
            if pending_version > version:
                version = pending_version
                self._send(frame)
        watch.pending.clear()
        watch.version = version
        return version

    async def catch_up_all(self) -> None:
        """Send what every watched room committed while diffs could not reach this process.

        A room whose read fails (Redis still loading after a restart) is tried again with a
        growing pause: skipping it would leave its watchers waiting for a diff that never comes.
        """
        pending = list(self.watching)
        for attempt in range(CATCH_UP_ATTEMPTS):
            if attempt:
                await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
            failed = []
            for room_id in pending:
                watch = self.watching.get(room_id)
                if watch is None or watch.version is None:
                    continue  # left since, or a join in progress brings it up to date
                try:
                    version, frames = await self.service.catch_up(room_id, watch.version)
                except RECOVERABLE:
                    failed.append(room_id)
                    continue
                if watch.version is not None and version > watch.version:
                    for frame in frames:
                        self._send(frame)
                    watch.version = version
            if not failed or self.close_code is not None:
                return
            pending = failed

    async def shut(self, code: CloseCode) -> None:
        """Close this socket from the server side (shutdown)."""
        self._fail(code)

    # --- receiving ---------------------------------------------------------------------------

    async def _receive_loop(self) -> None:
        while self.close_code is None and not self._let_go:
            self._receiving = True
            try:
                message = await self._receive()
            finally:
                self._receiving = False
            if message["type"] == "websocket.disconnect":
                self._open = False
                return
            frame = message.get("bytes")
            if frame is None:
                self._fail(CloseCode.UNSUPPORTED_DATA)  # text frames are not part of the protocol
                return
            try:
                request = messages.decode(frame)
            except FrameError as error:
                self._fail(close_code(error))
                return
            except MessageError as error:
                # A malformed request costs a token like any other, so a flood of them is
                # refused as rate-limited too.
                over = not self.bucket.take(time.monotonic())
                self._error(error.ref, RateLimitedError(_SLOW_DOWN) if over else error)
                continue
            if not self.bucket.take(time.monotonic()):
                self._error(request.id, RateLimitedError(_SLOW_DOWN))
                continue
            try:
                await self._dispatch(request)
            except RECOVERABLE as error:
                self._error(request.id, error)

    async def _dispatch(self, request: ClientMessage) -> None:
        match request:
            case ClientMove():
                self._joined(request.room)
                lag = self.lag.lag
                move = Move(self.player.id, request.version, request.move, lag=lag)
                version = await self.service.command(request.room, move, request.id, self)
                self._ok(request.id, request.room, version)
                await self._ping(request.room)  # a fresh measure for the next move
            case ClientPong():
                self.lag.pong(request.id, time.monotonic())
            case ClientClaim():
                self._joined(request.room)
                claim = Claim(self.player.id, request.version)
                version = await self.service.command(request.room, claim, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientJoin() | ClientSync():
                await self._join(request)
            case ClientLeave():
                await self._leave(request.room)
                self._send(encode(ServerLeft(request.id, request.room)))
            case ClientResign():
                self._joined(request.room)
                resign = Resign(self.player.id, request.version)
                version = await self.service.command(request.room, resign, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientAbort():
                self._joined(request.room)
                abort = Abort(self.player.id, request.version)
                version = await self.service.command(request.room, abort, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientDraw():
                self._joined(request.room)
                draw = Draw(self.player.id, request.version, request.action)
                version = await self.service.command(request.room, draw, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientTakeback():
                self._joined(request.room)
                takeback = Takeback(self.player.id, request.version, request.action)
                version = await self.service.command(request.room, takeback, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientRematch():
                self._joined(request.room)
                rematch = Rematch(self.player.id)
                async with self._rematch_start(request.room):
                    version = await self.service.command(request.room, rematch, request.id, self)
                self._ok(request.id, request.room, version)
            case ClientLobby():
                # Events arriving while the snapshot is read follow it: one that the snapshot
                # already shows changes nothing, and none is lost in between.
                lobby = self._lobby()
                self._lobby_held = []
                try:
                    if self.lobby_connection is None:
                        self.lobby_connection, snapshot = await lobby.follow(self)
                    else:
                        snapshot = await lobby.snapshot(self.player)
                    self._send(encode(ServerLobby(request.id, snapshot)))
                finally:
                    held, self._lobby_held = self._lobby_held, None
                    for frame in held:
                        self._send(frame)
            case ClientChallenge():
                challenge = await self._lobby().create_challenge(
                    self.player,
                    request.game,
                    request.options,
                    request.colour,
                    request.rated,
                    request.target,
                    request.time_control,
                    self.address,
                )
                self._send(encode(ServerChallenge(request.id, challenge.to_data())))
            case ClientAccept():
                lobby = self._lobby()
                accepted, room_id = await lobby.accept(self.player, request.challenge, self.address)
                self._send(encode(ServerAccepted(request.id, accepted.to_data(), room_id)))
            case ClientDecline():
                declined = await self._lobby().decline(self.player, request.challenge)
                self._send(encode(ServerChallenge(request.id, declined.to_data())))
            case ClientCancel():
                cancelled = await self._lobby().cancel(self.player, request.challenge)
                self._send(encode(ServerChallenge(request.id, cancelled.to_data())))
            case ClientPool():
                self.pooled = True  # until the answer says otherwise: it may wait
                paired = await self._lobby().join_pool(
                    self.player,
                    request.game,
                    request.time_control,
                    request.rated,
                    self.socket_id,
                    self.address,
                )
                self.pooled = paired is None
                self._send(encode(ServerPool(request.id, paired, paired is None)))
            case ClientLeavePool():
                await self._lobby().leave_pool(self.player, "")
                self.pooled = False
                self._send(encode(ServerPool(request.id, None, False)))
            case ClientTournaments():
                listing = None
                if request.follow:
                    listing = await self._tournaments().follow_list(self)
                else:
                    self._tournaments().unfollow_list(self)
                self._send(encode(ServerTournaments(request.id, listing)))
            case ClientTournament():
                event = None
                if request.follow:
                    event = await self._tournaments().follow(self, request.tournament)
                else:
                    self._tournaments().unfollow(self, request.tournament)
                self._send(encode(ServerTournament(request.id, event)))
            case ClientChat():
                role = self._role(request.room)
                chat = ChatChannel(request.channel)
                line = await self._chat().say(
                    request.room, role, self.player.id, self.player.name, chat, request.text
                )
                reply = ServerChat(request.id, request.room, chat.value, [line.to_data()])
                self._send(encode(reply))
            case ClientChatHistory():
                chat = ChatChannel(request.channel)
                lines = await self._chat().history(request.room, self._role(request.room), chat)
                data = [line.to_data() for line in lines]
                self._send(encode(ServerChat(request.id, request.room, chat.value, data, True)))
            case ClientChatReport():
                role = self._role(request.room)
                chat = ChatChannel(request.channel)
                await self._chat().report(
                    request.room, role, self.player.id, self.player.name, chat, request.line
                )
                self._send(encode(ServerReported(request.id, request.room)))
            case ClientMoves():
                if self._role(request.room) is not Role.PLAYER:
                    raise NotAPlayerError("only the players of this room see its moves")
                position, moves = await self.service.seat_moves(
                    request.room, self.player.id, request.seat
                )
                listed = ServerMoves(request.id, request.room, request.seat, position, moves)
                self._send(encode(listed))
            case _:
                raise AssertionError(f"no handler for {request!r}")

    async def _join(self, request: ClientJoin | ClientSync) -> None:
        watch = self.watching.get(request.room)
        new = watch is None
        if watch is None:
            if isinstance(request, ClientSync):
                raise NotJoinedError(f"join room {request.room!r} before syncing it")
            if len(self.watching) >= MAX_ROOMS_PER_CONNECTION:
                raise BadRequestError(f"one connection may watch {MAX_ROOMS_PER_CONNECTION} rooms")
            try:
                loaded = await self.service.room(request.room)
            except UnknownRoomError:
                # An accepted challenge whose room its accepter's process never created.
                if self.lobby is None or not await self.lobby.restore_room(request.room):
                    raise
                loaded = await self.service.room(request.room)
            seat = seat_role(loaded.room, self.player.id)
            role = Role.SPECTATOR if seat is None else Role.PLAYER
            watch = self.watching[request.room] = Watch(role, None if seat is None else int(seat))
        held = watch.version
        watch.version = None
        try:
            if new:
                await self.service.fanout.subscribe(request.room, self)
                self.metrics.rooms = self.service.fanout.room_count
            version, frames = await self.service.catch_up(request.room, request.version)
        except BaseException:
            if new:
                await self._leave(request.room)
            else:
                watch.version = held
                watch.pending.clear()
            raise
        version = self._send_caught_up(watch, version, frames)
        self._send(
            encode(ServerJoined(request.id, request.room, version, watch.role.value, watch.seat))
        )
        if new and watch.role is Role.SPECTATOR:
            try:
                await self.service.change_spectators(request.room, +1)
                watch.counted = True
            except RECOVERABLE:
                log.warning("spectator of room %s not counted", request.room)
        if new and watch.role is Role.PLAYER:
            await self._presence(request.room, here=True)
            await self._ping(request.room)

    async def _leave(self, room_id: str) -> None:
        watch = self.watching.pop(room_id, None)
        if watch is None:
            return
        await self.service.fanout.unsubscribe(room_id, self)
        self.metrics.rooms = self.service.fanout.room_count
        if watch.counted:
            await self.service.change_spectators(room_id, -1)
        if watch.role is Role.PLAYER:
            await self._presence(room_id, here=False)

    async def _presence(self, room_id: str, here: bool) -> None:
        """Count this player's socket in or out of the room's presence leases; the room shows
        them away once no socket of theirs is left on any process (or its lease lapsed)."""
        presence = self.service.presence
        try:
            if here:
                await presence.arrive(room_id, self.player.id)
            else:
                await presence.depart(room_id, self.player.id)
        except Exception:  # best effort: Redis may be away, and the socket must not fail
            log.warning("presence of %s in room %s not updated", self.player.id, room_id)

    async def _ping(self, room_id: str) -> None:
        """Measure the lag again if ``room_id`` has a live clock (only live moves need it)."""
        loaded = self.service.cached(room_id)  # after a move, without a coroutine
        if loaded is None:
            try:
                loaded = await self.service.room(room_id)
            except RECOVERABLE:
                return
        clock = loaded.room.clock
        if clock is not None and clock.control.kind is Kind.LIVE:
            self._send(encode(ServerPing(self.lag.ping(time.monotonic()))))

    async def _leave_all(self) -> None:
        for room_id in list(self.watching):
            try:
                await self._leave(room_id)
            except Exception:
                log.exception("leaving room %s", room_id)

    async def _unfollow(self) -> None:
        if self.lobby is not None and self.lobby_connection is not None:
            connection_id, self.lobby_connection = self.lobby_connection, None
            try:
                await self.lobby.unfollow(connection_id)
            except Exception:
                log.warning("presence of %s not cleared", self.player.id, exc_info=True)

    async def _leave_pool(self) -> None:
        """A socket that waited in a quick-pairing pool takes its entry with it."""
        if self.lobby is not None and self.pooled:
            try:
                await self.lobby.leave_pool(self.player, self.socket_id)
            except Exception:
                log.warning("pool entry of %s not cleared", self.player.id, exc_info=True)

    def _rematch_start(self, room_id: str) -> AbstractAsyncContextManager[None]:
        """The lobby's limits around a rematch request (none without the lobby)."""
        if self.lobby is None:
            return contextlib.nullcontext()
        return self.lobby.rematch_start(self.player, room_id, self.address)

    def _lobby(self) -> LobbyService:
        if self.lobby is None:
            raise UnavailableError("this server runs without the lobby")
        return self.lobby

    def _tournaments(self) -> TournamentService:
        if self.tournaments is None:
            raise UnavailableError("this server runs without tournaments")
        return self.tournaments

    def _chat(self) -> ChatService:
        if self._chat_service is None:
            self._chat_service = ChatService(self.service.client, self.service, self.chat_limits)
        return self._chat_service

    def _role(self, room_id: str) -> Role:
        """How this socket takes part in a room it joined; raises NotJoinedError."""
        watch = self.watching.get(room_id)
        if watch is None:
            raise NotJoinedError(f"join room {room_id!r} first")
        return watch.role

    def _joined(self, room_id: str) -> None:
        if room_id not in self.watching:
            raise NotJoinedError(f"join room {room_id!r} first")

    # --- sending -----------------------------------------------------------------------------

    def _send(self, frame: bytes) -> None:
        if self.close_code is not None or not self._open:
            return  # closing, or the peer is gone
        backlog = self._backlog
        if backlog is None:
            self._write(frame)
        elif len(backlog) < self.send_limit:
            backlog.append(frame)
        else:
            # A socket this far behind is dropped; it can reconnect and sync.
            self._fail(CloseCode.TRY_AGAIN_LATER)

    def _write(self, frame: bytes) -> None:
        """Send ``frame`` now; a send that has to wait is finished by a task, and the frames
        sent meanwhile wait in the backlog."""
        write_binary = self._write_binary
        if write_binary is not None and write_binary(frame):
            return  # written (the usual case), without an ASGI message
        sending = self._asgi_send({"type": "websocket.send", "bytes": frame})
        if not inspect.iscoroutine(sending):
            self._backlog = deque()
            self._sender = asyncio.create_task(self._drain(sending, None))
            return
        try:
            waiting = sending.send(None)
        except StopIteration:
            return  # written (the usual case)
        except OSError:  # the peer is gone (uvicorn's ClientDisconnected)
            self._open = False
            return
        except RuntimeError:  # the server closed the socket itself (a keepalive timeout)
            self._let_go_of_peer()
            return
        except Exception:
            log.exception("sending to %s failed", self.player.id)
            self._open = False
            return
        self._backlog = deque()
        self._sender = asyncio.create_task(self._drain(sending, waiting))

    async def _drain(self, sending: Awaitable[None], waiting: Any) -> None:
        """Finish a send that had to wait, then send the backlog; close if asked meanwhile."""
        send = self._asgi_send
        try:
            if inspect.iscoroutine(sending):
                await _finish(sending, waiting)
            else:
                await sending
            backlog = self._backlog
            while backlog and self._open and self.close_code is None:
                await send({"type": "websocket.send", "bytes": backlog.popleft()})
        except OSError:  # the peer is gone (uvicorn's ClientDisconnected)
            self._open = False
        except RuntimeError:  # the server closed the socket itself (a keepalive timeout)
            self._let_go_of_peer()
        finally:
            self._backlog = None
            self._sender = None
        if self.close_code is not None:
            await self._close(self.close_code)  # also wakes the receiver

    def _ok(self, ref: RequestId, room_id: str, version: int) -> None:
        """Answer a committed request, unless its diff answered it already."""
        if self._answered == (room_id, version):
            self._answered = None
            return
        self._send(encode(ServerOk(ref, room_id, version)))

    def _error(self, ref: RequestId | None, error: BaseException) -> None:
        code = error_code(error)
        self.metrics.errors[code.value] += 1
        self._send(encode(ServerError(ref, code.value, str(error))))

    def _fail(self, code: CloseCode) -> None:
        """Close the socket with ``code`` now, dropping whatever is still queued."""
        if self.close_code is None:
            self.close_code = code
            self.metrics.closes[int(code)] += 1
            if self._backlog is not None:
                self._backlog.clear()  # the send under way closes the socket when done
                if code is CloseCode.TRY_AGAIN_LATER:
                    self._let_go_of_peer()
            else:
                self._closer = asyncio.create_task(self._close(code))  # also wakes the receiver

    def _let_go_of_peer(self) -> None:
        """Stop serving a peer that reads nothing.

        The send under way waits for the peer's receive window, which may never open, and a
        close frame would wait behind it; and when the server closes such a socket itself
        (uvicorn's keepalive timeout) it tells the receiver nothing until the buffered bytes
        are gone.  So cancel the send and the receiver's wait for the peer's next frame
        (never a request being handled): :meth:`run` then returns and the server closes the
        transport, with at most its flow-control buffer still held.
        """
        self._let_go = True
        self._open = False
        if self._sender is not None:
            self._sender.cancel()
        if self._receiver is not None and self._receiving:
            self._receiver.cancel()

    async def _close(self, code: CloseCode) -> None:
        if not self._open:
            return
        self._open = False
        try:
            await self._asgi_send({"type": "websocket.close", "code": int(code), "reason": ""})
        except OSError:
            pass  # the peer is gone already


async def _finish(coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run to its end a coroutine that was started by hand and stopped at ``waiting`` (the
    future it awaits, or None for a bare yield)."""
    while True:
        try:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await cast(Awaitable[Any], waiting)
        except asyncio.CancelledError:
            coroutine.close()
            raise
        except Exception:
            pass  # the coroutine sees the future's error when it resumes
        try:
            waiting = coroutine.send(None)
        except StopIteration:
            return
