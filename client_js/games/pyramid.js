// The board that Boche and Ankor share: a wooden triangle of hexagonal holes whose three
// sides (U left, V bottom, W top) are rails, drawn from to_data's `frame` and `positions`
// (drawing units: hexagon circumradius 1, y pointing up in the data, down on the page).
// Knows no rules.  Imports only the drawing helpers of board.js.

import { hexagon, points, round } from "../board.js";

const RAIL_OFFSET = 0.55;

/** A point of the data (y up) on the page (y down). */
function flip([x, y]) {
  return [x, -y];
}

/** The board, its side rails and its holes (every position of level 0, under any cube). */
function boardItems(data) {
  const outline = data.frame.outline.map(flip);
  const items = [
    { tag: "polygon", class: "pyramid-board", attrs: { points: points(outline) } },
    ...railItems(data.frame, Object.keys(data.frame.sides), "rail"),
  ];
  for (const position of data.positions) {
    if (position.level !== 0) continue;
    const centre = flip([position.x, position.y]);
    const corners = hexagon(centre, 0.97);
    items.push({
      tag: "g",
      class: "hole",
      children: [
        { tag: "polygon", class: "hole-floor", attrs: { points: points(corners) } },
        // The seams where a cube's three upper edges will rest.
        ...[0, 2, 4].map((k) => ({ tag: "line", class: "hole-seam", attrs: { x1: centre[0], y1: centre[1], x2: corners[k][0], y2: corners[k][1] } })),
      ],
    });
  }
  return items;
}

/** Rails along the `sides` named (U, V, W), just outside the board. */
function railItems(frame, sides, className) {
  const items = [];
  for (const side of sides) {
    const edge = frame.sides[side];
    if (edge === undefined) continue;
    const [[x1, y1], [x2, y2]] = edge;
    const length = Math.hypot(x2 - x1, y2 - y1);
    const [nx, ny] = [(y2 - y1) / length, (x1 - x2) / length]; // outward (the outline runs anticlockwise)
    const [a, b] = [flip([x1 + RAIL_OFFSET * nx, y1 + RAIL_OFFSET * ny]), flip([x2 + RAIL_OFFSET * nx, y2 + RAIL_OFFSET * ny])];
    items.push({ tag: "line", class: `${className} side-${side}`, attrs: { x1: round(a[0]), y1: round(a[1]), x2: round(b[0]), y2: round(b[1]) } });
  }
  return items;
}

/** Each position's hexagon on the page, by label (`key` names the label field). */
function positionShapes(data, key) {
  const shapes = new Map();
  for (const position of data.positions) shapes.set(position[key], { points: hexagon(flip([position.x, position.y]), 0.9) });
  return shapes;
}

/** The viewBox around the board and its rails. */
function pyramidViewBox(data) {
  const outline = data.frame.outline.map(flip);
  const margin = 1.0;
  const xs = outline.map((p) => p[0]);
  const ys = outline.map((p) => p[1]);
  return [Math.min(...xs) - margin, Math.min(...ys) - margin, Math.max(...xs) - Math.min(...xs) + 2 * margin, Math.max(...ys) - Math.min(...ys) + 2 * margin].map(round);
}

/** What explanationItems needs to draw on this board: points flip, cells are hexagons. */
function explanationView(shapes) {
  return { at: flip, cell: (name) => shapes.get(name) ?? null, scale: 1 };
}

export { boardItems, explanationView, flip, positionShapes, pyramidViewBox, railItems };
