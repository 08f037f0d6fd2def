// The game page of one room: the board (drawn by the game's module through board.js), the
// players' cards with their colours after any swap and their clocks, whose turn or how the
// game ended (in words, and drawn on the board), the move list paired by turn and the replay
// of every earlier position (those not seen on the page are asked of the server), the swap, resign, abort, draw, rematch and claim buttons, a move
// typed as text, sounds, and every error the server sends.  Clocks tick from the server's
// figures (time left when each clock last stopped, the running seat and since when); "away"
// marks a seated player with no socket, and once the grace period is over the opponent may
// claim the win (the button counts down to it).  The room's chats sit beside the board
// (chat.js).  A finished game offers a computer analysis under the move list (analysis.js).
//
// A move is built from the move texts the server lists for the player's seat, asked for
// after every change of position (moves.js): the game module splits
// each into steps (a target and, where several pieces may go there, a choice), the board
// previews the piece under the pointer, and a click that leaves one move plays it.  While
// the opponent thinks, the same gestures queue a premove from the moves the server lists
// for the waiting seat, sent when the turn comes if it is still legal then.  Knows no rules.
//
// A game module exports COLOURS, HINT, split(text), describe(step), draw(data) ->
// {viewBox, label, items, shapes, highlights}, ghost(data, step, colour) -> items and
// picture(data, step, colour) -> {viewBox, items}; a game that scores also exports SCORES,
// {title, format(score)}: what its scores count.
// Imports api.js, analysis.js, board.js, chat.js, moves.js, notify.js, room_ratings.js, sounds.js, connection.js (errors), protocol.js and the game
// modules.

import { api } from "./api.js";
import { AnalysisPanel } from "./analysis.js";
import { BoardView, build } from "./board.js";
import { ChatPanel } from "./chat.js";
import { errorTitle } from "./connection.js";
import * as ankor from "./games/ankor.js";
import * as boche from "./games/boche.js";
import * as che from "./games/che.js";
import * as marque from "./games/marque.js";
import * as osbox from "./games/osbox.js";
import { MoveSet, expandBlocks, sameStep } from "./moves.js";
import { RoomRatings, changeText } from "./room_ratings.js";
import { DrawAction } from "./protocol.js";
import { notificationSettings, notifyInTab, preferences } from "./notify.js";
import { Sounds } from "./sounds.js";

const GAMES = Object.freeze({ ankor, boche, che, marque, osbox });
const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
const SWAP = "swap";
const LOW_TIME = 20; // seconds left on a live clock that turn it red
const FEW_PLACES = 12;
const ALARM_TIME = 10; // seconds left when the low-time sound plays
const TOUCH_HINT = "Tap where to play; the pictures below choose the piece.";
const SVG_NS = "http://www.w3.org/2000/svg";

let sounds = null; // one for the page, made on the first game page

