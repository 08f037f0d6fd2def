// The tournaments pages: #/tournaments lists upcoming, running and finished events (and makes
// one); #/tournament/<id> is one event with its standings, pairings by round, crosstable,
// links to every game's room, and join/withdraw.  Both follow the connection's tournament
// feed (docs/protocol.md): the server pushes each change, so standings and pairings follow
// the games as they end, with no polling; creating, joining and withdrawing are HTTP routes.
// Imports api.js, links.js (names link to their pages) and room.js (for element).

import { api } from "./api.js";
import { playerLink } from "./links.js";
import { element } from "./room.js";

const FORMATS = [
  ["swiss", "Swiss"],
  ["round-robin", "Round robin"],
  ["knockout", "Knockout"],
  ["arena", "Arena"],
];
const FORMAT_NAMES = Object.freeze(Object.fromEntries(FORMATS));
const TITLES = Object.freeze({ ankor: "Ankor", boche: "Boche", che: "Che", marque: "Marque", osbox: "Osbox" });
/** The tie-breaks by the names players know them by. */
const TIEBREAK_NAMES = Object.freeze({
  sonneborn_berger: "Sonneborn–Berger",
  buchholz: "Buchholz",
  median_buchholz: "Median Buchholz",
  performance: "Performance",
});
const STATUS_WORDS = Object.freeze({ created: "upcoming", running: "playing now", finished: "finished", cancelled: "cancelled" });

function gameName(game) {
  return TITLES[game] ?? game;
}

function tiebreakName(key) {
  return TIEBREAK_NAMES[key] ?? key.replace(/_/g, " ");
}

/** A score as players write it: ½ for a half. */
function points(score) {
  const whole = Math.floor(score);
  const half = score - whole >= 0.5;
  return half ? (whole === 0 ? "½" : `${whole}½`) : String(whole);
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "";
}

function roomLink(roomId, content) {
  return element("a", { href: `#/room/${encodeURIComponent(roomId)}` }, Array.isArray(content) ? content : [content]);
}

function eventLink(id, text) {
  return element("a", { href: `#/tournament/${encodeURIComponent(id)}` }, [text]);
}

