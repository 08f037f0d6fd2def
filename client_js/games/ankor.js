// Ankor on the page: the pyramid of white and blue cubes drawn from to_data's positions
// (only the faces nothing rests on), lowest level first, on the board of pyramid.js.  A move
// is a hole (add a cube) or one of your cubes then where it goes.  Knows no rules.  Imports
// the drawing helpers of board.js and pyramid.js.

import { explanationItems, labelIn, points } from "../board.js";
import { boardItems, explanationView, flip, positionShapes, pyramidViewBox, railItems } from "./pyramid.js";

const COLOURS = Object.freeze({
  white: { fill: "#f4f4f0", pattern: null, label: "White" },
  blue: { fill: "#2f6bd0", pattern: "pat-stripes", label: "Blue" },
});

const SHADE = Object.freeze({ U: 0, W: 0.1, V: 0.3 });

const HINT = "Click an empty hole to add a cube, or drag one of your cubes to where it goes.";

/** The steps of a move: the hole, or the cube then where it goes. */
function split(text) {
  if (text === "swap") return null;
  return { steps: text.split("-").map((key) => ({ key, choice: null })), ordered: true };
}

function describe(step) {
  return `position ${step.key}`;
}

function draw(data) {
  const items = boardItems(data);
  for (const position of data.positions) {
    if (position.owner === null) continue;
    const centre = flip([position.x, position.y]);
    const rhombi = rhombiAt(centre);
    const children = cubeFaces(rhombi, position.faces, COLOURS[position.owner]);
    if (position.level > 0 && position.faces.includes("U")) children.push(labelIn(rhombi.U, String(position.level), "level"));
    items.push({ tag: "g", class: `cube cube-${position.owner}`, piece: `cube-${position.label}`, children, title: `${position.owner} cube on ${position.label}` });
    if (position.last) items.push({ tag: "polygon", class: "last", attrs: { points: points(outline(centre)) } });
  }
  const shapes = positionShapes(data, "label");
  const highlights = explanationItems(data.explanation, explanationView(shapes));
  for (const [index, group] of (data.explanation?.groups ?? []).entries()) highlights.unshift(...railItems(data.frame, group.sides, `reached explained-${index}`));
  return { viewBox: pyramidViewBox(data), label: `Ankor, size ${data.size}`, items, shapes, highlights };
}

/** A cube of `colour` on `step.key`: added there, or moved there. */
function ghost(data, step, colour) {
  const position = data.positions.find((p) => p.label === step.key);
  if (position === undefined || COLOURS[colour] === undefined) return [];
  return [{ tag: "g", class: "ghost", children: cubeFaces(rhombiAt(flip([position.x, position.y])), "UWV", COLOURS[colour]) }];
}

function picture(data, step, colour) {
  return { viewBox: [-1.1, -1.1, 2.2, 2.2], items: cubeFaces(rhombiAt([0, 0]), "UWV", COLOURS[colour]) };
}

/** The three upper faces of a cube at `centre` (page coordinates). */
function rhombiAt([cx, cy]) {
  const vertex = (k) => [cx + Math.cos((Math.PI * k) / 3), cy - Math.sin((Math.PI * k) / 3)];
  return {
    U: [[cx, cy], vertex(2), vertex(3), vertex(4)],
    W: [[cx, cy], vertex(0), vertex(1), vertex(2)],
    V: [[cx, cy], vertex(4), vertex(5), vertex(0)],
  };
}

function outline([cx, cy]) {
  return [0, 1, 2, 3, 4, 5].map((k) => [cx + Math.cos((Math.PI * k) / 3), cy - Math.sin((Math.PI * k) / 3)]);
}

function cubeFaces(rhombi, faces, style) {
  const children = [];
  for (const face of faces) {
    const shape = points(rhombi[face]);
    children.push({ tag: "polygon", attrs: { points: shape, fill: style.fill } });
    if (style.pattern) children.push({ tag: "polygon", attrs: { points: shape, fill: `url(#${style.pattern})` } });
    children.push({ tag: "polygon", class: "face-edge", attrs: { points: shape, fill: `rgba(0,0,0,${SHADE[face]})` } });
  }
  return children;
}

export { COLOURS, HINT, describe, draw, ghost, picture, split };
