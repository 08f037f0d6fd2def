// The page's entry point: the session token (a one-click guest when there is none), the one
// connection, and the route from the address (#/room/<id> is a game page; the lobby page
// will sit beside it).  Imports connection.js and room.js.

import { Connection, Status } from "./connection.js";
import { RoomPage, element } from "./room.js";

const TOKEN_KEY = "browne-games.token";
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
let connection = null;
let page = null;

/** The route named by the address: {name: "room", room} or {name: "home"}. */
function parseRoute(hash) {
  const match = /^#\/room\/([^/?#]+)$/.exec(hash);
  if (match !== null) return { name: "room", room: decodeURIComponent(match[1]) };
  return { name: "home" };
}

function route() {
  const token = localStorage.getItem(TOKEN_KEY);
  if (token === null) {
    showSignIn();
    return;
  }
  if (connection === null) connect(token);
  const target = parseRoute(location.hash);
  if (page !== null && page.roomId !== undefined) connection.leave(page.roomId).catch(() => {});
  page = null;
  switch (target.name) {
    case "room":
      page = new RoomPage(app, connection, target.room);
      page.open();
      break;
    case "home":
      showHome();
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
      playerBadge.textContent = player.name;
      if (page !== null) page.render();
    },
    onRoom: (roomId, doc) => {
      if (page !== null && page.roomId === roomId) page.update(doc);
    },
    onError: (error) => {
      if (page !== null) page.showError(error);
    },
  });
  // A handle for debugging from the console (and for the browser tests).
  window.browneGames = { connection };
  connection.open();
}

function showStatus(status, detail) {
  statusBadge.dataset.status = status;
  statusBadge.textContent = STATUS_TEXT[status] + (detail && status !== Status.OPEN ? ` (${detail})` : "");
  if (status === Status.SIGNED_OUT) {
    localStorage.removeItem(TOKEN_KEY);
    connection = null;
    page = null;
    showSignIn(detail);
  }
}

function showSignIn(reason = "") {
  const button = element("button", { type: "button", class: "guest" }, ["Play as a guest"]);
  const message = element("p", { class: "sign-in-error", role: "alert" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const response = await fetch("/api/guest", { method: "POST" });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      const body = await response.json();
      localStorage.setItem(TOKEN_KEY, body.token);
      route();
    } catch (error) {
      message.textContent = `Could not sign in: ${error.message}`;
      button.disabled = false;
    }
  });
  const lines = [element("h1", {}, ["Sign in"])];
  if (reason) lines.push(element("p", {}, [`Your session ended: ${reason}.`]));
  lines.push(element("p", {}, ["Guests get a generated name and may play and watch at once."]), button, message);
  app.replaceChildren(element("section", { class: "sign-in" }, lines));
}

function showHome() {
  const input = element("input", { name: "room", required: "", autocomplete: "off", "aria-label": "Game id" });
  const form = element("form", { class: "open-room" }, [element("label", {}, ["Game id ", input]), element("button", { type: "submit" }, ["Open"])]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/room/${encodeURIComponent(input.value.trim())}`;
  });
  app.replaceChildren(
    element("section", { class: "home" }, [
      element("h1", {}, ["Boche, Che, Osbox, Ankor and Marque"]),
      element("p", {}, ["Open a game by its id to play or watch it."]),
      form,
    ]),
  );
}

window.addEventListener("hashchange", route);
route();

export { parseRoute };
