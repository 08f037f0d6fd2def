// The tournaments pages: #/tournaments lists upcoming, running and finished events (and makes
// one); #/tournament/<id> is one event with its standings, pairings by round, crosstable,
// links to every game's room, and join/withdraw.  Both follow the connection's tournament
// feed (docs/protocol.md): the server pushes each change, so standings and pairings follow
// the games as they end, with no polling; creating, joining and withdrawing are HTTP routes.
// Imports links.js (names link to their pages) and room.js (for element).

import { playerLink } from "./links.js";
import { element } from "./room.js";

const FORMATS = [
  ["swiss", "Swiss"],
  ["round-robin", "Round robin"],
  ["knockout", "Knockout"],
  ["arena", "Arena"],
];

/** GET or POST (JSON) an API route as the bearer of `token`; the answer, or throws with its
 * message (and `code`). */
async function api(path, token, body = undefined) {
  const init = { headers: { "Content-Type": "application/json" } };
  if (body !== undefined) {
    init.method = "POST";
    init.body = JSON.stringify(body);
    init.headers.Authorization = `Bearer ${token}`;
  }
  const response = await fetch(path, init);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(answer.message ?? `the server answered ${response.status}`);
    error.code = answer.code;
    throw error;
  }
  return answer;
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "";
}

function roomLink(roomId, text) {
  return element("a", { href: `#/room/${encodeURIComponent(roomId)}` }, [text]);
}

function eventLink(id, text) {
  return element("a", { href: `#/tournament/${encodeURIComponent(id)}` }, [text]);
}

/** What both pages share: the connection, the session token and an error line. */
class Followed {
  constructor(root, connection, token) {
    this.root = root;
    this.connection = connection;
    this.token = token;
    this.message = element("p", { class: "error", role: "alert" });
  }

  showError(error) {
    this.message.textContent = error.message;
  }
}

const STATUS_ORDER = Object.freeze({
  created: (a, b) => a.starts_at - b.starts_at, // soonest first
  running: (a, b) => b.starts_at - a.starts_at, // latest first
  finished: (a, b) => b.starts_at - a.starts_at,
});

class TournamentsPage extends Followed {
  constructor(root, connection, token) {
    super(root, connection, token);
    const h = element;
    this.lists = { created: h("tbody"), running: h("tbody"), finished: h("tbody") };
    const table = (key, title) =>
      h("section", { class: `tournaments-${key}` }, [
        h("h2", {}, [title]),
        h("table", { class: "tournaments" }, [
          h("thead", {}, [h("tr", {}, ["Event", "Game", "Format", "Players", "Round", "Starts"].map((t) => h("th", {}, [t])))]),
          this.lists[key],
        ]),
      ]);
    this.body = h("div", { class: "tournaments-page" }, [
      h("h1", {}, ["Tournaments"]),
      this.message,
      this.form(),
      table("created", "Upcoming"),
      table("running", "Running"),
      table("finished", "Finished"),
    ]);
    root.replaceChildren(this.body);
  }

