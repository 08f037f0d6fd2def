// The generic board view: draws in SVG the scene a game page builds (the game module's
// drawing of the board and pieces, an overlay of previews and highlights, and the targets a
// player may choose), and turns pointer, wheel, touch and keyboard input into what the
// player means: hover a target, choose one, drag from one to another, cycle the choices at a
// target, cancel.  Knows no game and no rules.  Pieces that carry a `piece` id and vanish
// from one scene to the next fade out.  Imports nothing.
//
// A scene is {viewBox: [x, y, width, height], label, items, overlay, targets}.  An item is
// {tag, attrs, class, text, title, children, piece}; a target is {key, shape, state, label,
// mark}, where a shape is {points: [[x, y], ...]} or {circle: [cx, cy, r]}, `state` is
// "next" (may be chosen now), "pending" (chosen, part of the move being built) or "idle"
// (may be chosen, but the page draws no mark), and `mark` is "dot" (a spot at its centre) or
// null.
//
// Input: a mouse click chooses ("mouse"), a tap chooses ("touch"), Enter on the focused
// target chooses ("key"); pressing on one target and letting go on another is a drag.  The
// arrow keys move a visible focus over the targets, R or space cycles the choices at the
// focused (or hovered) target, the wheel cycles them under the pointer, Escape cancels.  A
// tap on a board whose targets are smaller than a finger zooms in on the region first.

const SVG_NS = "http://www.w3.org/2000/svg";
const FADE_MS = 900;
const FINGER_PX = 40; // targets smaller than this on a touch screen: zoom in first
const ZOOM_TO_PX = 56;

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
    children: [{ tag: "circle", attrs: { cx: 0.15, cy: 0.15, r: 0.06, fill: "rgba(255,255,255,0.22)" } }],
  },
  {
    tag: "radialGradient",
    attrs: { id: "hole-shade", cx: "50%", cy: "45%", r: "60%" },
    children: [
      { tag: "stop", attrs: { offset: "0%", "stop-color": "#8a6a3e" } },
      { tag: "stop", attrs: { offset: "100%", "stop-color": "#b08b57" } },
    ],
  },
  {
    tag: "linearGradient",
    attrs: { id: "wood", x1: "0", y1: "0", x2: "1", y2: "1" },
    children: [
      { tag: "stop", attrs: { offset: "0%", "stop-color": "#e2c48f" } },
      { tag: "stop", attrs: { offset: "100%", "stop-color": "#cfa96c" } },
    ],
  },
  {
    tag: "filter",
    attrs: { id: "glow", x: "-50%", y: "-50%", width: "200%", height: "200%" },
    children: [
      { tag: "feGaussianBlur", attrs: { in: "SourceGraphic", stdDeviation: 0.08, result: "blur" } },
      { tag: "feMerge", children: [{ tag: "feMergeNode", attrs: { in: "blur" } }, { tag: "feMergeNode", attrs: { in: "SourceGraphic" } }] },
    ],
  },
];

class BoardView {
  /**
   * Draws into `container`.  `handlers` (all optional): hover(key | null), choose(key, how),
   * drag(fromKey, toKey), cycle(delta, key) -> whether it cycled, cancel().
   */
  constructor(container, handlers) {
    this.handlers = handlers;
    this.scene = null;
    this.zoom = null; // a viewBox showing part of the board, after a tap on small targets
    this.hovered = null;
    this.pressed = null; // {key, pointerType} between pointerdown and pointerup
    this.focusKey = null; // the target the arrow keys start from
    this.justZoomed = false;
    this.svg = document.createElementNS(SVG_NS, "svg");
    this.svg.setAttribute("class", "board");
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const defs = document.createElementNS(SVG_NS, "defs");
    for (const item of DEFS) defs.append(build(item));
    this.layer = document.createElementNS(SVG_NS, "g");
    this.overlay = document.createElementNS(SVG_NS, "g");
    this.overlay.setAttribute("class", "overlay");
    this.targetLayer = document.createElementNS(SVG_NS, "g");
    this.targetLayer.setAttribute("class", "targets");
    this.fading = document.createElementNS(SVG_NS, "g");
    this.fading.setAttribute("class", "fading-layer");
    this.fading.setAttribute("aria-hidden", "true");
    this.svg.append(defs, this.layer, this.fading, this.overlay, this.targetLayer);
    this.unzoomButton = document.createElement("button");
    this.unzoomButton.type = "button";
    this.unzoomButton.className = "unzoom";
    this.unzoomButton.textContent = "Whole board";
    this.unzoomButton.hidden = true;
    this.unzoomButton.addEventListener("click", () => this.zoomOut());
    container.append(this.svg, this.unzoomButton);
    this.listen();
  }

