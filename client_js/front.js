// The front page (#/): what a first visit needs.  Quick pairing (pairing.js) at the top; the
// live game most people are watching, drawn as a live board that follows its moves (the
// page watches its room like a spectator and leaves it when another game draws more
// watchers), with a short list of the other live games and of the tournaments running or
// starting soonest; how many players are online and games in play; and the five games, each drawn as it
// looks (a position from /api/showcase, drawn by the game page's own modules), with its
// rules page and one-click "Play a person" (the game's quick-pairing pool) and "Play the
// computer" (a casual challenge to a bot).  Knows no rules.
// Imports api.js, board.js, pairing.js, links.js (names link to their pages) and room.js (the game
// modules, element).

import { api } from "./api.js";
import { BoardView } from "./board.js";
import { QuickPairing, controlWords } from "./pairing.js";
import { playerLink } from "./links.js";
import { GAMES, clockText, element } from "./room.js";

const TITLES = Object.freeze({ boche: "Boche", che: "Che", osbox: "Osbox", ankor: "Ankor", marque: "Marque" });
const ORDER = Object.freeze(["boche", "che", "osbox", "ankor", "marque"]);
const BLURBS = Object.freeze({
  boche: "Truchet cubes stacked into a pyramid. Enclose a region of your opponent's colour, or own the region that touches all three sides.",
  che: "Two-colour tiles laid two at a time, edges matching. Close a region of your own colour, of any size or shape.",
  osbox: "Dice pushed in from the sides shift whole rows. Close knots of the strands drawn on them: each crossing scores.",
  ankor: "Your cubes climb over each other and carry columns as they move. Join the three sides of the board.",
  marque: "Place one piece, or two side by side; groups without a free cell are captured. Hold three bases in one group.",
});
const PERSON_CONTROL = "10+5"; // "Play a person": the game's rapid pool
const COMPUTER = "bot-match"; // "Play the computer": the level nearest your rating (1,500 for a newcomer)
const OTHER_LIVE = 6; // live games listed beside the one shown
const EVENTS = 4; // tournaments listed

class FrontPage {
  /** Shows the front page in `root`, through `connection` (already open or reconnecting),
   * with the quick pairing of `game` chosen (when the address names one). */
  constructor(root, connection, game = null) {
    this.connection = connection;
    this.featured = null; // the live game shown (a lobby line), or null
    this.featuredDoc = null;
    this.skew = 0; // seconds this browser's clock runs ahead of the server's, as last seen
    this.build(root);
    this.ticker = setInterval(() => this.tickTv(), 250);
    if (game !== null && ORDER.includes(game)) {
      this.pairing.choose(game);
      this.pairing.node.scrollIntoView();
    }
  }

  /** The room this page watches (main.js hands it the room's changes, and leaves it). */
  get roomId() {
    return this.featured === null ? undefined : this.featured.room_id;
  }

  build(root) {
    const h = element;
    this.errors = h("div", { class: "errors", role: "alert" });
    this.counts = h("p", { class: "front-counts", "aria-live": "polite" });
    this.events = h("ul", { class: "front-events", "aria-label": "Tournaments" });
    const computer = h("button", { type: "button", class: "pool-computer" }, ["Play the computer"]);
    computer.addEventListener("click", () => this.playComputer(this.pairing.game, computer));
    this.pairing = new QuickPairing(this.connection, { titles: TITLES, games: ORDER, onError: (error) => this.showError(error), more: [computer] });
    this.tvTitle = h("p", { class: "tv-title" });
    this.tvBoard = h("div", { class: "tv-board", hidden: "" });
    this.tv = new BoardView(this.tvBoard, {});
    this.tvLink = h("a", { class: "tv-watch", hidden: "" }, ["Watch this game"]);
    this.tvEmpty = h("p", { class: "tv-empty" }, ["No game is being played right now. Start one: the first game anyone plays shows here."]);
    this.liveList = h("ul", { class: "live-list", "aria-label": "Other live games" });
    const tv = h("section", { class: "front-tv", "aria-labelledby": "tv-heading" }, [
      h("h2", { id: "tv-heading" }, ["Live now"]),
      this.tvTitle,
      this.tvBoard,
      this.tvEmpty,
      this.tvLink,
      this.liveList,
      h("h2", { class: "events-heading" }, [h("a", { href: "#/tournaments" }, ["Tournaments"])]),
      this.events,
    ]);
    this.cards = h("div", { class: "game-cards" });
    root.replaceChildren(
      h("section", { class: "front" }, [
        h("div", { class: "front-intro" }, [
          h("h1", {}, ["Cameron Browne's games, live"]),
          h("p", {}, ["Five connection and tile games — Boche, Che, Osbox, Ankor and Marque — against people or the computer. No sign-up: you are playing as a guest."]),
          this.counts,
        ]),
        this.errors,
        h("div", { class: "front-top" }, [this.pairing.node, tv]),
        h("h2", { class: "games-heading" }, ["The games"]),
        this.cards,
      ]),
    );
    this.cards.replaceChildren(...ORDER.map((game) => this.card(game)));
  }

