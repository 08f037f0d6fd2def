// Che on the page: Truchet tiles on the open plane (to_data's tiles and candidate cells);
// a move is one or more placements (a cell, then a tile a-d) or a tile move (a tile, then a
// cell).  Knows no rules.  Imports only the drawing helpers of board.js.

import { sector } from "../board.js";

const COLOURS = Object.freeze({
  light: { fill: "#f3e3bf", pattern: null, label: "Light" },
  dark: { fill: "#3b3026", pattern: "pat-dots", label: "Dark" },
});

const PLACEMENT = /(?:(\d+)-)?([a-d])\((-?\d+),(-?\d+)\)/g;

/** The targets of a move: each placement's cell, or the moved tile and its new cell. */
function targets(move) {
  const keys = [];
  for (const [, number, , x, y] of move.matchAll(PLACEMENT)) {
    if (number !== undefined) keys.push(`tile ${number}`);
    keys.push(`${x},${y}`);
  }
  return keys;
}

function choiceLabel(move) {
  return [...move.matchAll(PLACEMENT)].map(([, number, tile, x, y]) => (number ? `move ${number}: ` : "") + `${tile} at ${x},${y}`).join(" + ");
}

/**
 * The moves to offer: the server's legal list, or when it sent none (more than 300), every
 * placement set on the candidate cells and the cells beside the turn's own new tiles, with
 * the two tiles of each cell's colouring (once only tile moves remain: any tile to any candidate
 * cell).  That is a superset; the server refuses the rest, and says why.
 */
function offered(data) {
  if (data.legal) return data.legal;
  if (data.quota > 2 || data.candidates.length === 0) return [];
  const letters = new Map(data.candidates.map((c) => [parity(c.x, c.y), c.tiles]));
  for (const p of [0, 1]) {
    // The two cell colourings share out the four tiles, so one pair gives the other.
    const other = letters.get(1 - p);
    if (!letters.has(p) && other) letters.set(p, ["a", "b", "c", "d"].filter((t) => !other.includes(t)));
  }
  if (data.quota === 0) {
    // Only tile moves remain: any tile to any candidate cell, in either tile of that cell.
    const moves = [];
    for (const t of data.tiles) {
      for (const c of data.candidates) {
        for (const tile of c.tiles) moves.push(`${t.number}-${placementText({ x: c.x, y: c.y, tile })}`);
      }
    }
    return moves;
  }
  const occupied = new Set(data.tiles.map((t) => `${t.x},${t.y}`));
  const singles = [];
  for (const c of data.candidates) for (const tile of c.tiles) singles.push({ x: c.x, y: c.y, tile });
  if (data.quota === 1) return singles.map(placementText);
  const moves = new Set();
  const candidates = new Set(data.candidates.map((c) => `${c.x},${c.y}`));
  for (const first of singles) {
    const seconds = new Map(data.candidates.map((c) => [`${c.x},${c.y}`, [c.x, c.y]]));
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const [x, y] = [first.x + dx, first.y + dy];
      if (!occupied.has(`${x},${y}`) && !candidates.has(`${x},${y}`)) seconds.set(`${x},${y}`, [x, y]);
    }
    for (const [key, [x, y]] of seconds) {
      if (key === `${first.x},${first.y}`) continue;
      for (const tile of letters.get(parity(x, y)) ?? []) {
        const pair = [placementText(first), placementText({ x, y, tile })].sort();
        moves.add(pair.join(","));
      }
    }
  }
  return [...moves];
}

function placementText({ x, y, tile }) {
  return `${tile}(${x},${y})`;
}

function parity(x, y) {
  return ((x + y) % 2 + 2) % 2;
}

function draw(data, view) {
  const items = [];
  for (const candidate of data.candidates) {
    items.push({ tag: "rect", class: "candidate", attrs: { x: candidate.x + 0.06, y: candidate.y + 0.06, width: 0.88, height: 0.88 } });
  }
  const last = new Set(data.last ?? []);
  for (const tile of data.tiles) {
    const { x, y } = tile;
    const square = [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]; // NW NE SE SW
    const caps = tile.band === "nw-se" ? [1, 3] : [0, 2];
    const children = [
      { tag: "rect", attrs: { x, y, width: 1, height: 1, fill: COLOURS[tile.dominant].fill } },
      ...caps.map((i) => ({
        tag: "path",
        attrs: { d: sector(square[i], square[(i + 1) % 4], square[(i + 3) % 4], 0.5), fill: COLOURS[tile.corners[i]].fill },
      })),
      { tag: "rect", class: "tile-edge", attrs: { x, y, width: 1, height: 1 } },
      { tag: "text", class: "tile-number", attrs: { x: x + 0.5, y: y + 0.56 }, text: String(tile.number) },
    ];
    items.push({ tag: "g", class: "tile", piece: `tile-${tile.number}-${x},${y}`, children, title: `tile ${tile.number}: ${tile.tile} at ${x},${y}` });
    if (last.has(tile.number)) items.push({ tag: "rect", class: "last", attrs: { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92 } });
  }
  const tiles = new Map(data.tiles.map((t) => [`tile ${t.number}`, t]));
  for (const [key, state] of view.targets) {
    const tile = tiles.get(key);
    const [x, y] = tile ? [tile.x, tile.y] : key.split(",").map(Number);
    items.push({
      tag: "rect",
      attrs: { x: x + 0.2, y: y + 0.2, width: 0.6, height: 0.6, rx: 0.12 },
      target: { key, state, label: tile ? `${key} (${tile.tile} at ${tile.x},${tile.y})` : `cell ${key}` },
    });
  }
  const b = data.bounds;
  const margin = 0.6;
  return {
    viewBox: [b.min_x - margin, b.min_y - margin, b.max_x - b.min_x + 1 + 2 * margin, b.max_y - b.min_y + 1 + 2 * margin],
    label: `Che, turn ${data.turn}`,
    items,
  };
}

const UNORDERED = true;

export { COLOURS, UNORDERED, choiceLabel, draw, offered, targets };
