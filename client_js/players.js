// A player's page (#/player/<id>): their name, their rating in each game (with `?` while
// provisional, and how many rated games made it) and its history as a graph over time, their
// wins, draws and losses against each opponent, the games they play now (to watch, or to play
// when they are yours) and their finished games, newest first, a page at a time (GET
// /api/games/finished, as the finished games page asks it).
// Imports api.js, archive.js (how a game ended, in words), links.js, pairing.js (time controls in
// words) and room.js (element).

import { api } from "./api.js";
import { changeWords, dateWords, endingWords } from "./archive.js";
import { playerLink } from "./links.js";
import { controlWords } from "./pairing.js";
import { element } from "./room.js";

const RECENT_PAGE = 10; // finished games asked at a time
const SVG = "http://www.w3.org/2000/svg";

const TITLES = Object.freeze({ boche: "Boche", che: "Che", osbox: "Osbox", ankor: "Ankor", marque: "Marque" });

/** A player's name as a link to their page. */
class PlayerPage {
  /** Shows the page of player `playerId` in `root`; `me()` is the signed-in player or null. */
  constructor(root, playerId, me) {
    this.playerId = playerId;
    this.me = me;
    const h = element;
    this.title = h("h1", {}, ["Player"]);
    this.kind = h("p", { class: "player-kind" });
    this.ratings = h("tbody");
    this.playing = h("ul", { class: "player-playing", "aria-label": "Playing now" });
    this.recent = h("ul", { class: "player-recent", "aria-label": "Recent games" });
    this.more = h("button", { type: "button", class: "recent-more", hidden: "" }, ["Older games"]);
    this.more.addEventListener("click", () => this.loadRecent());
    this.cursor = null;
    this.allGames = h("a", { class: "all-games", href: `#/games?player=${encodeURIComponent(playerId)}` }, ["Search all their games"]);
    this.graphs = h("div", { class: "rating-graphs" });
    this.opponents = h("tbody");
    this.opponentsTable = h("table", { class: "player-opponents" }, [
      h("thead", {}, [h("tr", {}, [h("th", {}, ["Opponent"]), h("th", {}, ["Won"]), h("th", {}, ["Drawn"]), h("th", {}, ["Lost"])])]),
      this.opponents,
    ]);
    this.errors = h("div", { class: "errors", role: "alert" });
    root.replaceChildren(
      h("section", { class: "player-page" }, [
        this.title,
        this.kind,
        this.errors,
        h("div", { class: "player-columns" }, [
          h("section", {}, [
            h("h2", {}, ["Ratings"]),
            h("table", { class: "player-ratings" }, [h("thead", {}, [h("tr", {}, [h("th", {}, ["Game"]), h("th", {}, ["Rating"]), h("th", {}, ["Rated games"])])]), this.ratings]),
            this.graphs,
            h("h2", {}, ["Against each opponent"]),
            this.opponentsTable,
          ]),
          h("section", {}, [h("h2", {}, ["Playing now"]), this.playing, h("h2", {}, ["Recent games"]), this.recent, h("p", { class: "recent-links" }, [this.more, " ", this.allGames])]),
        ]),
      ]),
    );
  }

  async open() {
    try {
      const answer = await api(`/api/players/${encodeURIComponent(this.playerId)}`);
      this.show(answer);
      await Promise.all([this.loadRecent(), this.loadGraphs(answer.ratings)]);
    } catch (error) {
      this.showError(error);
    }
  }

  /** The next page of finished games (the first when none is shown). */
  async loadRecent() {
    const params = new URLSearchParams({ player: this.playerId, limit: String(RECENT_PAGE) });
    if (this.cursor !== null) params.set("before", this.cursor);
    this.more.disabled = true;
    try {
      const answer = await api(`/api/games/finished?${params}`);
      const lines = answer.games.map((g) => this.gameLine(g, this.player, this.me()?.id ?? null));
      if (this.cursor === null) this.recent.replaceChildren(...(lines.length > 0 ? lines : [element("li", { class: "empty" }, ["No finished games yet."])]));
      else this.recent.append(...lines);
      this.cursor = answer.next;
      this.more.hidden = answer.next === null;
    } finally {
      this.more.disabled = false;
    }
  }

  /** A rating graph for each game the player has rated games in. */
  async loadGraphs(ratings) {
    const rated = Object.entries(ratings).filter(([, r]) => r.games > 0);
    const histories = await Promise.all(
      rated.map(async ([game]) => {
        const { history } = await api(`/api/players/${encodeURIComponent(this.playerId)}/ratings/${game}`);
        return [game, history];
      }),
    );
    this.graphs.replaceChildren(...histories.filter(([, history]) => history.length > 0).map(([game, history]) => ratingGraph(TITLES[game] ?? game, game, history)));
  }

