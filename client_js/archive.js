// The finished games page (#/games, with the search in the address: #/games?game=boche&
// player=annie&from=2026-11-01&to=2026-11-26): filters by game, player and days, and the
// games found newest first, a card each with both players (their rating before the game and
// its change when it was rated), the result and how it ended in words, the options in words,
// the day, the number of moves and a link to the game's page, which replays it.  "Older
// games" asks the next page of GET /api/games/finished (docs/protocol.md).  endingWords is
// how every page says how a finished game ended.
// Imports api.js, links.js, option_words.js, pairing.js and room.js.

import { api } from "./api.js";
import { optionsText } from "./option_words.js";
import { controlWords } from "./pairing.js";
import { playerLink } from "./links.js";
import { element } from "./room.js";

const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
const FILTERS = ["game", "player", "from", "to"];
let gameList = null; // the games and their option flags, asked once

/** The games and their option flags (GET /api/games), asked of the server once. */
function games() {
  gameList ??= api("/api/games")
    .then((answer) => answer.games)
    .catch(() => {
      gameList = null;
      return [];
    });
  return gameList;
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** How a finished game ended, as a sentence a player would say ("bobby resigned after 12
 * moves", "annie lost on time before moving", "Drawn by agreement after 30 moves"). */
function endingWords(game) {
  const winner = game.players.find((p) => p.id === game.winner_id) ?? null;
  const loser = winner === null ? null : game.players.find((p) => p.id !== winner.id) ?? winner;
  const after = game.moves === 0 ? "before the first move" : `after ${plural(game.moves, "move")}`;
  const reason = game.reason ?? "";
  if (reason === "aborted") return `Aborted ${after}`;
  if (reason === "idle") return game.moves === 0 ? "Nobody made the first move: no result" : `Nobody moved for too long ${after}: no result`;
  if (winner === null) {
    if (reason === "agreement") return `Drawn by agreement ${after}`;
    return reason ? `Drawn ${after}: ${reason}` : `Drawn ${after}`;
  }
  switch (reason) {
    case "resignation":
    case "resigned":
      return `${loser.name} resigned ${after}`;
    case "time":
      return game.moves === 0 ? `${loser.name} lost on time before moving` : `${loser.name} ran out of time ${after}`;
    case "abandonment":
      return `${loser.name} left the game ${after}`;
    default:
      return reason ? `${winner.name} won ${after}: ${reason}` : `${winner.name} won ${after}`;
  }
}

/** A day and time in the reader's own zone ("26 Nov 2026, 14:05"). */
function dateWords(seconds) {
  return new Date(seconds * 1000).toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** A rating change with its sign (a true minus sign for a loss). */
function changeWords(change) {
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
}

/** One finished game as a card; `flags` are its game's option flags (for the words). */
function gameCard(game, flags) {
  const h = element;
  const side = (player) => {
    const rating = game.ratings?.[player.id] ?? null;
    const parts = [playerLink(player)];
    if (rating !== null) {
      const sign = rating.change > 0 ? "up" : rating.change < 0 ? "down" : "same";
      parts.push(" ", h("span", { class: "card-rating" }, [rating.before]), " ", h("span", { class: `card-change change-${sign}` }, [changeWords(rating.change)]));
    }
    const won = game.winner_id === player.id;
    if (won) parts.push(" ", h("span", { class: "card-won" }, ["won"]));
    return h("span", { class: `card-player${won ? " winner" : ""}`, "data-player": player.id }, parts);
  };
  const options = optionsText(game.game, flags, game.options) || "the rules' standard options";
  const facts = [controlWords(game.time_control), game.rated ? "rated" : "casual", options].join(" · ");
  const href = `#/room/${encodeURIComponent(game.room_id)}`;
  return h("li", { class: "game-card", "data-room": game.room_id }, [
    h("div", { class: "card-head" }, [h("a", { class: "card-title", href }, [TITLES[game.game] ?? game.game]), h("span", { class: "card-date" }, [dateWords(game.finished)])]),
    h("div", { class: "card-players" }, [side(game.players[0]), side(game.players[1])]),
    h("p", { class: "card-ending" }, [`${endingWords(game)}.`]),
    h("p", { class: "card-facts" }, [facts]),
    h("a", { class: "card-replay", href }, ["Replay the game"]),
  ]);
}

class GamesPage {
  /** Shows the search of finished games in `root`, starting from the address's `query`. */
  constructor(root, query) {
    const h = element;
    this.params = new URLSearchParams(query ?? "");
    this.flags = {};
    this.cursor = null;
    this.gameSelect = h("select", { id: "games-game", name: "game" }, [h("option", { value: "" }, ["All games"])]);
    this.player = h("input", { id: "games-player", name: "player", placeholder: "any player", autocomplete: "off" });
    this.from = h("input", { id: "games-from", name: "from", type: "date" });
    this.to = h("input", { id: "games-to", name: "to", type: "date" });
    const field = (label, input) => h("div", { class: "games-field" }, [h("label", { for: input.id }, [label]), input]);
    this.form = h("form", { class: "games-filters", role: "search" }, [
      field("Game", this.gameSelect),
      field("Player", this.player),
      field("From", this.from),
      field("To", this.to),
      h("button", { type: "submit" }, ["Search"]),
    ]);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search();
    });
    this.summary = h("p", { class: "games-summary", role: "status" });
    this.errors = h("div", { class: "errors", role: "alert" });
    this.list = h("ol", { class: "game-cards", "aria-label": "Finished games" });
    this.more = h("button", { type: "button", class: "games-more", hidden: "" }, ["Older games"]);
    this.more.addEventListener("click", () => this.load(true));
    root.replaceChildren(h("section", { class: "games-page" }, [h("h1", {}, ["Finished games"]), this.form, this.errors, this.summary, this.list, this.more]));
  }

  async open() {
    document.title = "Finished games: Browne's games";
    const known = await games();
    this.flags = Object.fromEntries(known.map((g) => [g.name, g.flags]));
    this.gameSelect.append(...known.map((g) => element("option", { value: g.name }, [TITLES[g.name] ?? g.name])));
    this.gameSelect.value = this.params.get("game") ?? "";
    this.player.value = this.params.get("player") ?? "";
    this.from.value = this.params.get("from") ?? "";
    this.to.value = this.params.get("to") ?? "";
    await this.load(false);
  }

  /** The filters into the address (which shows the first page of what they find). */
  search() {
    const params = new URLSearchParams();
    const values = { game: this.gameSelect.value, player: this.player.value.trim(), from: this.from.value, to: this.to.value };
    for (const name of FILTERS) if (values[name]) params.set(name, values[name]);
    const hash = params.size > 0 ? `#/games?${params}` : "#/games";
    if (location.hash === hash) this.load(false);
    else location.hash = hash;
  }

  /** The first page of the address's search, or (`older`) the page after those shown. */
  async load(older) {
    const params = new URLSearchParams();
    for (const name of FILTERS) if (this.params.get(name)) params.set(name, this.params.get(name));
    if (older && this.cursor !== null) params.set("before", this.cursor);
    this.more.disabled = true;
    try {
      const answer = await api(`/api/games/finished?${params}`);
      this.errors.replaceChildren();
      this.show(answer, older);
    } catch (error) {
      if (!older) {
        this.summary.textContent = "";
        this.list.replaceChildren();
        this.more.hidden = true;
      }
      this.showError(error);
    } finally {
      this.more.disabled = false;
    }
  }

  show(answer, older) {
    const cards = answer.games.map((g) => gameCard(g, this.flags[g.game] ?? []));
    if (older) this.list.append(...cards);
    else this.list.replaceChildren(...cards);
    this.cursor = answer.next;
    this.more.hidden = answer.next === null;
    const asked = this.params.get("player");
    // A search by id (a player page's link) shows the name in the box once a game names it.
    const named = answer.games.flatMap((g) => g.players).find((p) => p.id === asked);
    if (named !== undefined) this.player.value = named.name;
    const shown = this.list.children.length;
    const more = answer.next === null ? "" : " (older ones below)";
    this.summary.textContent = shown === 0 ? `No ${this.searchWords(1)}.` : `${shown} ${this.searchWords(shown)}, newest first${more}.`;
  }

  /** The search in words, for `count` games ("finished Boche games played by annie from 1
   * Nov 2026 until 26 Nov 2026"). */
  searchWords(count) {
    const game = this.params.get("game");
    const player = this.params.get("player");
    const day = (text) => new Date(`${text}T00:00:00Z`).toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
    let words = `finished ${game ? `${TITLES[game] ?? game} ` : ""}game${count === 1 ? "" : "s"}`;
    if (player) words += ` played by ${this.player.value || player}`;
    if (this.params.get("from")) words += ` from ${day(this.params.get("from"))}`;
    if (this.params.get("to")) words += ` until ${day(this.params.get("to"))}`;
    return words;
  }

  render() {}

  showError(error) {
    this.errors.replaceChildren(element("p", { class: "error" }, [`Could not search the games: ${error.message}`]));
  }
}

export { GamesPage, changeWords, dateWords, endingWords, gameCard };
