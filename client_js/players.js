// A player's page (#/player/<id>): their name, their rating in each game (with `?` while
// provisional, and how many rated games made it), the games they play now (to watch, or to
// play when they are yours) and their last finished games with the result.  playerLink is
// how every page names a player: a link to this page.
// Imports pairing.js (time controls in words) and room.js (element).

import { controlWords } from "./pairing.js";
import { element } from "./room.js";

const TITLES = Object.freeze({ boche: "Boche", che: "Che", osbox: "Osbox", ankor: "Ankor", marque: "Marque" });

/** A player's name as a link to their page. */
function playerLink(player, className = "player-name") {
  return element("a", { class: className, href: `#/player/${encodeURIComponent(player.id)}`, "data-player": player.id }, [player.name]);
}

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
          ]),
          h("section", {}, [h("h2", {}, ["Playing now"]), this.playing, h("h2", {}, ["Recent games"]), this.recent]),
        ]),
      ]),
    );
  }

  async open() {
    try {
      const response = await fetch(`/api/players/${encodeURIComponent(this.playerId)}`);
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.message ?? `the server answered ${response.status}`);
      this.show(answer);
    } catch (error) {
      this.showError(error);
    }
  }

  show({ player, ratings, playing, recent }) {
    const h = element;
    const me = this.me()?.id ?? null;
    this.title.textContent = player.name;
    document.title = `${player.name}: Browne's games`;
    this.kind.textContent = player.guest ? "A guest: plays casual games, unrated." : player.id === me ? "Your page." : "";
    this.ratings.replaceChildren(
      ...Object.entries(ratings).map(([game, r]) =>
        h("tr", { "data-game": game, class: r.provisional ? "provisional" : "" }, [h("td", {}, [h("a", { href: `#/rules/${game}` }, [TITLES[game] ?? game])]), h("td", { class: "rating" }, [r.games > 0 ? r.text : "—"]), h("td", {}, [String(r.games)])]),
      ),
    );
    const empty = (text) => h("li", { class: "empty" }, [text]);
    this.playing.replaceChildren(...(playing.length > 0 ? playing.map((g) => this.gameLine(g, player, me)) : [empty("No game in progress.")]));
    this.recent.replaceChildren(...(recent.length > 0 ? recent.map((g) => this.gameLine(g, player, me)) : [empty("No finished games yet.")]));
  }

  /** One game: the game, the opponent (a link), the clock, and the result or the link to it. */
  gameLine(game, player, me) {
    const opponent = game.players.find((p) => p.id !== player.id) ?? game.players[1];
    const over = game.finished !== undefined;
    const parts = [element("strong", {}, [TITLES[game.game] ?? game.game]), " against ", playerLink(opponent), ` · ${controlWords(game.time_control)}${game.rated ? ", rated" : ""}`];
    if (over) {
      const result = game.winner_id === null ? (game.reason === "aborted" ? "aborted" : "draw") : game.winner_id === player.id ? "won" : "lost";
      parts.push(" · ", element("span", { class: `result result-${result}` }, [result]), ` in ${game.moves} moves `);
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

export { PlayerPage, playerLink };
