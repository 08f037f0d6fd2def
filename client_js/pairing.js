// Quick pairing: for the chosen game, a grid of common time controls; a click joins that
// pool (the `pool` request, docs/protocol.md) and either goes straight to the game, when a
// player was waiting there, or waits, renewing the wait every 10 s (the server drops an
// entry after 30 s), until someone else joins and the lobby feed announces the game (main.js
// then goes to it).  Each control shows how many wait there (GET /api/pools, every 10 s).  Cancel, or leaving the page, stops the wait.  Signed-in players may
// choose a rated pool, paired by rating.
// Imports api.js, protocol.js and room.js (element).

import { api } from "./api.js";
import { MsgType } from "./protocol.js";
import { element } from "./room.js";

/** The pools' time controls (lobby/pools.py TIME_CONTROLS) and how they are named. */
const CONTROLS = Object.freeze([
  ["3+2", "Blitz"],
  ["5+3", "Blitz"],
  ["10+5", "Rapid"],
  ["15+10", "Rapid"],
  ["1d", "Correspondence"],
  ["3d", "Correspondence"],
]);
const RENEW_MS = 10_000;

class QuickPairing {
  /** `options`: {games: names in order, titles: name -> title, onError(error), more: nodes
 * to show under the grid}. */
  constructor(connection, options) {
    this.connection = connection;
    this.options = options;
    this.game = options.games[0];
    this.waiting = null; // {game, control, rated} while in a pool
    this.timer = null; // the next renewal
    this.clock = null; // the time waited, shown
    this.counts = {}; // pool name -> players waiting there, as last asked
    this.countTimer = null;
    this.closed = false;
    this.build();
    this.followCounts();
  }

  build() {
    const h = element;
    const { games, titles } = this.options;
    const options = this.options;
    this.tabs = games.map((game) => {
      const tab = h("button", { type: "button", class: "pool-game", role: "tab", "data-game": game, "aria-selected": String(game === this.game) }, [titles[game]]);
      tab.addEventListener("click", () => {
        this.game = game;
        this.renderTabs();
      });
      return tab;
    });
    this.grid = h("div", { class: "pool-grid", role: "tabpanel" });
    for (const [control, kind] of CONTROLS) {
      const cell = h("button", { type: "button", class: "pool-control", "data-control": control }, [h("span", { class: "control" }, [shortWords(control)]), h("span", { class: "kind" }, [kind]), h("span", { class: "pool-count" })]);
      cell.addEventListener("click", () => this.join(this.game, control));
      this.grid.append(cell);
    }
    this.rated = h("input", { type: "checkbox", id: "pool-rated" });
    this.ratedLabel = h("label", { for: "pool-rated", class: "pool-rated" }, [this.rated, " Rated (paired with players near your rating)"]);
    this.status = h("p", { class: "pool-status", role: "status", "aria-live": "polite" });
    this.waited = h("span", { class: "pool-waited", "aria-hidden": "true" }); // time waited
    this.cancelButton = h("button", { type: "button", class: "pool-cancel", hidden: "" }, ["Cancel"]);
    this.cancelButton.addEventListener("click", () => this.cancel());
    this.node = h("section", { class: "quick-pairing", "aria-labelledby": "pairing-heading" }, [
      h("h2", { id: "pairing-heading" }, ["Quick pairing"]),
      h("div", { class: "pool-games", role: "tablist", "aria-label": "Game" }, this.tabs),
      this.grid,
      this.ratedLabel,
      h("div", { class: "pool-waiting" }, [this.status, this.waited, this.cancelButton]),
      h("p", { class: "pool-more" }, [...(options.more ?? []), h("a", { href: "#/lobby" }, ["Other options, or a friend: the lobby"])]),
    ]);
    this.render(this.connection.player);
  }

  /** Shows the grid of `game`. */
  choose(game) {
    this.game = game;
    this.renderTabs();
  }

  renderTabs() {
    for (const tab of this.tabs) tab.setAttribute("aria-selected", String(tab.dataset.game === this.game));
    this.renderCounts();
  }

