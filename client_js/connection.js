// One websocket to the game server (docs/protocol.md): msgpack binary frames, request ids
// whose replies are matched by `ref`, a synced copy of every joined room (a diff applies only
// on top of the version before it; a gap asks `sync`), and reconnection with backoff that
// joins every room again from its last version, without reloading the page.  It also follows
// the lobby: a snapshot, then events applied by applyLobbyEvent, and a fresh snapshot after
// every reconnection; and it follows tournaments (the list, or events) the same way, keeping
// the copy of each event with the highest version.  A request larger than the server's frame
// limit is refused here, never sent; after the server closes for a message too large
// (1009), the requests in flight are given up rather than sent again.
// Imports the generated protocol constants, the diff twin and the vendored msgpack only.

import { decode, encode } from "./vendor/msgpack/index.mjs";
import { apply, DiffError } from "./diff.js";
import { CloseCode, ErrorCode, MAX_FRAME_BYTES, MsgType } from "./protocol.js";

/** The connection's states, shown to the player. */
const Status = Object.freeze({
  CONNECTING: "connecting",
  OPEN: "open",
  RECONNECTING: "reconnecting",
  SIGNED_OUT: "signed-out",
  CLOSED: "closed",
});

/** The server refused a request; `code` is one of protocol.js's ErrorCode values. */
class ServerError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The code of a request refused for its size (by this page, or by the server's 1009 close). */
const TOO_LARGE = "too_large";

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 8000;

/** A request id unique to this page, also across reconnections (resends keep theirs). */
let lastId = 0;
function nextId() {
  lastId += 1;
  return lastId;
}

class Connection {
  /**
   * `url` is ws(s)://host/ws; `token` the session token.  Callbacks (all optional):
   * onStatus(status, detail), onWelcome(player), onRoom(roomId, doc, version),
   * onLobby(lobby, event) when the lobby changes (event null for a snapshot),
   * onTournaments(list) when the followed list of tournaments changes (a Map id -> summary),
   * onTournament(event) when a followed tournament changes,
   * onError(error) for errors that belong to no pending request.
   */
  constructor(url, token, callbacks = {}) {
    this.url = url;
    this.token = token;
    this.callbacks = callbacks;
    this.status = Status.CONNECTING;
    this.player = null;
    this.socket = null;
    this.rooms = new Map(); // room id -> {version, doc, syncing}
    this.pending = new Map(); // request id -> {body, resolve, reject, resend}
    this.attempts = 0;
    this.timer = null;
    this.stopped = false;
    this.lobby = null; // the lobby as the server last described it, once followed
    this.followingLobby = false;
    this.tournamentList = null; // id -> summary, while the list is followed
    this.tournaments = new Map(); // id -> the followed event (null until its first copy)
    this.chatListeners = new Map(); // room id -> the page's listener of its chats
  }

  /** Opens the socket; reconnects by itself until close() is called. */
  open() {
    this.stopped = false;
    this.connectSocket();
  }

  /** Closes for good (no reconnection). */
  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket !== null) this.socket.close(CloseCode.NORMAL);
    this.setStatus(Status.CLOSED);
  }

  /** Joins (or watches) a room; resolves with the `joined` reply once the copy is current. */
  join(roomId) {
    if (!this.rooms.has(roomId)) this.rooms.set(roomId, { version: -1, doc: null, syncing: false });
    return this.request({ t: MsgType.JOIN, room: roomId }, false);
  }

  leave(roomId) {
    this.rooms.delete(roomId);
    return this.request({ t: MsgType.LEAVE, room: roomId }, false);
  }

  /** Plays `text` from the room's current version; resent after a reconnection if unanswered. */
  move(roomId, text) {
    return this.request({ t: MsgType.MOVE, room: roomId, version: this.version(roomId), move: text }, true);
  }

  /** The moves seat `seat` (ours) could make in the room's position now: {position_version, moves (blocks)}. */
  seatMoves(roomId, seat) {
    // Asking twice does no harm: sent again after a reconnection like a move.
    return this.request({ t: MsgType.MOVES, room: roomId, seat }, true);
  }

  resign(roomId) {
    return this.request({ t: MsgType.RESIGN, room: roomId, version: this.version(roomId) }, true);
  }

  abort(roomId) {
    return this.request({ t: MsgType.ABORT, room: roomId, version: this.version(roomId) }, true);
  }

  /** Offers, accepts or declines a draw (`action` is a DrawAction value). */
  draw(roomId, action) {
    return this.request({ t: MsgType.DRAW, room: roomId, version: this.version(roomId), action }, true);
  }

  /** Asks to take back our last move, or accepts or declines the asking (a DrawAction value). */
  takeback(roomId, action) {
    return this.request({ t: MsgType.TAKEBACK, room: roomId, version: this.version(roomId), action }, true);
  }

  rematch(roomId) {
    return this.request({ t: MsgType.REMATCH, room: roomId }, true);
  }

  /** Claims the win of a live game whose opponent stayed away past the grace period. */
  claim(roomId) {
    return this.request({ t: MsgType.CLAIM, room: roomId, version: this.version(roomId) }, true);
  }

  /** Says `text` in a chat of the room (a ChatChannel value); resolves with the `chat` reply. */
  chat(roomId, channel, text) {
    return this.request({ t: MsgType.CHAT, room: roomId, channel, text }, false);
  }

  /** The lines the server keeps of a chat of the room, oldest first. */
  async chatHistory(roomId, channel) {
    return (await this.request({ t: MsgType.CHAT_HISTORY, room: roomId, channel }, false)).lines;
  }

  reportChat(roomId, channel, lineId) {
    return this.request({ t: MsgType.CHAT_REPORT, room: roomId, channel, line: lineId }, false);
  }

  /**
   * `listener` hears the room's chats: {t: "joined", role} each time the room is joined
   * (again after a reconnection), and {t: "chat", channel, lines, history} for lines pushed.
   * Returns the function that stops it.
   */
  listenChat(roomId, listener) {
    this.chatListeners.set(roomId, listener);
    return () => {
      if (this.chatListeners.get(roomId) === listener) this.chatListeners.delete(roomId);
    };
  }

  /** Follows the lobby (again after every reconnection); resolves with the snapshot. */
  async followLobby() {
    this.followingLobby = true;
    const reply = await this.request({ t: MsgType.LOBBY }, false);
    this.lobbySnapshot(reply.lobby);
    return this.lobby;
  }

  /** Follows the list of tournaments (again after every reconnection); resolves with it. */
  async followTournaments() {
    if (this.tournamentList === null) this.tournamentList = new Map();
    const reply = await this.request({ t: MsgType.TOURNAMENTS }, false);
    this.tournamentListSnapshot(reply.tournaments);
    return this.tournamentList;
  }

  unfollowTournaments() {
    this.tournamentList = null;
    return this.request({ t: MsgType.TOURNAMENTS, follow: false }, false);
  }

  /** Follows one tournament (again after every reconnection); resolves with it. */
  async followTournament(tournamentId) {
    if (!this.tournaments.has(tournamentId)) this.tournaments.set(tournamentId, null);
    const reply = await this.request({ t: MsgType.TOURNAMENT, tournament: tournamentId }, false);
    this.keepTournament(reply.tournament);
    return this.tournaments.get(tournamentId);
  }

  unfollowTournament(tournamentId) {
    this.tournaments.delete(tournamentId);
    return this.request({ t: MsgType.TOURNAMENT, tournament: tournamentId, follow: false }, false);
  }

  /** Makes a challenge: {game, options, colour, rated, target?, timeControl?}; resolves with it. */
  async challenge(fields) {
    const body = { t: MsgType.CHALLENGE, game: fields.game, options: fields.options ?? "", colour: fields.colour ?? "random", rated: Boolean(fields.rated) };
    if (fields.target) body.target = fields.target;
    if (fields.timeControl) body.time_control = fields.timeControl;
    return (await this.request(body, false)).challenge;
  }

  /** Accepts a challenge; resolves with the id of its room. */
  async accept(challengeId) {
    return (await this.request({ t: MsgType.ACCEPT, challenge: challengeId }, false)).room;
  }

  async decline(challengeId) {
    return (await this.request({ t: MsgType.DECLINE, challenge: challengeId }, false)).challenge;
  }

  async cancel(challengeId) {
    return (await this.request({ t: MsgType.CANCEL, challenge: challengeId }, false)).challenge;
  }

  version(roomId) {
    const room = this.rooms.get(roomId);
    return room === undefined ? -1 : room.version;
  }

  /**
   * Sends a request; resolves with the reply or rejects with a ServerError.  `resend` marks
   * requests the protocol lets us send again unchanged after a reconnection (moves, resigns).
   */
  request(body, resend) {
    body.id = nextId();
    const size = encode(body).byteLength;
    if (size > MAX_FRAME_BYTES) {
      return Promise.reject(new ServerError(TOO_LARGE, `that is too long to send (${size} bytes; the limit is ${MAX_FRAME_BYTES})`));
    }
    return new Promise((resolve, reject) => {
      this.pending.set(body.id, { body, resolve, reject, resend });
      if (this.status === Status.OPEN) this.send(body);
    });
  }

  // --- socket lifecycle ---------------------------------------------------------------------

  connectSocket() {
    const socket = new WebSocket(`${this.url}?token=${encodeURIComponent(this.token)}`);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.closed(event);
    });
  }

  closed(event) {
    this.socket = null;
    if (this.stopped) return;
    if (event.code === CloseCode.POLICY_VIOLATION) {
      // Bad or expired credentials: reconnecting with the same token cannot help.
      this.failPending(new ServerError("signed_out", event.reason || "the session is not valid"));
      this.setStatus(Status.SIGNED_OUT, event.reason);
      return;
    }
    // Moves and resigns are resent as they are, joins are sent again: the rest is lost.  A
    // message the server found too large would close the socket again: nothing is resent.
    const tooLarge = event.code === CloseCode.MESSAGE_TOO_BIG;
    for (const [id, entry] of this.pending) {
      if (tooLarge && entry.body.t !== MsgType.JOIN) {
        this.pending.delete(id);
        entry.reject(new ServerError(TOO_LARGE, "the server refused a message as too large"));
      } else if (!entry.resend && entry.body.t !== MsgType.JOIN) {
        this.pending.delete(id);
        entry.reject(new ServerError("disconnected", "the connection was lost"));
      }
    }
    const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    this.setStatus(Status.RECONNECTING, closeReason(event));
    this.timer = setTimeout(() => this.connectSocket(), delay);
  }

  welcomed(player) {
    this.attempts = 0;
    this.player = player;
    this.setStatus(Status.OPEN);
    if (this.callbacks.onWelcome) this.callbacks.onWelcome(player);
    // Joins first (with the version we hold, so only the missing diffs come), then resends.
    for (const [roomId, room] of this.rooms) {
      room.syncing = false;
      const body = { t: MsgType.JOIN, id: nextId(), room: roomId };
      if (room.doc !== null) body.version = room.version;
      const queued = [...this.pending.values()].find((e) => e.body.t === MsgType.JOIN && e.body.room === roomId);
      if (queued !== undefined) {
        this.pending.delete(queued.body.id);
        body.id = queued.body.id;
        this.pending.set(body.id, { ...queued, body });
      }
      this.send(body);
    }
    for (const entry of this.pending.values()) {
      if (entry.body.t !== MsgType.JOIN) this.send(entry.body);
    }
    // Lobby events were missed while away: a fresh snapshot replaces the lobby.
    const lobbyQueued = [...this.pending.values()].some((e) => e.body.t === MsgType.LOBBY);
    if (this.followingLobby && !lobbyQueued) {
      this.request({ t: MsgType.LOBBY }, false).then((reply) => this.lobbySnapshot(reply.lobby)).catch((error) => this.report(error));
    }
    // Tournament changes too: follow again, and the replies are fresh copies.  This is the
    // only recovery they need; nothing polls.
    const queued = (t, tournament) => [...this.pending.values()].some((e) => e.body.t === t && e.body.tournament === tournament && e.body.follow !== false);
    if (this.tournamentList !== null && !queued(MsgType.TOURNAMENTS, undefined)) {
      this.followTournaments().catch((error) => this.report(error));
    }
    for (const tournamentId of this.tournaments.keys()) {
      if (!queued(MsgType.TOURNAMENT, tournamentId)) this.followTournament(tournamentId).catch((error) => this.report(error));
    }
  }

  send(body) {
    this.socket.send(encode(body));
  }

  // --- receiving ----------------------------------------------------------------------------

  receive(data) {
    const body = decode(new Uint8Array(data));
    switch (body.t) {
      case MsgType.WELCOME:
        this.welcomed(body.player);
        break;
      case MsgType.SNAPSHOT:
        this.snapshot(body);
        break;
      case MsgType.DIFF:
        this.diff(body);
        // The diff of a move (resign, draw...) that this socket sent answers it, in place of ok.
        if (body.ref !== null && body.ref !== undefined) this.reply(body);
        break;
      case MsgType.JOINED: {
        const room = this.rooms.get(body.room);
        if (room !== undefined) room.syncing = false;
        this.reply(body);
        this.chatListeners.get(body.room)?.({ t: "joined", role: body.role });
        break;
      }
      case MsgType.CHAT:
        if (body.ref === null || body.ref === undefined) this.chatListeners.get(body.room)?.(body);
        else this.reply(body);
        break;
      case MsgType.REPORTED:
        this.reply(body);
        break;
      case MsgType.LEFT:
      case MsgType.MOVES:
      case MsgType.OK:
      case MsgType.CHALLENGE:
      case MsgType.ACCEPTED:
      case MsgType.POOL:
        this.reply(body);
        break;
      case MsgType.LOBBY:
        if (body.ref === null || body.ref === undefined) this.lobbySnapshot(body.lobby);
        else this.reply(body);
        break;
      case MsgType.TOURNAMENTS:
        if (body.ref === null || body.ref === undefined) this.tournamentListSnapshot(body.tournaments);
        else this.reply(body);
        break;
      case MsgType.TOURNAMENT:
        if (body.ref === null || body.ref === undefined) this.keepTournament(body.tournament);
        else this.reply(body);
        break;
      case MsgType.TOURNAMENT_LISTED:
        if (this.tournamentList !== null) {
          const held = this.tournamentList.get(body.tournament.id);
          if (held === undefined || body.tournament.version >= held.version) {
            this.tournamentList.set(body.tournament.id, body.tournament);
            if (this.callbacks.onTournaments) this.callbacks.onTournaments(this.tournamentList);
          }
        }
        break;
      case MsgType.TOURNAMENT_EVENT:
        this.keepTournament(body.tournament);
        break;
      case MsgType.LOBBY_EVENT:
        if (this.lobby !== null && this.player !== null) {
          applyLobbyEvent(this.lobby, body.event, this.player.id);
          if (this.callbacks.onLobby) this.callbacks.onLobby(this.lobby, body.event);
        }
        break;
      case MsgType.ERROR:
        this.reply(body);
        break;
      case MsgType.PING:
        this.send({ t: MsgType.PONG, id: body.n }); // at once: the round trip is the lag
        break;
      default:
        throw new Error(`unexpected server message ${JSON.stringify(body.t)}`);
    }
  }

  reply(body) {
    const entry = this.pending.get(body.ref);
    if (entry === undefined) {
      // A sync's answer, or a reply to a request given up on: only errors are news.
      if (body.t === MsgType.ERROR) this.report(new ServerError(body.code, body.message));
      return;
    }
    this.pending.delete(body.ref);
    if (body.t === MsgType.ERROR) entry.reject(new ServerError(body.code, body.message));
    else entry.resolve(body);
  }

  snapshot(body) {
    const room = this.rooms.get(body.room);
    if (room === undefined) return;
    if (room.doc === null || body.version >= room.version) {
      room.doc = body.state;
      room.version = body.version;
      room.syncing = false;
      this.changed(body.room, room);
    }
  }

  diff(body) {
    const room = this.rooms.get(body.room);
    if (room === undefined || room.doc === null || body.version <= room.version) return;
    if (body.version !== room.version + 1) {
      this.sync(body.room, room);
      return;
    }
    try {
      room.doc = apply(room.doc, body.ops);
    } catch (error) {
      if (!(error instanceof DiffError)) throw error;
      this.sync(body.room, room);
      return;
    }
    room.version = body.version;
    this.changed(body.room, room);
  }

  sync(roomId, room) {
    if (room.syncing || this.status !== Status.OPEN) return;
    room.syncing = true;
    this.send({ t: MsgType.SYNC, id: nextId(), room: roomId, version: room.version });
  }

  changed(roomId, room) {
    if (this.callbacks.onRoom) this.callbacks.onRoom(roomId, room.doc, room.version);
  }

  lobbySnapshot(lobby) {
    this.lobby = lobby;
    if (this.callbacks.onLobby) this.callbacks.onLobby(lobby, null);
  }

  /** A fresh list replaces ours, but a summary pushed before it may be newer: keep that. */
  tournamentListSnapshot(listing) {
    if (this.tournamentList === null || listing === null) return;
    const fresh = new Map();
    for (const summary of [...listing.created, ...listing.running, ...listing.finished]) fresh.set(summary.id, summary);
    for (const [id, held] of this.tournamentList) {
      if (fresh.has(id) && held.version > fresh.get(id).version) fresh.set(id, held);
    }
    this.tournamentList = fresh;
    if (this.callbacks.onTournaments) this.callbacks.onTournaments(fresh);
  }

  /** Keeps a followed event's copy with the highest version (a push may overtake a reply). */
  keepTournament(event) {
    if (event === null || !this.tournaments.has(event.id)) return;
    const held = this.tournaments.get(event.id);
    if (held !== null && held.version > event.version) return;
    this.tournaments.set(event.id, event);
    if (this.callbacks.onTournament) this.callbacks.onTournament(event);
  }

  failPending(error) {
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
  }

  report(error) {
    if (this.callbacks.onError) this.callbacks.onError(error);
  }

  setStatus(status, detail = "") {
    this.status = status;
    if (this.callbacks.onStatus) this.callbacks.onStatus(status, detail);
  }
}