/** What both pages share: the connection and an error line. */
class Followed {
  constructor(root, connection) {
    this.root = root;
    this.connection = connection;
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
  constructor(root, connection) {
    super(root, connection);
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
    api("/api/games")
      .then((answer) => game.replaceChildren(...answer.games.map((g) => h("option", { value: g.name }, [gameName(g.name)]))))
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
        const created = await api("/api/tournaments", { body, signed: true });
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
            h("td", {}, [gameName(t.game)]),
            h("td", {}, [`${FORMAT_NAMES[t.format] ?? t.format} · ${t.rated ? "rated" : "casual"}`]),
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
  constructor(root, connection, tournamentId) {
    super(root, connection);
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
    this.standingsHead = h("tr");
    this.joinNote = h("span", { class: "join-note" });
    this.pairings = h("div", { class: "pairings" });
    this.crosstableHead = h("tr");
    this.crosstableBody = h("tbody");
    this.crosstable = h("table", { class: "crosstable" }, [h("thead", {}, [this.crosstableHead]), this.crosstableBody]);
    this.body = h("div", { class: "tournament-page" }, [
      h("p", {}, [h("a", { href: "#/tournaments" }, ["All tournaments"])]),
      this.title,
      this.facts,
      this.message,
      h("p", { class: "tournament-actions" }, [this.join, this.withdraw, this.joinNote]),
      h("div", { class: "tournament-columns" }, [
        h("section", {}, [
          h("h2", {}, ["Standings"]),
          h("table", { class: "standings" }, [h("thead", {}, [this.standingsHead]), this.standings]),
          h("h2", {}, ["Crosstable"]),
          h("div", { class: "crosstable-wrap" }, [this.crosstable]),
        ]),
        h("section", {}, [h("h2", {}, ["Schedule and pairings"]), this.pairings]),
      ]),
    ]);
    root.replaceChildren(this.body);
  }

  async act(action) {
    try {
      this.update(await api(`/api/tournaments/${encodeURIComponent(this.tournamentId)}/${action}`, { body: {}, signed: true }));
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
    this.title.textContent = t.name || `${gameName(t.game)} ${FORMAT_NAMES[t.format] ?? t.format}`;
    this.facts.textContent = [
      gameName(t.game),
      FORMAT_NAMES[t.format] ?? t.format,
      t.rated ? "rated" : "casual",
      t.time_control,
      STATUS_WORDS[t.status] ?? t.status,
      t.status === "created" ? `starts ${when(t.starts_at)}` : "",
      t.rounds ? `round ${t.round} of ${t.rounds}` : "",
      t.ends_at ? `closes ${when(t.ends_at)}` : "",
      `${t.players}/${t.max_players} players`,
    ].filter(Boolean).join(" · ");
    const me = this.connection.player ?? null;
    const mine = t.entrants.find((e) => e.id === me?.id && !e.withdrawn);
    // Join only where the server would take the visitor: before the start (an arena while
    // it is open), with a place left, and signed in for a rated event.
    const open = t.status === "created" || (t.status === "running" && t.format === "arena");
    const full = t.players >= t.max_players;
    const guestBarred = t.rated && me?.guest === true;
    this.join.hidden = mine !== undefined || !open || full || guestBarred;
    this.withdraw.hidden = mine === undefined || t.status === "finished" || t.status === "cancelled";
    this.joinNote.textContent = mine === undefined && open && guestBarred ? "A rated event: sign in with an account to join." : mine === undefined && open && full ? "Full." : "";
    const breaks = t.standings.length > 0 ? Object.keys(t.standings[0].tiebreaks) : [];
    this.standingsHead.replaceChildren(...["#", "Player", "Score", ...breaks.map(tiebreakName), "Games"].map((text) => h("th", {}, [text])));
    this.standings.replaceChildren(
      ...t.standings.map((row) =>
        h("tr", { class: row.withdrawn ? "withdrawn" : "", "data-player": row.id }, [
          h("td", {}, [String(row.rank)]),
          h("td", {}, [playerLink(row), row.withdrawn ? " (withdrew)" : ""]),
          h("td", { class: "score" }, [points(row.score)]),
          ...breaks.map((key) => h("td", { class: "tiebreak" }, [String(Math.round((row.tiebreaks[key] ?? 0) * 100) / 100)])),
          h("td", {}, [String(row.games)]),
        ]),
      ),
    );
    const players = t.crosstable.players;
    const rank = new Map(players.map((p) => [p.id, p.rank]));
    const columns = Math.max(0, ...players.map((p) => p.games.length));
    this.crosstableHead.replaceChildren(
      h("th", {}, ["Player"]),
      ...Array.from({ length: columns }, (_, i) => h("th", { title: t.format === "arena" ? `Game ${i + 1}` : `Round ${i + 1}` }, [String(i + 1)])),
    );
    this.crosstableBody.replaceChildren(
      ...players.map((p) =>
        h("tr", {}, [
          h("th", {}, [`${p.rank}. ${p.name}`]),
          ...p.games.map((g) => {
            const result = g.score === null ? "…" : points(g.score);
            const against = g.opponent === null ? "bye" : `v ${rank.get(g.opponent) ?? "?"}`;
            const cell = [element("span", { class: "result" }, [result]), " ", element("span", { class: "against" }, [against + (g.forfeit ? " ff" : "")])];
            const title = g.opponent === null ? "a bye" : `${g.score === null ? "playing" : `scored ${result}`} against ${players.find((o) => o.id === g.opponent)?.name ?? "?"}${g.forfeit ? " (forfeit)" : ""}`;
            return h("td", { class: g.seat, title }, g.game_id === null ? cell : [roomLink(g.game_id, cell)]);
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
      ...(t.status === "created"
        ? [h("p", { class: "schedule" }, [t.format === "arena" ? `Opens ${when(t.starts_at)}: players are paired as they come free until it closes.` : `Round 1 starts ${when(t.starts_at)}; each next round starts when the last game of the one before ends.`])]
        : []),
      ...[...rounds.entries()].reverse().map(([round, games]) =>
        h("section", {}, [
          h("h3", {}, [t.format === "arena" ? "Games" : `Round ${round}${t.rounds ? ` of ${t.rounds}` : ""}${games.every((g) => g.score !== null || g.second === null) ? " · done" : " · playing"}`]),
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