  card(game) {
    const h = element;
    const picture = h("a", { class: "card-board", href: `#/rules/${game}`, "aria-label": `${TITLES[game]}: the rules` });
    const board = new BoardView(picture, {});
    this.pictures = this.pictures ?? new Map();
    this.pictures.set(game, board);
    const person = h("button", { type: "button", class: "play-person", "data-game": game }, ["Play a person"]);
    person.addEventListener("click", () => {
      this.pairing.join(game, PERSON_CONTROL);
      this.pairing.node.scrollIntoView({ block: "nearest" }); // where the wait is shown
    });
    const computer = h("button", { type: "button", class: "play-computer", "data-game": game }, ["Play the computer"]);
    computer.addEventListener("click", () => this.playComputer(game, computer));
    return h("article", { class: "game-card", "data-game": game }, [
      picture,
      h("h3", {}, [h("a", { href: `#/rules/${game}` }, [TITLES[game]])]),
      h("p", { class: "blurb" }, [BLURBS[game]]),
      h("p", { class: "card-links" }, [h("a", { class: "rules-link", href: `#/rules/${game}` }, ["How to play"]), ` · ${controlWords(PERSON_CONTROL)} against a person`]),
      h("div", { class: "card-buttons" }, [person, computer]),
    ]);
  }

  /** Draws the games' pictures and shows the live games; errors are shown on the page. */
  async open() {
    try {
      for (const { name, data } of (await api("/api/showcase")).games) {
        const module = GAMES[name];
        const board = this.pictures.get(name);
        if (module === undefined || board === undefined) continue;
        const drawn = module.draw(data);
        board.render({ viewBox: drawn.viewBox, label: `${TITLES[name]}: a game under way`, items: drawn.items, overlay: [], targets: [] });
      }
    } catch (error) {
      this.showError(error);
    }
    if (this.connection.lobby !== null) this.updateLobby(this.connection.lobby);
    await this.showEvents();
  }

  /** The tournaments running and starting soonest (a few), or how to make one. */
  async showEvents() {
    try {
      const listing = await api("/api/tournaments");
      const events = [...listing.running, ...listing.created].slice(0, EVENTS);
      const line = (t) =>
        element("li", { "data-tournament": t.id }, [
          element("a", { href: `#/tournament/${encodeURIComponent(t.id)}` }, [t.name || t.id]),
          element("span", { class: "tv-meta" }, [` ${TITLES[t.game] ?? t.game}, ${t.status === "running" ? "playing now" : `starts ${new Date(t.starts_at * 1000).toLocaleString()}`}, ${t.players} players`]),
        ]);
      this.events.replaceChildren(...(events.length > 0 ? events.map(line) : [element("li", { class: "empty" }, ["None planned: make one on the tournaments page."])]));
    } catch (error) {
      this.showError(error);
    }
  }

  /** The page is left: stop waiting in a pool. */
  close() {
    this.pairing.close();
    clearInterval(this.ticker);
  }

  /** Welcomed (again). */
  render() {
    this.pairing.render(this.connection.player);
    if (this.connection.lobby !== null) this.updateLobby(this.connection.lobby);
  }

  /** The lobby changed: the game most watched is the one shown (the newest on a tie). */
  updateLobby(lobby) {
    this.pairing.render(this.connection.player);
    const people = (lobby.online ?? []).length;
    const games = lobby.live_count ?? (lobby.live ?? []).length;
    this.counts.textContent = `${people} ${people === 1 ? "player" : "players"} online · ${games} ${games === 1 ? "game" : "games"} in play`;
    const live = [...(lobby.live ?? [])].sort((a, b) => b.spectators - a.spectators || b.started - a.started || (a.room_id < b.room_id ? -1 : 1));
    const best = live[0] ?? null;
    const current = this.featured;
    // Our own watching counts one: keep the game shown unless another draws more than it.
    const keep = current !== null && live.some((g) => g.room_id === current.room_id) && best !== null && best.spectators <= (live.find((g) => g.room_id === current.room_id).spectators);
    const chosen = keep ? live.find((g) => g.room_id === current.room_id) : best;
    if (chosen?.room_id !== current?.room_id) this.watch(chosen);
    else this.featured = chosen;
    this.renderTvTitle();
    const others = live.filter((g) => g.room_id !== chosen?.room_id).slice(0, OTHER_LIVE);
    this.liveList.replaceChildren(...others.map((g) => liveLine(g)));
  }

