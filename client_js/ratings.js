// The lobby's ratings: a leaderboard per game (rank, name, rating with `?` while provisional,
// rated games played) and one player's ratings, yours until you click a name: the rating in
// each game with its history drawn as an SVG sparkline, and the rated games of the game the
// leaderboard shows.  Read from the JSON routes of docs/protocol.md, and read again when a
// rated game ends (the lobby page calls refresh()).
// Imports api.js, room.js (element).

import { api } from "./api.js";
import { element } from "./room.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const SPARK_WIDTH = 90;
const SPARK_HEIGHT = 28;
const HISTORY_SHOWN = 10;

function ratingPath(playerId, game) {
  return `/api/players/${encodeURIComponent(playerId)}/ratings/${encodeURIComponent(game)}`;
}

/** The ratings after each game, starting from the one before the first: a polyline. */
function sparkline(history) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "sparkline");
  svg.setAttribute("width", String(SPARK_WIDTH));
  svg.setAttribute("height", String(SPARK_HEIGHT));
  svg.setAttribute("viewBox", `0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`);
  svg.setAttribute("role", "img");
  if (history.length === 0) {
    svg.setAttribute("aria-label", "no games yet");
    return svg;
  }
  const values = [history[0].rating - history[0].change, ...history.map((entry) => entry.rating)];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const step = SPARK_WIDTH / (values.length - 1);
  const points = values.map((value, i) => `${(i * step).toFixed(1)},${(SPARK_HEIGHT - 2 - ((value - low) / span) * (SPARK_HEIGHT - 4)).toFixed(1)}`);
  const line = document.createElementNS(SVG_NS, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "1.5");
  svg.append(line);
  svg.setAttribute("aria-label", `from ${Math.round(values[0])} to ${Math.round(values[values.length - 1])} over ${history.length} games`);
  return svg;
}

function resultText(score) {
  return score === 1 ? "won" : score === 0 ? "lost" : "drew";
}

class RatingsPanel {
  /** `titles` maps game names to their titles; `me()` is the signed-in player or null. */
  constructor(titles, me) {
    const h = element;
    this.titles = titles;
    this.me = me;
    this.games = [];
    this.shown = null; // {id, name} of the player whose ratings are shown
    this.gameSelect = h("select", { id: "leaderboard-game", name: "leaderboard-game" });
    this.gameSelect.addEventListener("change", () => this.refresh());
    this.board = h("tbody");
    this.message = h("p", { class: "error", role: "alert" });
    this.playerTitle = h("h3");
    this.playerGames = h("tbody");
    this.history = h("ol", { class: "rating-history", "aria-label": "Rating history" });
    this.player = h("section", { class: "player-ratings", hidden: "" }, [
      this.playerTitle,
      h("table", { class: "player-ratings-table" }, [
        h("thead", {}, [h("tr", {}, ["Game", "Rating", "Games", "History"].map((t) => h("th", {}, [t])))]),
        this.playerGames,
      ]),
      this.history,
    ]);
    this.node = h("section", { class: "lobby-list ratings" }, [
      h("h2", {}, ["Leaderboard"]),
      h("label", { for: "leaderboard-game" }, ["Rankings in "]),
      this.gameSelect,
      this.message,
      h("table", { class: "leaderboard" }, [
        h("thead", {}, [h("tr", {}, ["#", "Player", "Rating", "Games"].map((t) => h("th", {}, [t])))]),
        this.board,
      ]),
      this.player,
    ]);
  }

  /** The games to rank (their names, from /api/games). */
  setGames(names) {
    const chosen = this.gameSelect.value;
    this.games = names;
    this.gameSelect.replaceChildren(...names.map((name) => element("option", { value: name }, [this.titles[name] ?? name])));
    if (names.includes(chosen)) this.gameSelect.value = chosen;
    this.refresh();
  }

  /** Reads the leaderboard and the shown player's ratings again. */
  async refresh() {
    const game = this.gameSelect.value;
    if (!game) return;
    try {
      const answer = await api(`/api/ratings/${encodeURIComponent(game)}?provisional=1`);
      if (game !== this.gameSelect.value) return; // another game was chosen meanwhile
      this.drawBoard(answer.leaderboard);
      this.message.textContent = "";
    } catch (error) {
      this.message.textContent = error.message;
    }
    const who = this.shown ?? this.me();
    if (who !== null && !who.guest) await this.showPlayer(who);
  }

  drawBoard(rows) {
    const h = element;
    if (rows.length === 0) {
      this.board.replaceChildren(h("tr", { class: "empty" }, [h("td", { colspan: "4" }, ["No rated games yet."])]));
      return;
    }
    this.board.replaceChildren(
      ...rows.map((row) => {
        const name = h("button", { type: "button", class: "player-link" }, [row.name]);
        name.addEventListener("click", () => {
          this.shown = { id: row.id, name: row.name };
          this.showPlayer(this.shown);
        });
        return h("tr", { "data-player": row.id, class: row.provisional ? "provisional" : "" }, [
          h("td", {}, [String(row.rank)]),
          h("td", {}, [name, " ", h("a", { class: "player-page", href: `#/player/${encodeURIComponent(row.id)}`, "aria-label": `${row.name}'s page` }, ["page"])]),
          h("td", { class: "rating", title: `deviation ${row.deviation}` }, [row.text]),
          h("td", {}, [String(row.games)]),
        ]);
      }),
    );
  }

  /** A player's rating in every game, and the history of the game the leaderboard shows. */
  async showPlayer(player) {
    const h = element;
    const chosen = this.gameSelect.value;
    let answers;
    try {
      answers = await Promise.all(this.games.map((game) => api(ratingPath(player.id, game))));
    } catch (error) {
      this.message.textContent = error.message;
      return;
    }
    const mine = this.me()?.id === player.id;
    this.playerTitle.textContent = mine ? `Your ratings (${player.name})` : `${player.name}'s ratings`;
    this.player.dataset.player = player.id;
    this.playerGames.replaceChildren(
      ...answers.map((answer, i) =>
        h("tr", { "data-game": this.games[i] }, [
          h("td", {}, [this.titles[this.games[i]] ?? this.games[i]]),
          h("td", { class: "rating" }, [answer.rating.text]),
          h("td", {}, [String(answer.history.length)]),
          h("td", {}, [sparkline(answer.history)]),
        ]),
      ),
    );
    const history = answers[this.games.indexOf(chosen)]?.history ?? [];
    this.history.replaceChildren(
      ...history
        .slice(-HISTORY_SHOWN)
        .reverse()
        .map((entry) => {
          const change = entry.change >= 0 ? `+${Math.round(entry.change)}` : String(Math.round(entry.change));
          const text = `${resultText(entry.score)} against ${entry.opponent_name ?? entry.opponent}: ${Math.round(entry.rating)}${entry.provisional ? "?" : ""} (${change})`;
          return h("li", {}, [h("a", { href: `#/room/${encodeURIComponent(entry.game_id)}` }, [text])]);
        }),
    );
    this.player.hidden = false;
  }
}

export { RatingsPanel, sparkline };