class RoomPage {
  /** Shows room `roomId` in `root`, through `connection` (already open or reconnecting). */
  constructor(root, connection, roomId) {
    this.connection = connection;
    this.roomId = roomId;
    this.doc = null;
    this.seen = null; // {plies, toMove, over, since} of the room as last drawn
    this.game = null;
    this.positionVersion = null;
    this.legal = null; // MoveSet of the position, once the server listed it
    this.premoves = null; // MoveSet of the waiting seat's moves, likewise
    this.swapLegal = false; // whether the swap is among the legal moves
    this.asking = null; // position_version whose moves were asked for last
    this.pending = []; // steps chosen so far of the move (or premove) being built
    this.variant = 0; // which choice the preview shows at a target with several
    this.hovered = null;
    this.paletteKey = null; // the target whose choices the palette shows
    this.premove = null; // {text, steps}: queued while the opponent thinks
    this.notice = "";
    this.sending = false;
    this.viewPly = null; // null: the live position; else the position after that many moves
    this.wantedPly = null; // the position asked for last (it may still be on its way)
    this.positions = new Map(); // moves played -> the position's data, as seen on this page
    this.movers = new Map(); // ply (1-based) -> seat that made it, where seen
    this.lowAlarm = false;
    this.skew = 0; // seconds this browser's clock runs ahead of the server's, as last seen
    this.titleBefore = null;
    this.drawn = null; // the game module's drawing of the position shown, and for which
    if (sounds === null) sounds = new Sounds();
    this.sounds = sounds;
    this.build(root);
    this.chat = new ChatPanel(this.chatSlot, connection, roomId);
    this.ratings = new RoomRatings(roomId, () => this.render());
    this.ticker = setInterval(() => this.tick(), 100);
    this.onKey = (event) => this.pageKey(event);
    document.addEventListener("keydown", this.onKey);
    this.onVisible = () => {
      if (!document.hidden && this.titleBefore !== null) {
        document.title = this.titleBefore;
        this.titleBefore = null;
      }
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  build(root) {
    const h = element;
    this.title = h("h1", {}, ["Game ", this.roomId]);
    this.clockLine = h("p", { class: "time-control" });
    this.spectators = h("p", { class: "spectators" });
    this.chatSlot = h("div", { class: "chat-slot" }); // the room's chat goes here
    const info = h("aside", { class: "room-info" }, [this.title, this.clockLine, this.spectators, this.chatSlot]);

    this.boardWrap = h("div", { class: "board-wrap" });
    this.board = new BoardView(this.boardWrap, {
      hover: (key) => this.hover(key),
      choose: (key, how) => this.choose(key, how),
      drag: (from, to) => this.drag(from, to),
      cycle: (delta, key) => this.cycle(delta, key),
      cancel: () => this.cancel(),
    });
    this.replayBanner = h("button", { type: "button", class: "replay-banner", hidden: "" });
    this.replayBanner.addEventListener("click", () => this.showPly(null));
    this.boardWrap.append(this.replayBanner);

    this.cards = [0, 1].map(() => new PlayerCard());
    this.hint = h("p", { class: "hint" });
    this.palette = h("div", { class: "palette", role: "group", "aria-label": "Choose the piece" });
    const bar = h("div", { class: "move-bar" }, [this.palette, this.hint]);

    this.statusLine = h("p", { class: "turn", "aria-live": "polite" }, ["Joining…"]);
    this.scoreLine = h("p", { class: "score-line" });
    this.noticeLine = h("p", { class: "notice", "aria-live": "polite" });
    this.errors = h("div", { class: "errors", role: "alert" });
    const status = h("div", { class: "status" }, [this.statusLine, this.scoreLine, this.noticeLine, this.errors]);

    this.moves = h("ol", { class: "moves", "aria-label": "Moves" });
    this.moves.addEventListener("click", (event) => {
      const button = event.target.closest?.("button.move");
      if (button != null && !button.disabled) this.showPly(Number(button.dataset.ply));
    });
    const replayButton = (label, name, step) => {
      const button = h("button", { type: "button", class: `replay-${name}`, "aria-label": label, title: label }, [icon(name)]);
      button.addEventListener("click", () => step());
      return button;
    };
    this.replayButtons = h("div", { class: "replay-buttons" }, [
      replayButton("First position", "first", () => this.stepPly("first")),
      replayButton("Previous move", "previous", () => this.stepPly(-1)),
      replayButton("Next move", "next", () => this.stepPly(1)),
      replayButton("Live position", "last", () => this.stepPly("last")),
    ]);
    this.analysis = new AnalysisPanel(this.roomId, (ply) => this.showPly(ply), () => this.render());
    const movesBox = h("section", { class: "moves-box", "aria-label": "Moves" }, [this.moves, this.replayButtons, this.analysis.node]);

    this.swapButton = this.button("swap", "Swap sides", () => this.send(SWAP));
    this.resignButton = this.button("resign", "Resign", () => this.resignClicked());
    this.abortButton = this.button("abort", "Abort", () => this.action(() => this.connection.abort(this.roomId)));
    this.drawButton = this.button("draw-offer", "Offer a draw", () => this.action(() => this.connection.draw(this.roomId, DrawAction.OFFER)));
    this.drawAccept = this.button("draw-accept", "Accept the draw", () => this.action(() => this.connection.draw(this.roomId, DrawAction.ACCEPT)));
    this.drawDecline = this.button("draw-decline", "Decline the draw", () => this.action(() => this.connection.draw(this.roomId, DrawAction.DECLINE)));
    this.takebackButton = this.button("takeback-offer", "Ask to take back", () => this.action(() => this.connection.takeback(this.roomId, DrawAction.OFFER)));
    this.takebackAccept = this.button("takeback-accept", "Accept the takeback", () => this.action(() => this.connection.takeback(this.roomId, DrawAction.ACCEPT)));
    this.takebackDecline = this.button("takeback-decline", "Decline the takeback", () => this.action(() => this.connection.takeback(this.roomId, DrawAction.DECLINE)));
    this.takebackLine = element("p", { class: "takeback-line", "aria-live": "polite" });
    this.rematchButton = this.button("rematch", "Rematch", () => this.action(() => this.connection.rematch(this.roomId)));
    this.claimButton = this.button("claim", "Claim the win", () => this.action(() => this.connection.claim(this.roomId)));
    this.offerLine = h("p", { class: "offer", "aria-live": "polite" });
    this.rematchLink = h("a", { class: "rematch-link", hidden: "" }, ["Go to the rematch"]);
    const controls = h("div", { class: "controls" }, [
      this.swapButton,
      this.resignButton,
      this.abortButton,
      this.drawButton,
      this.drawAccept,
      this.drawDecline,
      this.takebackButton,
      this.takebackAccept,
      this.takebackDecline,
      this.rematchButton,
      this.claimButton,
      this.offerLine,
      this.takebackLine,
      this.rematchLink,
    ]);

    this.moveInput = h("input", { name: "move", autocomplete: "off", spellcheck: "false", "aria-label": "Move in the game's notation" });
    const typed = h("form", { class: "typed-move" }, [h("label", {}, ["Move ", this.moveInput]), h("button", { type: "submit" }, ["Play"])]);
    typed.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.moveInput.value.trim();
      if (text !== "") this.send(text);
    });
    this.typedForm = h("details", { class: "typed" }, [h("summary", {}, ["Type a move"]), typed]);
    this.muteButton = h("button", { type: "button", class: "mute", "aria-pressed": "false" });
    this.muteButton.addEventListener("click", () => {
      this.sounds.setMuted(!this.sounds.muted);
      this.renderMute();
    });
    this.renderMute();
    this.recordLink = h("a", { class: "record-link", href: `/api/rooms/${encodeURIComponent(this.roomId)}/record.txt`, download: `${this.roomId}.txt` }, ["Download the record"]);
    const more = h("div", { class: "more" }, [this.typedForm, notificationSettings(), h("div", { class: "more-links" }, [this.muteButton, this.recordLink])]);

    this.layout = h("div", { class: "room-layout" }, [
      info,
      h("div", { class: "area-board" }, [this.boardWrap]),
      withClass(this.cards[0].node, "area-top"),
      withClass(status, "area-status"),
      withClass(movesBox, "area-moves"),
      withClass(controls, "area-controls"),
      withClass(this.cards[1].node, "area-bottom"),
      withClass(bar, "area-bar"),
      withClass(more, "area-more"),
    ]);
    root.replaceChildren(h("section", { class: "room" }, [this.layout]));
  }

  button(name, label, run) {
    const node = element("button", { type: "button", class: name, hidden: "" }, [label]);
    node.addEventListener("click", run);
    return node;
  }

  /** Joins the room; errors (no such room) are shown on the page. */
  async open() {
    try {
      await this.connection.join(this.roomId);
    } catch (error) {
      this.showError(error);
    }
  }

