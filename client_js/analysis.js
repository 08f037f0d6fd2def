// Computer analysis of a finished game on its page, as Lichess offers for chess: a button asks
// the server for it (POST /api/rooms/<id>/analysis, docs/protocol.md); while the analysts work
// the page says so and reads the status again every few seconds; then a graph of the winning
// chance of the player who moved first, after each move (drawn here as SVG: clicking a point
// shows that move), marks on the moves (?! inaccuracy, ? mistake, ?? blunder) and, for the move
// shown, the move the search preferred.  The page knows no rules: every figure is the server's.
// Imports api.js (the server's routes).

import { api } from "./api.js";

const POLL_MS = 2000;
const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const WORDS = { inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder" };
const WIDTH = 300;
const HEIGHT = 100;
const SVG_NS = "http://www.w3.org/2000/svg";

class AnalysisPanel {
  /** `showPly(ply)` shows the position after that many moves (a click on the graph);
   * `changed()` draws the page again (the marks in the move list) when the analysis arrives. */
  constructor(roomId, showPly, changed) {
    this.roomId = roomId;
    this.showPly = showPly;
    this.changed = changed;
    this.status = null; // null until read: "none", "queued", "done" or "failed"
    this.plies = [];
    this.message = "";
    this.reading = false;
    this.timer = null;
    this.closed = false;
    this.doc = null;
    this.viewPly = null;
    this.button = element("button", { type: "button", class: "analysis-request" }, ["Computer analysis"]);
    this.button.addEventListener("click", () => this.request());
    this.statusLine = element("p", { class: "analysis-status", "aria-live": "polite" });
    this.graph = element("div", { class: "analysis-graph" });
    this.detail = element("p", { class: "analysis-detail", "aria-live": "polite" });
    this.node = element("section", { class: "analysis", "aria-label": "Computer analysis", hidden: "" }, [this.button, this.statusLine, this.graph, this.detail]);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** The symbol marking move `ply` (1-based), or "". */
  markOf(ply) {
    const mark = this.plies[ply - 1]?.mark;
    return mark ? SYMBOLS[mark] : "";
  }

  /** The room or the position shown changed: read the analysis once the game is over. */
  render(doc, viewPly) {
    this.doc = doc;
    this.viewPly = viewPly;
    const over = doc.outcome !== null && doc.record.length > 0;
    this.node.hidden = !over;
    if (!over) return;
    if (this.status === null && !this.reading) this.read();
    this.draw();
  }

  async read() {
    this.reading = true;
    try {
      this.take(await api(`/api/rooms/${encodeURIComponent(this.roomId)}/analysis`));
    } catch (error) {
      this.message = error.message;
      this.draw();
    } finally {
      this.reading = false;
    }
  }

  async request() {
    this.button.disabled = true;
    try {
      this.take(await api(`/api/rooms/${encodeURIComponent(this.roomId)}/analysis`, { method: "POST", signed: true }));
    } catch (error) {
      this.message = `No analysis: ${error.message}`;
      this.button.disabled = false;
      this.draw();
    }
  }

  take(answer) {
    if (this.closed) return;
    this.status = answer.status;
    this.plies = answer.plies ?? [];
    this.message = answer.status === "failed" ? `The analysis failed: ${answer.message}` : "";
    clearTimeout(this.timer);
    if (answer.status === "queued") this.timer = setTimeout(() => this.read(), POLL_MS);
    this.button.disabled = false;
    if (answer.status === "done") this.changed();
    else this.draw();
  }

  draw() {
    if (this.doc === null) return;
    const status = this.status;
    this.button.hidden = status !== "none";
    let text = this.message;
    if (text === "" && status === "queued") text = "The computer is analysing this game…";
    this.statusLine.textContent = text;
    this.statusLine.hidden = text === "";
    if (status !== "done" || this.plies.length === 0) {
      this.graph.replaceChildren();
      this.detail.textContent = "";
      return;
    }
    this.graph.replaceChildren(this.svg());
    this.detail.textContent = this.detailText();
  }

  /** The current move: the one shown, or the last one at the live (final) position. */
  shownPly() {
    return this.viewPly ?? this.doc.record.length;
  }

  svg() {
    const plies = this.plies;
    const count = Math.max(plies.length, 1);
    const x = (ply) => (ply / count) * WIDTH;
    const y = (chance) => (1 - chance) * HEIGHT;
    const points = [[0, 0.5], ...plies.map((p) => [p.ply, p.chance])];
    const line = points.map(([ply, chance]) => `${x(ply).toFixed(1)},${y(chance).toFixed(1)}`).join(" ");
    const area = `0,${HEIGHT} ${line} ${x(points[points.length - 1][0]).toFixed(1)},${HEIGHT}`;
    const root = svgNode("svg", { class: "analysis-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": `Winning chance of ${this.firstName()} after each move` });
    root.append(svgNode("rect", { class: "chart-back", x: 0, y: 0, width: WIDTH, height: HEIGHT }));
    root.append(svgNode("polygon", { class: "chart-area", points: area }));
    root.append(svgNode("line", { class: "chart-middle", x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }));
    const shown = this.shownPly();
    if (shown > 0) root.append(svgNode("line", { class: "chart-current", x1: x(shown), y1: 0, x2: x(shown), y2: HEIGHT }));
    root.append(svgNode("polyline", { class: "chart-line", points: line }));
    for (const p of plies) {
      if (p.mark) root.append(svgNode("circle", { class: `chart-mark ${p.mark}`, cx: x(p.ply), cy: y(p.chance), r: 3.5 }));
    }
    // A column per move takes the clicks, so a point is easy to hit however thin the line.
    const column = WIDTH / count;
    for (const p of plies) {
      const hit = svgNode("rect", { class: "chart-hit", "data-ply": String(p.ply), x: x(p.ply) - column / 2, y: 0, width: column, height: HEIGHT });
      const title = svgNode("title", {});
      title.textContent = `Move ${p.ply} ${p.move}${SYMBOLS[p.mark] ?? ""}: ${percent(p.chance)}`;
      hit.append(title);
      hit.addEventListener("click", () => this.showPly(p.ply === this.doc.record.length ? null : p.ply));
      root.append(hit);
    }
    return root;
  }

  detailText() {
    const ply = this.shownPly();
    const entry = this.plies[ply - 1];
    const who = this.firstName();
    if (entry === undefined) return `Winning chance of ${who} (who moved first) after each move; click the graph to see a move.`;
    let text = `After move ${ply} ${entry.move}${SYMBOLS[entry.mark] ?? ""}, ${who} has a ${percent(entry.chance)} winning chance.`;
    if (entry.mark) text += ` This move was ${WORDS[entry.mark]} (it cost ${Math.round(entry.drop * 100)}% winning chance).`;
    // A move that cost nothing is as good as the one the search happened to prefer.
    if (entry.best && entry.mark) text += ` Better: ${entry.best}.`;
    else if (entry.best && entry.drop > 0) text += ` The computer preferred ${entry.best}.`;
    return text;
  }

  /** The name of the player who made the first move (a swap gives them the second seat). */
  firstName() {
    const doc = this.doc;
    const seat = doc.record[1] === "swap" ? 1 : 0;
    return doc.seats[seat]?.name ?? "the first player";
  }
}

function percent(chance) {
  return `${Math.round(chance * 100)}%`;
}

function element(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function svgNode(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

export { AnalysisPanel };