  /** Asks how many wait in each pool now, and again every 10 s while the page is open. */
  async followCounts() {
    clearTimeout(this.countTimer);
    try {
      this.counts = (await api("/api/pools")).waiting;
    } catch (error) {
      // the counts are a hint: the grid works without them
    }
    this.renderCounts();
    if (!this.closed) this.countTimer = setTimeout(() => this.followCounts(), RENEW_MS);
  }

  /** Each control of the chosen game: how many players wait there (others than you). */
  renderCounts() {
    for (const cell of this.grid.children) {
      const control = cell.dataset.control;
      let count = 0;
      for (const kind of ["casual", "rated"]) count += this.counts[`${this.game}/${control}/${kind}`] ?? 0;
      const mine = this.waiting !== null && this.waiting.game === this.game && this.waiting.control === control;
      if (mine) count -= 1;
      cell.querySelector(".pool-count").textContent = count > 0 ? `${count} waiting` : "";
    }
  }

  /** Guests play casual games: the rated box is for accounts. */
  render(player) {
    const guest = player?.guest ?? true;
    this.rated.disabled = guest;
    if (guest) this.rated.checked = false;
    this.ratedLabel.title = guest ? "Guests play casual games: sign in to play rated" : "";
  }

  /** Joins the pool of `game` with `control`: to the game at once, or waits in it. */
  async join(game, control) {
    this.game = game;
    this.renderTabs();
    const rated = this.rated.checked && !this.rated.disabled;
    this.waiting = { game, control, rated };
    const looking = `Looking for an opponent: ${this.options.titles[game]}, ${controlWords(control)}${rated ? ", rated" : ""}…`;
    const since = Date.now();
    this.say(looking);
    clearInterval(this.clock);
    this.clock = setInterval(() => {
      const seconds = Math.floor((Date.now() - since) / 1000);
      this.waited.textContent = ` ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    }, 1000);
    this.cancelButton.hidden = false;
    for (const cell of this.grid.children) cell.setAttribute("aria-pressed", String(cell.dataset.control === control));
    await this.ask();
  }

  /** Sends the pool request (the first time, and as the renewal while waiting). */
  async ask() {
    clearTimeout(this.timer);
    const wait = this.waiting;
    if (wait === null) return;
    try {
      const reply = await this.connection.request({ t: MsgType.POOL, game: wait.game, time_control: wait.control, rated: wait.rated }, false);
      if (this.waiting !== wait) return; // cancelled meanwhile
      if (reply.room) {
        this.stop();
        location.hash = `#/room/${encodeURIComponent(reply.room)}`;
        return;
      }
    } catch (error) {
      if (this.waiting !== wait) return;
      if (error.code !== "disconnected") {
        this.stop();
        this.options.onError(error);
        return;
      }
    }
    this.timer = setTimeout(() => this.ask(), RENEW_MS);
  }

  /** Stops waiting, and tells the server. */
  async cancel() {
    const was = this.waiting;
    this.stop();
    if (was !== null) {
      this.say("");
      await this.connection.request({ t: MsgType.LEAVE_POOL }, false).catch(() => {});
    }
  }

  stop() {
    clearTimeout(this.timer);
    clearInterval(this.clock);
    this.waited.textContent = "";
    this.timer = null;
    this.waiting = null;
    this.cancelButton.hidden = true;
    for (const cell of this.grid.children) cell.setAttribute("aria-pressed", "false");
  }

  /** The page is left: leave the pool too. */
  close() {
    this.closed = true;
    clearTimeout(this.countTimer);
    this.cancel();
  }

  say(text) {
    this.status.textContent = text;
  }
}

/** "3+2" as the grid shows it; days as "1 day". */
function shortWords(control) {
  const days = /^(\d+)d$/.exec(control);
  if (days !== null) return days[1] === "1" ? "1 day" : `${days[1]} days`;
  return control;
}

/** A time control in words: "5+3" -> "5 min + 3 s", "1d" -> "1 day per move". */
function controlWords(control) {
  if (!control) return "no clock";
  const live = /^(\d+)\+(\d+)$/.exec(control);
  if (live !== null) return `${live[1]} min + ${live[2]} s`;
  const days = /^(\d+)d/.exec(control);
  if (days !== null) return `${shortWords(`${days[1]}d`)} per move`;
  return control;
}

export { CONTROLS, QuickPairing, controlWords };
