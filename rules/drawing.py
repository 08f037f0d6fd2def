"""SVG drawings of positions, and the figures of the rules pages (``docs/rules/*.svg``).

A drawing is made from the plain data of a game's ``to_data``, the same data the browser's
game page draws from, and follows that page's look (``client_js/board.js`` and
``client_js/games/*.js``): the same shapes, colours and patterns, as a standalone SVG
document that carries its own styles.  :func:`figures` builds every figure of the rules
pages from the engines themselves, so a figure cannot drift from the rules; a test
regenerates them and :mod:`rules.cli` (``python -m rules figures``) writes them.

Pure string building.  Imports :mod:`rules` and its game modules (for positions set up by
hand) and the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rules import ankor, boche, che, find_game, marque, osbox
from rules.api import GameRules, PlainData

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Panel:
    """One picture of a figure: SVG elements in drawing units, the box they fill
    ``(x, y, width, height)``, and a caption written under it."""

    box: tuple[float, float, float, float]
    shapes: tuple[str, ...]
    caption: str = ""


# --- the look of the game page ----------------------------------------------------------------

FILLS = {
    "light": "#f3e3bf",
    "dark": "#3b3026",
    "white_cube": "#f4f4f0",
    "blue": "#2f6bd0",
    "white_piece": "#fafaf7",
    "black": "#1d1d1d",
    "horz": "#d9822b",
    "vert": "#2f6bd0",
}
"""The colours of client_js/games/*.js (COLOURS)."""

FACE_SHADE = {"boche": {"U": 0.0, "W": 0.12, "V": 0.28}, "ankor": {"U": 0.0, "W": 0.1, "V": 0.3}}
"""Darkening of each visible face, so the three faces of a cube read as a solid."""

BASE_TINT = {
    "A": "#e9d3a0",
    "B": "#c9dfb0",
    "C": "#b7d3e6",
    "D": "#e3c2d9",
    "E": "#d8c9a9",
    "F": "#bfe0d7",
    "G": "#d9d0ec",
}
"""Marque's base tints; the base letters are drawn too, so the tint is never the only cue."""

STYLE = """
text { font-family: system-ui, sans-serif; }
.caption { text-anchor: middle; fill: #1f1f1f; }
.label { font-size: 0.3px; text-anchor: middle; fill: #555; }
.hole { fill: #d9d3c5; stroke: #8c8472; stroke-width: 0.04; }
.hole-outline { fill: none; stroke: #b8b09b; stroke-width: 0.03; }
.position-outline { fill: #f7f4ec; stroke: #6d6553; stroke-width: 0.04; }
.face-edge, .tile-edge { stroke: #1b1b1b; stroke-width: 0.035; stroke-linejoin: round; }
.tile-edge { fill: none; }
.tile-number { font-size: 0.26px; text-anchor: middle; fill: #888; }
.candidate { fill: none; stroke: #9d9684; stroke-width: 0.03; stroke-dasharray: 0.08 0.06; }
.last { fill: none; stroke: #b3261e; stroke-width: 0.09; stroke-dasharray: 0.18 0.08; }
.level { font-size: 0.42px; font-weight: 700; text-anchor: middle; fill: #fff; stroke: #000;
  stroke-width: 0.06; paint-order: stroke; }
.cell { fill: #efe9d8; stroke: #6d6553; stroke-width: 0.03; }
.side rect { fill: #f7f4ec; stroke: #b8b09b; stroke-width: 0.02; }
.side-horz rect { fill: #fbe3cc; stroke: #d9822b; }
.side-vert rect { fill: #d6e3f7; stroke: #2f6bd0; stroke-dasharray: 0.08 0.04; }
.side-number { font-size: 0.3px; text-anchor: middle; fill: #555; }
.die-body { fill: #fffdf7; stroke: #333; stroke-width: 0.04; }
.port { stroke: #333; stroke-width: 0.05; }
.strand-halo { fill: none; stroke: #fffdf7; stroke-width: 0.13; }
.strand { fill: none; stroke: #5a3b1a; stroke-width: 0.06; stroke-linecap: round; }
.trace { opacity: 0.3; }
.trace .die-body { stroke-dasharray: 0.06 0.05; }
.cell-square { fill: #f6f3ea; }
.cell-iso-tri { fill: #e8e2d3; }
polygon.cell { stroke: #6d6553; stroke-width: 0.025; }
.base-letter { font-size: 0.42px; font-weight: 700; text-anchor: middle;
  fill: rgba(40, 30, 10, 0.6); }
.cell-label { font-size: 0.19px; text-anchor: middle; fill: #555; }
.piece circle { stroke: #111; stroke-width: 0.04; }
.piece.winning circle:first-child { stroke: #b3261e; stroke-width: 0.08; }
"""
"""The rules of client_js/style.css that the drawings use, plus labels and captions."""

PATTERNS = (
    '<pattern id="pat-stripes" width="0.25" height="0.25" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)"><rect x="0" y="0" width="0.08" height="0.25"'
    ' fill="rgba(255,255,255,0.45)"/></pattern>'
)
"""The stripes that mark Ankor's Blue cubes and Marque's Black pieces (board.js DEFS)."""


CAPTION_PIXELS = 15
"""Captions are this many pixels high whatever the figure's scale."""


# --- documents ----------------------------------------------------------------------------------


def document(title: str, panels: Sequence[Panel], scale: float, columns: int = 0) -> str:
    """A standalone SVG of ``panels`` side by side (``columns`` to a row, 0 = all in one row),
    each with its caption below, at ``scale`` pixels per drawing unit."""
    gap = 0.6
    font = CAPTION_PIXELS / scale
    caption_height = 1.6 * font if any(panel.caption for panel in panels) else 0.0
    per_row = columns or len(panels)
    rows = [panels[i : i + per_row] for i in range(0, len(panels), per_row)]
    placed: list[str] = []
    width = 0.0
    top = 0.0
    for row in rows:
        height = max(panel.box[3] for panel in row)
        left = 0.0
        for panel in row:
            x, y, w, h = panel.box
            # A caption wider than its picture widens the picture's slot.
            slot = max(w, 0.56 * font * len(panel.caption))
            dx, dy = left + (slot - w) / 2 - x, top + (height - h) / 2 - y
            body = "".join(panel.shapes)
            placed.append(f'<g transform="translate({_n(dx)},{_n(dy)})">{body}</g>')
            if panel.caption:
                at = {"x": left + slot / 2, "y": top + height + 1.2 * font, "font-size": font}
                placed.append(_tag("text", {"class": "caption", **at}, text=panel.caption))
            left += slot + gap
        width = max(width, left - gap)
        top += height + caption_height + gap
    height = top - gap
    return (
        '<svg xmlns="http://www.w3.org/2000/svg"'
        f' viewBox="0 0 {_n(width)} {_n(height)}"'
        f' width="{round(width * scale)}" height="{round(height * scale)}"'
        ' role="img" aria-labelledby="title">\n'
        f'<title id="title">{escape(title)}</title>\n'
        f"<style>{STYLE}</style>\n"
        f"<defs>{PATTERNS}</defs>\n" + "\n".join(placed) + "\n</svg>\n"
    )


def position_svg(game: GameRules, state: Any, labels: bool = False) -> str:
    """A standalone SVG of one position of ``game`` (``labels``: name every cell)."""
    data = game.to_data(state)
    title = f"{game.NAME.title()} position"
    if data.get("last_move"):
        title += f" after {data['last_move']}"
    return document(title, [draw(data, labels)], scale=60)


def draw(data: PlainData, labels: bool = False) -> Panel:
    """The drawing of a position from its ``to_data`` plain data; ``labels`` writes the name
    of every hole, cell or candidate position.  Raises ValueError for an unknown game."""
    drawer = _DRAWERS.get(data.get("game"))
    if drawer is None:
        raise ValueError(f"no drawing for game {data.get('game')!r}")
    return drawer(data, labels)


# --- Boche and Ankor: the pyramid ----------------------------------------------------------------


def _hexagon(centre: Point, radius: float = 1.0) -> list[Point]:
    """The corners of a hexagon with a vertex on the right (pbmserv orientation), y down."""
    cx, cy = centre
    return [
        (cx + radius * math.cos(math.pi * k / 3), cy - radius * math.sin(math.pi * k / 3))
        for k in range(6)
    ]


def _pyramid_frame(
    positions: Iterable[Mapping[str, Any]], content: str, name: str, labels: bool
) -> tuple[list[str], list[Point]]:
    """Empty holes (and with ``labels`` their outlines and names), and the board's corners.

    ``content`` and ``name`` are the keys of a position's cube and label in the game's data.
    """
    shapes: list[str] = []
    corners: list[Point] = []
    for position in positions:
        if position["level"] != 0:
            continue
        centre = (position["x"], -position["y"])
        corners.extend(_hexagon(centre))
        if labels:
            shapes.append(
                _tag("polygon", {"class": "hole-outline", "points": _points(_hexagon(centre))})
            )
        if position[content] is None:
            shapes.append(
                _tag("circle", {"class": "hole", "cx": centre[0], "cy": centre[1], "r": 0.22})
            )
            if labels:
                shapes.append(_text("label", (centre[0], centre[1] + 0.62), position[name]))
    return shapes, corners


def _draw_boche(data: PlainData, labels: bool) -> Panel:
    shapes, corners = _pyramid_frame(data["positions"], "rotation", "position", labels)
    levels = {p["position"]: p["level"] for p in data["positions"]}
    outlines: dict[str, list[list[Point]]] = {}
    for face in data["faces"]:
        if face is None:
            continue
        shape = [(x, -y) for x, y in face["corners"]]
        band_index, cap_indexes = (0, (1, 3)) if face["band"] == "TF" else (1, (0, 2))
        edge = math.dist(shape[0], shape[1])
        children = [
            _tag("polygon", {"points": _points(shape), "fill": FILLS[face["colours"][band_index]]})
        ]
        for i in cap_indexes:
            arc = _sector(shape[i], shape[(i + 1) % 4], shape[(i + 3) % 4], edge / 2)
            children.append(_tag("path", {"d": arc, "fill": FILLS[face["colours"][i]]}))
        shade = FACE_SHADE["boche"][face["face"]]
        children.append(
            _tag(
                "polygon",
                {"class": "face-edge", "points": _points(shape), "fill": f"rgba(0,0,0,{shade})"},
            )
        )
        level = levels[face["position"]]
        if face["face"] == "U" and level > 0:
            children.append(_text("level", _label_point(shape), str(level)))
        shapes.append(_tag("g", {"class": f"face face-{face['face']}"}, *children))
        outlines.setdefault(face["position"], []).append(shape)
    last = data.get("last_move")
    if last and last != "swap":
        for shape in outlines.get(last.split(":")[1], []):
            shapes.append(_tag("polygon", {"class": "last", "points": _points(shape)}))
    return Panel(_box(corners, 0.25), tuple(shapes))


def _draw_ankor(data: PlainData, labels: bool) -> Panel:
    shapes, corners = _pyramid_frame(data["positions"], "owner", "label", labels)
    shade = FACE_SHADE["ankor"]
    for position in data["positions"]:
        owner = position["owner"]
        if owner is None:
            continue
        centre = (position["x"], -position["y"])
        v = _hexagon(centre, data["radius"])
        rhombi = {
            "U": [centre, v[2], v[3], v[4]],
            "W": [centre, v[0], v[1], v[2]],
            "V": [centre, v[4], v[5], v[0]],
        }
        fill = FILLS["white_cube" if owner == "white" else "blue"]
        children = []
        for face in position["faces"]:
            points = _points(rhombi[face])
            children.append(_tag("polygon", {"points": points, "fill": fill}))
            if owner == "blue":
                children.append(_tag("polygon", {"points": points, "fill": "url(#pat-stripes)"}))
            children.append(
                _tag(
                    "polygon",
                    {"class": "face-edge", "points": points, "fill": f"rgba(0,0,0,{shade[face]})"},
                )
            )
        if position["level"] > 0 and "U" in position["faces"]:
            children.append(_text("level", _label_point(rhombi["U"]), str(position["level"])))
        shapes.append(_tag("g", {"class": f"cube cube-{owner}"}, *children))
        if position["last"]:
            shapes.append(_tag("polygon", {"class": "last", "points": _points(v)}))
    return Panel(_box(corners, 0.3), tuple(shapes))


def _pyramid_level(data: PlainData, level: int) -> Panel:
    """The positions of one level of the pyramid (named) over the outlines of the board's
    holes, from Boche's plain data: where stacked cubes sit in the drawing."""
    shapes: list[str] = []
    corners: list[Point] = []
    for position in data["positions"]:
        centre = (position["x"], -position["y"])
        if position["level"] == 0:
            corners.extend(_hexagon(centre))
            shapes.append(
                _tag("polygon", {"class": "hole-outline", "points": _points(_hexagon(centre))})
            )
    for position in data["positions"]:
        if position["level"] != level:
            continue
        centre = (position["x"], -position["y"])
        shapes.append(
            _tag("polygon", {"class": "position-outline", "points": _points(_hexagon(centre))})
        )
        shapes.append(_text("label", (centre[0], centre[1] + 0.1), position["position"]))
    return Panel(_box(corners, 0.25), tuple(shapes), f"level {level}")


# --- Che: tiles on the open plane ---------------------------------------------------------------


def _che_tile(tile: Mapping[str, Any], number: bool = True) -> str:
    x, y = tile["x"], tile["y"]
    square = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]  # NW NE SE SW
    caps = (1, 3) if tile["band"] == "nw-se" else (0, 2)
    children = [
        _tag("rect", {"x": x, "y": y, "width": 1, "height": 1, "fill": FILLS[tile["dominant"]]})
    ]
    for i in caps:
        arc = _sector(square[i], square[(i + 1) % 4], square[(i + 3) % 4], 0.5)
        children.append(_tag("path", {"d": arc, "fill": FILLS[tile["corners"][i]]}))
    children.append(_tag("rect", {"class": "tile-edge", "x": x, "y": y, "width": 1, "height": 1}))
    if number:
        children.append(_text("tile-number", (x + 0.5, y + 0.56), str(tile["number"])))
    return _tag("g", {"class": "tile"}, *children)


def _draw_che(data: PlainData, labels: bool) -> Panel:
    shapes = []
    cells: list[Point] = [(t["x"], t["y"]) for t in data["tiles"]]
    for candidate in data["candidates"]:
        x, y = candidate["x"], candidate["y"]
        cells.append((x, y))
        shapes.append(
            _tag(
                "rect",
                {"class": "candidate", "x": x + 0.06, "y": y + 0.06, "width": 0.88, "height": 0.88},
            )
        )
        if labels:
            shapes.append(_text("label", (x + 0.5, y + 0.6), str(candidate["position"])))
    last = set(data.get("last") or ())
    for tile in data["tiles"]:
        shapes.append(_che_tile(tile))
        if tile["number"] in last:
            x, y = tile["x"], tile["y"]
            shapes.append(
                _tag(
                    "rect",
                    {"class": "last", "x": x + 0.04, "y": y + 0.04, "width": 0.92, "height": 0.92},
                )
            )
    # The cells' top-left corners, and one unit further for their far sides.
    return Panel(_box([*cells, *((x + 1, y + 1) for x, y in cells)], 0.6), tuple(shapes))


def _che_tile_panel(tile: Mapping[str, Any], caption: str) -> Panel:
    """One tile alone, without its number: for the picture of the four tiles."""
    x, y = tile["x"], tile["y"]
    return Panel((x - 0.3, y - 0.3, 1.6, 1.6), (_che_tile(tile, number=False),), caption)


# --- Osbox: dice pushed onto a square board -----------------------------------------------------

_SPREAD = 0.13
_HALF_ENDS: dict[str, tuple[Point, Point]] = {
    "T0": ((0.5 - _SPREAD, 0), (0, 1)),
    "T1": ((0.5 + _SPREAD, 0), (0, 1)),
    "R0": ((1, 0.5 - _SPREAD), (-1, 0)),
    "R1": ((1, 0.5 + _SPREAD), (-1, 0)),
    "B0": ((0.5 + _SPREAD, 1), (0, -1)),
    "B1": ((0.5 - _SPREAD, 1), (0, -1)),
    "L0": ((0, 0.5 + _SPREAD), (1, 0)),
    "L1": ((0, 0.5 - _SPREAD), (1, 0)),
}
"""Half-end label to (point on the die's side, inward direction), unit die at the origin."""
_PORT_MARKS = {"T": (0.5, 0, 0, 1), "R": (1, 0.5, 1, 0), "B": (0.5, 1, 0, 1), "L": (0, 0.5, 1, 0)}


def _die(die: Mapping[str, Any], x: float, y: float, trace: bool = False) -> str:
    children = [
        _tag(
            "rect",
            {
                "class": "die-body",
                "x": x + 0.03,
                "y": y + 0.03,
                "width": 0.94,
                "height": 0.94,
                "rx": 0.08,
            },
        )
    ]
    for side in die["ports"]:
        px, py, dx, dy = _PORT_MARKS[side]
        children.append(
            _tag(
                "line",
                {
                    "class": "port",
                    "x1": x + px - 0.22 * dx,
                    "y1": y + py - 0.22 * dy,
                    "x2": x + px + 0.22 * dx,
                    "y2": y + py + 0.22 * dy,
                },
            )
        )
    for start, end in die["strands"]:
        (ax, ay), (adx, ady) = _HALF_ENDS[start]
        (bx, by), (bdx, bdy) = _HALF_ENDS[end]
        pull = 0.38
        d = (
            f"M{_n(x + ax)},{_n(y + ay)} C{_n(x + ax + pull * adx)},{_n(y + ay + pull * ady)} "
            f"{_n(x + bx + pull * bdx)},{_n(y + by + pull * bdy)} {_n(x + bx)},{_n(y + by)}"
        )
        children.append(_tag("path", {"class": "strand-halo", "d": d}))
        children.append(_tag("path", {"class": "strand", "d": d}))
    return _tag("g", {"class": "die trace" if trace else "die"}, *children)


def _draw_osbox(data: PlainData, labels: bool) -> Panel:
    shapes = []
    cells = {cell["cell"]: cell for cell in data["cells"]}
    for cell in data["cells"]:
        shapes.append(
            _tag("rect", {"class": "cell", "x": cell["x"], "y": cell["y"], "width": 1, "height": 1})
        )
        if labels:
            shapes.append(
                _text("label", (cell["x"] + 0.5, cell["y"] + 0.6), f"{cell['row']},{cell['col']}")
            )
    positions = {}
    for position in data["positions"]:
        positions[str(position["position"])] = position
        seats = position["seats"]
        seat = seats[0] if len(seats) == 1 else "both"
        x, y = position["x"], position["y"]
        shapes.append(
            _tag(
                "g",
                {"class": f"side side-{seat}"},
                _tag(
                    "rect", {"x": x + 0.08, "y": y + 0.08, "width": 0.84, "height": 0.84, "rx": 0.1}
                ),
                _text("side-number", (x + 0.5, y + 0.6), str(position["position"])),
            )
        )
    for die in data["removed"]:
        cell = cells[die["cell"]]
        shapes.append(_die(die, cell["x"], cell["y"], trace=True))
    for die in data["dice"]:
        cell = cells[die["cell"]]
        shapes.append(_die(die, cell["x"], cell["y"]))
    last = data.get("last_move")
    if last:
        position = positions[last[1:]]
        entry = cells[position["cell"]]
        shapes.append(
            _tag(
                "rect",
                {
                    "class": "last",
                    "x": entry["x"] + 0.05,
                    "y": entry["y"] + 0.05,
                    "width": 0.9,
                    "height": 0.9,
                },
            )
        )
        shapes.append(
            _tag(
                "rect",
                {
                    "class": "last",
                    "x": position["x"] + 0.1,
                    "y": position["y"] + 0.1,
                    "width": 0.8,
                    "height": 0.8,
                    "rx": 0.1,
                },
            )
        )
    n = data["size"]
    return Panel((-1.2, -1.2, n + 2.4, n + 2.4), tuple(shapes))


def _osbox_die_panel(die: Mapping[str, Any], caption: str) -> Panel:
    """One die alone, for the picture of the faces."""
    return Panel((-0.2, -0.2, 1.4, 1.4), (_die(die, 0, 0),), caption)


# --- Marque: the 3.4.6.4 tiling -----------------------------------------------------------------


def _draw_marque(data: PlainData, labels: bool) -> Panel:
    shapes = []
    corners: list[Point] = []
    cells = {}
    for cell in data["cells"]:
        cells[cell["cell"]] = cell
        corners.extend((x, y) for x, y in cell["points"])
        attrs: dict[str, object] = {
            "class": f"cell cell-{cell['shape']}",
            "points": _points(cell["points"]),
        }
        if cell["base"]:
            attrs["fill"] = BASE_TINT[cell["base"]]
        shapes.append(_tag("polygon", attrs))
        if labels:
            shapes.append(_text("cell-label", (cell["x"], cell["y"] + 0.07), cell["cell"]))
    for base in data["bases"]:
        shapes.append(_text("base-letter", (base["x"], base["y"] + 0.12), base["base"]))
    winning = set(data.get("winning_group") or ())
    for colour in ("white", "black"):
        fill = FILLS["white_piece" if colour == "white" else "black"]
        for label in data["pieces"][colour]:
            cell = cells[label]
            r = 0.34 if cell["shape"] == "square" else 0.2
            centre = {"cx": cell["x"], "cy": cell["y"], "r": r}
            children = [_tag("circle", {**centre, "fill": fill})]
            if colour == "black":
                children.append(_tag("circle", {**centre, "fill": "url(#pat-stripes)"}))
            name = f"piece piece-{colour}" + (" winning" if label in winning else "")
            shapes.append(_tag("g", {"class": name}, *children))
    last = data.get("last_move")
    for label in last.split(",") if last else ():
        shapes.append(_tag("polygon", {"class": "last", "points": _points(cells[label]["points"])}))
    return Panel(_box(corners, 0.3), tuple(shapes))


_DRAWERS: dict[str, Callable[[PlainData, bool], Panel]] = {
    "boche": _draw_boche,
    "ankor": _draw_ankor,
    "che": _draw_che,
    "osbox": _draw_osbox,
    "marque": _draw_marque,
}


# --- the figures of the rules pages -------------------------------------------------------------


def figures() -> dict[str, str]:
    """Every figure of ``docs/rules/``: file name to SVG text."""
    return {name: make() for name, make in _FIGURES.items()}


@dataclass(frozen=True, slots=True)
class ExampleStep:
    """One position of a rules page's worked example: the move that led to it (None for the
    first) and what it shows, with the position as ``to_data``."""

    move: str | None
    caption: str
    data: PlainData


def worked_example(name: str) -> list[ExampleStep]:
    """The worked example of game ``name``'s rules page (the one its example figure draws),
    position by position, for a reader to replay; raises KeyError for another name."""
    steps: list[ExampleStep] = []

    def replay(game: GameRules, state: Any, moves: Sequence[str], first: str) -> None:
        steps.append(ExampleStep(None, first, game.to_data(state)))
        for index, text in enumerate(moves, 1):
            state = game.play(state, game.parse_move(state, text))
            outcome = game.outcome(state)
            said = f"move {index}: {text}" + ("" if outcome is None else f"; {outcome.reason}")
            steps.append(ExampleStep(text, said, game.to_data(state)))

    if name == "boche":
        board = boche.new_game(boche.parse_options("-size=4"))
        replay(boche, board, _B0_MOVES, "B0 (§3.8): the help page's game on a size-4 board")
    elif name == "che":
        replay(
            che,
            che.new_game(che.parse_options("")),
            ["b(0,0)", "a(1,0),a(0,1)", "b(1,1)"],
            "E2: the board is empty",
        )
    elif name == "osbox":
        data = _data("osbox", "", [])
        data["dice"] = [
            {"cell": 4 * row + col, "die": die} for (row, col), die in _OSBOX_EXAMPLE.items()
        ]
        replay(osbox, osbox.from_data(data), ["a15"], "§10.2: Horz to push a from 15")
    elif name == "ankor":
        before = ankor.set_up(
            ankor.Options(),
            ("d2", "c2"),
            ("e2", "e3", "f2", "f3", "f4", "1d2", "1e2", "1e3", "2d2"),
        )
        replay(ankor, before, ["d2-c3"], "A5: White to move the cube on d2 to c3")
    elif name == "marque":
        pieces = {"white": _SEED_WHITE, "black": _SEED_BLACK}
        seed = marque.from_data({"options": "", "pieces": pieces, "turn": "white"})
        replay(marque, seed, ["e4"], "§12: O to play e4")
    else:
        raise KeyError(name)
    return steps


def _replay(name: str, options: str, moves: Sequence[str]) -> Any:
    game = find_game(name)
    state = game.new_game(game.parse_options(options))
    for text in moves:
        state = game.play(state, game.parse_move(state, text))
    return state


def _data(name: str, options: str, moves: Sequence[str]) -> PlainData:
    return find_game(name).to_data(_replay(name, options, moves))


def _pyramid_board() -> str:
    panel = draw(_data("boche", "-size=4", []), labels=True)
    return document("The size-4 board: every hole named by its row letter and number", [panel], 56)


def _pyramid_levels() -> str:
    data = _data("boche", "-size=3", [])
    panels = [_pyramid_level(data, level) for level in range(3)]
    return document("Where the positions of levels 0, 1 and 2 of a size-3 pyramid sit", panels, 50)


def _boche_rotations() -> str:
    panels = []
    for rotation in boche.ROTATIONS:
        data = dict(_data("boche", "-size=1", [f"{rotation}:a1"]), last_move=None)
        panels.append(replace(draw(data), caption=rotation))
    return document("The eight rotations a to h of a Boche cube, seen from above", panels, 56, 4)


_B0_MOVES = (
    "d:a1 a:b1 a:b2 b:c1 a:c2 b:c3 b:d1 a:d2 c:d3 d:d4 "
    "h:1a1 f:1b1 f:1b2 f:1c1 g:1c2 g:1c3 c:2a1 b:2b1 d:2b2 f:3a1"
).split()
"""The help page's full-board game (``docs/rules/boche.md`` §3.9 B0)."""


def _boche_example() -> str:
    enclosure = draw(_data("boche", "-size=2", ["b:a1", "d:b1", "c:b2"]))
    full = draw(_data("boche", "-size=4", _B0_MOVES))
    panels = [
        replace(enclosure, caption="B6: Light wins, a Dark group of 4 enclosed"),
        replace(full, caption="B0: the pyramid is full, Dark joins the sides"),
    ]
    return document("Two ends of a Boche game", panels, 56)


_A8_WHITE = ("c1", "d2", "d3", "e1", "e2", "e4", "e5", "f3", "f4", "1c3", "1d1")
_A8_BLUE = ("c3", "d1", "d4", "e3", "1c1", "1d2", "1d3", "1d4", "1e3", "2c1", "2c3")


def _ankor_example() -> str:
    state = ankor.set_up(ankor.Options(), _A8_WHITE, _A8_BLUE, last="2c3")
    caption = "A8: Blue's path reaches the left side only with the tip of 1e3"
    panel = replace(draw(ankor.to_data(state)), caption=caption)
    return document("The pbmserv example: Blue wins", [panel], 50)


def _ankor_move() -> str:
    options = ankor.Options()
    before = ankor.set_up(
        options,
        ("d2", "c2"),
        ("e2", "e3", "f2", "f3", "f4", "1d2", "1e2", "1e3", "2d2"),
    )
    after = ankor.play(before, ankor.parse_move(before, "d2-c3"))
    panels = [
        replace(draw(ankor.to_data(before)), caption="before: White to play d2-c3"),
        replace(draw(ankor.to_data(after)), caption="after: 1d2 and 2d2 have dropped"),
    ]
    return document("A5: a cube moves and the column it carried drops", panels, 44)


def _che_tiles() -> str:
    names = {"a": "a: Front-Left", "b": "b: Front-Right", "c": "c: Back-Left", "d": "d: Back-Right"}
    panels = [
        _che_tile_panel(_data("che", "", [f"{letter}(0,0)"])["tiles"][0], caption)
        for letter, caption in names.items()
    ]
    return document("The four Che tiles", panels, 80)


def _che_positions() -> str:
    panel = draw(_data("che", "", ["a(0,0)", "b(1,0),c(-1,0)"]), labels=True)
    caption = "Light to place two tiles: positions 1 to 8"
    return document("Che position numbers", [replace(panel, caption=caption)], 64)


def _che_example() -> str:
    closed = draw(_data("che", "", ["b(0,0)", "a(1,0),a(0,1)", "b(1,1)"]))
    e3 = che.from_data(
        {
            "game": "che",
            "options": "",
            "turn": 11,
            "supply": 38,
            "last": [],
            "last_move": None,
            "movement_turns": 0,
            "scores": None,
            "outcome": None,
            "tiles": [
                {"number": number, "tile": tile, "x": x, "y": y}
                for number, (tile, x, y) in enumerate(_E3_TILES, 1)
            ],
        }
    )
    sizes = draw(dict(che.to_data(e3), candidates=[]))
    panels = [
        replace(closed, caption="E2: a closed Dark region, Dark wins"),
        replace(sizes, caption="E3: Light's largest region has 5 bands"),
    ]
    return document("Che regions", panels, 56)


_E3_TILES = (
    ("b", 1, 0),
    ("c", 0, 1),
    ("a", 1, 1),
    ("c", 4, 1),
    ("a", 5, 1),
    ("c", 1, 2),
    ("a", 2, 2),
    ("b", 3, 2),
    ("a", 4, 2),
    ("c", 5, 2),
)
"""The help page's region-size example (``docs/rules/che.md`` §13 E3)."""


def _osbox_board() -> str:
    panel = draw(_data("osbox", "", []), labels=True)
    return document("The 4 x 4 Osbox board, its cells and the 16 positions", [panel], 56)


def _osbox_faces() -> str:
    panels = []
    for face, name in zip(
        osbox.FACES, ("end-cap", "chain", "corner", "branch", "crossing"), strict=True
    ):
        die = _data("osbox", "-any_side -size=2", [f"{face}1"])["dice"][0]
        panels.append(_osbox_die_panel(die, f"{face} {name}"))
    for position, side in ((1, "top"), (5, "right"), (9, "bottom"), (13, "left")):
        data = _data("osbox", "-any_side", [f"e{position}"])
        panels.append(_osbox_die_panel(data["dice"][0], f"e from the {side}"))
    return document(
        "The Osbox faces entering from the top, and face e from each side", panels, 70, 5
    )


_OSBOX_EXAMPLE = {
    (0, 2): "a:B",
    (1, 0): "a:L",
    (1, 1): "b:TB",
    (2, 2): "e:TRB",
    (2, 3): "a:L",
    (3, 2): "a:T",
}
"""The help page's worked example (``docs/rules/osbox.md`` §10.2), dice by (row, column)."""


def _osbox_example() -> str:
    data = _data("osbox", "", [])
    data["dice"] = [
        {"cell": 4 * row + col, "die": die} for (row, col), die in _OSBOX_EXAMPLE.items()
    ]
    before = osbox.from_data(data)
    after = osbox.play(before, osbox.parse_move(before, "a15"))
    panels = [
        replace(draw(osbox.to_data(before)), caption="before: Horz pushes a from 15"),
        replace(draw(osbox.to_data(after)), caption="after: 8 points, 5 dice removed"),
    ]
    return document("The Osbox worked example", panels, 50)


def _marque_board() -> str:
    panel = draw(_data("marque", "", []), labels=True)
    return document("The Marque board with every cell named", [panel], 64)


_SEED_WHITE = (
    "a1 a2 a5 a6 c3 c4 d1 d4 e5 e6 f1 f2 f5 f6 g1 s2 s3 s4 s7 s9 s10 s13 s15 s17 s19 s21 s23 "
    "t2 t4 t5 t8 t10 t12 t16 t18"
).split()
_SEED_BLACK = (
    "a3 a4 b1 b2 b3 b4 b6 c1 c2 c5 c6 d2 d3 d5 d6 e1 e2 e3 f3 g2 g3 g4 g6 s6 s11 s12 s16 s22 "
    "s25 s28 s29 t7 t15"
).split()
"""The help page's example before O's last piece e4 (``docs/rules/marque.md`` §12)."""


def _marque_example() -> str:
    before = marque.from_data(
        {"options": "", "pieces": {"white": _SEED_WHITE, "black": _SEED_BLACK}, "turn": "white"}
    )
    after = marque.play(before, marque.parse_move(before, "e4"))
    panel = replace(draw(marque.to_data(after)), caption="O plays e4 and joins A, E and F")
    return document("The Marque example: O wins", [panel], 56)


_FIGURES: dict[str, Callable[[], str]] = {
    "pyramid-board.svg": _pyramid_board,
    "pyramid-levels.svg": _pyramid_levels,
    "boche-rotations.svg": _boche_rotations,
    "boche-example.svg": _boche_example,
    "ankor-example.svg": _ankor_example,
    "ankor-move.svg": _ankor_move,
    "che-tiles.svg": _che_tiles,
    "che-positions.svg": _che_positions,
    "che-example.svg": _che_example,
    "osbox-board.svg": _osbox_board,
    "osbox-faces.svg": _osbox_faces,
    "osbox-example.svg": _osbox_example,
    "marque-board.svg": _marque_board,
    "marque-example.svg": _marque_example,
}


# --- helpers ------------------------------------------------------------------------------------


def _n(value: float) -> str:
    """A coordinate with at most three decimals, as the game page rounds them."""
    rounded = round(value, 3)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.3f}".rstrip("0")


def _points(corners: Iterable[Sequence[float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in corners)


def _box(corners: Sequence[Point], margin: float) -> tuple[float, float, float, float]:
    xs = [x for x, _ in corners]
    ys = [y for _, y in corners]
    return (
        min(xs) - margin,
        min(ys) - margin,
        max(xs) - min(xs) + 2 * margin,
        max(ys) - min(ys) + 2 * margin,
    )


def _label_point(corners: Sequence[Point]) -> Point:
    """Where a level number goes on a face: the face's centre, nudged to sit on the line."""
    x = sum(c[0] for c in corners) / len(corners)
    y = sum(c[1] for c in corners) / len(corners)
    return x, y + 0.14


def _sector(centre: Point, a: Point, b: Point, r: float) -> str:
    """The path of the disc sector of radius ``r`` at ``centre`` between the rays towards
    ``a`` and ``b`` (a Truchet cap)."""
    cx, cy = centre

    def ray(point: Point) -> Point:
        length = math.hypot(point[0] - cx, point[1] - cy)
        return (point[0] - cx) / length, (point[1] - cy) / length

    ux, uy = ray(a)
    vx, vy = ray(b)
    sweep = 1 if ux * vy - uy * vx > 0 else 0
    return (
        f"M{_n(cx)},{_n(cy)} L{_n(cx + r * ux)},{_n(cy + r * uy)} "
        f"A{_n(r)},{_n(r)} 0 0 {sweep} {_n(cx + r * vx)},{_n(cy + r * vy)} Z"
    )


def _text(css_class: str, at: Point, text: str) -> str:
    return _tag("text", {"class": css_class, "x": at[0], "y": at[1]}, text=text)


def _tag(name: str, attrs: Mapping[str, object], *children: str, text: str | None = None) -> str:
    """An SVG element; numbers are written as :func:`_n` rounds them."""
    written = "".join(f" {key}={quoteattr(_attribute(value))}" for key, value in attrs.items())
    body = "".join(children) + ("" if text is None else escape(text))
    if not body:
        return f"<{name}{written}/>"
    return f"<{name}{written}>{body}</{name}>"


def _attribute(value: object) -> str:
    if isinstance(value, float | int) and not isinstance(value, bool):
        return _n(value)
    return str(value)
