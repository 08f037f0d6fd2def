"""Marque's board: 96 cells of a 3.4.6.4 tiling around seven subdivided hexagonal bases A-G.

Built once, at import, from the geometry of the rules (``docs/rules/marque.md`` §2.1):
seven pointy-topped unit hexagons in rows 2-3-2 (``A B / C D E / F G``, D at the origin), each
cut into six *base triangles*, plus the *squares* on the hexagon edges and the *isolated
triangles* at the hexagon corners; polygons generated twice (between two bases) are merged.
Two cells are adjacent iff they share a whole edge.  Labels follow §2.2: ``a1``-``g6`` for the
triangles of bases A-G, numbered clockwise from the upper-left one; ``s1``-``s30`` for squares
and ``t1``-``t24`` for isolated triangles, both in reading order of their centroids.

Cell ids are small ints in label order (a1..g6 = 0..41, s1..s30 = 42..71, t1..t24 = 72..95),
so the triangles of base ``b`` (0 = A) are ids ``6*b .. 6*b+5`` and sorting ids sorts labels
by (letter, number).  Besides adjacency the module holds the base relations of §2.5 (adjacent
bases share a square, opposite bases are point-symmetric through D), the drawing coordinates
(polygons, centroids; x right, y up as in the spec) and the pbmserv-style text board of §2.3.
Standard library only.
"""

from __future__ import annotations

import math
import re
from typing import TypeAlias

CellId: TypeAlias = int
Point: TypeAlias = tuple[float, float]

BASE_NAMES = "ABCDEFG"
"""The seven bases; D is the centre, the ring runs A-B-E-G-F-C."""

BASE_TRIANGLE = "base-tri"
SQUARE = "square"
ISOLATED_TRIANGLE = "iso-tri"

_S = 1 + math.sqrt(3)
_H = _S * math.sqrt(3) / 2
BASE_CENTRES: tuple[Point, ...] = (
    (-_S / 2, _H),
    (_S / 2, _H),
    (-_S, 0.0),
    (0.0, 0.0),
    (_S, 0.0),
    (-_S / 2, -_H),
    (_S / 2, -_H),
)
"""Centre of each base A-G (spec §2.1), in units of the cell edge."""

_CORNER_ANGLES = (150, 90, 30, -30, -90, -150)
"""Corners k and k+1 (mod 6) bound base triangle k+1 (clockwise from the upper-left one)."""
_EDGE_NORMALS = (120, 60, 0, -60, -120, 180)
"""Outward normal of the hexagon edge under base triangle k."""

LABELLED_BOARD = r"""
                    _-+-------+-_         _-+-------+-_
                 _--   \  t1 /   --_   _--   \  t2 /   --_
               +-       \   /       -+-       \   /       -+
              / \   s1   \ /   s2   / \   s3   \ /   s4   / \
             /   \      _-+-_      /   \      _-+-_      /   \
            /  t3 \  _--  |  --_  /  t4 \  _--  |  --_  /  t5 \
           +-------+-_ a1 | a2 _-+-------+-_ b1 | b2 _-+-------+
           |       |  --_ | _--  |       |  --_ | _--  |       |
           |   s5  | a6 _-A-_ a3 |   s6  | b6 _-B-_ b3 |   s7  |
           |       | _--  |  --_ |       | _--  |  --_ |       |
         _-+-------+-_ a5 | a4 _-+-------+-_ b5 | b4 _-+-------+-_
      _--   \  t6 /   --_ | _--   \  t7 /   --_ | _--   \  t8 /   --_
    +-       \   /       -+-       \   /       -+-       \   /       -+
   / \   s8   \ /   s9   / \  s10   \ /  s11   / \  s12   \ /  s13   / \
  /   \      _-+-_      /   \      _-+-_      /   \      _-+-_      /   \
 /  t9 \  _--  |  --_  / t10 \  _--  |  --_  / t11 \  _--  |  --_  / t12 \
+-------+-_ c1 | c2 _-+-------+-_ d1 | d2 _-+-------+-_ e1 | e2 _-+-------+
|       |  --_ | _--  |       |  --_ | _--  |       |  --_ | _--  |       |
|  s14  | c6 _-C-_ c3 |  s15  | d6 _-D-_ d3 |  s16  | e6 _-E-_ e3 |  s17  |
|       | _--  |  --_ |       | _--  |  --_ |       | _--  |  --_ |       |
+-------+-_ c5 | c4 _-+-------+-_ d5 | d4 _-+-------+-_ e5 | e4 _-+-------+
 \ t13 /   --_ | _--   \ t14 /   --_ | _--   \ t15 /   --_ | _--   \ t16 /
  \   /       -+-       \   /       -+-       \   /       -+-       \   /
   \ /  s18   / \  s19   \ /  s20   / \  s21   \ /  s22   / \  s23   \ /
    +-_      /   \      _-+-_      /   \      _-+-_      /   \      _-+
       --_  / t17 \  _--  |  --_  / t18 \  _--  |  --_  / t19 \  _--
          -+-------+-_ f1 | f2 _-+-------+-_ g1 | g2 _-+-------+-
           |       |  --_ | _--  |       |  --_ | _--  |       |
           |  s24  | f6 _-F-_ f3 |  s25  | g6 _-G-_ g3 |  s26  |
           |       | _--  |  --_ |       | _--  |  --_ |       |
           +-------+-_ f5 | f4 _-+-------+-_ g5 | g4 _-+-------+
            \ t20 /   --_ | _--   \ t21 /   --_ | _--   \ t22 /
             \   /       -+-       \   /       -+-       \   /
              \ /  s27   / \  s28   \ /  s29   / \  s30   \ /
               +-_      /   \      _-+-_      /   \      _-+
                  --_  / t23 \  _--     --_  / t24 \  _--
                     -+-------+-           -+-------+-
"""[1:-1]
"""The board of spec §2.3 with every cell's label written in it (upper case = base centres)."""


