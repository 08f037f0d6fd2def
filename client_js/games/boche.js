// Boche on the page: the pyramid of Truchet cubes drawn from to_data's visible faces, lowest
// level first, and a move built from a position then a rotation a-h (from the legal list).
// Knows no rules.  Imports only the drawing helpers of board.js.

import { labelIn, points, sector, viewBoxAround } from "../board.js";

/** Fill and pattern of each colour name (seat colours and Truchet colours alike). */
const COLOURS = Object.freeze({
  light: { fill: "#f3e3bf", pattern: null, label: "Light" },
  dark: { fill: "#3b3026", pattern: "pat-dots", label: "Dark" },
});

/** Face shading, so the three visible faces of a cube (and so the levels) read as solid. */
const SHADE = Object.freeze({ U: 0, W: 0.12, V: 0.28 });

/** The targets of a move, in the order they are chosen: its position. */
function targets(move) {
  return [move.split(":")[1]];
}

/** The palette's name for a move once its position is chosen: its rotation. */
function choiceLabel(move) {
  return `rotation ${move.split(":")[0]}`;
}

/** The board layout: holes, faces, the last move, and `view.targets` (key -> state). */
function draw(data, view) {
  const flip = ([x, y]) => [x, -y];
  const items = [];
  const corners = [];
  for (const position of data.positions) {
    const centre = flip([position.x, position.y]);
    if (position.level === 0) corners.push([centre[0] - 1, centre[1] - 1], [centre[0] + 1, centre[1] + 1]);
    if (position.level === 0 && position.rotation === null) {
      items.push({ tag: "circle", class: "hole", attrs: { cx: centre[0], cy: centre[1], r: 0.22 } });
    }
  }
  const byPosition = new Map();
  const levels = new Map(data.positions.map((p) => [p.position, p.level]));
  for (const face of data.faces) {
    if (face === null) continue; // a hidden face keeps its slot, so diffs stay small
    const shape = face.corners.map(flip);
    const bandIndex = face.band === "TF" ? 0 : 1;
    const capIndexes = face.band === "TF" ? [1, 3] : [0, 2];
    const band = face.colours[bandIndex];
    const cap = face.colours[capIndexes[0]];
    const children = [
      { tag: "polygon", attrs: { points: points(shape), fill: COLOURS[band].fill } },
      ...capIndexes.map((i) => ({
        tag: "path",
        attrs: { d: sector(shape[i], shape[(i + 1) % 4], shape[(i + 3) % 4], edge(shape) / 2), fill: COLOURS[cap].fill },
      })),
      {
        tag: "polygon",
        class: "face-edge",
        attrs: { points: points(shape), fill: `rgba(0,0,0,${SHADE[face.face]})` },
      },
    ];
    if (face.face === "U" && (levels.get(face.position) ?? 0) > 0) children.push(labelIn(shape, String(levels.get(face.position)), "level"));
    items.push({ tag: "g", class: `face face-${face.face}`, children });
    if (!byPosition.has(face.position)) byPosition.set(face.position, []);
    byPosition.get(face.position).push(shape);
  }
  const lastPosition = data.last_move && data.last_move !== "swap" ? data.last_move.split(":")[1] : null;
  if (lastPosition !== null) {
    for (const shape of byPosition.get(lastPosition) ?? []) {
      items.push({ tag: "polygon", class: "last", attrs: { points: points(shape) } });
    }
  }
  const at = new Map(data.positions.map((p) => [p.position, flip([p.x, p.y])]));
  for (const [key, state] of view.targets) {
    const centre = at.get(key);
    if (centre === undefined) continue;
    items.push({
      tag: "circle",
      attrs: { cx: centre[0], cy: centre[1], r: 0.36 },
      target: { key, state, label: `position ${key}` },
    });
  }
  return { viewBox: viewBoxAround(corners, 0.2), label: `Boche, size ${data.size}`, items };
}

function edge(shape) {
  return Math.hypot(shape[1][0] - shape[0][0], shape[1][1] - shape[0][1]);
}

const UNORDERED = false;

export { COLOURS, UNORDERED, choiceLabel, draw, targets };
