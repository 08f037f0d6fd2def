// Marque on the page: the 3.4.6.4 tessellation of squares and triangles with bases A-G, the
// white and black pieces; a move is one cell or two triangles (chosen in any order).
// Captured pieces fade out.  Knows no rules.  Imports only the drawing helpers of board.js.

import { points, viewBoxAround } from "../board.js";

const COLOURS = Object.freeze({
  white: { fill: "#fafaf7", pattern: null, label: "White" },
  black: { fill: "#1d1d1d", pattern: "pat-stripes", label: "Black" },
});

/** Base tints; the letters are drawn too, so the tint is never the only cue. */
const BASE_TINT = Object.freeze({ A: "#e9d3a0", B: "#c9dfb0", C: "#b7d3e6", D: "#e3c2d9", E: "#d8c9a9", F: "#bfe0d7", G: "#d9d0ec" });

function targets(move) {
  return move.split(",");
}

function choiceLabel(move) {
  return `play ${move.replace(",", " + ")}`;
}

function draw(data, view) {
  const items = [];
  const all = [];
  const cells = new Map();
  const winning = new Set(data.winning_group ?? []);
  for (const cell of data.cells) {
    cells.set(cell.cell, cell);
    all.push(...cell.points);
    items.push({
      tag: "polygon",
      class: `cell cell-${cell.shape}`,
      attrs: { points: points(cell.points), fill: cell.base ? BASE_TINT[cell.base] : null },
    });
  }
  for (const base of data.bases) {
    items.push({ tag: "text", class: "base-letter", attrs: { x: base.x, y: base.y + 0.12 }, text: base.base });
  }
  for (const colour of ["white", "black"]) {
    for (const label of data.pieces[colour]) {
      const cell = cells.get(label);
      const r = cell.shape === "square" ? 0.34 : 0.2;
      const style = COLOURS[colour];
      const children = [{ tag: "circle", attrs: { cx: cell.x, cy: cell.y, r, fill: style.fill } }];
      if (style.pattern) children.push({ tag: "circle", attrs: { cx: cell.x, cy: cell.y, r, fill: `url(#${style.pattern})` } });
      const className = `piece piece-${colour}` + (winning.has(label) ? " winning" : "");
      items.push({ tag: "g", class: className, piece: `${colour}-${label}`, children, title: `${colour} on ${label}` });
    }
  }
  for (const label of data.last_move ? data.last_move.split(",") : []) {
    const cell = cells.get(label);
    if (cell !== undefined) items.push({ tag: "polygon", class: "last", attrs: { points: points(cell.points) } });
  }
  for (const [key, state] of view.targets) {
    const cell = cells.get(key);
    if (cell === undefined) continue;
    const r = cell.shape === "square" ? 0.3 : 0.17;
    items.push({ tag: "circle", attrs: { cx: cell.x, cy: cell.y, r }, target: { key, state, label: `cell ${key}` } });
  }
  return { viewBox: viewBoxAround(all, 0.3), label: "Marque", items };
}

const UNORDERED = true;

export { COLOURS, UNORDERED, choiceLabel, draw, targets };