def _polar(origin: Point, degrees: float, distance: float = 1.0) -> Point:
    angle = math.radians(degrees)
    return (origin[0] + distance * math.cos(angle), origin[1] + distance * math.sin(angle))


def _key(point: Point) -> tuple[int, int]:
    """A point rounded to a grid fine enough to merge the copies made from two bases."""
    return (round(point[0] * 1000), round(point[1] * 1000))


def _centroid(points: tuple[Point, ...]) -> Point:
    return (
        sum(p[0] for p in points) / len(points),
        sum(p[1] for p in points) / len(points),
    )


def _generate() -> tuple[
    list[tuple[str, tuple[Point, ...], set[int]]],
    list[tuple[str, tuple[Point, ...], set[int]]],
    list[tuple[str, tuple[Point, ...], set[int]]],
]:
    """Base triangles (in label order), squares and isolated triangles (merged, unordered)."""
    triangles: list[tuple[str, tuple[Point, ...], set[int]]] = []
    merged: dict[frozenset[tuple[int, int]], tuple[str, tuple[Point, ...], set[int]]] = {}
    for base, centre in enumerate(BASE_CENTRES):
        corners = [_polar(centre, angle) for angle in _CORNER_ANGLES]
        for k in range(6):
            first, second = corners[k], corners[(k + 1) % 6]
            triangles.append((BASE_TRIANGLE, (centre, first, second), {base}))
            normal = _EDGE_NORMALS[k]
            square = (first, second, _polar(second, normal), _polar(first, normal))
            # The corner shared by edges k and k+1 carries one isolated triangle.
            corner_triangle = (
                second,
                _polar(second, normal),
                _polar(second, _EDGE_NORMALS[(k + 1) % 6]),
            )
            for shape, polygon in ((SQUARE, square), (ISOLATED_TRIANGLE, corner_triangle)):
                key = frozenset(_key(p) for p in polygon)
                merged.setdefault(key, (shape, polygon, set()))[2].add(base)
    squares = [cell for cell in merged.values() if cell[0] == SQUARE]
    isolated = [cell for cell in merged.values() if cell[0] == ISOLATED_TRIANGLE]
    return triangles, squares, isolated


def _reading_order(cell: tuple[str, tuple[Point, ...], set[int]]) -> tuple[int, int]:
    x, y = _centroid(cell[1])
    return (-round(y * 1000), round(x * 1000))


def _build() -> tuple[
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[Point, ...], ...],
    tuple[frozenset[int], ...],
    tuple[tuple[CellId, ...], ...],
    frozenset[CellId],
]:
    """Labels, shapes, polygons, bases, neighbours and edge cells, indexed by cell id."""
    triangles, squares, isolated = _generate()
    squares.sort(key=_reading_order)
    isolated.sort(key=_reading_order)
    labels = [f"{BASE_NAMES[b].lower()}{k + 1}" for b in range(7) for k in range(6)]
    labels += [f"s{n + 1}" for n in range(len(squares))]
    labels += [f"t{n + 1}" for n in range(len(isolated))]
    cells = triangles + squares + isolated
    by_edge: dict[frozenset[tuple[int, int]], list[int]] = {}
    for cell_id, (_, polygon, _) in enumerate(cells):
        keys = [_key(p) for p in polygon]
        for i, key in enumerate(keys):
            by_edge.setdefault(frozenset((key, keys[i - 1])), []).append(cell_id)
    neighbours: list[set[int]] = [set() for _ in cells]
    outline: set[int] = set()
    for sharing in by_edge.values():
        if len(sharing) == 1:
            outline.add(sharing[0])
        else:
            first, second = sharing
            neighbours[first].add(second)
            neighbours[second].add(first)
    return (
        tuple(labels),
        tuple(shape for shape, _, _ in cells),
        tuple(polygon for _, polygon, _ in cells),
        tuple(frozenset(bases) for _, _, bases in cells),
        tuple(tuple(sorted(n)) for n in neighbours),
        frozenset(outline),
    )


