// The generic board view: draws in SVG the plain layout a game module builds, and reports
// which target the player chose (click, or Enter/Space on a focused target).  Knows no game
// and no rules.  Pieces that carry a `piece` id and vanish from one layout to the next fade
// out briefly.  Imports nothing.
//
// A layout is {viewBox: [x, y, width, height], label, items}; an item is
// {tag, attrs, class, text, children, piece, target: {key, label, state}}.  `state` is
// "legal" (may be chosen) or "pending" (already chosen, part of a move being built).

const SVG_NS = "http://www.w3.org/2000/svg";
const FADE_MS = 900;

/** Patterns shared by every game, so colours never carry meaning alone. */
const DEFS = [
  {
    tag: "pattern",
    attrs: { id: "pat-stripes", width: 0.25, height: 0.25, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    children: [{ tag: "rect", attrs: { x: 0, y: 0, width: 0.08, height: 0.25, fill: "rgba(255,255,255,0.45)" } }],
  },
  {
    tag: "pattern",
    attrs: { id: "pat-dots", width: 0.3, height: 0.3, patternUnits: "userSpaceOnUse" },
    children: [{ tag: "circle", attrs: { cx: 0.15, cy: 0.15, r: 0.06, fill: "rgba(0,0,0,0.45)" } }],
  },
];

class BoardView {
  /** Draws into `container`; `onTarget(key)` is called when a target is chosen. */
  constructor(container, onTarget) {
    this.onTarget = onTarget;
    this.svg = document.createElementNS(SVG_NS, "svg");
    this.svg.setAttribute("class", "board");
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const defs = document.createElementNS(SVG_NS, "defs");
    for (const item of DEFS) defs.append(build(item));
    this.layer = document.createElementNS(SVG_NS, "g");
    this.fading = document.createElementNS(SVG_NS, "g");
    this.fading.setAttribute("class", "fading-layer");
    this.fading.setAttribute("aria-hidden", "true");
    this.svg.append(defs, this.layer, this.fading);
    container.append(this.svg);
    this.svg.addEventListener("click", (event) => this.chosen(event));
    this.svg.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        if (this.chosen(event)) event.preventDefault();
      }
    });
  }

  /** Replaces the drawing with `layout`, keeping the focused target focused. */
  render(layout) {
    const focused = document.activeElement?.closest?.("[data-target]")?.dataset.target ?? null;
    const before = new Map();
    for (const element of this.layer.querySelectorAll("[data-piece]")) before.set(element.dataset.piece, element);
    this.svg.setAttribute("viewBox", layout.viewBox.join(" "));
    this.svg.setAttribute("aria-label", layout.label ?? "board");
    const layer = document.createElementNS(SVG_NS, "g");
    for (const item of layout.items) layer.append(build(item));
    this.layer.replaceWith(layer);
    this.layer = layer;
    const now = new Set([...layer.querySelectorAll("[data-piece]")].map((element) => element.dataset.piece));
    for (const [id, element] of before) {
      if (!now.has(id)) this.fadeOut(element);
    }
    if (focused !== null) {
      const again = layer.querySelector(`[data-target="${CSS.escape(focused)}"]`);
      if (again !== null) again.focus();
    }
  }

  fadeOut(element) {
    element.classList.add("fading");
    element.removeAttribute("data-piece");
    for (const inner of [element, ...element.querySelectorAll("[data-target]")]) {
      for (const name of ["data-target", "tabindex", "role", "aria-label"]) inner.removeAttribute(name);
    }
    this.fading.append(element);
    setTimeout(() => element.remove(), FADE_MS);
  }

  chosen(event) {
    const element = event.target.closest?.("[data-target]");
    if (element == null || !this.svg.contains(element)) return false;
    this.onTarget(element.dataset.target);
    return true;
  }
}

/** An SVG element (with children) from a layout item. */
function build(item) {
  const element = document.createElementNS(SVG_NS, item.tag);
  for (const [name, value] of Object.entries(item.attrs ?? {})) {
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  const classes = item.class ? [item.class] : [];
  if (item.piece !== undefined) element.dataset.piece = item.piece;
  if (item.target !== undefined) {
    classes.push("target", `target-${item.target.state}`);
    element.dataset.target = item.target.key;
    element.setAttribute("tabindex", "0");
    element.setAttribute("role", "button");
    element.setAttribute("aria-label", item.target.label ?? item.target.key);
    if (item.target.state === "pending") element.setAttribute("aria-pressed", "true");
  }
  if (classes.length > 0) element.setAttribute("class", classes.join(" "));
  if (item.text !== undefined) element.textContent = item.text;
  if (item.title !== undefined) {
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = item.title;
    element.append(title);
  }
  for (const child of item.children ?? []) element.append(build(child));
  return element;
}

/** "x,y x,y ..." for a polygon's points. */
function points(corners) {
  return corners.map(([x, y]) => `${round(x)},${round(y)}`).join(" ");
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

/** The path of the disc sector of radius `r` at `centre` between the rays towards `a` and `b`. */
function sector(centre, a, b, r) {
  const [cx, cy] = centre;
  const ray = ([x, y]) => {
    const length = Math.hypot(x - cx, y - cy);
    return [(x - cx) / length, (y - cy) / length];
  };
  const [ux, uy] = ray(a);
  const [vx, vy] = ray(b);
  const sweep = ux * vy - uy * vx > 0 ? 1 : 0;
  const start = `${round(cx + r * ux)},${round(cy + r * uy)}`;
  const end = `${round(cx + r * vx)},${round(cy + r * vy)}`;
  return `M${round(cx)},${round(cy)} L${start} A${r},${r} 0 0 ${sweep} ${end} Z`;
}

/** A text item at the centre of the polygon `corners` (e.g. a stacked cube's level). */
function labelIn(corners, text, className) {
  const x = corners.reduce((sum, c) => sum + c[0], 0) / corners.length;
  const y = corners.reduce((sum, c) => sum + c[1], 0) / corners.length;
  return { tag: "text", class: className, attrs: { x: round(x), y: round(y + 0.14) }, text };
}

/** The viewBox around `corners` with a margin. */
function viewBoxAround(corners, margin) {
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const minX = Math.min(...xs) - margin;
  const minY = Math.min(...ys) - margin;
  return [minX, minY, Math.max(...xs) + margin - minX, Math.max(...ys) + margin - minY].map(round);
}

export { BoardView, labelIn, points, round, sector, viewBoxAround };
