// The game page of one room: the board (drawn by the game's module through board.js), the
// players and their colours after any swap, whose turn, the move list, the spectator count,
// the swap, resign, abort, draw and rematch buttons, a move typed as text, and every error
// the server sends.  Clocks tick from the server's figures (time left when each clock last
// stopped, the running seat and since when); "away" marks a seated player with no socket, and
// after the grace period the opponent may claim the win.
// A move is built from the legal move texts of to_data: each click narrows them, and a
// palette offers the moves that the clicks so far complete.  Knows no rules.
// Imports board.js, connection.js (errors) and the game modules.

import { BoardView } from "./board.js";
import { errorTitle } from "./connection.js";
import { DrawAction } from "./protocol.js";
import * as ankor from "./games/ankor.js";
import * as boche from "./games/boche.js";
import * as che from "./games/che.js";
import * as marque from "./games/marque.js";
import * as osbox from "./games/osbox.js";

const GAMES = Object.freeze({ ankor, boche, che, marque, osbox });
const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
const SWAP = "swap";

class RoomPage {
  /** Shows room `roomId` in `root`, through `connection` (already open or reconnecting). */
  constructor(root, connection, roomId) {
    this.connection = connection;
    this.roomId = roomId;
    this.doc = null;
    this.game = null;
    this.pending = []; // targets chosen so far for the move being built
    this.positionVersion = null;
    this.sending = false;
    this.build(root);
  }