LABELS: tuple[str, ...]
SHAPES: tuple[str, ...]
POLYGONS: tuple[tuple[Point, ...], ...]
CELL_BASES: tuple[frozenset[int], ...]
NEIGHBOURS: tuple[tuple[CellId, ...], ...]
EDGE_CELLS: frozenset[CellId]
LABELS, SHAPES, POLYGONS, CELL_BASES, NEIGHBOURS, EDGE_CELLS = _build()
"""Per cell id: label; BASE_TRIANGLE, SQUARE or ISOLATED_TRIANGLE; corners (x right, y up);
the base (0 = A) a base triangle belongs to, or the bases a square or corner triangle touches;
the edge-adjacent cells, ascending.  EDGE_CELLS: cells with a side on the board outline."""

CELL_COUNT: int = len(LABELS)
CELL_IDS: dict[str, CellId] = {label: cell for cell, label in enumerate(LABELS)}
CENTROIDS: tuple[Point, ...] = tuple(_centroid(polygon) for polygon in POLYGONS)
TRIANGLES: frozenset[CellId] = frozenset(c for c in range(CELL_COUNT) if SHAPES[c] != SQUARE)
"""Base triangles and isolated triangles: O's first move and pairs go only on these."""

BASE_TRIANGLES: tuple[tuple[CellId, ...], ...] = tuple(
    tuple(range(6 * base, 6 * base + 6)) for base in range(len(BASE_NAMES))
)
"""The six triangles of each base, k = 1..6 in order (cyclically adjacent)."""

TRIANGLE_PAIRS: tuple[tuple[CellId, CellId], ...] = tuple(
    sorted((a, b) for a in sorted(TRIANGLES) for b in NEIGHBOURS[a] if a < b and b in TRIANGLES)
)
"""The 42 pairs of edge-adjacent triangles (always two neighbouring triangles of one base)."""

BASE_NEIGHBOURS: tuple[frozenset[int], ...] = tuple(
    frozenset(
        other
        for cell in range(CELL_COUNT)
        if SHAPES[cell] == SQUARE and base in CELL_BASES[cell]
        for other in CELL_BASES[cell]
        if other != base
    )
    for base in range(len(BASE_NAMES))
)
"""Bases adjacent to each base: one square touches both (the revised pbmserv wording)."""

OPPOSITE: tuple[int | None, ...] = tuple(
    next(
        (
            other
            for other, (x, y) in enumerate(BASE_CENTRES)
            if other != base and _key((x + cx, y + cy)) == (0, 0)
        ),
        None,
    )
    for base, (cx, cy) in enumerate(BASE_CENTRES)
)
"""The base at the other end of a straight line through D (None for D itself)."""


_GLYPH_TABLE = """
a1:6,24 a2:6,28 a3:8,31 a4:10,28 a5:10,24 a6:8,21 b1:6,46 b2:6,50
b3:8,52 b4:10,50 b5:10,46 b6:8,43 c1:16,13 c2:16,17 c3:18,20 c4:20,17
c5:20,13 c6:18,10 d1:16,35 d2:16,39 d3:18,41 d4:20,39 d5:20,35 d6:18,32
e1:16,57 e2:16,61 e3:18,64 e4:20,61 e5:20,57 e6:18,54 f1:26,24 f2:26,28
f3:28,31 f4:30,28 f5:30,24 f6:28,21 g1:26,46 g2:26,50 g3:28,53 g4:30,50
g5:30,46 g6:28,43 s1:3,21 s2:3,31 s3:3,42 s4:3,53 s5:8,15 s6:8,37
s7:8,59 s8:13,10 s9:13,20 s10:13,32 s11:13,42 s12:13,53 s13:13,64 s14:18,4
s15:18,26 s16:18,48 s17:18,70 s18:23,10 s19:23,20 s20:23,32 s21:23,42 s22:23,53
s23:23,64 s24:28,15 s25:28,37 s26:28,59 s27:33,21 s28:33,31 s29:33,42 s30:33,53
t1:1,26 t2:1,48 t3:5,15 t4:5,37 t5:5,59 t6:11,15 t7:11,37 t8:11,59
t9:15,4 t10:15,26 t11:15,48 t12:15,70 t13:21,4 t14:21,26 t15:21,48 t16:21,70
t17:25,15 t18:25,37 t19:25,59 t20:31,15 t21:31,37 t22:31,59 t23:35,26 t24:35,48
"""
"""Where the pbmserv board writes each cell's piece (row,column), as in the help page's diagram."""


def _glyphs() -> tuple[tuple[int, int], ...]:
    found = {}
    for entry in _GLYPH_TABLE.split():
        label, place = entry.split(":")
        row, column = place.split(",")
        found[label] = (int(row), int(column))
    return tuple(found[label] for label in LABELS)


GLYPHS: tuple[tuple[int, int], ...] = _glyphs()
"""(row, column) in the text board where each cell's piece is written (spec §2.6)."""

BLANK_BOARD: tuple[str, ...] = tuple(
    re.sub(r"\b[a-g][1-6]\b|\b[st]\d{1,2}\b", lambda m: " " * len(m.group()), line)
    for line in LABELLED_BOARD.split("\n")
)
"""The empty text board, one string per row: the drawing without labels (base letters stay)."""