/**
 * Applies one lobby event to a lobby snapshot held by player `me`, in place (the twin of
 * client/__init__.py apply_lobby_event).
 */
function applyLobbyEvent(lobby, event, me) {
  switch (event.t) {
    case "challenge": {
      const challenge = event.challenge;
      for (const name of ["open", "incoming", "outgoing"]) lobby[name] = lobby[name].filter((c) => c.id !== challenge.id);
      if (challenge.status === "open") {
        if (challenge.target === null) lobby.open.push(challenge);
        else if (challenge.target.id === me) lobby.incoming.push(challenge);
        if (challenge.challenger.id === me) lobby.outgoing.push(challenge);
      }
      break;
    }
    case "live":
    case "finished": {
      const game = event.game;
      const listed = lobby.live;
      const count = lobby.live_count ?? listed.length;
      const wasListed = listed.some((g) => g.room_id === game.room_id);
      for (const name of ["live", "mine"]) lobby[name] = lobby[name].filter((g) => g.room_id !== game.room_id);
      if (event.t === "live") {
        lobby.live.push(game);
        if (game.players.some((p) => p.id === me)) lobby.mine.push(game);
      }
      lobby.live_count = liveCountAfter(listed, count, game, event.t, wasListed);
      break;
    }
    case "presence":
      lobby.online = lobby.online.filter((p) => p.player.id !== event.player);
      if (event.presence !== null) lobby.online.push(event.presence);
      break;
    default:
      throw new Error(`unknown lobby event ${JSON.stringify(event.t)}`);
  }
}

