// The games' options in words, as the rules pages (docs/rules/<game>.md) name and explain
// them: for each option field of /api/games, a label, an explanation, the unit of a number
// ("Enclosure size: 4 blobs") and the words of each choice.  Which options exist, their
// ranges and defaults still come from the server; this module only names them.  optionsText
// turns an option text ("-size=4 -fill_board") into words, and wordsForReason a refusal of
// the rules ("option -kill=0 is out of range") into the same words.
// Imports nothing.

const SWAP = { label: "Swap", explain: "Whether the second player may take over the first player's colour instead of making their first move.", choices: { true: "the second player may swap colours", false: "no swap" } };

const WORDS = Object.freeze({
  boche: {
    size: { label: "Board size", unit: "holes per side", explain: "Holes along each side of the board; the pyramid on 6 holds 56 cubes." },
    kill: { label: "Enclosure size", unit: "blobs", explain: "How many blobs a group of one colour, surrounded by the other, needs to end the game (§3.5)." },
    fill_board: { label: "Enclosures", explain: "Whether an enclosure ends the game, or play goes on until the pyramid is full (§3.7).", choices: { false: "end the game", true: "never end it: fill the pyramid" } },
    adjacent: { label: "Where cubes go", explain: "Whether every board cube after the first must touch one already there.", choices: { false: "any empty hole or pit", true: "touching a cube already on the board" } },
    join: { label: "Winning path", explain: "How the pieces of a three-side path must touch (it counts with “Three-side path: wins at once”, §3.6).", choices: { face: "pieces touch face to face", any: "pieces may touch at a corner" } },
    immediate_win: { label: "Three-side path", explain: "When a region touching all three sides wins (§3.6).", choices: { false: "wins when the pyramid is full", true: "wins as soon as it appears" } },
    pie: SWAP,
  },
  che: {
    num_tiles: { label: "Tiles in the pool", unit: "tiles", explain: "How many tiles the players share; when they run out, the rule below decides." },
    placements: { label: "Tiles per turn", unit: "tiles", explain: "Tiles each player places on a turn after the opening tile (3 ramps up: 1, 2, then 3)." },
    adjacent: { label: "Tiles of one turn", explain: "Whether the tiles placed on one turn must touch each other.", choices: { false: "may lie apart", true: "must touch each other" } },
    tie: { label: "When the pool runs out", explain: "How the game ends if no region was closed before the last tile.", choices: { largest_wins: "the largest region wins", largest_loses: "the largest region loses", none: "the game is drawn", move: "players go on moving one tile each turn" } },
    move_anytime: { label: "Moving tiles", explain: "Whether a player may move a tile instead of placing, before the pool is out.", choices: { false: "only when the pool is out (if chosen above)", true: "a tile may be moved instead of placing" } },
    num_free: { label: "Free sides to move a tile", unit: "sides", explain: "How many free sides a tile needs to be moved (only with tile moves)." },
    free_corner: { label: "A tile moved needs", explain: "Whether a moved tile also needs a free corner (only with tile moves).", choices: { false: "free sides only", true: "a free corner too" } },
    group_area: { label: "New Rules: lose at a group of", unit: "tiles", explain: "A player whose region grows to this many tiles loses (empty: off)." },
    group_extent: { label: "New Rules: lose at an extent of", unit: "tiles", explain: "A player whose region spans this many rows or columns loses (empty: off)." },
  },
  osbox: {
    size: { label: "Board size", unit: "cells per side", explain: "The board is a square of this many cells per side." },
    any_side: { label: "Pushing", explain: "Whether each player pushes only from their own two sides.", choices: { false: "each player from their own sides", true: "both players from any side" } },
    capture: { label: "Scored knots", explain: "What happens to the dice of a knot once it has scored.", choices: { true: "their dice are removed", false: "their dice stay on the board" } },
    thin_knots: { label: "Knots that score", explain: "Whether a knot along a single row or column scores.", choices: { false: "spanning two rows and two columns", true: "also along one row or column" } },
  },
  ankor: {
    size: { label: "Board size", unit: "holes per side", explain: "Holes along each side of the board." },
    win_height: { label: "A side counts up to level", unit: "", explain: "The highest level at which a cube touches a side: 0 the board only, 1 the board and the tips (the rules' default), −1 any level." },
    pie: SWAP,
  },
  marque: {
    formation: { label: "Winning formation", explain: "Which occupied bases one group must hold to win.", choices: { non_adj_3: "three bases, no two touching", any_2: "any two bases", any_3: "any three bases", any_4: "any four bases", non_adj_2: "two bases that do not touch", opposite: "two bases facing each other", y: "base D and three alternate bases (experimental)" } },
  },
});

/** The words of one field of `game`: {label, explain, unit?, choices?} (a plain fallback). */
function fieldWords(game, field) {
  return WORDS[game]?.[field] ?? { label: field.replaceAll("_", " "), explain: "" };
}

/** The words of one choice of a field (a flag's value), or the value itself. */
function choiceWords(game, field, value) {
  return fieldWords(game, field).choices?.[String(value)] ?? String(value).replaceAll("_", " ");
}

/** "Board size: 4 holes per side" for a number, "Enclosures: never end it" for a choice. */
function settingWords(game, field, value, numberWord = null) {
  const words = fieldWords(game, field);
  if (words.choices !== undefined) return `${words.label}: ${choiceWords(game, field, value)}`;
  const shown = numberWord ?? String(value);
  const unit = words.unit && numberWord === null ? ` ${Number(value) === 1 && !words.unit.includes(" ") ? words.unit.replace(/s$/, "") : words.unit}` : "";
  return `${words.label}: ${shown}${unit}`;
}

/** The words of a flag written as text (`-kill=4`, `-fill_board`), given the game's flags. */
function flagWords(game, flags, text) {
  const match = /^-([a-z_]+)(?:=(-?\d+))?$/.exec(text);
  const flag = match === null ? undefined : flags.find((f) => f.name === match[1]);
  if (flag === undefined) return text;
  if (flag.takes_number) {
    const number = Number(match[2]);
    const word = (flag.names ?? []).find(([value]) => value === number)?.[1] ?? null;
    return settingWords(game, flag.field, number, word);
  }
  return settingWords(game, flag.field, flag.value);
}

/** An option text ("-size=4 -fill_board") in words, for a game whose flags are known. */
function optionsText(game, flags, text) {
  return text.trim() === "" ? "" : text.trim().split(/\s+/).map((part) => flagWords(game, flags, part)).join("; ");
}

/** A refusal of the rules with every flag it names in words. */
function wordsForReason(game, flags, reason) {
  return reason.replace(/^option /, "").replace(/-[a-z_]+(?:=-?\d+)?/g, (text) => {
    const words = flagWords(game, flags, text);
    return words === text ? text : `“${words}”`;
  });
}

export { choiceWords, fieldWords, optionsText, settingWords, wordsForReason };