  /**
   * Draws `scene`.  The board layer is redrawn only when its items change (a new array);
   * targets that stay keep their elements, so the pointer and the keyboard focus stay on
   * them while the overlay follows the pointer.
   */
  render(scene) {
    const focused = this.svg.contains(document.activeElement) ? document.activeElement.closest?.("[data-target]")?.dataset.target ?? null : null;
    const previous = this.scene;
    this.scene = scene;
    const [, , width, height] = scene.viewBox;
    this.svg.style.aspectRatio = `${width} / ${height}`;
    this.svg.setAttribute("viewBox", (this.zoom ?? scene.viewBox).join(" "));
    this.svg.setAttribute("aria-label", scene.label ?? "board");
    if (previous === null || previous.items !== scene.items) {
      const before = new Map();
      for (const element of this.layer.querySelectorAll("[data-piece]")) before.set(element.dataset.piece, element);
      const layer = group(scene.items);
      this.layer.replaceWith(layer);
      this.layer = layer;
      const now = new Set([...layer.querySelectorAll("[data-piece]")].map((element) => element.dataset.piece));
      for (const [id, element] of before) if (!now.has(id)) this.fadeOut(element);
    }
    const overlay = group(scene.overlay ?? [], "overlay");
    this.overlay.replaceWith(overlay);
    this.overlay = overlay;
    this.renderTargets(scene.targets ?? []);
    this.keepTargetsInView(scene.targets ?? []);
    this.rove(focused);
  }

  /** After a zoom, the next step's targets (a second tile, where a cube goes) may lie beyond
   * the zoomed part: the zoom moves to show them all, or, when they do not fit in it, gives
   * way to the whole board (a tap there zooms in again). */
  keepTargetsInView(targets) {
    if (this.zoom === null || targets.length === 0 || this.scene === null) return;
    const [zx, zy, zw, zh] = this.zoom;
    const reach = targets.map((target) => [...shapeCentre(target.shape), shapeRadius(target.shape) * 1.2]);
    const minX = Math.min(...reach.map(([x, , r]) => x - r));
    const maxX = Math.max(...reach.map(([x, , r]) => x + r));
    const minY = Math.min(...reach.map(([, y, r]) => y - r));
    const maxY = Math.max(...reach.map(([, y, r]) => y + r));
    if (minX >= zx && maxX <= zx + zw && minY >= zy && maxY <= zy + zh) return;
    if (maxX - minX > zw || maxY - minY > zh) {
      this.zoomOut();
      return;
    }
    const [vx, vy, vw, vh] = this.scene.viewBox;
    const clamp = (value, low, high) => Math.min(Math.max(value, low), high);
    const left = clamp(Math.min(zx, minX), vx, vx + vw - zw);
    const top = clamp(Math.min(zy, minY), vy, vy + vh - zh);
    this.zoom = [Math.max(left, maxX - zw), Math.max(top, maxY - zh), zw, zh].map(round);
    this.svg.setAttribute("viewBox", this.zoom.join(" "));
  }