  /** Watches `game` (a lobby line, or null) in place of the one shown. */
  watch(game) {
    const before = this.featured;
    this.featured = game;
    this.featuredDoc = null;
    this.featuredSince = null;
    if (before !== null) this.connection.leave(before.room_id).catch(() => {});
    this.tvBoard.hidden = game === null;
    this.tvEmpty.hidden = game !== null;
    this.tvLink.hidden = game === null;
    if (game === null) return;
    this.tvLink.setAttribute("href", `#/room/${encodeURIComponent(game.room_id)}`);
    this.connection.join(game.room_id).catch((error) => this.showError(error));
  }

  renderTvTitle() {
    const game = this.featured;
    if (game === null) {
      this.tvTitle.replaceChildren();
      return;
    }
    const doc = this.featuredDoc;
    const moves = doc === null ? game.move_number : doc.record.length;
    const [first, second] = game.players;
    const clock = (seat) => element("span", { class: "tv-clock", "data-seat": String(seat) });
    this.tvTitle.replaceChildren(
      element("strong", {}, [TITLES[game.game] ?? game.game]),
      " ",
      playerLink(first),
      clock(0),
      " vs ",
      playerLink(second),
      clock(1),
      element("span", { class: "tv-meta" }, [` · ${controlWords(game.time_control)} · move ${moves} · ${game.spectators} watching`]),
    );
    this.tickTv();
  }

  /** The watched game's clocks, counting down between the server's figures. */
  tickTv() {
    const doc = this.featuredDoc;
    for (const span of this.tvTitle.querySelectorAll(".tv-clock")) {
      const clock = doc?.clock;
      const seat = Number(span.dataset.seat);
      if (!clock || clock.kind !== "live" || doc.seats[seat] === undefined) {
        span.hidden = true;
        continue;
      }
      const running = clock.running === seat && doc.outcome === null;
      let left = clock.remaining[seat];
      if (running) left -= Date.now() / 1000 - this.skew - clock.since;
      span.hidden = false;
      span.textContent = clockText(Math.max(0, left), clock.kind);
      span.classList.toggle("running", running);
    }
  }

  /** The watched room changed (snapshot or diff): draw its position. */
  update(doc) {
    if (this.featured === null || doc.game === undefined) return;
    const since = doc.clock?.since ?? null;
    // A clock started by a commit seen here started about now (a snapshot's may be older).
    if (since !== null && this.featuredSince != null && since !== this.featuredSince) this.skew = Date.now() / 1000 - since;
    this.featuredSince = since;
    this.featuredDoc = doc;
    const module = GAMES[doc.game];
    if (module === undefined) return;
    const drawn = module.draw(doc.data);
    this.tv.render({ viewBox: drawn.viewBox, label: `${TITLES[doc.game]}, live`, items: drawn.items, overlay: drawn.highlights ?? [], targets: [] });
    this.tvBoard.dataset.moves = String(doc.record.length);
    this.renderTvTitle();
  }

  async playComputer(game, button) {
    button.disabled = true;
    try {
      await this.connection.challenge({ game, options: "", colour: "random", rated: false, target: COMPUTER });
      this.pairing.say(`Waiting for the computer to start your ${TITLES[game]} game…`);
      this.pairing.node.scrollIntoView({ block: "nearest" });
    } catch (error) {
      this.showError(error);
    } finally {
      button.disabled = false;
    }
  }

  showError(error) {
    const item = element("p", { class: "error", "data-code": error.code ?? "error" }, [error.message]);
    this.errors.append(item);
    while (this.errors.childElementCount > 3) this.errors.firstElementChild.remove();
  }
}

/** One live game in the short list: the game, the players, and a link to watch it. */
function liveLine(game) {
  const [first, second] = game.players;
  return element("li", { class: "live-line", "data-room": game.room_id }, [
    element("strong", {}, [TITLES[game.game] ?? game.game]),
    " ",
    playerLink(first),
    " vs ",
    playerLink(second),
    element("span", { class: "tv-meta" }, [` ${controlWords(game.time_control)}, ${game.spectators} watching `]),
    element("a", { class: "watch", href: `#/room/${encodeURIComponent(game.room_id)}` }, ["Watch"]),
  ]);
}

export { FrontPage };
