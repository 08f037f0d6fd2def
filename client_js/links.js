// Links to the site's pages that every page shows: a player's name leads to their page.
// Imports room.js (for element).

import { element } from "./room.js";

/** A player's name as a link to their page (`#/player/<id>`). */
function playerLink(player, className = "player-name") {
  return element("a", { class: className, href: `#/player/${encodeURIComponent(player.id)}`, "data-player": player.id }, [player.name]);
}

export { playerLink };