/**
 * The number of games in play after a `live` or `finished` event (the twin of client/__init__.py
 * live_count_after): the snapshot lists only the newest games, so an update of an older game
 * that is not listed is not a new one, and one started after the oldest listed is.
 */
function liveCountAfter(listed, count, game, kind, wasListed) {
  const complete = count <= listed.length;
  if (kind === "finished") return wasListed || !complete ? Math.max(0, count - 1) : count;
  if (wasListed) return count;
  // Nothing listed but games counted (the listed ones ended): as for an older game.
  const oldestListed = Math.min(...listed.map((g) => g.started)); // Infinity when none
  if (complete || game.started >= oldestListed) return count + 1;
  return count;
}

/** Words for a close code, for the reconnecting banner. */
function closeReason(event) {
  switch (event.code) {
    case CloseCode.GOING_AWAY:
    case 1012:
      return "the server is restarting";
    case CloseCode.TRY_AGAIN_LATER:
      return "the connection fell behind";
    case CloseCode.INTERNAL_ERROR:
      return "the server had an error";
    case CloseCode.MESSAGE_TOO_BIG:
      return "a message was too large";
    case CloseCode.UNSUPPORTED_DATA:
      return "the server could not read a message";
    default:
      return "the connection was lost";
  }
}

/** A sentence for an error code, shown above the server's own message. */
function errorTitle(code) {
  switch (code) {
    case TOO_LARGE:
      return "Too long to send";
    case ErrorCode.NOT_YOUR_TURN:
      return "Not your turn";
    case ErrorCode.NOT_A_PLAYER:
      return "You are watching this game";
    case ErrorCode.GAME_OVER:
      return "The game is over";
    case ErrorCode.STALE_VERSION:
      return "The position changed first";
    case ErrorCode.INVALID_MOVE:
      return "Not a move";
    case ErrorCode.ILLEGAL_MOVE:
      return "Illegal move";
    case ErrorCode.UNKNOWN_ROOM:
      return "No such game";
    case ErrorCode.NOT_JOINED:
      return "Not in this game";
    case ErrorCode.RATE_LIMITED:
      return "Too many requests";
    case ErrorCode.BUSY:
    case ErrorCode.UNAVAILABLE:
      return "The server is busy, try again";
    case ErrorCode.BAD_REQUEST:
    case ErrorCode.UNKNOWN_TYPE:
      return "The server did not understand";
    case ErrorCode.UNKNOWN_GAME:
    case ErrorCode.BAD_OPTIONS:
      return "Cannot create that game";
    case ErrorCode.CANNOT_ABORT:
      return "Too late to abort";
    case ErrorCode.NO_OFFER:
      return "No draw offer";
    case ErrorCode.GAME_NOT_OVER:
      return "The game is still on";
    case ErrorCode.CANNOT_CLAIM:
      return "Cannot claim the win yet";
    case ErrorCode.CANNOT_TAKE_BACK:
      return "No takeback";
    case ErrorCode.CHAT_CLOSED:
      return "Not open to you yet";
    case ErrorCode.UNKNOWN_LINE:
      return "That message is gone";
    case ErrorCode.UNKNOWN_PLAYER:
      return "No such player";
    case ErrorCode.UNKNOWN_CHALLENGE:
    case ErrorCode.CHALLENGE_CLOSED:
    case ErrorCode.CHALLENGE_EXPIRED:
      return "That challenge is gone";
    case ErrorCode.ALREADY_ACCEPTED:
      return "Someone accepted it first";
    case ErrorCode.OWN_CHALLENGE:
      return "That is your own challenge";
    case ErrorCode.NOT_TARGET:
    case ErrorCode.NOT_CHALLENGER:
      return "Not your challenge";
    case ErrorCode.GUEST_RATED:
      return "Guests play casual games";
    case ErrorCode.LIMIT_REACHED:
      return "Too many challenges";
    case ErrorCode.BAD_CREDENTIALS:
      return "Wrong name or password";
    case ErrorCode.NAME_TAKEN:
    case ErrorCode.BAD_NAME:
    case ErrorCode.WEAK_PASSWORD:
      return "Cannot register";
    default:
      return "Error";
  }
}

export { Connection, ServerError, Status, applyLobbyEvent, errorTitle };
