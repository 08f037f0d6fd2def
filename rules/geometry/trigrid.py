"""The pyramid of corner-down cubes on a triangular board of holes (Boche, Ankor).

Implements section 1 of the Boche/Ankor rules (``docs/rules/pyramid.md``):
a board with ``n`` holes per side carries a triangular pyramid of ``T_n = n(n+1)(n+2)/6``
positions.  Everything is precomputed once per size into tuples indexed by small int
position ids; :func:`pyramid` caches one :class:`Pyramid` per size.  Standard library only
(connection searches over these adjacencies go through :mod:`rules.geometry.graph`).

API (``g = pyramid(n)``, ``p`` a position id, ``0 <= p < g.count``):

* Ids run level by level from the board (level 0) up, then by row ``i``, then by index ``j``:
  ``g.find(L, i, j)`` gives the id or None; ``g.coords[p] == (L, i, j)``;
  ``g.level[p]``; ``g.level_positions[L]`` are the ids of one level.
* Labels (§1.2): ``g.labels[p]`` (``"d3"``, ``"1c2"``); ``g.parse(text)`` gives the id, or None
  when the label is well formed but names no position of this size, and raises ValueError on
  bad syntax.  Module-level :func:`parse_label` / :func:`format_label` work without a size.
* Lattice coordinates (§1.3): ``g.uvw[p]`` (the cube's top corner), ``g.at(u, v, w)`` the id or
  None.  Axes are numbered ``U = 0, V = 1, W = 2`` everywhere.
* Support and face contact (§1.4): ``g.supporters[p]`` the three positions ``p`` rests on, in
  axis order (empty at level 0); ``g.above[p][x]`` the position resting on upper face ``F_x``
  or None; ``g.carried[p]`` the existing ones among them; ``g.contacts[p]`` = supporters and
  carried (every face contact); ``g.is_supported(p, occupied)``.
* Same-level adjacency (§1.5): ``g.adjacent[p]``; ``g.edge_contacts[p]`` the cubes two levels
  up or down that share an edge with ``p`` (for information).
* Sides (§1.6): ``g.sides[p]`` the sides whose slope ``p`` lies on, as a string in ``UVW``
  order (``"VW"``, ``""``); ``g.side_mask[p]`` the same as bits ``U=1, V=2, W=4``;
  ``g.slopes[side]`` the positions on one slope, by level; ``g.sides_up_to(h)`` maps each
  position to the sides it touches when only levels ``<= h`` count (``h = -1``: any level),
  as needed by Ankor's ``-win_height``.  Lattice points: ``g.point_rim(K)`` gives the rim
  sides of a lattice point (``K_x = 0`` and ``sum(K) >= n``).
* Columns (§1.7): ``g.up_line(p, x)`` the positions ``p - e_x, p - 2e_x, ...`` that exist;
  ``g.column(p, occupied)`` the occupied chain resting on ``p`` (empty if ``p`` carries no
  cube; ValueError if it carries more than one).
* Faces (§1.4, §3.4): ``g.face_corners[p][x]`` the lattice points ``T, A, F, B`` of upper face
  ``F_x`` of ``p``: ``T`` the top corner, ``A = T + e_y``, ``F = T + e_y + e_z``,
  ``B = T + e_z`` with ``y, z`` the axes after ``x`` (120° at ``T`` and ``F``, 60° at ``A``
  and ``B``).
* Drawing (§1.3, pbmserv orientation, circumradius 1, **y pointing up**): ``g.xy[p]`` is the
  centre of the hexagon of ``p``; :func:`point_xy` projects any lattice point.  The hexagon's
  vertices are the centre plus ``(1, 0)``, ``(1/2, ±sqrt3/2)``, ``(-1/2, ±sqrt3/2)``,
  ``(-1, 0)``.  ``g.outline`` is the board's outline (the convex hull of the board holes'
  hexagons, counter-clockwise) and ``g.side_edges`` the edge of that outline along each side
  (§1.6), for drawing the board and its sides.

``occupied`` arguments are predicates over position ids, ``Callable[[int], object]`` (read as
truth values: ``bytes.__getitem__`` of a board will do).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import TypeAlias

MAX_SIZE = 26
"""Row letters run ``a``..``z``, so no board has more than 26 holes per side."""

SIDES = ("U", "V", "W")
"""Side names in axis order: U the left (vertical) side, V the bottom, W the top (§1.6)."""

AXES = (0, 1, 2)
UNIT = ((1, 0, 0), (0, 1, 0), (0, 0, 1))

Point: TypeAlias = tuple[int, int, int]
"""A lattice point (cube corner) in lattice coordinates ``(u, v, w)``."""
FaceCorners: TypeAlias = tuple[Point, Point, Point, Point]
"""The corners ``T, A, F, B`` of an upper face: a rhombus in drawing order (§3.4)."""

_LABEL_RE = re.compile(r"([1-9][0-9]*)?([a-z])([1-9][0-9]*)")
_HALF_SQRT3 = math.sqrt(3) / 2


def tetrahedral(n: int) -> int:
    """The number of positions of a size-``n`` pyramid, ``T_n``."""
    return n * (n + 1) * (n + 2) // 6


def parse_label(text: str) -> tuple[int, int, int]:
    """``"1c2"`` to ``(level, row, index)`` = ``(1, 2, 1)``; case-insensitive.

    Raises ValueError when the text is not a label (it does not check any board size).
    """
    match = _LABEL_RE.fullmatch(text.strip().lower())
    if match is None:
        raise ValueError(f"{text!r} is not a position: positions look like d3 or 1c2")
    level_text, letter, number = match.groups()
    return int(level_text or 0), ord(letter) - ord("a"), int(number) - 1


def format_label(level: int, row: int, index: int) -> str:
    """``(1, 2, 1)`` to ``"1c2"``: level prefix (omitted on the board), row letter, index."""
    return f"{level or ''}{chr(ord('a') + row)}{index + 1}"


def point_xy(point: tuple[int, int, int]) -> tuple[float, float]:
    """Drawing coordinates of a lattice point (circumradius 1, y up), §1.3."""
    ku, kv, kw = point
    return ku - (kv + kw) / 2, _HALF_SQRT3 * (kv - kw)


@cache
def pyramid(n: int) -> Pyramid:
    """The geometry of a size-``n`` board (1..26), built once and shared."""
    return Pyramid(n)


class Pyramid:
    """Every position of a size-``n`` pyramid and its relations, as tuples indexed by id."""

    __slots__ = (
        "n",
        "count",
        "coords",
        "level",
        "level_positions",
        "labels",
        "uvw",
        "supporters",
        "above",
        "carried",
        "contacts",
        "adjacent",
        "edge_contacts",
        "sides",
        "side_mask",
        "slopes",
        "xy",
        "face_corners",
        "outline",
        "side_edges",
        "_ids",
        "_by_uvw",
        "_by_label",
        "_sides_up_to",
    )

    def __init__(self, n: int) -> None:
        if not 1 <= n <= MAX_SIZE:
            raise ValueError(f"board size {n} is out of range (1..{MAX_SIZE})")
        self.n = n
        coords = [
            (level, row, index)
            for level in range(n)
            for row in range(n - level)
            for index in range(row + 1)
        ]
        self.count = len(coords)
        self.coords: tuple[tuple[int, int, int], ...] = tuple(coords)
        self._ids = {c: p for p, c in enumerate(coords)}
        self.level: tuple[int, ...] = tuple(c[0] for c in coords)
        self.level_positions: tuple[tuple[int, ...], ...] = tuple(
            tuple(p for p, c in enumerate(coords) if c[0] == level) for level in range(n)
        )
        self.labels: tuple[str, ...] = tuple(format_label(*c) for c in coords)
        self._by_label = {label: p for p, label in enumerate(self.labels)}
        self.uvw: tuple[tuple[int, int, int], ...] = tuple(
            (n - level - 1 - row, row - index, index) for level, row, index in coords
        )
        self._by_uvw = {t: p for p, t in enumerate(self.uvw)}

        def shifted(p: int, delta: tuple[int, ...]) -> int | None:
            t = self.uvw[p]
            return self._by_uvw.get((t[0] + delta[0], t[1] + delta[1], t[2] + delta[2]))

        def neg(delta: tuple[int, ...]) -> tuple[int, ...]:
            return (-delta[0], -delta[1], -delta[2])

        self.supporters: tuple[tuple[int, ...], ...] = tuple(
            ()
            if self.level[p] == 0
            else tuple(s for s in (shifted(p, e) for e in UNIT) if s is not None)
            for p in range(self.count)
        )
        self.above: tuple[tuple[int | None, int | None, int | None], ...] = tuple(
            (shifted(p, neg(UNIT[0])), shifted(p, neg(UNIT[1])), shifted(p, neg(UNIT[2])))
            for p in range(self.count)
        )
        self.carried: tuple[tuple[int, ...], ...] = tuple(
            tuple(q for q in faces if q is not None) for faces in self.above
        )
        self.contacts: tuple[tuple[int, ...], ...] = tuple(
            self.supporters[p] + self.carried[p] for p in range(self.count)
        )
        same_level = [
            tuple(d - e for d, e in zip(UNIT[x], UNIT[y], strict=True))
            for x in AXES
            for y in AXES
            if x != y
        ]
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(
            _present(shifted(p, d) for d in same_level) for p in range(self.count)
        )
        # Two levels apart and sharing an edge: differ by -(e_x + e_y) or +(e_x + e_y).
        two_level = [
            tuple(sign * (d + e) for d, e in zip(UNIT[x], UNIT[y], strict=True))
            for sign in (-1, 1)
            for x in AXES
            for y in AXES
            if x < y
        ]
        self.edge_contacts: tuple[tuple[int, ...], ...] = tuple(
            _present(shifted(p, d) for d in two_level) for p in range(self.count)
        )
        self.side_mask: tuple[int, ...] = tuple(
            sum(1 << x for x in AXES if t[x] == 0) for t in self.uvw
        )
        self.sides: tuple[str, ...] = tuple(
            "".join(SIDES[x] for x in AXES if mask >> x & 1) for mask in self.side_mask
        )
        self.slopes: dict[str, tuple[int, ...]] = {
            SIDES[x]: tuple(p for p in range(self.count) if self.side_mask[p] >> x & 1)
            for x in AXES
        }
        self.xy: tuple[tuple[float, float], ...] = tuple(point_xy(t) for t in self.uvw)
        self.face_corners: tuple[tuple[FaceCorners, FaceCorners, FaceCorners], ...] = tuple(
            (_face_corners(t, 0), _face_corners(t, 1), _face_corners(t, 2)) for t in self.uvw
        )
        self._sides_up_to: dict[int, tuple[frozenset[str], ...]] = {}
        hexagons = [
            (x + dx, y + dy)
            for x, y in (self.xy[p] for p in self.level_positions[0])
            for dx, dy in _HEXAGON
        ]
        self.outline: tuple[tuple[float, float], ...] = _hull(hexagons)
        self.side_edges: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
            SIDES[x]: edge for x in AXES for edge in _edges(self.outline) if _faces(edge, x)
        }

    def __repr__(self) -> str:
        return f"pyramid({self.n})"

    def find(self, level: int, row: int, index: int) -> int | None:
        """The id of position ``(level, row, index)``, or None if this board has none."""
        return self._ids.get((level, row, index))

    def at(self, u: int, v: int, w: int) -> int | None:
        """The id of the cube whose top corner is lattice point ``(u, v, w)``, or None."""
        return self._by_uvw.get((u, v, w))

    def parse(self, text: str) -> int | None:
        """The id named by a label, or None if it is well formed but off this board.

        Raises ValueError when ``text`` is not a label at all.
        """
        p = self._by_label.get(text)
        if p is not None:
            return p
        return self.find(*parse_label(text))

    def is_supported(self, p: int, occupied: Callable[[int], object]) -> bool:
        """Whether a cube may rest at ``p``: on the board, or on three occupied supporters."""
        return all(occupied(s) for s in self.supporters[p])

    def up_line(self, p: int, axis: int) -> tuple[int, ...]:
        """The positions ``p - e_x, p - 2 e_x, ...`` up the ``axis`` from ``p`` (§1.7)."""
        line = []
        q = self.above[p][axis]
        while q is not None:
            line.append(q)
            q = self.above[q][axis]
        return tuple(line)

    def column(self, p: int, occupied: Callable[[int], object]) -> tuple[int, ...]:
        """The occupied chain resting on ``p`` along one axis, lowest first (§1.7).

        Empty when ``p`` carries no cube.  Raises ValueError when ``p`` carries more than one
        cube (then no single column is defined and the cube cannot be lifted).
        """
        tops = [x for x in AXES if (q := self.above[p][x]) is not None and occupied(q)]
        if not tops:
            return ()
        if len(tops) > 1:
            raise ValueError(f"{self.labels[p]} carries {len(tops)} cubes")
        chain = []
        for q in self.up_line(p, tops[0]):
            if not occupied(q):
                break
            chain.append(q)
        return tuple(chain)

    def sides_up_to(self, max_level: int) -> tuple[frozenset[str], ...]:
        """For each position, the sides a cube there touches when only levels up to
        ``max_level`` reach a side (``-1``: every level), as Ankor's ``-win_height`` needs.

        Cached per level; see :meth:`side_map` for the Mapping form the graph searches take.
        """
        cached = self._sides_up_to.get(max_level)
        if cached is None:
            cached = tuple(
                frozenset(self.sides[p])
                if max_level < 0 or self.level[p] <= max_level
                else frozenset()
                for p in range(self.count)
            )
            self._sides_up_to[max_level] = cached
        return cached

    def side_map(self, max_level: int = -1) -> dict[int, frozenset[str]]:
        """:meth:`sides_up_to` as a dict of the positions that touch a side, for
        :func:`rules.geometry.graph.sides_touched` and :func:`rules.geometry.graph.connects`.
        """
        return {p: sides for p, sides in enumerate(self.sides_up_to(max_level)) if sides}

    def point_rim(self, point: tuple[int, int, int]) -> str:
        """The rim sides of a lattice point (``K_x = 0`` and ``sum(K) >= n``), in UVW order."""
        if sum(point) < self.n:
            return ""
        return "".join(SIDES[x] for x in AXES if point[x] == 0)


def _face_corners(top: Point, axis: int) -> FaceCorners:
    y, z = (axis + 1) % 3, (axis + 2) % 3
    a = _shift(top, y)
    b = _shift(top, z)
    return top, a, _shift(a, z), b


def _shift(point: Point, axis: int) -> Point:
    return (point[0] + (axis == 0), point[1] + (axis == 1), point[2] + (axis == 2))


_HEXAGON = tuple(
    (round(math.cos(math.pi * k / 3), 12), round(math.sin(math.pi * k / 3), 12)) for k in range(6)
)
"""A hexagon's vertices around its centre (circumradius 1), counter-clockwise from the right."""
_SIDE_NORMALS = ((-1.0, 0.0), (0.5, -_HALF_SQRT3), (0.5, _HALF_SQRT3))
"""The outward normal of the outline along each side: U left, V bottom, W top (§1.6)."""