  /** The targets' elements: kept where a target stays (same key and shape), else made. */
  renderTargets(targets) {
    const old = new Map([...this.targetLayer.children].map((element) => [element.dataset.target, element]));
    const elements = targets.map((target) => {
      const kept = old.get(target.key);
      const made = targetElement(target);
      if (kept !== undefined && kept.dataset.shape === made.dataset.shape) {
        for (const name of ["class", "aria-label", "aria-pressed"]) {
          if (made.hasAttribute(name)) kept.setAttribute(name, made.getAttribute(name));
          else kept.removeAttribute(name);
        }
        kept.replaceChildren(...made.childNodes);
        return kept;
      }
      return made;
    });
    this.targetLayer.replaceChildren(...elements);
  }

  /** Shows the whole board again after a zoom. */
  zoomOut() {
    if (this.zoom === null) return;
    this.zoom = null;
    this.unzoomButton.hidden = true;
    if (this.scene !== null) this.svg.setAttribute("viewBox", this.scene.viewBox.join(" "));
  }

  get zoomed() {
    return this.zoom !== null;
  }

  /** Moves the keyboard focus to the target `key` (and makes it the tab stop). */
  focusTarget(key) {
    const element = this.targetElementOf(key);
    if (element === null) return;
    this.rove(key);
    element.focus();
  }

  // --- input --------------------------------------------------------------------------------

