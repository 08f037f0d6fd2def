// The players' ratings on the game page, as Lichess shows them beside each name: read from
// the ratings route of docs/protocol.md for the game (its computer pool when a bot plays),
// for accounts only (guests have no rating).  When a rated game ends the server rates it a
// moment later (the lobby follows finished rooms in passes): the page reads the ratings
// again until this game is in the history, and shows each player's change.
// Imports api.js (the server's routes).

import { api } from "./api.js";

const GUEST_PREFIX = "g:";
const BOT_PREFIX = "u:bot-";
const RETRIES = 12; // reads after a rated game ends, RETRY_MS apart, before giving up
const RETRY_MS = 500;

class RoomRatings {
  /** `changed()` is called whenever a rating or a change arrives. */
  constructor(roomId, changed) {
    this.roomId = roomId;
    this.changed = changed;
    this.ratings = new Map(); // player id -> {text, change}
    this.asked = new Set(); // player ids whose rating was read (or is being read)
    this.settled = false; // the changes of a finished rated game are shown (or given up)
    this.timer = null;
  }

  close() {
    clearTimeout(this.timer);
    this.settled = true;
  }

  /** The rating shown for a player: {text, change} (change null until the game is rated). */
  of(playerId) {
    return this.ratings.get(playerId) ?? null;
  }

  /** The room changed: read the ratings not read yet, and the changes once a rated game ends. */
  update(doc) {
    const pool = doc.seats.some((holder) => holder.id.startsWith(BOT_PREFIX)) ? "computer" : null;
    const rated = doc.seats.filter((holder) => !holder.id.startsWith(GUEST_PREFIX));
    for (const holder of rated) {
      if (!this.asked.has(holder.id)) {
        this.asked.add(holder.id);
        this.read(doc.game, pool, holder.id).catch(() => this.asked.delete(holder.id));
      }
    }
    if (doc.rated && doc.outcome !== null && !this.settled && rated.length === 2) {
      this.settled = true;
      this.awaitChanges(doc.game, pool, rated.map((holder) => holder.id), RETRIES);
    }
  }

  async read(game, pool, playerId) {
    const query = pool === null ? "" : `?pool=${pool}`;
    const answer = await api(`/api/players/${encodeURIComponent(playerId)}/ratings/${encodeURIComponent(game)}${query}`);
    const entry = answer.history.find((game) => game.game_id === this.roomId) ?? null;
    this.ratings.set(playerId, { text: answer.rating.text, change: entry === null ? null : entry.change });
    this.changed();
    return entry !== null;
  }

  async awaitChanges(game, pool, players, left) {
    const found = await Promise.all(players.map((id) => this.read(game, pool, id).catch(() => false)));
    if (found.every(Boolean) || left <= 1) return;
    this.timer = setTimeout(() => this.awaitChanges(game, pool, players, left - 1), RETRY_MS);
  }
}

/** A rating change in words: "+12", "−8" or "±0". */
function changeText(change) {
  const rounded = Math.round(change);
  if (rounded === 0) return "±0";
  return rounded > 0 ? `+${rounded}` : `−${-rounded}`;
}

export { RoomRatings, changeText };