  form() {
    const h = element;
    const game = h("select", { name: "game" });
    api("/api/games", this.token)
      .then((answer) => game.replaceChildren(...answer.games.map((g) => h("option", { value: g.name }, [g.name]))))
      .catch((error) => this.showError(error));
    const format = h("select", { name: "format" }, FORMATS.map(([value, label]) => h("option", { value }, [label])));
    const name = h("input", { name: "name", placeholder: "name" });
    const players = h("input", { name: "max_players", type: "number", min: "2", value: "16" });
    const rounds = h("input", { name: "rounds", type: "number", min: "1", value: "5", title: "Swiss rounds" });
    const duration = h("input", { name: "duration", type: "number", min: "1", value: "60", title: "arena minutes" });
    const minutes = h("input", { name: "clock", type: "number", min: "1", value: "5", title: "minutes each" });
    const increment = h("input", { name: "increment", type: "number", min: "0", value: "0", title: "increment (s)" });
    const start = h("input", { name: "start", type: "number", min: "1", value: "10", title: "starts in (minutes)" });
    const rated = h("input", { name: "rated", type: "checkbox" });
    rated.checked = true;
    const submit = h("button", { type: "submit" }, ["Create"]);
    const label = (text, input) => h("label", {}, [`${text} `, input]);
    const form = h("form", { class: "tournament-form" }, [
      h("h2", {}, ["New tournament"]),
      label("Name", name), label("Game", game), label("Format", format),
      label("Players", players), label("Rounds (Swiss)", rounds), label("Arena minutes", duration),
      label("Clock minutes", minutes), label("Increment", increment),
      label("Starts in minutes", start), label("Rated", rated), submit,
    ]);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = {
        name: name.value,
        game: game.value,
        format: format.value,
        max_players: Number(players.value),
        rated: rated.checked,
        clock_seconds: Math.round(Number(minutes.value) * 60),
        increment_seconds: Number(increment.value),
        starts_at: Date.now() / 1000 + Number(start.value) * 60,
      };
      if (format.value === "swiss") body.rounds = Number(rounds.value);
      if (format.value === "arena") body.duration = Number(duration.value) * 60;
      try {
        const created = await api("/api/tournaments", this.token, body);
        location.hash = `#/tournament/${encodeURIComponent(created.id)}`;
      } catch (error) {
        this.showError(error);
      }
    });
    return form;
  }

  /** Follows the list; the connection calls update() with every change. */
  async open() {
    try {
      this.update(await this.connection.followTournaments());
    } catch (error) {
      this.showError(error);
    }
  }

  /** The page is left: the server stops sending the list. */
  close() {
    this.connection.unfollowTournaments().catch(() => {});
  }

  /** Welcomed (again): nothing to redraw, the list is followed again by the connection. */
  render() {}

  /** `list` is a Map from event id to its summary. */
  update(list) {
    const h = element;
    for (const [key, body] of Object.entries(this.lists)) {
      const rows = [...list.values()].filter((t) => t.status === key).sort(STATUS_ORDER[key]);
      body.replaceChildren(
        ...rows.map((t) =>
          h("tr", { "data-tournament": t.id }, [
            h("td", {}, [eventLink(t.id, t.name || t.id)]),
            h("td", {}, [t.game]),
            h("td", {}, [t.format + (t.rated ? " · rated" : " · casual")]),
            h("td", {}, [`${t.players}/${t.max_players}`]),
            h("td", {}, [t.rounds ? `${t.round}/${t.rounds}` : String(t.round || "")]),
            h("td", {}, [when(t.starts_at)]),
          ]),
        ),
      );
    }
  }
}

class TournamentPage extends Followed {
  constructor(root, connection, token, tournamentId) {
    super(root, connection, token);
    this.tournamentId = tournamentId;
    this.shown = null; // the event as last drawn
    const h = element;
    this.title = h("h1");
    this.facts = h("p", { class: "tournament-facts" });
    this.join = h("button", { type: "button", class: "join" }, ["Join"]);
    this.withdraw = h("button", { type: "button", class: "withdraw" }, ["Withdraw"]);
    this.join.addEventListener("click", () => this.act("join"));
    this.withdraw.addEventListener("click", () => this.act("withdraw"));
    this.standings = h("tbody");
    this.pairings = h("div", { class: "pairings" });
    this.crosstable = h("table", { class: "crosstable" });
    this.body = h("div", { class: "tournament-page" }, [
      h("p", {}, [h("a", { href: "#/tournaments" }, ["All tournaments"])]),
      this.title,
      this.facts,
      this.message,
      h("p", {}, [this.join, " ", this.withdraw]),
      h("h2", {}, ["Standings"]),
      h("table", { class: "standings" }, [
        h("thead", {}, [h("tr", {}, ["#", "Player", "Score", "Tie-breaks", "Games"].map((t) => h("th", {}, [t])))]),
        this.standings,
      ]),
      h("h2", {}, ["Crosstable"]),
      this.crosstable,
      h("h2", {}, ["Pairings"]),
      this.pairings,
    ]);
    root.replaceChildren(this.body);
  }

  async act(action) {
    try {
      this.update(await api(`/api/tournaments/${encodeURIComponent(this.tournamentId)}/${action}`, this.token, {}));
      this.message.textContent = "";
    } catch (error) {
      this.showError(error);
    }
  }

