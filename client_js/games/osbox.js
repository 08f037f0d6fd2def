// Osbox on the page: the N x N board, the side positions a die is pushed from (tinted for the
// player whose home side it is), and every die's ports and strands (which show its
// orientation).  A move is a side position with the face as its choice, previewed as the
// push itself: the die that face becomes from that side (to_data's `entering`) and the dice
// it shifts along the line.  The dice the last move captured stay as a faint trace.  Knows
// no rules.  Imports the drawing helpers of board.js.

import { explanationItems } from "../board.js";

const COLOURS = Object.freeze({
  horz: { fill: "#d9822b", pattern: null, label: "Horz" },
  vert: { fill: "#2f6bd0", pattern: "pat-stripes", label: "Vert" },
});

/** Scores are points, one per crossing of a closed knot. */
const SCORES = Object.freeze({ title: "", format: (n) => `${n} ${n === 1 ? "point" : "points"}` });

const HINT = "Point at a numbered square to see the push; change the face with the wheel or R, click to push.";

const SPREAD = 0.13;
/** Half-end label -> [point on the die's side, inward direction], unit die at the origin. */
const HALF_ENDS = Object.freeze({
  T0: [[0.5 - SPREAD, 0], [0, 1]],
  T1: [[0.5 + SPREAD, 0], [0, 1]],
  R0: [[1, 0.5 - SPREAD], [-1, 0]],
  R1: [[1, 0.5 + SPREAD], [-1, 0]],
  B0: [[0.5 + SPREAD, 1], [0, -1]],
  B1: [[0.5 - SPREAD, 1], [0, -1]],
  L0: [[0, 0.5 + SPREAD], [1, 0]],
  L1: [[0, 0.5 - SPREAD], [1, 0]],
});
const PORT_MARKS = Object.freeze({ T: [0.5, 0, 0, 1], R: [1, 0.5, 1, 0], B: [0.5, 1, 0, 1], L: [0, 0.5, 1, 0] });

/** The steps of a move: its side position, with the face as the choice there. */
function split(text) {
  const match = /^([a-f])(\d+)$/.exec(text);
  return match === null ? null : { steps: [{ key: match[2], choice: match[1] }], ordered: true };
}

function describe(step) {
  return step.choice === null ? `side position ${step.key}` : `face ${step.choice} from ${step.key}`;
}

function draw(data) {
  const items = [];
  const n = data.size;
  for (const side of ["top", "right", "bottom", "left"]) {
    const seats = data.positions.find((p) => p.side === side).seats;
    if (seats.length !== 1) continue;
    const bar = { top: [0, -0.16, n, 0.12], bottom: [0, n + 0.04, n, 0.12], left: [-0.16, 0, 0.12, n], right: [n + 0.04, 0, 0.12, n] }[side];
    items.push({ tag: "rect", class: `home home-${seats[0]}`, attrs: { x: bar[0], y: bar[1], width: bar[2], height: bar[3], rx: 0.05 } });
  }
  for (const cell of data.cells) items.push({ tag: "rect", class: "cell", attrs: { x: cell.x, y: cell.y, width: 1, height: 1 } });
  const shapes = new Map();
  for (const position of data.positions) {
    const key = String(position.position);
    shapes.set(key, { points: [[position.x + 0.06, position.y + 0.06], [position.x + 0.94, position.y + 0.06], [position.x + 0.94, position.y + 0.94], [position.x + 0.06, position.y + 0.94]] });
    const seat = position.seats.length === 1 ? position.seats[0] : "both";
    items.push({
      tag: "g",
      class: `side side-${seat}`,
      children: [
        { tag: "rect", attrs: { x: position.x + 0.1, y: position.y + 0.1, width: 0.8, height: 0.8, rx: 0.12 } },
        { tag: "text", class: "side-number", attrs: { x: position.x + 0.5, y: position.y + 0.6 }, text: key },
      ],
    });
  }
  const cells = new Map(data.cells.map((c) => [c.cell, c]));
  for (const die of data.removed ?? []) items.push(dieItem(die, cells.get(die.cell), "die trace"));
  for (const die of data.dice) items.push({ ...dieItem(die, cells.get(die.cell), "die"), piece: `die-${die.cell}-${die.die}` });
  const lastPosition = data.last_move ? data.positions.find((p) => String(p.position) === data.last_move.slice(1)) : undefined;
  if (lastPosition !== undefined) {
    const entry = cells.get(lastPosition.cell);
    items.push({ tag: "rect", class: "last", attrs: { x: entry.x + 0.05, y: entry.y + 0.05, width: 0.9, height: 0.9 } });
    items.push({ tag: "rect", class: "last", attrs: { x: lastPosition.x + 0.1, y: lastPosition.y + 0.1, width: 0.8, height: 0.8, rx: 0.1 } });
  }
  const cellShape = (cell) => {
    const c = cells.get(Number(cell));
    return c === undefined ? null : { points: [[c.x, c.y], [c.x + 1, c.y], [c.x + 1, c.y + 1], [c.x, c.y + 1]] };
  };
  const highlights = explanationItems(data.explanation, { at: (p) => p, cell: cellShape, scale: 1 });
  if ((data.gained ?? 0) > 0 && (data.scored ?? []).length > 0) {
    // The knot the last push scored (the explanation outlines it once the game is over),
    // and its points.
    const scored = data.scored.map((cell) => cells.get(cell));
    if (data.explanation == null) {
      for (const c of scored) highlights.push({ tag: "rect", class: "scored", attrs: { x: c.x + 0.04, y: c.y + 0.04, width: 0.92, height: 0.92, rx: 0.08 } });
    }
    const top = scored.reduce((a, b) => (b.y < a.y || (b.y === a.y && b.x > a.x) ? b : a));
    highlights.push({ tag: "text", class: "points-gained", attrs: { x: top.x + 0.5, y: top.y + 0.62 }, text: `+${data.gained}` });
  }
  return { viewBox: [-1.25, -1.25, n + 2.5, n + 2.5], label: `Osbox, ${n} by ${n}`, items, shapes, highlights };
}