  listen() {
    const svg = this.svg;
    svg.addEventListener("pointermove", (event) => {
      if (event.pointerType === "touch") return;
      this.hover(this.keyAt(event.clientX, event.clientY));
    });
    svg.addEventListener("pointerleave", (event) => {
      if (event.pointerType !== "touch") this.hover(null);
    });
    svg.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      this.pressed = { key: this.keyAt(event.clientX, event.clientY), pointerType: event.pointerType, x: event.clientX, y: event.clientY };
    });
    svg.addEventListener("pointerup", (event) => {
      const pressed = this.pressed;
      this.pressed = null;
      if (pressed === null) return;
      const key = this.keyAt(event.clientX, event.clientY);
      if (pressed.pointerType === "touch" && this.zoomFirst(key ?? pressed.key, event.clientX, event.clientY)) {
        this.justZoomed = true; // the tap's click would land on what the zoom put there
        return;
      }
      if (pressed.key !== null && key !== null && key !== pressed.key) this.handlers.drag?.(pressed.key, key);
      else if (key !== null) this.handlers.choose?.(key, pressed.pointerType === "touch" ? "touch" : "mouse");
      else if (pressed.key === null) this.handlers.cancel?.();
    });
    svg.addEventListener(
      "touchend",
      (event) => {
        if (this.justZoomed) event.preventDefault();
        this.justZoomed = false;
      },
      { passive: false },
    );
    svg.addEventListener(
      "wheel",
      (event) => {
        const key = this.keyAt(event.clientX, event.clientY);
        if (key === null || event.deltaY === 0) return;
        if (this.handlers.cycle?.(event.deltaY > 0 ? 1 : -1, key)) event.preventDefault();
      },
      { passive: false },
    );
    svg.addEventListener("focusin", (event) => {
      const key = event.target.closest?.("[data-target]")?.dataset.target;
      if (key !== undefined) {
        this.focusKey = key;
        this.hover(key);
      }
    });
    svg.addEventListener("keydown", (event) => this.key(event));
  }

  key(event) {
    const key = document.activeElement?.closest?.("[data-target]")?.dataset.target ?? null;
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (event.key in arrows) {
      const next = this.neighbourOf(key, arrows[event.key]);
      if (next !== null) this.focusTarget(next);
    } else if (event.key === "Enter" && key !== null) {
      this.handlers.choose?.(key, "key");
    } else if ((event.key === " " || event.key === "r" || event.key === "R") && key !== null) {
      this.handlers.cycle?.(event.shiftKey ? -1 : 1, key);
    } else if (event.key === "Escape") {
      this.handlers.cancel?.();
    } else {
      return;
    }
    // Handled here: the page's own keys (the arrows step through the moves) do not see it.
    event.preventDefault();
    event.stopPropagation();
  }

  hover(key) {
    if (key === this.hovered) return;
    this.hovered = key;
    this.handlers.hover?.(key);
  }

  /** The target under a point of the screen, or null. */
  keyAt(x, y) {
    for (const element of document.elementsFromPoint(x, y)) {
      if (!this.svg.contains(element)) continue;
      const target = element.closest("[data-target]");
      if (target !== null && this.targetLayer.contains(target)) return target.dataset.target;
    }
    return null;
  }

  /** On a touch screen, a tap on targets smaller than a finger zooms in on them first. */
  zoomFirst(key, x, y) {
    if (this.zoom !== null || key === null || this.scene === null) return false;
    const element = this.targetElementOf(key);
    if (element === null) return false;
    const box = element.getBoundingClientRect();
    const size = Math.min(box.width, box.height);
    if (size >= FINGER_PX) return false;
    const scale = Math.min(4, ZOOM_TO_PX / Math.max(size, 1));
    const [vx, vy, vw, vh] = this.scene.viewBox;
    const svgBox = this.svg.getBoundingClientRect();
    const px = vx + ((x - svgBox.left) / svgBox.width) * vw;
    const py = vy + ((y - svgBox.top) / svgBox.height) * vh;
    const [w, h] = [vw / scale, vh / scale];
    const left = Math.min(Math.max(px - w / 2, vx), vx + vw - w);
    const top = Math.min(Math.max(py - h / 2, vy), vy + vh - h);
    this.zoom = [left, top, w, h].map(round);
    this.svg.setAttribute("viewBox", this.zoom.join(" "));
    this.unzoomButton.hidden = false;
    return true;
  }

  /** The target nearest `from` in direction `[dx, dy]` (screen axes), or the first one. */
  neighbourOf(from, [dx, dy]) {
    const elements = [...this.targetLayer.querySelectorAll("[data-target]")];
    if (elements.length === 0) return null;
    const start = from === null ? null : this.targetElementOf(from);
    if (start === null) return elements[0].dataset.target;
    const centre = (element) => {
      const box = element.getBoundingClientRect();
      return [box.left + box.width / 2, box.top + box.height / 2];
    };
    const [sx, sy] = centre(start);
    let best = null;
    let bestScore = Infinity;
    for (const element of elements) {
      if (element === start) continue;
      const [x, y] = centre(element);
      const [vx, vy] = [x - sx, y - sy];
      const distance = Math.hypot(vx, vy);
      const along = (vx * dx + vy * dy) / (distance || 1);
      if (distance < 1 || along < 0.5) continue; // within 60 degrees of the arrow
      const score = distance * (2 - along);
      if (score < bestScore) {
        bestScore = score;
        best = element.dataset.target;
      }
    }
    return best;
  }

  targetElementOf(key) {
    return this.targetLayer.querySelector(`[data-target="${CSS.escape(key)}"]`);
  }

  /** One target is the tab stop: the focused one, else the last focused, else the first. */
  rove(focused) {
    const elements = [...this.targetLayer.querySelectorAll("[data-target]")];
    const wanted = focused ?? this.focusKey;
    let stop = elements.find((element) => element.dataset.target === wanted) ?? elements[0];
    for (const element of elements) element.setAttribute("tabindex", element === stop ? "0" : "-1");
    if (focused !== null && stop !== undefined && stop.dataset.target === focused) stop.focus();
  }

  fadeOut(element) {
    element.classList.add("fading");
    element.removeAttribute("data-piece");
    this.fading.append(element);
    setTimeout(() => element.remove(), FADE_MS);
  }
}

/** A group of items. */
function group(items, className = null) {
  const layer = document.createElementNS(SVG_NS, "g");
  if (className !== null) layer.setAttribute("class", className);
  for (const item of items) layer.append(build(item));
  return layer;
}