  /** Follows the event; the connection calls update() with every change. */
  async open() {
    try {
      this.update(await this.connection.followTournament(this.tournamentId));
    } catch (error) {
      this.showError(error);
    }
  }

  /** The page is left: the server stops sending the event. */
  close() {
    this.connection.unfollowTournament(this.tournamentId).catch(() => {});
  }

  /** Welcomed (again): who we are may be known only now, and it shows join or withdraw. */
  render() {
    if (this.shown !== null) this.draw(this.shown);
  }

  /** A copy of the event (pushed, or a reply): drawn unless a newer one is shown. */
  update(t) {
    if (t === null || t === undefined || t.id !== this.tournamentId) return;
    if (this.shown !== null && t.version < this.shown.version) return;
    this.shown = t;
    this.draw(t);
  }

  draw(t) {
    const h = element;
    const names = new Map(t.entrants.map((e) => [e.id, e.name]));
    const nameOf = (id) => (id === null ? "bye" : names.get(id) ?? id);
    this.title.textContent = t.name || `${t.game} ${t.format}`;
    this.facts.textContent = [
      t.game,
      t.format,
      t.rated ? "rated" : "casual",
      t.time_control,
      t.status,
      t.status === "created" ? `starts ${when(t.starts_at)}` : "",
      t.rounds ? `round ${t.round} of ${t.rounds}` : "",
      t.ends_at ? `closes ${when(t.ends_at)}` : "",
      `${t.players}/${t.max_players} players`,
    ].filter(Boolean).join(" · ");
    const me = this.connection.player?.id ?? null;
    const mine = t.entrants.find((e) => e.id === me && !e.withdrawn);
    this.join.hidden = mine !== undefined || t.status === "finished" || t.status === "cancelled";
    this.withdraw.hidden = mine === undefined || t.status === "finished";
    this.standings.replaceChildren(
      ...t.standings.map((row) =>
        h("tr", { class: row.withdrawn ? "withdrawn" : "", "data-player": row.id }, [
          h("td", {}, [String(row.rank)]),
          h("td", {}, [playerLink(row)]),
          h("td", {}, [String(row.score)]),
          h("td", {}, [Object.entries(row.tiebreaks).map(([k, v]) => `${k} ${v}`).join(", ")]),
          h("td", {}, [String(row.games)]),
        ]),
      ),
    );
    const players = t.crosstable.players;
    const rank = new Map(players.map((p) => [p.id, p.rank]));
    this.crosstable.replaceChildren(
      ...players.map((p) =>
        h("tr", {}, [
          h("th", {}, [`${p.rank}. ${p.name}`]),
          ...p.games.map((g) => {
            const result = g.score === null ? "…" : g.score === 1 ? "1" : g.score === 0 ? "0" : "½";
            const text = `${result}${g.opponent === null ? " bye" : ` v${rank.get(g.opponent) ?? "?"}`}${g.forfeit ? " ff" : ""}`;
            return h("td", { class: g.seat }, [g.game_id === null ? text : roomLink(g.game_id, text)]);
          }),
        ]),
      ),
    );
    const rounds = new Map();
    for (const game of t.games) {
      if (!rounds.has(game.round)) rounds.set(game.round, []);
      rounds.get(game.round).push(game);
    }
    this.pairings.replaceChildren(
      ...[...rounds.entries()].reverse().map(([round, games]) =>
        h("section", {}, [
          h("h3", {}, [t.format === "arena" ? "Games" : `Round ${round}`]),
          h("ol", {}, games.map((g) => {
            const score = g.score === null ? "playing" : g.score === 1 ? "1–0" : g.score === 0 ? "0–1" : "½–½";
            const text = `${nameOf(g.first)} – ${nameOf(g.second)}: ${g.second === null ? "bye" : score}${g.forfeit ? " (forfeit)" : ""}`;
            return h("li", { "data-game": g.id }, [g.room === null ? text : roomLink(g.room, text)]);
          })),
        ]),
      ),
    );
  }
}

export { TournamentPage, TournamentsPage, api };