  /** The page is left: stop the clock and the listeners. */
  close() {
    clearInterval(this.ticker);
    this.chat.close();
    this.ratings.close();
    this.analysis.close();
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.titleBefore !== null) document.title = this.titleBefore;
  }

  // --- the room's state ---------------------------------------------------------------------

  /** The room's state changed (snapshot or diff). */
  update(doc) {
    // The connection changes its copy in place: what the page saw last is kept apart.
    const before = this.seen;
    this.seen = { plies: doc.record.length, toMove: doc.to_move, over: doc.outcome !== null, since: doc.clock?.since ?? null };
    const since = this.seen.since;
    if (before !== null && since !== null && since !== before.since) {
      // A clock was just started by a commit: its start time is (about) now.
      this.skew = Date.now() / 1000 - since;
    }
    this.doc = doc;
    this.chat.update(doc);
    this.ratings.update(doc);
    this.game = GAMES[doc.game] ?? null;
    const plies = doc.record.length;
    if (before !== null && plies < before.plies) {
      // Moves were taken back: the positions after them are not this game's any more.
      for (const ply of [...this.positions.keys()]) if (ply > plies) this.positions.delete(ply);
      for (const ply of [...this.movers.keys()]) if (ply > plies) this.movers.delete(ply);
      if (this.viewPly !== null && this.viewPly >= plies) this.viewPly = this.wantedPly = null;
      // A premove answered a move that is gone: it must not be played in its place.
      if (this.premove !== null) this.notice = `Premove ${this.premove.text} dropped: moves were taken back.`;
      this.premove = null;
    }
    if (!this.positions.has(plies)) {
      if (this.positions.has(plies - 1)) {
        const earlier = this.positions.get(plies - 1);
        const mover = doc.colours.indexOf(earlier.to_move ?? earlier.turn);
        if (mover >= 0) this.movers.set(plies, mover);
      }
      this.positions.set(plies, structuredClone(doc.data));
    }
    if (doc.position_version !== this.positionVersion) {
      this.positionVersion = doc.position_version;
      this.newPosition(before, doc);
    }
    this.render();
  }

  /** A move (or a result) changed the position: new move sets, sounds, a premove to send. */
  newPosition(before, doc) {
    this.pending = [];
    this.paletteKey = null;
    this.resignButton.dataset.confirm = "";
    this.resignButton.textContent = "Resign";
    this.board.zoomOut();
    this.legal = null; // until the server lists them for this position
    this.premoves = null;
    this.swapLegal = false;
    this.askMoves(0);
    if (before === null) return;
    if (doc.record.length > before.plies) {
      const data = doc.data;
      const captured = (data.captured ?? []).length > 0 || (data.gained ?? 0) > 0 || (data.removed ?? []).length > 0;
      this.sounds.play(captured ? "capture" : "move");
    }
    if (doc.outcome !== null && !before.over) this.sounds.play("end");
    const seat = this.mySeat();
    const myTurn = seat !== null && doc.outcome === null && doc.to_move === seat;
    const game = TITLES[doc.game] ?? doc.game;
    const opponent = seat === null ? "" : doc.seats[1 - seat]?.name ?? "";
    const notice = (title, body) => ({ title, body, url: `/#/room/${encodeURIComponent(this.roomId)}`, tag: this.roomId });
    if (myTurn && before.toMove !== seat && document.hidden) {
      if (preferences().title) {
        if (this.titleBefore === null) this.titleBefore = document.title;
        document.title = `● Your move: ${game}`;
      }
      this.sounds.play("turn");
      const last = doc.record.at(-1);
      notifyInTab(notice(`Your move in ${game} against ${opponent}`, last ? `${opponent} played ${last} (move ${doc.record.length}).` : "")).catch(() => {});
    }
    if (seat !== null && doc.outcome !== null && !before.over && document.hidden) {
      const words = resultText(doc.outcome, (index) => this.colourLabel(index));
      notifyInTab(notice(`${game} against ${opponent}: the game is over`, words)).catch(() => {});
    }
    // A premove waits for this position's moves (see movesListed); one the game's end
    // made pointless goes.
    if (doc.outcome !== null) this.premove = null;
  }

  /** Asks for the moves of our seat in the position shown, unless watching or it is over;
   * `attempt` counts the times the server still had an older position. */
  askMoves(attempt) {
    const doc = this.doc;
    const seat = this.mySeat();
    if (doc === null || seat === null || doc.outcome !== null || this.game === null) return;
    const position = doc.position_version;
    this.asking = position;
    this.connection.seatMoves(this.roomId, seat).then(
      (reply) => this.movesListed(reply, position, attempt),
      (error) => {
        if (this.asking === position) this.showError(error);
      },
    );
  }

  /** The server listed our seat's moves: they are the legal moves or the premoves of the
   * position they were made for, if the page still shows it. */
  movesListed(reply, asked, attempt) {
    const doc = this.doc;
    if (doc === null || this.asking !== asked || doc.position_version !== asked) return;
    if (reply.position_version < asked) {
      // This process had not yet heard of the position: ask again shortly.
      if (attempt < 5) setTimeout(() => this.askMoves(attempt + 1), 100 * 2 ** attempt);
      return;
    }
    if (reply.position_version !== asked) return; // a newer position is on its way
    const texts = expandBlocks(reply.moves);
    const set = new MoveSet(texts, (text) => this.game.split(text));
    const myTurn = doc.outcome === null && doc.to_move === reply.seat;
    if (myTurn) {
      this.legal = set;
      this.swapLegal = texts.includes(SWAP);
    } else {
      this.premoves = set;
    }
    if (this.premove !== null && myTurn) {
      const queued = this.premove;
      this.premove = null;
      const legal = set.moves.find((move) => sameSteps(move, queued.steps));
      if (legal !== undefined) this.send(legal.text);
      else this.notice = `Premove ${queued.text} dropped: it is not legal now.`;
    }
    this.render();
  }

  mySeat() {
    const player = this.connection.player;
    if (player === null || this.doc === null) return null;
    const index = this.doc.seats.findIndex((holder) => holder.id === player.id);
    return index < 0 ? null : index;
  }

  /** What the player may build now: "move", "premove" or null (watching, over, replaying). */
  mode() {
    const doc = this.doc;
    const seat = this.mySeat();
    if (doc === null || this.game === null || seat === null || doc.outcome !== null || this.viewPly !== null || this.sending) return null;
    return doc.to_move === seat ? "move" : "premove";
  }

  moveSet() {
    const mode = this.mode();
    if (mode === "move") return this.legal;
    if (mode === "premove") return this.premoves;
    return null;
  }

  // --- drawing -------------------------------------------------------------------------------

  render() {
    const doc = this.doc;
    if (doc === null) return;
    const seat = this.mySeat();
    this.title.replaceChildren(`${TITLES[doc.game] ?? doc.game}`, element("span", { class: "options" }, [doc.options ? ` ${doc.options}` : ""]));
    this.renderPlayers(seat);
    this.statusLine.textContent = this.statusText(seat);
    this.statusLine.dataset.over = String(doc.outcome !== null);
    const scores = doc.scores ? doc.scores.map((score, i) => `${this.colourLabel(i)} ${score}`).join(" – ") : "";
    this.scoreLine.textContent = scores && this.game?.SCORES?.title ? `${this.game.SCORES.title}: ${scores}` : scores;
    this.noticeLine.textContent = this.notice;
    this.spectators.textContent = `${doc.spectators} watching`;
    this.analysis.render(doc, this.viewPly); // first: its height decides what the moves show
    this.renderMoves();
    const playing = seat !== null && doc.outcome === null;
    const myTurn = playing && doc.to_move === seat;
    this.swapButton.hidden = !(myTurn && this.swapLegal);
    this.resignButton.hidden = !playing;
    this.renderActions(seat, playing);
    this.typedForm.hidden = !myTurn;
    if (this.game === null) {
      this.statusLine.textContent = `This page cannot draw the game ${doc.game}.`;
      return;
    }
    this.renderBoard(seat);
    this.tick();
  }

  renderBoard(seat) {
    const doc = this.doc;
    const module = this.game;
    const data = this.viewPly === null ? doc.data : this.positions.get(this.viewPly);
    // The board is drawn again only when the room or the position shown changes.
    const drawnFor = `${doc.version}:${this.viewPly}`;
    if (this.drawn?.key !== drawnFor) this.drawn = { key: drawnFor, value: module.draw(data) };
    const drawn = this.drawn.value;
    const set = this.moveSet();
    const colour = seat === null ? null : doc.colours[seat];
    const overlay = [...drawn.highlights];
    const targets = [];
    const next = set === null ? new Map() : set.next(this.pending);
    const shown = new Set();
    // Where the next step may go is dotted when it is a few places, as a piece's moves are
    // (Ankor's cube); where it is most of the board (Che's second tile), the places are
    // outlined, without a carpet of dots.
    const mark = this.pending.length > 0 && next.size <= FEW_PLACES ? "dot" : null;
    for (const step of this.pending) {
      const shape = drawn.shapes.get(step.key);
      if (shape !== undefined) targets.push({ key: step.key, shape, state: "pending", label: `${module.describe(step)} (chosen)` });
      shown.add(step.key);
    }
    for (const [key, choices] of next) {
      const shape = drawn.shapes.get(key);
      if (shape === undefined || shown.has(key)) continue;
      targets.push({ key, shape, state: this.pending.length > 0 ? "next" : "idle", mark, label: module.describe({ key, choice: choices.length === 1 ? choices[0] : null }) });
    }
    if (this.premove !== null && this.viewPly === null) {
      for (const step of this.premove.steps) overlay.push(...tagged(module.ghost(doc.data, step, colour), "premove"));
    }
    for (const step of this.pending) overlay.push(...module.ghost(data, step, colour));
    const preview = this.previewStep(next);
    if (preview !== null) overlay.push(...tagged(module.ghost(data, preview, colour), "hover"));
    this.board.render({ viewBox: drawn.viewBox, label: drawn.label, items: drawn.items, overlay, targets });
    this.renderReplayBanner();
    this.renderBar(set, next, colour);
  }

  /** The step under the pointer (or keyboard focus) with the choice the preview shows. */
  previewStep(next) {
    const key = this.hovered;
    if (key === null || !next.has(key)) return null;
    const choices = next.get(key);
    return { key, choice: choices[mod(this.variant, choices.length)] };
  }

  /** The hint, and the palette: the pictures of the choices at a target, Play and Cancel. */
  renderBar(set, next, colour) {
    const module = this.game;
    const data = this.doc.data;
    const buttons = [];
    let key = this.paletteKey;
    if (key !== null && !next.has(key) && !this.pending.some((s) => s.key === key)) key = this.paletteKey = null;
    const last = this.pending[this.pending.length - 1] ?? null;
    if (key !== null) {
      const choices = last !== null && last.key === key ? set.next(this.pending.slice(0, -1)).get(key) ?? [] : next.get(key) ?? [];
      if (choices.length > 1) {
        const current = last !== null && last.key === key ? last.choice : choices[mod(this.variant, choices.length)];
        for (const choice of choices) {
          const step = { key, choice };
          const button = element("button", { type: "button", class: "choice", "data-choice": String(choice), "aria-label": module.describe(step), "aria-pressed": String(choice === current) }, [pictureSvg(module.picture(data, step, colour))]);
          button.addEventListener("click", () => this.chooseChoice(key, choice));
          buttons.push(button);
        }
      }
    }
    if (set !== null && this.pending.length > 0) {
      if (set.exact(this.pending) !== null) {
        const play = element("button", { type: "button", class: "play-now" }, [this.mode() === "premove" ? "Queue it" : "Play it"]);
        play.addEventListener("click", () => this.finish());
        buttons.push(play);
      }
      const cancel = element("button", { type: "button", class: "cancel" }, ["Cancel"]);
      cancel.addEventListener("click", () => this.cancel());
      buttons.push(cancel);
    }
    this.palette.replaceChildren(...buttons);
    this.palette.hidden = buttons.length === 0;
    let hint = "";
    const mode = this.mode();
    if (this.premove !== null) hint = `Premove queued: ${this.premove.text}. Escape cancels it.`;
    else if (set === null) hint = ""; // the moves are on their way (a round trip)
    else if (mode === "move" && set.size === 0) {
      // The server lists no moves for turns of many tiles (Che with -triples): type it.
      hint = "This turn has too many moves to offer on the board: type yours below.";
      this.typedForm.open = true;
    } else if (mode === "move" && this.pending.length === 0) hint = window.matchMedia?.("(hover: none)").matches ? TOUCH_HINT : module.HINT;
    else if (mode === "move" && set.exact(this.pending) !== null && buttons.some((b) => b.classList.contains("choice"))) hint = "Choose the piece below to play it.";
    else if (mode === "move" && set.exact(this.pending) !== null) hint = "Choose it again to play it alone, or choose the next place.";
    else if (mode === "move") hint = "Now choose the next place.";
    else if (mode === "premove" && this.pending.length === 0 && set.size > 0) hint = "Your opponent is thinking: you may queue a premove.";
    this.hint.textContent = hint;
  }

  renderReplayBanner() {
    const plies = this.doc.record.length;
    if (this.viewPly === null) {
      this.replayBanner.hidden = true;
      return;
    }
    this.replayBanner.hidden = false;
    const where = this.viewPly === 0 ? "Before the first move" : `Move ${this.viewPly} of ${plies}`;
    this.replayBanner.textContent = `${where}: back to the game (End) ▸`;
  }

  renderMoves() {
    const record = this.doc.record;
    const rows = [];
    let row = null;
    let mover = 1;
    for (let ply = 1; ply <= record.length; ply += 1) {
      mover = this.movers.get(ply) ?? 1 - mover;
      if (row === null || mover === 0 || row.cells[1] !== null) {
        row = { number: rows.length + 1, cells: [null, null] };
        rows.push(row);
      }
      row.cells[mover] = ply;
    }
    const current = this.viewPly ?? record.length;
    // Long move texts (Che's placements) take a line each: two to a line would wrap.
    this.moves.classList.toggle("long", record.some((text) => text.length > 9));
    this.moves.replaceChildren(
      ...rows.map((r, index) =>
        element("li", { class: "move-row" }, [
          element("span", { class: "number" }, [`${r.number}.`]),
          ...r.cells.map((ply, column) => {
            // A seat that did not move in a turn passed (forced); the last turn may be half done.
            if (ply === null && column === 1 && index === rows.length - 1) return element("span", { class: "no-move" });
            if (ply === null) return element("span", { class: "no-move passed", title: "passed" }, ["…"]);
            const attrs = { type: "button", class: ply === current ? "move current" : "move", "data-ply": String(ply), title: `Show the position after move ${ply}` };
            const mark = this.analysis.markOf(ply);
            const text = breakable(record[ply - 1]);
            return element("button", attrs, mark ? [...text, element("span", { class: "mark" }, [mark])] : text);
          }),
        ]),
      ),
    );
    const active = this.moves.querySelector(".move.current");
    if (active !== null) active.scrollIntoView?.({ block: "nearest", inline: "nearest" });
    this.replayButtons.querySelector(".replay-first").disabled = current <= 0;
    this.replayButtons.querySelector(".replay-previous").disabled = current <= 0;
    this.replayButtons.querySelector(".replay-next").disabled = this.viewPly === null;
    this.replayButtons.querySelector(".replay-last").disabled = this.viewPly === null;
  }

  renderPlayers(seat) {
    const doc = this.doc;
    const colours = this.game?.COLOURS ?? {};
    // A player sees their own card at the bottom; a spectator sees the first seat there.
    const bottom = seat ?? 0;
    for (const index of [0, 1]) {
      const card = this.cards[index === bottom ? 1 : 0];
      const colour = doc.colours[index];
      card.show({
        seat: index,
        holder: doc.seats[index],
        style: colours[colour] ?? { fill: "#888", pattern: null, label: colour },
        you: index === seat,
        toMove: doc.outcome === null && doc.to_move === index,
        score: doc.scores ? doc.scores[index] : null,
        scoreWords: this.game?.SCORES ?? null,
        away: doc.outcome === null && (doc.away ?? [])[index] != null,
        clock: doc.clock !== null && doc.clock !== undefined,
        winner: doc.outcome !== null && doc.outcome.winner === index,
        rating: this.ratings.of(doc.seats[index].id),
      });
    }
  }

  /** Abort, draw and rematch: which apply, and what the opponent offers. */
  renderActions(seat, playing) {
    const doc = this.doc;
    const me = this.connection.player?.id ?? null;
    const offer = doc.draw_offer ?? null;
    const theirs = playing && offer !== null && offer !== me;
    this.abortButton.hidden = !(playing && doc.record.length < 2);
    this.drawButton.hidden = !playing || offer !== null;
    this.drawAccept.hidden = !theirs;
    this.drawDecline.hidden = !theirs;
    const rematch = doc.rematch ?? { offers: [], room: null };
    const over = doc.outcome !== null;
    this.rematchButton.hidden = !(over && seat !== null && rematch.room === null && !rematch.offers.includes(me));
    let line = "";
    if (theirs) line = "Your opponent offers a draw.";
    else if (playing && offer === me) line = "You offered a draw.";
    else if (over && rematch.room === null && rematch.offers.length > 0) line = rematch.offers.includes(me) ? "You asked for a rematch." : "Your opponent asks for a rematch.";
    this.offerLine.textContent = line;
    this.renderTakeback(seat, playing, me);
    this.rematchLink.hidden = rematch.room === null;
    const agreedNow = this.rematchRoom === null && rematch.room !== null;
    if (this.rematchRoom === undefined || agreedNow) this.rematchRoom = rematch.room;
    if (rematch.room !== null) {
      this.rematchLink.href = `#/room/${encodeURIComponent(rematch.room)}`;
      // Both players just agreed: the players go on to the new game.
      if (agreedNow && seat !== null) {
        setTimeout(() => {
          location.hash = this.rematchLink.getAttribute("href");
        }, 0);
      }
    }
  }

  /** Takebacks: ask, or answer the opponent's asking; rated games have none. */
  renderTakeback(seat, playing, me) {
    const doc = this.doc;
    const asking = doc.takeback_offer ?? null;
    const theirs = playing && asking !== null && asking !== me;
    // The only move on the board is the opponent's: there is nothing of ours to take back.
    const moved = doc.record.length > 1 || (doc.record.length === 1 && doc.to_move !== seat);
    this.takebackButton.hidden = !(playing && !doc.rated && asking === null && moved);
    this.takebackAccept.hidden = !theirs;
    this.takebackDecline.hidden = !theirs;
    let line = "";
    if (theirs) line = "Your opponent asks to take back their last move.";
    else if (playing && asking === me) line = "You asked to take back your last move.";
    else if (playing && doc.rated) line = "Rated game: no takebacks.";
    this.takebackLine.textContent = line;
  }

  renderMute() {
    this.muteButton.replaceChildren(icon(this.sounds.muted ? "muted" : "sound"), this.sounds.muted ? " Sound off" : " Sound on");
    this.muteButton.setAttribute("aria-pressed", String(this.sounds.muted));
  }

  /** Redraws the clocks, the correspondence deadline and the claim button's countdown. */
  tick() {
    const doc = this.doc;
    if (doc === null) return;
    const clock = doc.clock;
    const now = Date.now() / 1000 - this.skew;
    const seat = this.mySeat();
    if (clock) {
      for (const card of this.cards) {
        if (card.seat === null) continue;
        const left = this.timeLeft(card.seat);
        const running = clock.running === card.seat && doc.outcome === null;
        card.showClock(clockText(left, clock.kind), running, clock.kind === "live" && left < LOW_TIME);
        if (running && card.seat === seat && clock.kind === "live") {
          if (left < ALARM_TIME && !this.lowAlarm) {
            this.lowAlarm = true;
            this.sounds.play("low");
          } else if (left >= ALARM_TIME) this.lowAlarm = false;
        }
      }
    }
    let line = clock ? `Time control: ${clock.describe}` : "";
    if (clock && clock.kind === "correspondence" && clock.running !== null && doc.outcome === null) {
      line += `. Deadline ${new Date((clock.deadline + this.skew) * 1000).toLocaleString()}`;
    }
    if (this.clockLine.textContent !== line) this.clockLine.textContent = line;
    const away = seat === null ? null : (doc.away ?? [])[1 - seat];
    const live = !clock || clock.kind === "live";
    const show = live && seat !== null && doc.outcome === null && away != null;
    this.claimButton.hidden = !show;
    if (show) {
      const wait = away + (doc.claim_after ?? 0) - now;
      this.claimButton.disabled = wait > 0;
      const text = wait > 0 ? `Claim the win in ${clockText(wait, "live")}` : "Claim the win";
      if (this.claimButton.textContent !== text) this.claimButton.textContent = text;
    }
  }

  /** Seconds seat `index` has left now, from the server's figures (never below 0). */
  timeLeft(index) {
    const clock = this.doc.clock;
    let left = clock.remaining[index];
    if (clock.running === index && this.doc.outcome === null) left -= Date.now() / 1000 - this.skew - clock.since;
    return Math.max(0, left);
  }

  statusText(seat) {
    const doc = this.doc;
    if (doc.outcome !== null) return resultText(doc.outcome, (index) => this.colourLabel(index));
    if (doc.to_move === null) return "";
    if (this.viewPly !== null && seat === doc.to_move) return `Your turn (${this.colourLabel(seat)}): you are looking at an earlier position.`;
    if (seat === doc.to_move) return this.sending ? "Sending your move…" : `Your turn (${this.colourLabel(seat)}).`;
    if (seat !== null) return `${this.colourLabel(doc.to_move)} to move: your opponent is thinking.`;
    return `${doc.seats[doc.to_move].name} (${this.colourLabel(doc.to_move)}) to move.`;
  }

  colourLabel(index) {
    const colour = this.doc.colours[index];
    return this.game?.COLOURS[colour]?.label ?? colour;
  }

  // --- building a move -----------------------------------------------------------------------

  hover(key) {
    if (key !== this.hovered) this.variantFor(key);
    this.hovered = key;
    const set = this.moveSet();
    if (key !== null && set !== null && (set.next(this.pending).get(key) ?? []).length > 1) this.paletteKey = key;
    if (this.doc !== null && this.game !== null) this.renderBoard(this.mySeat());
  }

  /** Keeps the choice shown when moving to another target that offers it too. */
  variantFor(key) {
    const set = this.moveSet();
    if (set === null || key === null || this.hovered === null) return;
    const next = set.next(this.pending);
    const before = next.get(this.hovered);
    const after = next.get(key);
    if (before === undefined || after === undefined) return;
    const shown = before[mod(this.variant, before.length)];
    const index = after.indexOf(shown);
    if (index >= 0) this.variant = index;
  }

  /** Wheel, R or space over a target: show its next choice. */
  cycle(delta, key) {
    const set = this.moveSet();
    if (set === null) return false;
    const last = this.pending[this.pending.length - 1];
    if (last !== undefined && last.key === key) {
      const choices = set.next(this.pending.slice(0, -1)).get(key) ?? [];
      if (choices.length < 2) return false;
      this.pending = [...this.pending.slice(0, -1), { key, choice: choices[mod(choices.indexOf(last.choice) + delta, choices.length)] }];
    } else {
      const choices = set.next(this.pending).get(key) ?? [];
      if (choices.length < 2) return false;
      this.variant = mod(this.variant + delta, choices.length);
      this.hovered = key;
    }
    this.paletteKey = key;
    this.render();
    return true;
  }

  /**
   * A target was chosen: a mouse click plays the piece the preview shows (and ends the move
   * where one move ends there); a tap or Enter chooses the target and offers its pieces.
   */
  choose(key, how) {
    this.notice = "";
    const set = this.moveSet();
    if (set === null) return;
    const index = this.pending.findIndex((step) => step.key === key);
    if (index >= 0) {
      // Again on a chosen target: play what is chosen if it is a move, else take it back.
      if (index === this.pending.length - 1 && set.exact(this.pending) !== null) this.finish();
      else {
        this.pending = this.pending.slice(0, index);
        this.render();
      }
      return;
    }
    if (this.premove !== null && this.premove.steps.some((step) => step.key === key) && this.pending.length === 0) {
      this.premove = null; // a click on the queued premove takes it back
      this.render();
      return;
    }
    const choices = set.next(this.pending).get(key);
    if (choices === undefined) {
      this.cancel();
      return;
    }
    // The piece is the one previewed under the pointer or the keyboard focus; a tap has no
    // preview, so where several pieces may go the palette asks which.
    const previewed = this.hovered === key && how !== "touch";
    const choice = choices[mod(previewed ? this.variant : 0, choices.length)];
    this.pending = [...this.pending, { key, choice }];
    this.paletteKey = choices.length > 1 ? key : null;
    const decided = choices.length === 1 || previewed;
    if (decided && set.exact(this.pending) !== null && (how === "mouse" || !set.continues(this.pending))) {
      this.finish();
      return;
    }
    this.render();
  }

  /** Pressing on one target and letting go on another: two steps at once. */
  drag(from, to) {
    const set = this.moveSet();
    if (set === null) return;
    if (!this.pending.some((step) => step.key === from)) {
      const choices = set.next(this.pending).get(from);
      if (choices === undefined) return;
      this.pending = [...this.pending, { key: from, choice: choices[0] }];
    }
    const choices = set.next(this.pending).get(to);
    if (choices === undefined) {
      this.render();
      return;
    }
    this.hovered = to;
    this.choose(to, "mouse");
  }

  /** A picture in the palette: that choice at the target. */
  chooseChoice(key, choice) {
    const set = this.moveSet();
    if (set === null) return;
    const last = this.pending[this.pending.length - 1];
    if (last !== undefined && last.key === key) {
      this.pending = [...this.pending.slice(0, -1), { key, choice }];
      if (set.exact(this.pending) !== null && !set.continues(this.pending)) {
        this.finish();
        return;
      }
    } else {
      const choices = set.next(this.pending).get(key) ?? [];
      this.variant = Math.max(0, choices.indexOf(choice));
      this.hovered = key;
    }
    this.render();
  }

  /** The steps chosen make a move: play it, or queue it while the opponent thinks. */
  finish() {
    const set = this.moveSet();
    const move = set?.exact(this.pending) ?? null;
    if (move === null) return;
    const mode = this.mode();
    this.pending = [];
    this.paletteKey = null;
    this.board.zoomOut();
    if (mode === "premove") {
      this.premove = { text: move.text, steps: move.steps };
      this.render();
      return;
    }
    this.send(move.text);
  }

  /** Escape, or a click beside the targets: drop the move being built, then the premove. */
  cancel() {
    if (this.pending.length > 0) this.pending = [];
    else if (this.premove !== null) this.premove = null;
    else if (this.board.zoomed) this.board.zoomOut();
    this.paletteKey = null;
    this.render();
  }

  pageKey(event) {
    if (!this.layout.isConnected) return;
    const typing = event.target.closest?.("input, textarea, select, [contenteditable]");
    if (typing) return;
    switch (event.key) {
      case "Escape":
        this.cancel();
        break;
      case "r":
      case "R":
      case " ":
        // Turns the piece under the pointer (the board handles its own keyboard focus).
        if (this.hovered === null || !this.cycle(event.shiftKey ? -1 : 1, this.hovered)) return;
        break;
      case "ArrowLeft":
        this.stepPly(-1);
        break;
      case "ArrowRight":
        this.stepPly(1);
        break;
      case "Home":
        this.stepPly("first");
        break;
      case "End":
        this.stepPly("last");
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  // --- replay --------------------------------------------------------------------------------

  /** Shows the position after `ply` moves (null: the live position); one not seen on this
   * page is asked of the server, which replays the record up to it. */
  async showPly(ply) {
    const plies = this.doc?.record.length ?? 0;
    if (ply !== null && (ply < 0 || ply >= plies)) ply = null;
    this.wantedPly = ply;
    if (ply !== null && !this.positions.has(ply)) {
      try {
        await this.fetchPosition(ply);
      } catch (error) {
        this.showError(error);
        return;
      }
      if (this.wantedPly !== ply) return; // another step was asked for meanwhile
    }
    this.viewPly = ply;
    this.pending = [];
    this.render();
  }

  async fetchPosition(ply) {
    const answer = await api(`/api/rooms/${encodeURIComponent(this.roomId)}/positions/${ply}`);
    this.positions.set(ply, answer.data);
    if (answer.mover !== null && answer.mover !== undefined) this.movers.set(ply, answer.mover);
  }

  stepPly(step) {
    if (this.doc === null) return;
    const plies = this.doc.record.length;
    const current = this.wantedPly ?? plies;
    if (step === "first") this.showPly(plies > 0 ? 0 : null);
    else if (step === "last") this.showPly(null);
    else if (current + step >= 0 && current + step <= plies) this.showPly(current + step);
  }

  // --- requests ------------------------------------------------------------------------------

  async send(text) {
    if (this.sending) return;
    this.sending = true;
    this.pending = [];
    this.render();
    try {
      await this.connection.move(this.roomId, text);
      this.clearErrors();
      this.moveInput.value = "";
    } catch (error) {
      this.showError(error);
    } finally {
      this.sending = false;
      this.render();
    }
  }

  async action(request) {
    try {
      await request();
      this.clearErrors();
    } catch (error) {
      this.showError(error);
    }
  }

  async resignClicked() {
    if (this.resignButton.dataset.confirm !== "yes") {
      this.resignButton.dataset.confirm = "yes";
      this.resignButton.textContent = "Really resign?";
      return;
    }
    try {
      await this.connection.resign(this.roomId);
    } catch (error) {
      this.showError(error);
    }
  }

  /** Shows an error from the server (or the connection) until the next good move. */
  showError(error) {
    const code = error.code ?? "error";
    const item = element("p", { class: "error", "data-code": code }, [element("strong", {}, [errorTitle(code)]), ": ", error.message]);
    const dismiss = element("button", { type: "button", class: "dismiss", "aria-label": "Dismiss" }, ["×"]);
    dismiss.addEventListener("click", () => item.remove());
    item.append(" ", dismiss);
    this.errors.append(item);
    while (this.errors.childElementCount > 3) this.errors.firstElementChild.remove();
  }

  clearErrors() {
    this.errors.replaceChildren();
  }
}

/** One player's card: colour, name, score, whose turn, away, and a clock in a large box. */
class PlayerCard {
  constructor() {
    this.seat = null;
    this.swatch = element("span", { class: "swatch", "aria-hidden": "true" });
    this.colour = element("span", { class: "colour" });
    this.name = element("a", { class: "name" }); // links to the player's page
    this.rating = element("span", { class: "rating" });
    this.change = element("span", { class: "rating-change" });
    this.you = element("span", { class: "you" }, ["you"]);
    this.score = element("span", { class: "score" });
    this.flags = element("span", { class: "flags" });
    this.clock = element("span", { class: "clock", role: "timer" });
    const who = element("span", { class: "who-line" }, [this.swatch, this.colour, " ", this.name, this.rating, this.change]);
    const meta = element("span", { class: "meta" }, [this.you, this.flags, this.score]);
    this.node = element("div", { class: "player" }, [who, meta, this.clock]);
  }

  show({ seat, holder, style, you, toMove, score, scoreWords, away, clock, winner, rating }) {
    this.seat = seat;
    this.node.dataset.seat = String(seat);
    this.node.classList.toggle("moving", toMove);
    this.node.classList.toggle("winner", winner);
    this.swatch.className = `swatch${style.pattern ? ` swatch-${style.pattern}` : ""}`;
    this.swatch.style.backgroundColor = style.fill;
    this.colour.textContent = style.label;
    this.name.textContent = holder.name;
    this.name.setAttribute("href", `#/player/${encodeURIComponent(holder.id)}`);
    this.rating.textContent = rating === null ? "" : rating.text;
    const change = rating?.change ?? null;
    this.change.textContent = change === null ? "" : changeText(change);
    this.change.dataset.sign = change === null ? "" : Math.round(change) > 0 ? "up" : Math.round(change) < 0 ? "down" : "even";
    this.change.title = change === null ? "" : "Rating change in this game";
    this.you.hidden = !you;
    this.score.hidden = score === null;
    this.score.textContent = score === null ? "" : scoreWords.format(score);
    const flags = [];
    if (toMove) flags.push(element("span", { class: "to-move" }, ["to move"]));
    if (away) flags.push(element("span", { class: "away" }, ["away"]));
    this.flags.replaceChildren(...flags);
    this.clock.hidden = !clock;
  }

  showClock(text, running, low) {
    if (this.clock.textContent !== text) this.clock.textContent = text;
    this.clock.classList.toggle("running", running);
    this.clock.classList.toggle("low", low);
  }
}

/** The result in words: who won and why ("Light wins: enclosed a Dark group of 4 blobs."). */
function resultText(outcome, label) {
  const reason = outcome.reason ?? "";
  if (reason === "aborted") return "Game aborted.";
  if (outcome.winner === null || outcome.winner === undefined) {
    if (reason === "agreement") return "Draw by agreement.";
    return reason ? `Draw: ${reason}.` : "Draw.";
  }
  const winner = label(outcome.winner);
  const loser = label(1 - outcome.winner);
  switch (reason) {
    case "resignation":
      return `${loser} resigned: ${winner} wins.`;
    case "time":
      return `${loser} ran out of time: ${winner} wins.`;
    case "abandonment":
      return `${loser} left the game: ${winner} wins.`;
    default:
      return reason ? `${winner} wins: ${reason}.` : `${winner} wins.`;
  }
}

/** Time left: h:mm:ss or m:ss (tenths in the last ten seconds) for a live clock; days and
 * hours, hours and minutes, or minutes for correspondence. */
function clockText(seconds, kind = "live") {
  if (kind === "correspondence") {
    const whole = Math.ceil(seconds);
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const days = Math.floor(whole / 86400);
    const hours = Math.floor((whole % 86400) / 3600);
    const minutes = Math.floor((whole % 3600) / 60);
    if (days > 0) return hours > 0 ? `${plural(days, "day")} ${hours} h` : plural(days, "day");
    if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
    return plural(Math.max(minutes, whole > 0 ? 1 : 0), "minute");
  }
  if (seconds < 10) return `0:0${Math.max(0, Math.floor(seconds * 10) / 10).toFixed(1)}`;
  const whole = Math.ceil(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Whether a move has exactly the steps `steps` (in any order where its order is free). */
function sameSteps(move, steps) {
  if (move.steps.length !== steps.length) return false;
  if (move.ordered) return steps.every((step, i) => sameStep(step, move.steps[i]));
  return steps.every((step) => move.steps.some((other) => sameStep(step, other)));
}

/** A palette picture as an inline SVG (the board's patterns are defined in the board). */
function pictureSvg(picture) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", picture.viewBox.join(" "));
  svg.setAttribute("class", "picture");
  svg.setAttribute("aria-hidden", "true");
  for (const item of picture.items) svg.append(build(item));
  return svg;
}

/** A move text that may break after its commas (Che's placements), as nodes. */
function breakable(text) {
  const parts = text.split(",");
  return parts.flatMap((part, i) => (i < parts.length - 1 ? [`${part},`, document.createElement("wbr")] : [part]));
}

function tagged(items, className) {
  return items.map((item) => ({ ...item, class: `${item.class ?? ""} ${className}`.trim() }));
}

/** Small drawn icons (fonts lack some symbols): the replay arrows and the speaker. */
const ICONS = Object.freeze({
  first: ["M3 3h2v10H3z", "M14 3v10L6 8z"],
  previous: ["M12 3v10L4 8z"],
  next: ["M4 3v10l8-5z"],
  last: ["M11 3h2v10h-2z", "M2 3v10l8-5z"],
  sound: ["M2 6h3l4-3v10l-4-3H2z", "M11 5.5a3.5 3.5 0 0 1 0 5", "M12.5 3.5a6 6 0 0 1 0 9"],
  muted: ["M2 6h3l4-3v10l-4-3H2z", "M11 6l4 4", "M15 6l-4 4"],
});

function icon(name) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", `icon icon-${name}`);
  svg.setAttribute("aria-hidden", "true");
  for (const d of ICONS[name]) {
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

function mod(n, m) {
  return ((n % m) + m) % m;
}

function withClass(node, className) {
  node.classList.add(className);
  return node;
}

/** An HTML element with attributes and children (strings become text). */
function element(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export { GAMES, RoomPage, breakable, clockText, element, icon, resultText };