  show({ player, bot, ratings, playing, opponents }) {
    this.player = player;
    const h = element;
    const me = this.me()?.id ?? null;
    this.title.textContent = player.name;
    document.title = `${player.name}: Browne's games`;
    this.kind.textContent = player.guest
      ? "A guest: plays casual games, unrated."
      : bot
        ? "A bot: a computer program plays this account. Challenge it like anyone."
        : player.id === me
          ? "Your page."
          : "";
    this.ratings.replaceChildren(
      ...Object.entries(ratings).map(([game, r]) =>
        h("tr", { "data-game": game, class: r.provisional ? "provisional" : "" }, [h("td", {}, [h("a", { href: `#/rules/${game}` }, [TITLES[game] ?? game])]), h("td", { class: "rating" }, [r.games > 0 ? r.text : "—"]), h("td", {}, [String(r.games)])]),
      ),
    );
    const empty = (text) => h("li", { class: "empty" }, [text]);
    this.playing.replaceChildren(...(playing.length > 0 ? playing.map((g) => this.gameLine(g, player, me)) : [empty("No game in progress.")]));
    this.opponents.replaceChildren(
      ...opponents.map((o) => h("tr", { "data-player": o.opponent.id }, [h("td", {}, [playerLink(o.opponent)]), h("td", {}, [String(o.won)]), h("td", {}, [String(o.drawn)]), h("td", {}, [String(o.lost)])])),
    );
    this.opponentsTable.hidden = opponents.length === 0;
    if (opponents.length === 0) this.opponentsTable.after(empty("No game played out yet."));
  }

  /** One game: the game, the opponent (a link), the clock, and the result or the link to it. */
  gameLine(game, player, me) {
    const opponent = game.players.find((p) => p.id !== player.id) ?? game.players[1];
    const over = game.finished !== undefined;
    const parts = [element("strong", {}, [TITLES[game.game] ?? game.game]), " against ", playerLink(opponent), ` · ${controlWords(game.time_control)}${game.rated ? ", rated" : ""}`];
    if (over) {
      const unplayed = game.reason === "aborted" || game.reason === "idle";
      const result = game.winner_id === null ? (unplayed ? "no result" : "draw") : game.winner_id === player.id ? "won" : "lost";
      parts.push(" · ", element("span", { class: `result result-${result.replace(" ", "-")}` }, [result]), ` · ${endingWords(game)}`);
      const rating = game.ratings?.[player.id] ?? null;
      if (rating !== null) parts.push(` · ${rating.after} (${changeWords(rating.change)})`);
      parts.push(" ");
    } else {
      parts.push(` · move ${game.move_number} `);
    }
    const verb = over ? "Replay" : game.players.some((p) => p.id === me) ? "Play" : "Watch";
    parts.push(element("a", { href: `#/room/${encodeURIComponent(game.room_id)}` }, [verb]));
    return element("li", { "data-room": game.room_id }, parts);
  }

  render() {}

  showError(error) {
    this.errors.replaceChildren(element("p", { class: "error" }, [`Could not show this player: ${error.message}`]));
  }
}

/** A rating history (oldest first) as a line over time, drawn in SVG: the rating after each
 * rated game, its range at the left, the first and last days below. */
function ratingGraph(title, game, history) {
  const svg = (tag, attrs = {}, children = []) => {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    node.append(...children);
    return node;
  };
  const width = 320;
  const height = 140;
  const left = 44;
  const right = 10;
  const top = 10;
  const bottom = 24;
  const ratings = history.map((e) => e.rating);
  const low = Math.floor(Math.min(...ratings) / 10) * 10 - 10;
  const high = Math.ceil(Math.max(...ratings) / 10) * 10 + 10;
  const first = history[0].at;
  const span = history[history.length - 1].at - first;
  // Games played close together would pile up: each then gets an equal step.
  const x = (entry, index) => left + (width - left - right) * (history.length === 1 ? 0.5 : span > 0 ? (entry.at - first) / span : index / (history.length - 1));
  const y = (rating) => top + (height - top - bottom) * (1 - (rating - low) / (high - low));
  const points = history.map((e, i) => `${x(e, i).toFixed(1)},${y(e.rating).toFixed(1)}`).join(" ");
  // The days at both ends, or the times too when both are the same day.
  const sameDay = dateWords(first).replace(/,.*$/, "") === dateWords(history[history.length - 1].at).replace(/,.*$/, "");
  const day = (at) => (sameDay ? dateWords(at) : dateWords(at).replace(/,.*$/, ""));
  const last = history[history.length - 1];
  const dots = history.map((e, i) =>
    svg("circle", { cx: x(e, i).toFixed(1), cy: y(e.rating).toFixed(1), r: 3.5, class: `graph-game score-${e.score === 1 ? "won" : e.score === 0 ? "lost" : "drawn"}` }, [
      svg("title", {}, [`${dateWords(e.at)}: ${Math.round(e.rating)} (${changeWords(Math.round(e.change))}) against ${e.opponent_name}`]),
    ]),
  );
  const label = (text, attrs) => svg("text", attrs, [text]);
  const drawing = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-graph", role: "img", "aria-label": `${title} rating over ${history.length} rated games, now ${Math.round(last.rating)}` }, [
    svg("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "graph-axis" }),
    svg("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: "graph-axis" }),
    label(String(high), { x: left - 6, y: top + 4, "text-anchor": "end" }),
    label(String(low), { x: left - 6, y: height - bottom, "text-anchor": "end" }),
    label(day(first), { x: left, y: height - 6, "text-anchor": "start" }),
    label(day(last.at), { x: width - right, y: height - 6, "text-anchor": "end" }),
    svg("polyline", { points, class: "graph-line" }),
    ...dots,
  ]);
  return element("figure", { class: "rating-chart", "data-game": game }, [
    element("figcaption", {}, [`${title}: ${Math.round(last.rating)}${last.provisional ? "?" : ""} after ${history.length} rated game${history.length === 1 ? "" : "s"}`]),
    drawing,
  ]);
}

export { PlayerPage };
