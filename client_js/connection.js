// One websocket to the game server (docs/protocol.md): msgpack binary frames, request ids
// whose replies are matched by `ref`, a synced copy of every joined room (a diff applies only
// on top of the version before it; a gap asks `sync`), and reconnection with backoff that
// joins every room again from its last version, without reloading the page.
// Imports the generated protocol constants, the diff twin and the vendored msgpack only.

import { decode, encode } from "./vendor/msgpack/index.mjs";
import { apply, DiffError } from "./diff.js";
import { CloseCode, ErrorCode, MsgType } from "./protocol.js";

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

  resign(roomId) {
    return this.request({ t: MsgType.RESIGN, room: roomId, version: this.version(roomId) }, true);
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
    // Moves and resigns are resent as they are, joins are sent again: the rest is lost.
    for (const [id, entry] of this.pending) {
      if (!entry.resend && entry.body.t !== MsgType.JOIN) {
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
        break;
      case MsgType.JOINED: {
        const room = this.rooms.get(body.room);
        if (room !== undefined) room.syncing = false;
        this.reply(body);
        break;
      }
      case MsgType.LEFT:
      case MsgType.OK:
        this.reply(body);
        break;
      case MsgType.ERROR:
        this.reply(body);
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
    default:
      return "Error";
  }
}

export { Connection, ServerError, Status, errorTitle };
