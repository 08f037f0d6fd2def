"""A Python client of the game server: guests, join or watch, move, and a synced copy of rooms.

It also follows the lobby (a snapshot, then events applied by :func:`apply_lobby_event`),
makes, accepts, declines and cancels challenges, and follows tournaments (each event kept at
the highest version received).  A bot or a tool is a few lines; this one takes the first open
challenge and plays random legal moves until the game ends::

    import asyncio, random
    from client import Client, guest
    from rules import find_game

    async def play_one_game(base_url: str) -> dict:  # e.g. "http://127.0.0.1:8000"
        me, token = await asyncio.to_thread(guest, base_url)
        client = await Client.connect(base_url.replace("http", "ws", 1) + "/ws", token)
        await client.follow_lobby()
        lobby = await client.wait_lobby(lambda lobby: bool(lobby["open"]), timeout=600)
        room = await client.accept(lobby["open"][0]["id"])
        view = await client.join(room)
        game = find_game(view.doc["game"])
        seat = [holder["id"] for holder in view.doc["seats"]].index(me["id"])
        while view.doc["outcome"] is None:
            version = view.version + 1  # the next move, whoever makes it
            if view.doc["to_move"] == seat:
                moves = list(game.legal_moves(game.from_data(view.doc["data"])))
                version = await client.move(room, game.move_text(random.choice(moves)))
            view = await client.wait_version(room, version, timeout=600)
        await client.close()
        return view.doc["outcome"]

Each joined room is kept as a :class:`RoomView` whose ``doc`` is the server's room state: a
snapshot replaces it, a diff applies only on top of the version before it, and a gap makes the
client ask ``sync``.  Nothing here knows a game.  Tests, the benchmarks and the bots use it.
Imports the websockets client and :mod:`protocol` only; nothing in the server imports it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import messages
from protocol.diff import DiffError, apply
from protocol.errors import FrameError, RequestId
from protocol.messages import ClientMessage, MsgType

_REPLIES = frozenset(
    (
        MsgType.JOINED,
        MsgType.LEFT,
        MsgType.OK,
        MsgType.ERROR,
        MsgType.LOBBY,
        MsgType.CHALLENGE,
        MsgType.ACCEPTED,
        MsgType.TOURNAMENT,
        MsgType.TOURNAMENTS,
        MsgType.POOL,
        MsgType.CHAT,
        MsgType.REPORTED,
        MsgType.MOVES,
    )
)
"""Server messages that answer a request (``ref`` names it)."""

CHAT_LINES_KEPT = 1000
SYNC_RETRY_SECONDS = 0.5
"""How long a view waits before asking again after the server refused an automatic sync."""


class ServerReplyError(Exception):
    """The server answered a request with an error frame."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class RoomView:
    """The client's copy of one room."""

    room: str
    version: int = -1
    doc: dict[str, Any] | None = None
    role: str | None = None
    syncing: bool = False
    applied: list[int] = field(default_factory=list)
    """Every version applied in order (snapshots included), to check nothing was missed."""


def guest(base_url: str) -> tuple[dict[str, Any], str]:
    """A new guest (player data, token) from ``POST /api/guest`` (blocking; use a thread)."""
    request = urllib.request.Request(f"{base_url}/api/guest", method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=10) as response:
        body = json.loads(response.read())
    return body["player"], body["token"]


def apply_lobby_event(lobby: dict[str, Any], event: dict[str, Any], me: str) -> None:
    """Apply one ``lobby_event`` to a lobby snapshot held by player ``me`` (in place)."""
    kind = event["t"]
    if kind == "challenge":
        challenge = event["challenge"]
        for name in ("open", "incoming", "outgoing"):
            lobby[name] = [c for c in lobby[name] if c["id"] != challenge["id"]]
        if challenge["status"] == "open":
            if challenge["target"] is None:
                lobby["open"].append(challenge)
            elif challenge["target"]["id"] == me:
                lobby["incoming"].append(challenge)
            if challenge["challenger"]["id"] == me:
                lobby["outgoing"].append(challenge)
    elif kind in ("live", "finished"):
        game = event["game"]
        listed = lobby["live"]
        count = lobby.get("live_count", len(listed))
        was_listed = any(g["room_id"] == game["room_id"] for g in listed)
        for name in ("live", "mine"):
            lobby[name] = [g for g in lobby[name] if g["room_id"] != game["room_id"]]
        if kind == "live":
            lobby["live"].append(game)
            if any(p["id"] == me for p in game["players"]):
                lobby["mine"].append(game)
        lobby["live_count"] = live_count_after(listed, count, game, kind, was_listed)
    elif kind == "presence":
        lobby["online"] = [p for p in lobby["online"] if p["player"]["id"] != event["player"]]
        if event["presence"] is not None:
            lobby["online"].append(event["presence"])
    else:
        raise FrameError(f"unknown lobby event {kind!r}")


