// The page's entry point: the session token (a first visit is made a guest at once, with no
// form; #/signin logs in to or registers an account), the one connection, which follows the
// lobby on every page, and the route from the address (#/ the front page, #/play/<game> the
// same with that game's quick pairing chosen, #/lobby the lobby,
// #/rules/<page> a rules page, #/player/<id> a player's page, #/room/<id> a game page, #/tournaments and #/tournament/<id>
// the tournament pages, #/records the game records page, #/games?<search> the finished games).  When a challenge of ours is
// accepted, the page goes to its room; opening the site with no page in the address goes to
// the game the player is in, if any.
// When a tournament round starts a game of ours, the page goes to it (round_start.js).
// Imports api.js, archive.js, connection.js, front.js, links.js, lobby.js, players.js, records.js,
// room.js, round_start.js, rules.js and tournaments.js.

import { api, forgetSessionToken, keepSessionToken, sessionToken } from "./api.js";
import { GamesPage } from "./archive.js";
import { Connection, Status } from "./connection.js";
import { FrontPage } from "./front.js";
import { playerLink } from "./links.js";
import { LobbyPage } from "./lobby.js";
import { RecordsPage } from "./records.js";
import { RoomPage, element } from "./room.js";
import { RoundWatch } from "./round_start.js";
import { PlayerPage } from "./players.js";
import { RulesPage } from "./rules.js";
import { TournamentPage, TournamentsPage } from "./tournaments.js";

const STATUS_TEXT = Object.freeze({
  [Status.CONNECTING]: "Connecting…",
  [Status.OPEN]: "Connected",
  [Status.RECONNECTING]: "Reconnecting…",
  [Status.SIGNED_OUT]: "Signed out",
  [Status.CLOSED]: "Disconnected",
});

const app = document.getElementById("app");
const statusBadge = document.getElementById("connection");
const playerBadge = document.getElementById("player");
const rulesLink = document.querySelector("header .rules-link"); // the rules of the game shown
const menuButton = document.querySelector("header .menu-button"); // the pages, on a phone
const rounds = new RoundWatch(document.getElementById("round-notice"));
let connection = null;
let page = null;
// Opening the site itself (no page in the address) goes on to the game being played.
let goToGame = location.hash === "" || location.hash === "#";

/** The route named by the address: {name: "room", room}, {name: "rules", rules, heading}... */
function parseRoute(hash) {
  const rules = /^#\/rules\/([a-z]+)(?:\/([\w-]+))?$/.exec(hash);
  if (rules !== null) return { name: "rules", rules: rules[1], heading: rules[2] ?? null };
  if (hash === "#/lobby") return { name: "lobby" };
  const player = /^#\/player\/([^/?#]+)$/.exec(hash);
  if (player !== null) return { name: "player", player: decodeURIComponent(player[1]) };
  const play = /^#\/play\/([a-z]+)$/.exec(hash);
  if (play !== null) return { name: "home", game: play[1] };
  if (hash === "#/signin") return { name: "signin" };
  const match = /^#\/room\/([^/?#]+)$/.exec(hash);
  if (match !== null) return { name: "room", room: decodeURIComponent(match[1]) };
  const event = /^#\/tournament\/([^/?#]+)$/.exec(hash);
  if (event !== null) return { name: "tournament", tournament: decodeURIComponent(event[1]) };
  if (hash === "#/tournaments") return { name: "tournaments" };
  if (hash === "#/records") return { name: "records" };
  const games = /^#\/games(?:\?(.*))?$/.exec(hash);
  if (games !== null) return { name: "games", query: games[1] ?? "" };
  return { name: "home" };
}

/** Opens or closes the phone's menu of pages. */
function showMenu(open) {
  menuButton.setAttribute("aria-expanded", String(open));
  menuButton.closest("header").classList.toggle("menu-open", open);
}

function route() {
  showMenu(false);
  const token = sessionToken();
  const target = parseRoute(location.hash);
  if (token === null && target.name !== "signin") {
    becomeGuest();
    return;
  }
  if (target.name === "signin") {
    if (page !== null && page.close !== undefined) page.close();
    page = null;
    showSignIn();
    return;
  }
  if (connection === null) connect(token);
  rounds.routed(target.name === "room" ? target.room : null);
  rulesLink.setAttribute("href", target.name === "rules" ? `#/rules/${target.rules}` : "#/rules/boche");
  if (page !== null && page.roomId !== undefined) connection.leave(page.roomId).catch(() => {});
  if (page !== null && page.close !== undefined) page.close();
  page = null;
  switch (target.name) {
    case "room":
      page = new RoomPage(app, connection, target.room);
      page.open();
      break;
    case "tournaments":
      page = new TournamentsPage(app, connection);
      page.open();
      break;
    case "tournament":
      page = new TournamentPage(app, connection, target.tournament);
      page.open();
      break;
    case "records":
      page = new RecordsPage(app);
      page.open();
      break;
    case "games":
      page = new GamesPage(app, target.query);
      page.open();
      break;
    case "lobby":
      page = new LobbyPage(app, connection);
      page.open();
      break;
    case "player":
      page = new PlayerPage(app, target.player, () => connection?.player ?? null);
      page.open();
      break;
    case "rules":
      page = new RulesPage(app, target.rules, target.heading);
      page.open();
      break;
    case "home":
      page = new FrontPage(app, connection, target.game ?? null);
      page.open();
      break;
    default:
      throw new Error(`unknown route ${target.name}`);
  }
}

