// Boche on the page: the pyramid of Truchet cubes drawn from to_data's visible faces, lowest
// level first, on the board of pyramid.js.  A move is a hole or pit and one of the rotations
// that may go there: a step whose choice is the rotation, previewed as the cube itself from
// to_data's `cubes`.  Knows no rules.  Imports the drawing helpers of board.js and
// pyramid.js.

import { explanationItems, labelIn, points, sector } from "../board.js";
import { boardItems, explanationView, flip, positionShapes, pyramidViewBox, railItems } from "./pyramid.js";

/** Fill and pattern of each colour name (seat colours and Truchet colours alike). */
const COLOURS = Object.freeze({
  light: { fill: "#f3e3bf", pattern: null, label: "Light" },
  dark: { fill: "#3b3026", pattern: "pat-dots", label: "Dark" },
});

/** Face shading, so the three visible faces of a cube (and so the levels) read as solid. */
const SHADE = Object.freeze({ U: 0, W: 0.12, V: 0.28 });

const HINT = "Point at a hole to see the cube; turn it with the wheel or R, click to place it.";

/** The steps of a move: its position, with the rotation as the choice there. */
function split(text) {
  const match = /^([a-h]):(\S+)$/.exec(text);
  return match === null ? null : { steps: [{ key: match[2], choice: match[1] }], ordered: true };
}

function describe(step) {
  return step.choice === null ? `position ${step.key}` : `rotation ${step.choice} on ${step.key}`;
}

/** The board, the cubes and the last move; the targets' shapes; why the game ended. */
function draw(data) {
  const items = boardItems(data);
  const byPosition = new Map();
  const levels = new Map(data.positions.map((p) => [p.position, p.level]));
  for (const face of data.faces) {
    if (face === null) continue; // a hidden face keeps its slot, so diffs stay small
    const shape = face.corners.map(flip);
    const children = faceItems(shape, face);
    if (face.face === "U" && (levels.get(face.position) ?? 0) > 0) children.push(labelIn(shape, String(levels.get(face.position)), "level"));
    items.push({ tag: "g", class: `face face-${face.face}`, children });
    if (!byPosition.has(face.position)) byPosition.set(face.position, []);
    byPosition.get(face.position).push(shape);
  }
  const lastPosition = data.last_move && data.last_move !== "swap" ? data.last_move.split(":")[1] : null;
  for (const shape of byPosition.get(lastPosition) ?? []) items.push({ tag: "polygon", class: "last", attrs: { points: points(shape) } });
  const shapes = positionShapes(data, "position");
  const highlights = explanationItems(data.explanation, explanationView(shapes));
  for (const [index, group] of (data.explanation?.groups ?? []).entries()) highlights.unshift(...railItems(data.frame, group.sides, `reached explained-${index}`));
  return { viewBox: pyramidViewBox(data), label: `Boche, size ${data.size}`, items, shapes, highlights };
}

/** A cube of the rotation `step.choice` on `step.key`, as it would lie there. */
function ghost(data, step) {
  const position = data.positions.find((p) => p.position === step.key);
  if (position === undefined || step.choice === null) return [];
  return [{ tag: "g", class: "ghost", children: cubeItems(data.cubes[step.choice], [position.x, position.y]) }];
}

/** The palette's picture of a rotation: the cube alone. */
function picture(data, step) {
  return { viewBox: [-1.1, -1.1, 2.2, 2.2], items: cubeItems(data.cubes[step.choice], [0, 0]) };
}

function cubeItems(faces, [x, y]) {
  return faces.map((face) => {
    const shape = face.corners.map(([dx, dy]) => flip([x + dx, y + dy]));
    return { tag: "g", class: `face face-${face.face}`, children: faceItems(shape, face) };
  });
}

/** A Truchet face: the band's colour, the two caps, the shading and the edge. */
function faceItems(shape, face) {
  const bandIndex = face.band === "TF" ? 0 : 1;
  const capIndexes = face.band === "TF" ? [1, 3] : [0, 2];
  const band = face.colours[bandIndex];
  const cap = face.colours[capIndexes[0]];
  return [
    { tag: "polygon", attrs: { points: points(shape), fill: COLOURS[band].fill } },
    ...capIndexes.map((i) => ({
      tag: "path",
      attrs: { d: sector(shape[i], shape[(i + 1) % 4], shape[(i + 3) % 4], edge(shape) / 2), fill: COLOURS[cap].fill },
    })),
    { tag: "polygon", class: "face-edge", attrs: { points: points(shape), fill: `rgba(0,0,0,${SHADE[face.face]})` } },
  ];
}

function edge(shape) {
  return Math.hypot(shape[1][0] - shape[0][0], shape[1][1] - shape[0][1]);
}

export { COLOURS, HINT, describe, draw, ghost, picture, split };
