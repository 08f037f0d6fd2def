// Marque on the page: the 3.4.6.4 tessellation of squares and triangles with bases A-G, the
// white and black pieces.  A move is one cell, or two triangles side by side (in either
// order: press on one and let go on the other).  Captured pieces fade out; at the end the
// winning group and the bases it joins are outlined.  Knows no rules.  Imports the drawing
// helpers of board.js.

import { explanationItems, points, viewBoxAround } from "../board.js";

const COLOURS = Object.freeze({
  white: { fill: "#fafaf7", pattern: null, label: "White" },
  black: { fill: "#1d1d1d", pattern: "pat-stripes", label: "Black" },
});

/** Base tints; the letters are drawn too, so the tint is never the only cue. */
const BASE_TINT = Object.freeze({ A: "#e9d3a0", B: "#c9dfb0", C: "#b7d3e6", D: "#e3c2d9", E: "#d8c9a9", F: "#bfe0d7", G: "#d9d0ec" });

const HINT = "Click a cell to place a piece; drag from a triangle to the triangle beside it to place two.";

/** The steps of a move: its cell, or its two triangles in any order. */
function split(text) {
  return { steps: text.split(",").map((key) => ({ key, choice: null })), ordered: false };
}

function describe(step) {
  return `cell ${step.key}`;
}

function draw(data) {
  const items = [];
  const all = [];
  const cells = new Map();
  const shapes = new Map();
  for (const cell of data.cells) {
    cells.set(cell.cell, cell);
    all.push(...cell.points);
    shapes.set(cell.cell, { points: cell.points });
    items.push({ tag: "polygon", class: `cell cell-${cell.shape}`, attrs: { points: points(cell.points), fill: cell.base ? BASE_TINT[cell.base] : null } });
  }
  // The bases the winning group joins, under the pieces.
  for (const [index, group] of (data.explanation?.groups ?? []).entries()) {
    for (const cell of data.cells) {
      if (group.sides.includes(cell.base)) items.push({ tag: "polygon", class: `reached explained-${index} reached-base`, attrs: { points: points(cell.points) } });
    }
  }
  for (const base of data.bases) items.push({ tag: "text", class: "base-letter", attrs: { x: base.x, y: base.y + 0.12 }, text: base.base });
  for (const colour of ["white", "black"]) {
    for (const label of data.pieces[colour]) items.push({ ...pieceItem(cells.get(label), colour), piece: `${colour}-${label}`, title: `${colour} on ${label}` });
  }
  for (const label of data.last_move ? data.last_move.split(",") : []) {
    const cell = cells.get(label);
    if (cell !== undefined) items.push({ tag: "polygon", class: "last", attrs: { points: points(cell.points) } });
  }
  const highlights = explanationItems(data.explanation, { at: (p) => p, cell: (name) => shapes.get(name) ?? null, scale: 1 });
  return { viewBox: viewBoxAround(all, 0.3), label: "Marque", items, shapes, highlights };
}

function ghost(data, step, colour) {
  const cell = data.cells.find((c) => c.cell === step.key);
  if (cell === undefined || COLOURS[colour] === undefined) return [];
  return [{ ...pieceItem(cell, colour), class: `ghost piece piece-${colour}` }];
}

function picture(data, step, colour) {
  return { viewBox: [-0.5, -0.5, 1, 1], items: [pieceItem({ x: 0, y: 0, shape: "square" }, colour)] };
}

/** A piece on a cell: larger on a square than on a triangle. */
function pieceItem(cell, colour) {
  const r = cell.shape === "square" ? 0.34 : 0.2;
  const style = COLOURS[colour];
  const children = [{ tag: "circle", class: "piece-body", attrs: { cx: cell.x, cy: cell.y, r, fill: style.fill } }];
  if (style.pattern) children.push({ tag: "circle", attrs: { cx: cell.x, cy: cell.y, r, fill: `url(#${style.pattern})` } });
  return { tag: "g", class: `piece piece-${colour}`, children };
}

export { COLOURS, HINT, describe, draw, ghost, picture, split };
