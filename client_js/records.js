// The game records page (#/records): a player opens a record (a file, or pasted text: tags
// such as [Game "osbox"] and the moves, one per line, as "Download the record" saves them)
// and replays it on the board, first / previous / next / last or the arrow keys, with the
// end of the game drawn as the game page draws it.  The server checks the record by
// replaying every move (POST /api/records, docs/protocol.md) and sends each position asked
// for, so this page knows no rules.  Imports board.js and room.js.

import { api } from "./api.js";
import { BoardView } from "./board.js";
import { GAMES, breakable, element, icon, resultText } from "./room.js";

const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
/** Tags shown above the board, in this order, when the record has them. */
const SHOWN_TAGS = ["Date", "Rated", "TimeControl", "Termination", "Site", "Room"];
const TAG_WORDS = Object.freeze({ TimeControl: "Time control", Termination: "Ending" });

class RecordsPage {
  constructor(root) {
    this.root = root;
    this.view = null; // the server's answer for the position shown
    this.text = "";
    this.gameChoice = "";
    this.keys = (event) => this.key(event);
    const h = element;

    this.file = h("input", { type: "file", accept: ".txt,.pgn,text/plain", "aria-label": "A record file" });
    this.file.addEventListener("change", () => this.readFile());
    this.pasted = h("textarea", { rows: "8", spellcheck: "false", "aria-label": "The record's text", placeholder: '[Game "osbox"]\n\nf12\na3\n…' });
    this.game = h("select", { "aria-label": "The game, if the record does not say" }, [
      h("option", { value: "" }, ["The game named in the record"]),
      ...Object.entries(TITLES).map(([name, title]) => h("option", { value: name }, [title])),
    ]);
    const show = h("button", { type: "submit", class: "primary" }, ["Show the game"]);
    this.form = h("form", { class: "record-form" }, [
      h("label", {}, ["Open a record file ", this.file]),
      h("label", { class: "record-text" }, ["or paste it here", this.pasted]),
      h("label", {}, ["Game ", this.game]),
      show,
    ]);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(this.pasted.value, this.game.value, null);
    });
    this.error = h("p", { class: "error", role: "alert" });

    this.heading = h("h2", {}, []);
    this.players = h("p", { class: "record-players" });
    this.result = h("p", { class: "turn" });
    this.details = h("dl", { class: "record-tags" });
    this.boardWrap = h("div", { class: "board-wrap" });
    this.board = new BoardView(this.boardWrap, { hover() {}, choose() {}, drag() {}, cycle() {}, cancel() {} });
    this.moves = h("ol", { class: "moves", "aria-label": "Moves" });
    this.moves.addEventListener("click", (event) => {
      const button = event.target.closest?.("button.move");
      if (button != null) this.show(Number(button.dataset.ply));
    });
    const stepButton = (label, name, step) => {
      const button = h("button", { type: "button", class: `replay-${name}`, "aria-label": label, title: label }, [icon(name)]);
      button.addEventListener("click", () => this.step(step));
      return button;
    };
    this.stepButtons = h("div", { class: "replay-buttons" }, [
      stepButton("First position", "first", "first"),
      stepButton("Previous move", "previous", -1),
      stepButton("Next move", "next", 1),
      stepButton("Last position", "last", "last"),
    ]);
    this.viewer = h("section", { class: "record-view", hidden: "" }, [
      h("div", { class: "record-board" }, [this.heading, this.players, this.result, this.boardWrap]),
      h("aside", { class: "record-side" }, [this.details, h("section", { class: "moves-box", "aria-label": "Moves" }, [this.moves, this.stepButtons])]),
    ]);
  }

  open() {
    this.root.replaceChildren(
      element("section", { class: "records" }, [
        element("h1", {}, ["Game records"]),
        element("p", { class: "lead" }, ["Replay any game of Boche, Che, Osbox, Ankor or Marque from its record: the one a game page saves with “Download the record”, or one written by hand, a move per line."]),
        this.form,
        this.error,
        this.viewer,
      ]),
    );
    document.addEventListener("keydown", this.keys);
  }

  close() {
    document.removeEventListener("keydown", this.keys);
  }

  async readFile() {
    const chosen = this.file.files?.[0];
    if (chosen === undefined) return;
    this.pasted.value = await chosen.text();
    this.load(this.pasted.value, this.game.value, null);
  }

  /** Asks the server for the position after `ply` moves of the record (the end when null). */
  async load(text, game, ply) {
    const body = { text };
    if (game) body.game = game;
    if (ply !== null) body.ply = ply;
    let answer;
    try {
      answer = await api("/api/records", { body });
    } catch (error) {
      this.error.textContent = `This record cannot be shown: ${error.message}`;
      if (ply === null) this.viewer.hidden = true;
      return;
    }
    this.error.textContent = "";
    this.text = text;
    this.gameChoice = game;
    this.view = answer;
    this.render();
  }

  show(ply) {
    if (this.view === null || ply === this.view.ply) return;
    this.load(this.text, this.gameChoice, Math.max(0, Math.min(ply, this.view.moves.length)));
  }

  step(how) {
    if (this.view === null) return;
    const last = this.view.moves.length;
    if (how === "first") this.show(0);
    else if (how === "last") this.show(last);
    else this.show(this.view.ply + how);
  }

  key(event) {
    if (this.view === null || event.target.closest?.("textarea, input, select")) return;
    const steps = { ArrowLeft: -1, ArrowRight: 1, Home: "first", End: "last" };
    if (!(event.key in steps)) return;
    event.preventDefault();
    this.step(steps[event.key]);
  }

  /** The connection's errors reach every page; this one needs no connection. */
  showError(error) {
    this.error.textContent = error.message;
  }

  /** Draws the position shown (also called by the page's frame when the connection changes). */
  render() {
    const view = this.view;
    if (view === null) return;
    const tags = new Map(view.tags.map(([name, value]) => [name.toLowerCase(), value]));
    const title = TITLES[view.game] ?? view.game;
    this.heading.textContent = view.options ? `${title} (${view.options})` : title;
    const module = GAMES[view.game];
    const colourName = (colour) => module?.COLOURS[colour]?.label ?? colour;
    const named = view.colours.some((colour) => tags.has(colour.toLowerCase()));
    const players = view.colours.map((colour) => (named ? `${tags.get(colour.toLowerCase()) ?? "?"} (${colourName(colour)})` : colourName(colour)));
    this.players.textContent = named ? players.join(" against ") : "";
    this.players.hidden = !named;
    const last = view.moves.length;
    const end = view.outcome === null ? (tags.has("result") && tags.get("result") !== "*" ? `Result: ${tags.get("result")}` : "The record ends before the game does.") : resultText(view.outcome, (index) => players[index]);
    this.result.textContent = view.ply === last ? end : `After move ${view.ply} of ${last}. ${end}`;
    this.details.replaceChildren(
      ...SHOWN_TAGS.filter((name) => tags.has(name.toLowerCase())).flatMap((name) => [
        element("dt", {}, [TAG_WORDS[name] ?? name]),
        element("dd", {}, [tags.get(name.toLowerCase())]),
      ]),
    );
    this.renderMoves();
    if (module === undefined) {
      this.result.textContent = `This page cannot draw the game ${view.game}.`;
    } else {
      const drawn = module.draw(view.data);
      this.board.render({ viewBox: drawn.viewBox, label: drawn.label, items: drawn.items, overlay: [...drawn.highlights], targets: [] });
    }
    this.viewer.hidden = false;
  }

  renderMoves() {
    const view = this.view;
    const rows = [];
    for (let ply = 1; ply <= view.moves.length; ply += 2) rows.push([ply, ply + 1 <= view.moves.length ? ply + 1 : null]);
    this.moves.classList.toggle("long", view.moves.some((text) => text.length > 9));
    this.moves.replaceChildren(
      ...rows.map((plies, index) =>
        element("li", { class: "move-row" }, [
          element("span", { class: "number" }, [`${index + 1}.`]),
          ...plies.map((ply) => {
            if (ply === null) return element("span", { class: "no-move" });
            const attrs = { type: "button", class: ply === view.ply ? "move current" : "move", "data-ply": String(ply), title: `Show the position after move ${ply}` };
            return element("button", attrs, breakable(view.moves[ply - 1]));
          }),
        ]),
      ),
    );
    this.moves.querySelector(".move.current")?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
    const last = view.moves.length;
    this.stepButtons.querySelector(".replay-first").disabled = view.ply === 0;
    this.stepButtons.querySelector(".replay-previous").disabled = view.ply === 0;
    this.stepButtons.querySelector(".replay-next").disabled = view.ply === last;
    this.stepButtons.querySelector(".replay-last").disabled = view.ply === last;
  }
}

export { RecordsPage };
