// Ankor on the page: the pyramid of white and blue cubes drawn from to_data's positions
// (only the faces nothing rests on), lowest level first; a move is a hole (add) or a cube
// then its destination.  Knows no rules.  Imports only the drawing helpers of board.js.

import { labelIn, points, viewBoxAround } from "../board.js";

const COLOURS = Object.freeze({
  white: { fill: "#f4f4f0", pattern: null, label: "White" },
  blue: { fill: "#2f6bd0", pattern: "pat-stripes", label: "Blue" },
});

const SHADE = Object.freeze({ U: 0, W: 0.1, V: 0.3 });

/** A move's targets in the order they are chosen: the hole, or the cube then where it goes. */
function targets(move) {
  return move.split("-");
}

function choiceLabel(move) {
  return move.includes("-") ? `move ${move}` : `add ${move}`;
}

function draw(data, view) {
  const r = data.radius;
  const items = [];
  const corners = [];
  const at = new Map();
  for (const position of data.positions) {
    const [cx, cy] = [position.x, -position.y];
    at.set(position.label, [cx, cy]);
    const vertex = (k) => [cx + r * Math.cos((Math.PI * k) / 3), cy - r * Math.sin((Math.PI * k) / 3)];
    if (position.level === 0) corners.push(vertex(0), vertex(1), vertex(3), vertex(4));
    if (position.owner === null) {
      if (position.level === 0) items.push({ tag: "circle", class: "hole", attrs: { cx, cy, r: 0.22 } });
      continue;
    }
    const rhombi = {
      U: [[cx, cy], vertex(2), vertex(3), vertex(4)],
      W: [[cx, cy], vertex(0), vertex(1), vertex(2)],
      V: [[cx, cy], vertex(4), vertex(5), vertex(0)],
    };
    const style = COLOURS[position.owner];
    const children = [];
    for (const face of position.faces) {
      const shape = points(rhombi[face]);
      children.push({ tag: "polygon", attrs: { points: shape, fill: style.fill } });
      if (style.pattern) children.push({ tag: "polygon", attrs: { points: shape, fill: `url(#${style.pattern})` } });
      children.push({ tag: "polygon", class: "face-edge", attrs: { points: shape, fill: `rgba(0,0,0,${SHADE[face]})` } });
    }
    if (position.level > 0 && position.faces.includes("U")) children.push(labelIn(rhombi.U, String(position.level), "level"));
    items.push({ tag: "g", class: `cube cube-${position.owner}`, piece: `cube-${position.label}`, children, title: `${position.owner} cube on ${position.label}` });
    if (position.last) {
      const outline = [vertex(0), vertex(1), vertex(2), vertex(3), vertex(4), vertex(5)];
      items.push({ tag: "polygon", class: "last", attrs: { points: points(outline) } });
    }
  }
  for (const [key, state] of view.targets) {
    const centre = at.get(key);
    if (centre === undefined) continue;
    items.push({
      tag: "circle",
      attrs: { cx: centre[0], cy: centre[1], r: 0.36 },
      target: { key, state, label: `position ${key}` },
    });
  }
  return { viewBox: viewBoxAround(corners, 0.3), label: `Ankor, size ${data.size}`, items };
}

const UNORDERED = false;

export { COLOURS, UNORDERED, choiceLabel, draw, targets };