function connect(token) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  connection = new Connection(`${scheme}://${location.host}/ws`, token, {
    onStatus: (status, detail) => showStatus(status, detail),
    onWelcome: (player) => {
      playerBadge.replaceChildren(playerLink(player));
      if (page !== null) page.render();
    },
    onRoom: (roomId, doc) => {
      if (page !== null && page.roomId === roomId) page.update(doc);
      if (page instanceof RoomPage && page.roomId === roomId) rulesLink.setAttribute("href", `#/rules/${doc.game}`);
    },
    onTournaments: (list) => {
      if (page instanceof TournamentsPage) page.update(list);
    },
    onTournament: (event) => {
      if (page instanceof TournamentPage) page.update(event);
    },
    onLobby: (lobby, event) => {
      if (page instanceof LobbyPage) page.update(lobby, event);
      if (page instanceof FrontPage) page.updateLobby(lobby, event);
      if (event === null && goToGame) {
        goToGame = false;
        const game = ongoingGame(lobby, connection.player?.id ?? null);
        if (game !== null && page instanceof FrontPage) location.hash = `#/room/${encodeURIComponent(game.room_id)}`;
      }
      // A tournament round paired us: to the game, unless we are playing another one.
      const me = connection.player?.id ?? null;
      const busyIn = page instanceof RoomPage && page.doc?.outcome === null && page.mySeat() !== null ? page.roomId : null;
      const round = rounds.update(lobby, event, me, busyIn);
      if (round !== null) location.hash = round;
      // Our challenge was accepted: its room (same id) is where we play now.
      const challenge = event?.t === "challenge" ? event.challenge : null;
      if (challenge !== null && challenge.status === "accepted" && challenge.challenger.id === connection.player?.id) {
        location.hash = `#/room/${encodeURIComponent(challenge.id)}`;
      }
    },
    onError: (error) => {
      if (page !== null) page.showError(error);
    },
  });
  // A handle for debugging from the console (and for the browser tests).
  window.browneGames = { connection };
  connection.open();
  connection.followLobby().catch(() => {}); // followed again after every reconnection
}

/** The game to go back to: one waiting for our move first, else the first one we play. */
function ongoingGame(lobby, me) {
  const mine = lobby.mine ?? [];
  return mine.find((game) => game.waiting_for === me) ?? mine[0] ?? null;
}

function showStatus(status, detail) {
  statusBadge.dataset.status = status;
  statusBadge.textContent = STATUS_TEXT[status] + (detail && status !== Status.OPEN ? ` (${detail})` : "");
  statusBadge.title = statusBadge.textContent; // the whole of it where the header cuts it short
  if (status === Status.SIGNED_OUT) {
    forgetSessionToken();
    connection = null;
    page = null;
    showSignIn(detail);
  }
}

/** A first visit plays at once: a guest is made with no form (the sign-in page if it fails). */
async function becomeGuest() {
  try {
    keepSessionToken((await api("/api/guest", { body: null })).token);
  } catch (error) {
    showSignIn(`no guest could be made (${error.message})`);
    return;
  }
  route();
}

function showSignIn(reason = "") {
  const message = element("p", { class: "sign-in-error", role: "alert" });
  // A registration sends the session along: made from a guest's, the account keeps the
  // guest's finished games (the server looks; any other session changes nothing).
  const hadSession = sessionToken() !== null;
  const guestName = connection?.player?.guest ? connection.player.name : null;
  const signIn = async (url, body) => {
    const answer = await api(url, { body, signed: url === "/api/register" && hadSession });
    keepSessionToken(answer.token);
    if (connection !== null) connection.close(); // the guest's, replaced by the account's
    connection = null;
    if (location.hash === "#/signin") location.hash = "#/";
    else route();
  };
  const guard = (button, run) => async () => {
    button.disabled = true;
    try {
      await run();
    } catch (error) {
      message.textContent = `Could not sign in: ${error.message}`;
      button.disabled = false;
    }
  };
  const guest = element("button", { type: "button", class: "guest" }, ["Play as a guest"]);
  guest.addEventListener("click", guard(guest, () => signIn("/api/guest", null)));
  const name = element("input", { id: "account-name", name: "name", autocomplete: "username", required: "" });
  const password = element("input", { id: "account-password", name: "password", type: "password", autocomplete: "current-password", required: "" });
  const login = element("button", { type: "submit", class: "login" }, ["Log in"]);
  const register = element("button", { type: "button", class: "register" }, ["Register"]);
  const form = element("form", { class: "account" }, [
    element("label", { for: "account-name" }, ["Name "]),
    name,
    element("label", { for: "account-password" }, ["Password "]),
    password,
    element("div", { class: "account-buttons" }, [login, register]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guard(login, () => signIn("/api/login", { name: name.value.trim(), password: password.value }))();
  });
  register.addEventListener("click", () => {
    if (!form.reportValidity()) return;
    guard(register, () => signIn("/api/register", { name: name.value.trim(), password: password.value }))();
  });
  const lines = [element("h1", {}, ["Sign in"])];
  if (reason) lines.push(element("p", {}, [`Your session ended: ${reason}.`]));
  lines.push(
    element("p", {}, ["Guests get a generated name and may play casual games and watch at once; an account plays rated games too."]),
    ...(guestName !== null ? [element("p", { class: "keeps-games" }, [`Registering now keeps the finished games you played as ${guestName}.`])] : []),
    guest,
    element("h2", {}, ["Or with an account"]),
    form,
    message,
  );
  app.replaceChildren(element("section", { class: "sign-in" }, lines));
}

menuButton.addEventListener("click", () => showMenu(menuButton.getAttribute("aria-expanded") !== "true"));
document.addEventListener("click", (event) => {
  if (!menuButton.closest("header").contains(event.target)) showMenu(false);
});
window.addEventListener("hashchange", route);
route();

export { parseRoute };