/** The element of one target: its hit area (the whole cell) and its mark. */
function targetElement(target) {
  const element = document.createElementNS(SVG_NS, "g");
  element.setAttribute("class", `target target-${target.state}`);
  element.dataset.target = target.key;
  element.setAttribute("role", "button");
  element.setAttribute("tabindex", "-1");
  element.setAttribute("aria-label", target.label ?? target.key);
  if (target.state === "pending") element.setAttribute("aria-pressed", "true");
  const hit = build({ ...shapeItem(target.shape), class: "hit" });
  element.dataset.shape = hit.getAttribute("points") ?? hit.getAttribute("r") + hit.getAttribute("cx") + hit.getAttribute("cy");
  element.append(hit);
  if (target.mark === "dot") {
    const [cx, cy] = shapeCentre(target.shape);
    element.append(build({ tag: "circle", class: "mark", attrs: { cx, cy, r: round(shapeRadius(target.shape) * 0.28) } }));
  }
  return element;
}

/** An SVG element (with children) from a layout item. */
function build(item) {
  const element = document.createElementNS(SVG_NS, item.tag);
  for (const [name, value] of Object.entries(item.attrs ?? {})) {
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  if (item.class) element.setAttribute("class", item.class);
  if (item.piece !== undefined) element.dataset.piece = item.piece;
  if (item.text !== undefined) element.textContent = item.text;
  if (item.title !== undefined) {
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = item.title;
    element.append(title);
  }
  for (const child of item.children ?? []) element.append(build(child));
  return element;
}

/** The item that draws a shape. */
function shapeItem(shape) {
  if (shape.circle !== undefined) {
    const [cx, cy, r] = shape.circle;
    return { tag: "circle", attrs: { cx: round(cx), cy: round(cy), r: round(r) } };
  }
  return { tag: "polygon", attrs: { points: points(shape.points) } };
}

function shapeCentre(shape) {
  if (shape.circle !== undefined) return [shape.circle[0], shape.circle[1]];
  const n = shape.points.length;
  return [shape.points.reduce((s, p) => s + p[0], 0) / n, shape.points.reduce((s, p) => s + p[1], 0) / n];
}

/** About half the width of a shape. */
function shapeRadius(shape) {
  if (shape.circle !== undefined) return shape.circle[2];
  const [cx, cy] = shapeCentre(shape);
  return Math.min(...shape.points.map(([x, y]) => Math.hypot(x - cx, y - cy)));
}

/**
 * The items that show why a game ended (to_data's `explanation`, see rules/api.py): each
 * group's cells outlined, its links and points, in its colour's accent.  `view` maps the
 * game's coordinates: {at([x, y]) -> [x, y], cell(name) -> shape or null, scale}.
 */
function explanationItems(explanation, view) {
  const items = [];
  for (const [index, g] of (explanation?.groups ?? []).entries()) {
    const tone = `explained explained-${index}`;
    for (const name of g.cells ?? []) {
      const shape = view.cell(name);
      if (shape !== null) items.push({ ...shapeItem(shape), class: `${tone} explained-cell` });
    }
    for (const [a, b] of g.links ?? []) {
      const [x1, y1] = view.at(a);
      const [x2, y2] = view.at(b);
      items.push({ tag: "line", class: `${tone} explained-link`, attrs: { x1: round(x1), y1: round(y1), x2: round(x2), y2: round(y2) } });
    }
    for (const p of g.points ?? []) {
      const [cx, cy] = view.at(p);
      items.push({ tag: "circle", class: `${tone} explained-point`, attrs: { cx: round(cx), cy: round(cy), r: round(0.13 * (view.scale ?? 1)) } });
    }
  }
  return items;
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

/** A hexagon of circumradius `r` around `[cx, cy]`, a vertex pointing right (y down). */
function hexagon([cx, cy], r = 1) {
  return [0, 1, 2, 3, 4, 5].map((k) => [round(cx + r * Math.cos((Math.PI * k) / 3)), round(cy - r * Math.sin((Math.PI * k) / 3))]);
}

export { BoardView, build, explanationItems, hexagon, labelIn, points, round, sector, shapeCentre, shapeItem, viewBoxAround };