  build(root) {
    const h = element;
    this.title = h("h1", {}, ["Game ", this.roomId]);
    this.statusLine = h("p", { class: "turn", "aria-live": "polite" }, ["Joining…"]);
    this.lastMove = h("p", { class: "last-move", "aria-live": "polite" });
    this.boardWrap = h("div", { class: "board-wrap" });
    this.board = new BoardView(this.boardWrap, (key) => this.chose(key));
    this.palette = h("div", { class: "palette", role: "group", "aria-label": "Choose the move", hidden: "" });
    this.players = h("ul", { class: "players", "aria-label": "Players" });
    this.spectators = h("p", { class: "spectators" });
    this.swapButton = h("button", { type: "button", class: "swap", hidden: "" }, ["Swap sides"]);
    this.swapButton.addEventListener("click", () => this.send(SWAP));
    this.resignButton = h("button", { type: "button", class: "resign", hidden: "" }, ["Resign"]);
    this.resignButton.addEventListener("click", () => this.resignClicked());
    this.abortButton = h("button", { type: "button", class: "abort", hidden: "" }, ["Abort"]);
    this.abortButton.addEventListener("click", () => this.action(() => this.connection.abort(this.roomId)));
    this.drawButton = h("button", { type: "button", class: "draw-offer", hidden: "" }, ["Offer a draw"]);
    this.drawButton.addEventListener("click", () => this.action(() => this.connection.draw(this.roomId, DrawAction.OFFER)));
    this.drawAccept = h("button", { type: "button", class: "draw-accept", hidden: "" }, ["Accept the draw"]);
    this.drawAccept.addEventListener("click", () => this.action(() => this.connection.draw(this.roomId, DrawAction.ACCEPT)));
    this.drawDecline = h("button", { type: "button", class: "draw-decline", hidden: "" }, ["Decline the draw"]);
    this.drawDecline.addEventListener("click", () => this.action(() => this.connection.draw(this.roomId, DrawAction.DECLINE)));
    this.rematchButton = h("button", { type: "button", class: "rematch", hidden: "" }, ["Rematch"]);
    this.rematchButton.addEventListener("click", () => this.action(() => this.connection.rematch(this.roomId)));
    this.offerLine = h("p", { class: "offer", "aria-live": "polite" });
    this.claimButton = h("button", { type: "button", class: "claim", hidden: "" }, ["Claim the win"]);
    this.claimButton.addEventListener("click", () => this.action(() => this.connection.claim(this.roomId)));
    this.clockLine = h("p", { class: "time-control" });
    this.skew = 0; // seconds this browser's clock runs ahead of the server's, as last seen
    this.ticker = setInterval(() => this.tick(), 200);
    this.rematchLink = h("a", { class: "rematch-link", hidden: "" }, ["Go to the rematch"]);
    this.recordLink = h("a", { class: "record-link", href: `/api/rooms/${encodeURIComponent(this.roomId)}/record.txt`, download: `${this.roomId}.txt` }, ["Download the record"]);
    this.moveInput = h("input", { name: "move", autocomplete: "off", spellcheck: "false", "aria-label": "Move in the game's notation" });
    const typed = h("form", { class: "typed-move" }, [h("label", {}, ["Move ", this.moveInput]), h("button", { type: "submit" }, ["Play"])]);
    typed.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.moveInput.value.trim();
      if (text !== "") this.send(text);
    });
    this.typedForm = typed;
    this.errors = h("div", { class: "errors", role: "alert" });
    this.moves = h("ol", { class: "moves", "aria-label": "Moves" });
    const aside = h("aside", { class: "side-panel" }, [
      this.players,
      this.spectators,
      h("div", { class: "controls" }, [this.swapButton, this.resignButton, this.abortButton, this.drawButton, this.drawAccept, this.drawDecline, this.rematchButton]),
      this.clockLine,
      this.claimButton,
      this.offerLine,
      this.rematchLink,
      typed,
      this.errors,
      h("h2", {}, ["Moves"]),
      this.moves,
      this.recordLink,
    ]);
    const main = h("div", { class: "play-area" }, [this.boardWrap, this.palette]);
    root.replaceChildren(h("section", { class: "room" }, [h("header", {}, [this.title, this.statusLine, this.lastMove]), h("div", { class: "room-layout" }, [main, aside])]));
  }

  /** Joins the room; errors (no such room) are shown on the page. */
  async open() {
    try {
      await this.connection.join(this.roomId);
    } catch (error) {
      this.showError(error);
    }
  }

  /** The room's state changed (snapshot or diff). */
  update(doc) {
    const since = doc.clock?.since ?? null;
    if (this.doc !== null && since !== null && since !== (this.doc.clock?.since ?? null)) {
      // A clock was just started by a commit: its start time is (about) now.
      this.skew = Date.now() / 1000 - since;
    }
    this.doc = doc;
    this.game = GAMES[doc.game] ?? null;
    if (doc.position_version !== this.positionVersion) {
      this.positionVersion = doc.position_version;
      this.pending = [];
      this.resignButton.dataset.confirm = "";
      this.resignButton.textContent = "Resign";
    }
    this.render();
  }

  render() {
    const doc = this.doc;
    if (doc === null) return;
    const seat = this.mySeat();
    this.title.replaceChildren(`${TITLES[doc.game] ?? doc.game}`, element("span", { class: "options" }, [doc.options ? ` ${doc.options}` : ""]));
    this.renderPlayers(seat);
    this.statusLine.textContent = this.statusText(seat);
    this.spectators.textContent = `${doc.spectators} watching`;
    this.moves.replaceChildren(...doc.record.map((text) => element("li", {}, [text])));
    this.moves.scrollTop = this.moves.scrollHeight;
    this.lastMove.textContent = doc.record.length > 0 ? `Last move: ${doc.record[doc.record.length - 1]}` : "";
    const playing = seat !== null && doc.outcome === null;
    const myTurn = playing && doc.to_move === seat;
    this.swapButton.hidden = !(myTurn && (doc.data.legal ?? []).includes(SWAP));
    this.resignButton.hidden = !playing;
    this.renderActions(seat, playing);
    this.typedForm.hidden = !myTurn;
    if (this.game === null) {
      this.statusLine.textContent = `This page cannot draw the game ${doc.game}.`;
      return;
    }
    const choice = this.choice(myTurn ? this.offered() : []);
    this.board.render(this.game.draw(doc.data, { targets: choice.targets }));
    this.renderPalette(choice.complete);
  }

  /** The move texts to build from: the server's legal list unless the game module offers more. */
  offered() {
    if (this.game.offered) return this.game.offered(this.doc.data);
    return this.doc.data.legal ?? [];
  }

  /** The targets to highlight and the moves the chosen targets complete. */
  choice(legal) {
    const targets = new Map();
    const complete = [];
    if (this.sending) return { targets, complete };
    const module = this.game;
    for (const key of this.pending) targets.set(key, "pending");
    for (const move of legal) {
      if (move === SWAP) continue;
      const keys = module.targets(move);
      if (!extends_(keys, this.pending, module.UNORDERED)) continue;
      if (keys.length === this.pending.length) complete.push(move);
      for (const key of keys) if (!targets.has(key)) targets.set(key, "legal");
    }
    return { targets, complete };
  }

  renderPalette(complete) {
    const buttons = complete.map((move) => {
      const button = element("button", { type: "button", "data-move": move }, [this.game.choiceLabel(move)]);
      button.addEventListener("click", () => this.send(move));
      return button;
    });
    if (this.pending.length === 0 || buttons.length === 0) {
      this.palette.hidden = true;
      this.palette.replaceChildren();
      return;
    }
    const cancel = element("button", { type: "button", class: "cancel" }, ["Cancel"]);
    cancel.addEventListener("click", () => {
      this.pending = [];
      this.render();
    });
    this.palette.replaceChildren(...buttons, cancel);
    this.palette.hidden = false;
  }

  /** A target was chosen on the board. */
  chose(key) {
    const index = this.pending.indexOf(key);
    if (index >= 0) {
      this.pending = this.pending.slice(0, index); // choosing it again takes it back
      this.render();
      return;
    }
    const seat = this.mySeat();
    const myTurn = seat !== null && this.doc.outcome === null && this.doc.to_move === seat;
    const legal = myTurn ? this.offered() : [];
    const { targets } = this.choice(legal);
    if (targets.get(key) !== "legal") return;
    this.pending = [...this.pending, key];
    const { complete, targets: further } = this.choice(legal);
    const more = [...further.values()].some((state) => state === "legal");
    if (complete.length === 1 && !more) {
      this.send(complete[0]);
      return;
    }
    this.render();
    if (complete.length > 0) this.palette.querySelector("button")?.focus();
  }

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
    const item = element("p", { class: "error", "data-code": code }, [
      element("strong", {}, [errorTitle(code)]),
      ": ",
      error.message,
    ]);
    const dismiss = element("button", { type: "button", class: "dismiss", "aria-label": "Dismiss" }, ["×"]);
    dismiss.addEventListener("click", () => item.remove());
    item.append(" ", dismiss);
    this.errors.append(item);
    while (this.errors.childElementCount > 3) this.errors.firstElementChild.remove();
  }

  clearErrors() {
    this.errors.replaceChildren();
  }

  mySeat() {
    const player = this.connection.player;
    if (player === null || this.doc === null) return null;
    const index = this.doc.seats.findIndex((holder) => holder.id === player.id);
    return index < 0 ? null : index;
  }

  renderPlayers(seat) {
    const doc = this.doc;
    const colours = this.game?.COLOURS ?? {};
    this.players.replaceChildren(
      ...doc.seats.map((holder, index) => {
        const colour = doc.colours[index];
        const style = colours[colour] ?? { fill: "#888", pattern: null, label: colour };
        const swatch = element("span", { class: `swatch${style.pattern ? ` swatch-${style.pattern}` : ""}`, style: `background-color:${style.fill}`, "aria-hidden": "true" });
        const toMove = doc.outcome === null && doc.to_move === index;
        const parts = [swatch, element("span", { class: "colour" }, [style.label]), " ", element("span", { class: "name" }, [holder.name])];
        if (index === seat) parts.push(element("span", { class: "you" }, [" (you)"]));
        if (doc.scores) parts.push(element("span", { class: "score" }, [` ${doc.scores[index]}`]));
        if (toMove) parts.push(element("span", { class: "to-move" }, [" to move"]));
        if ((doc.away ?? [])[index] != null && doc.outcome === null) parts.push(element("span", { class: "away" }, [" away"]));
        if (doc.clock) parts.push(element("span", { class: "clock", "data-seat": String(index) }, [clockText(this.timeLeft(index))]));
        return element("li", { class: toMove ? "player moving" : "player", "data-seat": String(index) }, parts);
      }),
    );
  }

  /** Seconds seat `index` has left now, from the server's figures (never below 0). */
  timeLeft(index) {
    const clock = this.doc.clock;
    let left = clock.remaining[index];
    if (clock.running === index && this.doc.outcome === null) left -= Date.now() / 1000 - this.skew - clock.since;
    return Math.max(0, left);
  }

  /** Redraws the running clock, the correspondence deadline and the claim button. */
  tick() {
    const doc = this.doc;
    if (doc === null || !this.players.isConnected) {
      if (doc !== null) clearInterval(this.ticker);
      return;
    }
    for (const span of this.players.querySelectorAll(".clock")) span.textContent = clockText(this.timeLeft(Number(span.dataset.seat)));
    const clock = doc.clock;
    let line = clock ? `Time control: ${clock.describe}` : "";
    if (clock && clock.kind === "correspondence" && clock.running !== null && doc.outcome === null) {
      line += `. Deadline ${new Date((clock.deadline + this.skew) * 1000).toLocaleString()}`;
    }
    if (this.clockLine.textContent !== line) this.clockLine.textContent = line;
    const seat = this.mySeat();
    const away = seat === null ? null : (doc.away ?? [])[1 - seat];
    const live = !clock || clock.kind === "live";
    const due = away != null && Date.now() / 1000 - this.skew >= away + (doc.claim_after ?? 0);
    this.claimButton.hidden = !(live && seat !== null && doc.outcome === null && due);
  }

  statusText(seat) {
    const doc = this.doc;
    const who = (index) => `${doc.seats[index].name} (${this.colourLabel(index)})`;
    if (doc.outcome !== null) {
      const reason = doc.outcome.reason ? ` (${doc.outcome.reason})` : "";
      if (doc.outcome.winner === null || doc.outcome.winner === undefined) return `Game over: a draw${reason}.`;
      const winner = doc.outcome.winner === seat ? "you win" : `${who(doc.outcome.winner)} wins`;
      return `Game over: ${winner}${reason}.`;
    }
    if (doc.to_move === null) return "";
    if (seat === doc.to_move) return this.sending ? "Sending your move…" : `Your turn (${this.colourLabel(seat)}).`;
    return `${who(doc.to_move)} to move.`;
  }

  colourLabel(index) {
    const colour = this.doc.colours[index];
    return this.game?.COLOURS[colour]?.label ?? colour;
  }
}

/** Time left as h:mm:ss, m:ss, or days and hours for correspondence. */
function clockText(seconds) {
  const whole = Math.ceil(seconds);
  if (whole >= 86400) return `${Math.floor(whole / 86400)}d ${Math.floor((whole % 86400) / 3600)}h`;
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Whether the target list `keys` starts with (or, unordered, contains) every chosen key. */
function extends_(keys, chosen, unordered) {
  if (chosen.length > keys.length) return false;
  if (unordered) return chosen.every((key) => keys.includes(key));
  return chosen.every((key, i) => keys[i] === key);
}

/** An HTML element with attributes and children (strings become text). */
function element(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export { GAMES, RoomPage, element };
