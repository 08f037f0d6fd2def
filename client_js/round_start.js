// A tournament's player is taken to their game when a round's pairing starts it, from any
// page of the site (the tournaments pages, the lobby...), with a note saying so: "Round 2
// started: your game against bobby".  The new game comes as a lobby event (a live line of a
// tournament room, whose id is <tournament>.<round>.<board>, with a seat of ours and no move
// yet), which every page hears since the connection follows the lobby everywhere.  A player
// still playing another game is not taken away from it: the note links to the new one.
// Imports room.js (for element).

import { element } from "./room.js";

const TOURNAMENT_ROOM = /^t[^.]*\.(\d+)\./;

/** The tournament game a lobby event starts for player `me`, as {roomId, round, opponent},
 * or null when it starts none. */
function startedRound(event, me) {
  if (event?.t !== "live" || me === null) return null;
  const game = event.game;
  const match = TOURNAMENT_ROOM.exec(game.room_id);
  if (match === null || game.move_number !== 0) return null;
  const opponent = game.players.find((p) => p.id !== me);
  if (opponent === undefined || !game.players.some((p) => p.id === me)) return null;
  return { roomId: game.room_id, round: Number(match[1]), opponent };
}

class RoundWatch {
  /** Watches the lobby for rounds starting; `notice` is the element that shows the note. */
  constructor(notice) {
    this.notice = notice;
    this.known = new Set(); // tournament games already seen (announced or in a snapshot)
    this.shownFor = null; // the room the note is about
  }

  /** The lobby changed (`event` null for a snapshot); returns the room to go to, or null.
   * `busyIn` is the room of a game of ours still being played that the page shows, if any. */
  update(lobby, event, me, busyIn) {
    if (event === null) {
      for (const game of lobby.mine ?? []) this.known.add(game.room_id);
      return null;
    }
    const started = startedRound(event, me);
    if (started === null || this.known.has(started.roomId)) return null;
    this.known.add(started.roomId);
    const href = `#/room/${encodeURIComponent(started.roomId)}`;
    const text = `Round ${started.round} started: your game against ${started.opponent.name}`;
    const link = busyIn === null ? [] : [" ", element("a", { href }, ["Go to it"])];
    this.notice.replaceChildren(element("span", {}, [text]), ...link);
    this.notice.hidden = false;
    this.shownFor = started.roomId;
    return busyIn === null ? href : null;
  }

  /** A page opens: the note stays only on the game it announced. */
  routed(roomId) {
    if (this.shownFor !== null && roomId !== this.shownFor) {
      this.notice.hidden = true;
      this.shownFor = null;
    }
  }
}

export { RoundWatch, startedRound };