def _hull(points: Iterable[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """The convex hull of ``points``, counter-clockwise, without collinear points."""
    unique = sorted({(round(x, 9), round(y, 9)) for x, y in points})
    if len(unique) < 3:
        return tuple(unique)

    def chain(ordered: list[tuple[float, float]]) -> list[tuple[float, float]]:
        found: list[tuple[float, float]] = []
        for point in ordered:
            while len(found) >= 2 and _cross(found[-2], found[-1], point) <= 1e-6:
                found.pop()
            found.append(point)
        return found[:-1]

    return tuple(chain(unique) + chain(unique[::-1]))


def _cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _edges(
    outline: tuple[tuple[float, float], ...],
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    return [(outline[i], outline[(i + 1) % len(outline)]) for i in range(len(outline))]


def _faces(edge: tuple[tuple[float, float], tuple[float, float]], axis: int) -> bool:
    """Whether the outline edge (counter-clockwise) faces outward along side ``axis``."""
    (x1, y1), (x2, y2) = edge
    length = math.hypot(x2 - x1, y2 - y1)
    if length == 0:
        return False
    normal = ((y2 - y1) / length, (x1 - x2) / length)
    want = _SIDE_NORMALS[axis]
    return abs(normal[0] - want[0]) < 1e-6 and abs(normal[1] - want[1]) < 1e-6


def _present(ids: Iterable[int | None]) -> tuple[int, ...]:
    return tuple(sorted(p for p in ids if p is not None))