def live_count_after(
    listed: list[dict[str, Any]], count: int, game: dict[str, Any], kind: str, was_listed: bool
) -> int:
    """The number of games in play after a ``live`` or ``finished`` event, from the count
    before it and the list before it (the snapshot lists only the newest games: an update
    of an older game, not listed, is not a new one; one started after the oldest listed is).
    """
    complete = count <= len(listed)
    if kind == "finished":
        return max(0, count - 1) if was_listed or not complete else count
    if was_listed:
        return count
    # Nothing listed but games counted (the listed ones ended): as for an older game.
    oldest_listed = min((g["started"] for g in listed), default=math.inf)
    if complete or game["started"] >= oldest_listed:
        return count + 1
    return count


class Client:
    """One websocket to the server, with request ids, replies and synced room views."""

    def __init__(self, socket: ClientConnection, apply_diffs: bool = True) -> None:
        """``apply_diffs`` False keeps no room copies (a load generator's spectators)."""
        self.socket = socket
        self.apply_diffs = apply_diffs
        self.player: dict[str, Any] | None = None
        self.rooms: dict[str, RoomView] = {}
        self.lobby: dict[str, Any] | None = None
        """The lobby as this client sees it, once it follows the lobby."""
        self.lobby_events: list[dict[str, Any]] = []
        self.tournaments: dict[str, dict[str, Any]] = {}
        """Followed tournaments by id, each as the server last sent it."""
        self.listed: list[dict[str, Any]] = []
        self.chat_lines: deque[dict[str, Any]] = deque(maxlen=CHAT_LINES_KEPT)
        """Chat lines said in the joined rooms since connecting (``room`` and ``channel``
        added to each), in the order they came; the last ``CHAT_LINES_KEPT`` (a bot runs
        for days)."""
        """Summaries received while following the list of tournaments, in order."""
        self.frames_received = 0
        self.on_diff: Callable[[str, int], None] | None = None
        self._ids = itertools.count(1)
        self._replies: dict[RequestId, asyncio.Future[dict[str, Any]]] = {}
        self._sync_requests: dict[RequestId, RoomView] = {}
        self._changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._welcome: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls, ws_url: str, token: str | None, timeout: float = 10.0, apply_diffs: bool = True
    ) -> Client:
        """Connect to ``ws_url`` (``ws://host:port/ws``) and wait for the welcome."""
        url = ws_url if token is None else f"{ws_url}?token={token}"
        socket = await asyncio.wait_for(
            connect(url, compression=None, max_size=None, open_timeout=timeout), timeout
        )
        client = cls(socket, apply_diffs)
        await asyncio.wait_for(asyncio.shield(client._welcome), timeout)
        return client

    async def close(self) -> None:
        await self.socket.close()
        self._reader.cancel()
        # Waited for, not awaited: catching the reader's CancelledError would also swallow a
        # cancel of this close, and the task closing the client would run on as if never
        # cancelled.
        await asyncio.wait([self._reader])
        if not self._reader.cancelled() and (error := self._reader.exception()) is not None:
            raise error

    @property
    def closed(self) -> bool:
        return self._reader.done()

    # --- requests ----------------------------------------------------------------------------

    def next_id(self) -> int:
        """A request id this client has not used."""
        return next(self._ids)

    async def ask(self, message: ClientMessage, timeout: float = 10.0) -> dict[str, Any]:
        """Send ``message``; its reply, or ServerReplyError."""
        return await self._exchange(message.id, messages.encode(message), timeout)

    async def request(self, body: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send the map ``body`` as it is (an ``id`` is added unless present), for frames the
        protocol does not define, as tests of bad input send; the reply, or ServerReplyError.
        Every other request is a typed message sent with :meth:`ask`."""
        body.setdefault("id", self.next_id())
        return await self._exchange(body["id"], msgpack.packb(body, use_bin_type=True), timeout)

    async def _exchange(self, ref: RequestId, frame: bytes, timeout: float) -> dict[str, Any]:
        future = asyncio.get_running_loop().create_future()
        self._replies[ref] = future
        try:
            await self.socket.send(frame)
            reply: dict[str, Any] = await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(ref, None)
        if reply["t"] == MsgType.ERROR:
            raise ServerReplyError(reply["code"], reply["message"])
        return reply

    async def join(self, room: str, version: int | None = None) -> RoomView:
        """Join (or watch) ``room``; returns its view, already at the joined version.

        A view that holds a document resumes from its version (the server sends only what
        it missed); ``version`` overrides that.
        """
        view = self.rooms.setdefault(room, RoomView(room))
        if version is None and view.doc is not None:
            version = view.version
        if version is not None:
            view.version = version
        reply = await self.ask(messages.ClientJoin(self.next_id(), room, version))
        view.role = reply["role"]
        return view

    async def leave(self, room: str) -> None:
        await self.ask(messages.ClientLeave(self.next_id(), room))
        self.rooms.pop(room, None)

    async def move(
        self,
        room: str,
        text: str,
        version: int | None = None,
        request_id: RequestId | None = None,
    ) -> int:
        """Play ``text`` from ``version`` (default: the view's); the version after the move."""
        seen = self.rooms[room].version if version is None else version
        ref = self.next_id() if request_id is None else request_id
        reply = await self.ask(messages.ClientMove(ref, room, seen, text))
        return int(reply["version"])

    async def seat_moves(self, room: str, seat: int) -> tuple[int, list[str]]:
        """The moves ``seat`` (yours, in a room joined as its player) could make in the
        room's position now: its legal moves when it is to move, else its premoves; with the
        ``position_version`` they are for.  Raises ServerReplyError (``not_a_player``)."""
        reply = await self.ask(messages.ClientMoves(self.next_id(), room, seat))
        return int(reply["position_version"]), messages.listed_moves(reply["moves"])

    async def resign(self, room: str) -> int:
        reply = await self.ask(
            messages.ClientResign(self.next_id(), room, self.rooms[room].version)
        )
        return int(reply["version"])

    async def abort(self, room: str) -> int:
        reply = await self.ask(messages.ClientAbort(self.next_id(), room, self.rooms[room].version))
        return int(reply["version"])

    async def takeback(self, room: str, action: str) -> int:
        """Ask to take back one's last move, or accept or decline the asking (``action``)."""
        version = self.rooms[room].version
        message = messages.ClientTakeback(self.next_id(), room, version, action)
        return int((await self.ask(message))["version"])

    async def draw(self, room: str, action: str) -> int:
        """Offer, accept or decline a draw (``action``)."""
        version = self.rooms[room].version
        reply = await self.ask(messages.ClientDraw(self.next_id(), room, version, action))
        return int(reply["version"])

    async def rematch(self, room: str) -> int:
        reply = await self.ask(messages.ClientRematch(self.next_id(), room))
        return int(reply["version"])

    async def chat(self, room: str, channel: str, text: str) -> dict[str, Any]:
        """Say ``text`` in a chat of the room; the line as the server keeps it."""
        reply = await self.ask(messages.ClientChat(self.next_id(), room, channel, text))
        line: dict[str, Any] = reply["lines"][0]
        return line

    async def chat_history(self, room: str, channel: str) -> list[dict[str, Any]]:
        """The lines the server keeps of a chat of the room, oldest first."""
        reply = await self.ask(messages.ClientChatHistory(self.next_id(), room, channel))
        lines: list[dict[str, Any]] = reply["lines"]
        return lines

    async def report_chat(self, room: str, channel: str, line: str) -> None:
        await self.ask(messages.ClientChatReport(self.next_id(), room, channel, line))

    async def follow_lobby(self) -> dict[str, Any]:
        """Follow the lobby; returns the snapshot, kept up to date in ``self.lobby``."""
        reply = await self.ask(messages.ClientLobby(self.next_id()))
        self.lobby = reply["lobby"]
        return self.lobby

    async def challenge(
        self,
        game: str,
        options: str = "",
        colour: str = "random",
        rated: bool = False,
        target: str | None = None,
        time_control: str | None = None,
    ) -> dict[str, Any]:
        """Make a challenge (open unless ``target`` names a player; untimed unless
        ``time_control`` says, e.g. ``10+5``); returns it."""
        message = messages.ClientChallenge(
            self.next_id(), game, options, colour, rated, target, time_control
        )
        return dict((await self.ask(message))["challenge"])

    async def join_pool(self, game: str, time_control: str, rated: bool = False) -> str | None:
        """Join (or renew the wait in) a quick-pairing pool: the room when paired at once."""
        message = messages.ClientPool(self.next_id(), game, time_control, rated)
        room = (await self.ask(message))["room"]
        return None if room is None else str(room)

    async def leave_pool(self) -> None:
        await self.ask(messages.ClientLeavePool(self.next_id()))

    async def accept(self, challenge: str) -> str:
        """Accept a challenge; returns the id of its room."""
        return str((await self.ask(messages.ClientAccept(self.next_id(), challenge)))["room"])

    async def decline(self, challenge: str) -> dict[str, Any]:
        reply = await self.ask(messages.ClientDecline(self.next_id(), challenge))
        return dict(reply["challenge"])

    async def cancel(self, challenge: str) -> dict[str, Any]:
        reply = await self.ask(messages.ClientCancel(self.next_id(), challenge))
        return dict(reply["challenge"])

    async def follow_tournament(self, tournament: str) -> dict[str, Any]:
        """Follow a tournament; returns it, kept up to date in ``self.tournaments``."""
        await self.ask(messages.ClientTournament(self.next_id(), tournament))
        return self.tournaments[tournament]

    async def unfollow_tournament(self, tournament: str) -> None:
        await self.ask(messages.ClientTournament(self.next_id(), tournament, follow=False))
        self.tournaments.pop(tournament, None)

    async def follow_tournaments(self) -> dict[str, Any]:
        """Follow the list of tournaments; returns it (changes then arrive in ``listed``)."""
        return dict((await self.ask(messages.ClientTournaments(self.next_id())))["tournaments"])

    async def wait_tournament(
        self,
        tournament: str,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = 10.0,
    ) -> dict[str, Any]:
        """Wait until ``predicate`` holds for a followed tournament; raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while True:
                event = self.tournaments.get(tournament)
                if event is not None and predicate(event):
                    return event
                if self.closed:
                    raise ConnectionError("the connection is closed")
                await asyncio.shield(self._changed)

    async def wait_lobby(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Wait until ``predicate(lobby)`` holds; raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while True:
                if self.lobby is not None and predicate(self.lobby):
                    return self.lobby
                if self.closed:
                    raise ConnectionError("the connection is closed")
                await asyncio.shield(self._changed)

    async def wait_chat(self, count: int, timeout: float = 10.0) -> list[str]:
        """Wait until ``count`` chat lines have come; their texts.  Raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while len(self.chat_lines) < count:
                if self.closed:
                    raise ConnectionError("the connection is closed")
                await asyncio.shield(self._changed)
        return [line["text"] for line in self.chat_lines]

    async def wait_for(
        self, room: str, predicate: Callable[[RoomView], bool], timeout: float = 10.0
    ) -> RoomView:
        """Wait until ``predicate(view)`` holds for the room; raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while True:
                view = self.rooms.get(room)
                if view is not None and view.doc is not None and predicate(view):
                    return view
                if self.closed:
                    raise ConnectionError("the connection is closed")
                await asyncio.shield(self._changed)

    async def wait_version(self, room: str, version: int, timeout: float = 10.0) -> RoomView:
        return await self.wait_for(room, lambda view: view.version >= version, timeout)

    # --- receiving ---------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.socket:
                if isinstance(frame, str):
                    raise FrameError("the server sent a text frame")
                self.frames_received += 1
                self._handle(messages.decode_server(frame))
                self._notify()
        except ConnectionClosed:
            pass  # the end of every connection; ``socket.close_code`` says how it ended
        finally:
            for future in self._replies.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection closed"))
            if not self._welcome.done():
                self._welcome.set_exception(ConnectionError("closed before the welcome"))
            self._notify()

    def _handle(self, body: dict[str, Any]) -> None:
        kind = body["t"]
        if kind == MsgType.DIFF:
            self._apply_diff(body)
            if body.get("ref") is not None:  # the diff answers this socket's request
                future = self._replies.get(body["ref"])
                if future is not None and not future.done():
                    future.set_result(body)
        elif kind == MsgType.SNAPSHOT:
            shown = self.rooms.setdefault(body["room"], RoomView(body["room"]))
            if body["version"] >= shown.version or shown.doc is None:
                shown.doc = body["state"]
                shown.version = body["version"]
                shown.applied.append(shown.version)
            shown.syncing = False
        elif kind == MsgType.WELCOME:
            self.player = body["player"]
            if not self._welcome.done():
                self._welcome.set_result(None)
        elif kind == MsgType.LOBBY_EVENT:
            self.lobby_events.append(body["event"])
            if self.lobby is not None and self.player is not None:
                apply_lobby_event(self.lobby, body["event"], self.player["id"])
        elif kind == MsgType.LOBBY and body.get("ref") is None:
            self.lobby = body["lobby"]  # the server lost its event stream: a fresh lobby
        elif kind == MsgType.PING:
            self._send_soon(messages.ClientPong(body["n"]))  # the server measures the lag
        elif kind == MsgType.TOURNAMENT_EVENT or (
            kind == MsgType.TOURNAMENT and body.get("ref") is None
        ):
            self._keep_tournament(body["tournament"])
        elif kind == MsgType.TOURNAMENT_LISTED:
            self.listed.append(body["tournament"])
        elif kind == MsgType.TOURNAMENTS and body.get("ref") is None:
            pass  # a fresh list after the server lost its event stream
        elif kind == MsgType.CHAT and body.get("ref") is None:
            for line in body["lines"]:
                self.chat_lines.append({**line, "room": body["room"], "channel": body["channel"]})
        elif kind in _REPLIES:
            if kind == MsgType.JOINED:
                view = self.rooms.get(body["room"])
                if view is not None:
                    view.syncing = False
            elif kind == MsgType.LOBBY:
                # Stored here, not when the request returns: events that follow the reply in
                # the same read would otherwise find no lobby to apply to and be lost.
                self.lobby = body["lobby"]
            elif kind == MsgType.TOURNAMENT and body["tournament"] is not None:
                self._keep_tournament(body["tournament"])
            refused_sync = self._sync_requests.pop(body.get("ref"), None)  # type: ignore[arg-type]
            if refused_sync is not None and kind == MsgType.ERROR:
                # An automatic sync refused (Redis restarting, say): try again shortly, or
                # the view would wait for ever and ignore every later diff.
                refused_sync.syncing = False
                asyncio.get_running_loop().call_later(SYNC_RETRY_SECONDS, self._sync, refused_sync)
            future = self._replies.get(body.get("ref"))  # type: ignore[arg-type]
            if future is not None and not future.done():
                future.set_result(body)
        else:
            raise FrameError(f"unexpected server message {kind!r}")

    def _keep_tournament(self, event: dict[str, Any]) -> None:
        """Keep the newest copy: an event pushed before the reply may be newer than it."""
        held = self.tournaments.get(event["id"])
        if held is None or event["version"] >= held["version"]:
            self.tournaments[event["id"]] = event

    def _apply_diff(self, body: dict[str, Any]) -> None:
        if not self.apply_diffs:
            if self.on_diff is not None:
                self.on_diff(body["room"], body["version"])
            return
        view = self.rooms.get(body["room"])
        if view is None or view.doc is None or body["version"] <= view.version:
            return  # not watched yet, or already applied
        if body["version"] != view.version + 1:
            self._sync(view)
            return
        try:
            view.doc = apply(view.doc, body["ops"])
        except DiffError:
            self._sync(view)
            return
        view.version = body["version"]
        view.applied.append(view.version)
        if self.on_diff is not None:
            self.on_diff(view.room, view.version)

    def _sync(self, view: RoomView) -> None:
        if view.syncing:
            return
        view.syncing = True
        request_id = self.next_id()
        self._sync_requests[request_id] = view
        self._send_soon(messages.ClientSync(request_id, view.room, view.version))

    def _send_soon(self, message: ClientMessage) -> None:
        task = asyncio.ensure_future(self.socket.send(messages.encode(message)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _notify(self) -> None:
        if not self._changed.done():
            self._changed.set_result(None)
        self._changed = asyncio.get_running_loop().create_future()