/** The push of face `step.choice` from position `step.key`: the new die and the dice it
 * shifts, up to the first empty cell of the line, over cleared cells. */
function ghost(data, step) {
  const position = data.positions.find((p) => String(p.position) === step.key);
  if (position === undefined || step.choice === null) return [];
  const cells = new Map(data.cells.map((c) => [c.cell, c]));
  const dice = new Map(data.dice.map((d) => [d.cell, d]));
  const line = position.line;
  const gap = line.findIndex((cell) => !dice.has(cell));
  const moved = gap < 0 ? line : line.slice(0, gap + 1);
  const items = [];
  for (const cell of moved) {
    const c = cells.get(cell);
    items.push({ tag: "rect", class: "cell cleared", attrs: { x: c.x, y: c.y, width: 1, height: 1 } });
  }
  items.push(dieItem(data.entering[position.side][step.choice], cells.get(moved[0]), "die entering"));
  for (let i = 1; i < moved.length; i += 1) items.push(dieItem(dice.get(moved[i - 1]), cells.get(moved[i]), "die"));
  return [{ tag: "g", class: "ghost push", children: items }];
}

/** The palette's picture of a face: the die it becomes from the side of `step.key`. */
function picture(data, step) {
  const position = data.positions.find((p) => String(p.position) === step.key);
  const side = position?.side ?? "top";
  return { viewBox: [-0.05, -0.05, 1.1, 1.1], items: [dieItem(data.entering[side][step.choice], { x: 0, y: 0 }, "die")] };
}

function dieItem(die, cell, className) {
  const { x, y } = cell;
  const children = [{ tag: "rect", class: "die-body", attrs: { x: x + 0.03, y: y + 0.03, width: 0.94, height: 0.94, rx: 0.08 } }];
  for (const side of die.ports) {
    const [px, py, dx, dy] = PORT_MARKS[side];
    children.push({
      tag: "line",
      class: "port",
      attrs: { x1: x + px - 0.22 * dx, y1: y + py - 0.22 * dy, x2: x + px + 0.22 * dx, y2: y + py + 0.22 * dy },
    });
  }
  for (const [from, to] of die.strands) {
    const d = strandPath(x, y, from, to);
    children.push({ tag: "path", class: "strand-halo", attrs: { d } }, { tag: "path", class: "strand", attrs: { d } });
  }
  return { tag: "g", class: className, children, title: `die ${die.die}` };
}

function strandPath(x, y, from, to) {
  const [[ax, ay], [adx, ady]] = HALF_ENDS[from];
  const [[bx, by], [bdx, bdy]] = HALF_ENDS[to];
  const pull = 0.38;
  const f = (v) => Math.round(v * 1000) / 1000;
  return (
    `M${f(x + ax)},${f(y + ay)} C${f(x + ax + pull * adx)},${f(y + ay + pull * ady)} ` +
    `${f(x + bx + pull * bdx)},${f(y + by + pull * bdy)} ${f(x + bx)},${f(y + by)}`
  );
}

export { COLOURS, HINT, SCORES, describe, draw, ghost, picture, split };
