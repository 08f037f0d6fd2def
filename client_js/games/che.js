// Che on the page: Truchet tiles on the open plane (to_data's tiles and candidate cells).  A
// move is one or more placements, each a cell with the tile letter that goes there as its
// choice (in any order), or a tile move: the tile, then a cell and a letter.  Tiles are
// previewed from to_data's `tile_pictures`.  Knows no rules.  Imports the drawing helpers of
// board.js.

import { explanationItems, sector } from "../board.js";

const COLOURS = Object.freeze({
  light: { fill: "#f3e3bf", pattern: null, label: "Light" },
  dark: { fill: "#3b3026", pattern: "pat-dots", label: "Dark" },
});

/** Tile numbers in the colour that reads best on the tile's centre (its band). */
const NUMBER_INK = Object.freeze({ light: "#3a2e22", dark: "#f6ead0" });

/** Scores (once the tiles ran out) are each colour's largest region, in bands. */
const SCORES = Object.freeze({ title: "Largest regions", format: (n) => `largest region ${n}` });

const HINT = "Point at a cell to see the tile; switch it with the wheel or R, click to place it.";

const PLACEMENT = /([a-d])\((-?\d+),(-?\d+)\)/g;
const TILE_MOVE = /^(\d+)-([a-d])\((-?\d+),(-?\d+)\)$/;

/** The steps of a move: each placement's cell and letter (any order), or the moved tile
 * then its cell and letter. */
function split(text) {
  const moved = TILE_MOVE.exec(text);
  if (moved !== null) {
    const [, number, tile, x, y] = moved;
    return { steps: [{ key: `tile ${number}`, choice: null }, { key: `${x},${y}`, choice: tile }], ordered: true };
  }
  const steps = [...text.matchAll(PLACEMENT)].map(([, tile, x, y]) => ({ key: `${x},${y}`, choice: tile }));
  return steps.length === 0 ? null : { steps, ordered: false };
}

function describe(step) {
  return step.choice === null ? step.key : `tile ${step.choice} at ${step.key}`;
}

function draw(data) {
  const items = [];
  for (const candidate of data.candidates) {
    items.push({ tag: "rect", class: "candidate", attrs: { x: candidate.x + 0.08, y: candidate.y + 0.08, width: 0.84, height: 0.84, rx: 0.06 } });
  }
  const last = new Set(data.last ?? []);
  for (const tile of data.tiles) {
    items.push({ tag: "g", class: "tile", piece: `tile-${tile.number}-${tile.x},${tile.y}`, children: tileItems(tile, tile.x, tile.y, String(tile.number)), title: `tile ${tile.number}: ${tile.tile} at ${tile.x},${tile.y}` });
    if (last.has(tile.number)) items.push({ tag: "rect", class: "last", attrs: { x: tile.x + 0.05, y: tile.y + 0.05, width: 0.9, height: 0.9 } });
  }
  const tiles = new Map(data.tiles.map((t) => [`tile ${t.number}`, t]));
  const shapes = {
    get(key) {
      const tile = tiles.get(key);
      const [x, y] = tile ? [tile.x, tile.y] : key.split(",").map(Number);
      return Number.isFinite(x) && Number.isFinite(y) ? square(x, y) : undefined;
    },
  };
  const b = data.bounds;
  const margin = 1.25; // room for the cells a turn's first tile opens beside it
  const highlights = explanationItems(data.explanation, { at: (p) => p, cell: (name) => shapes.get(name) ?? null, scale: 1 });
  return {
    viewBox: [b.min_x - margin, b.min_y - margin, b.max_x - b.min_x + 1 + 2 * margin, b.max_y - b.min_y + 1 + 2 * margin],
    label: `Che, turn ${data.turn}`,
    items,
    shapes,
    highlights,
  };
}

/** The tile of letter `step.choice` on the cell `step.key`, as it would lie there. */
function ghost(data, step) {
  if (step.choice === null) return [];
  const [x, y] = step.key.split(",").map(Number);
  return [{ tag: "g", class: "ghost", children: tileItems({ ...data.tile_pictures[step.choice], tile: step.choice }, x, y, null) }];
}

function picture(data, step) {
  return { viewBox: [-0.08, -0.08, 1.16, 1.16], items: tileItems({ ...data.tile_pictures[step.choice], tile: step.choice }, 0, 0, null) };
}

/** A tile on the unit square at (x, y): its dominant fill, two caps, edge and number. */
function tileItems(tile, x, y, number) {
  const corners = [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]; // NW NE SE SW
  const caps = tile.band === "nw-se" ? [1, 3] : [0, 2];
  const items = [
    { tag: "rect", attrs: { x, y, width: 1, height: 1, fill: COLOURS[tile.dominant].fill } },
    ...caps.map((i) => ({
      tag: "path",
      attrs: { d: sector(corners[i], corners[(i + 1) % 4], corners[(i + 3) % 4], 0.5), fill: COLOURS[tile.corners[i]].fill },
    })),
    { tag: "rect", class: "tile-edge", attrs: { x, y, width: 1, height: 1 } },
  ];
  if (number !== null) items.push({ tag: "text", class: "tile-number", attrs: { x: x + 0.5, y: y + 0.58, fill: NUMBER_INK[tile.dominant] }, text: number });
  return items;
}

/** A cell's target: the square a candidate cell is drawn as, so their outlines coincide. */
function square(x, y) {
  return { points: [[x + 0.08, y + 0.08], [x + 0.92, y + 0.08], [x + 0.92, y + 0.92], [x + 0.08, y + 0.92]] };
}

export { COLOURS, HINT, NUMBER_INK, SCORES, describe, draw, ghost, picture, split };
