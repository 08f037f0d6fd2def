// Osbox on the page: the N x N board, the side positions a die is pushed from, and every
// die's ports and strands (which show its orientation); a move is a side position then a
// face a-f.  The dice the last move captured stay as a faint trace.  Knows no rules.
// Imports only the drawing helpers of board.js.

const COLOURS = Object.freeze({
  horz: { fill: "#d9822b", pattern: null, label: "Horz" },
  vert: { fill: "#2f6bd0", pattern: "pat-stripes", label: "Vert" },
});

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

/** A move's target: its side position. */
function targets(move) {
  return [move.slice(1)];
}

function choiceLabel(move) {
  return `face ${move[0]}`;
}

function draw(data, view) {
  const items = [];
  const n = data.size;
  for (const cell of data.cells) {
    items.push({ tag: "rect", class: "cell", attrs: { x: cell.x, y: cell.y, width: 1, height: 1 } });
  }
  const positions = new Map();
  for (const position of data.positions) {
    positions.set(String(position.position), position);
    const seat = position.seats.length === 1 ? position.seats[0] : "both";
    items.push({
      tag: "g",
      class: `side side-${seat}`,
      children: [
        { tag: "rect", attrs: { x: position.x + 0.08, y: position.y + 0.08, width: 0.84, height: 0.84, rx: 0.1 } },
        { tag: "text", class: "side-number", attrs: { x: position.x + 0.5, y: position.y + 0.6 }, text: String(position.position) },
      ],
    });
  }
  const cells = new Map(data.cells.map((c) => [c.cell, c]));
  for (const die of data.removed ?? []) items.push(dieItem(die, cells.get(die.cell), "die trace"));
  for (const die of data.dice) items.push(dieItem(die, cells.get(die.cell), "die"));
  const lastPosition = data.last_move ? positions.get(data.last_move.slice(1)) : undefined;
  if (lastPosition !== undefined) {
    const entry = cells.get(lastPosition.cell);
    items.push({ tag: "rect", class: "last", attrs: { x: entry.x + 0.05, y: entry.y + 0.05, width: 0.9, height: 0.9 } });
    items.push({ tag: "rect", class: "last", attrs: { x: lastPosition.x + 0.1, y: lastPosition.y + 0.1, width: 0.8, height: 0.8, rx: 0.1 } });
  }
  for (const [key, state] of view.targets) {
    const position = positions.get(key);
    if (position === undefined) continue;
    items.push({
      tag: "rect",
      attrs: { x: position.x + 0.14, y: position.y + 0.14, width: 0.72, height: 0.72, rx: 0.12 },
      target: { key, state, label: `side position ${key}` },
    });
  }
  return { viewBox: [-1.2, -1.2, n + 2.4, n + 2.4], label: `Osbox, ${n} by ${n}`, items };
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

const UNORDERED = false;

export { COLOURS, UNORDERED, choiceLabel, draw, targets };
