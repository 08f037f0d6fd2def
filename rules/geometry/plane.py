"""The unbounded plane of square cells (Che): cell ids, orthogonal neighbours, grid vertices.

Cells and vertices are small ints.  Cell ``(x, y)`` (x to the right, **y pointing down**) has
the id ``y * STRIDE + x``; because the stride is larger than twice any coordinate, comparing
ids compares cells in *reading order* (top row first, then left to right), so ``sorted`` over
ids is reading order.  Vertex ``(vx, vy)`` is the grid point at the north-west corner of cell
``(vx, vy)`` and shares its id, so the corners of a cell are fixed offsets from it.

The stride is odd, which makes the parity of an id the parity of ``x + y``: the two classes of
the checkerboard that colours the vertices (:func:`parity`).

Coordinates are limited to ``|x|, |y| <= LIMIT`` (over eight million cells from the origin), far
beyond any game that can be played; :func:`cell` refuses anything further.

Drawing: cell ``(x, y)`` is the unit square whose top-left corner is ``(x, y)``; vertex
``(vx, vy)`` is the point ``(vx, vy)``.  Standard library only.
"""

from __future__ import annotations

from typing import TypeAlias

CellId: TypeAlias = int
"""A cell of the plane, ``y * STRIDE + x``."""
VertexId: TypeAlias = int
"""A grid point, with the id of the cell whose north-west corner it is."""

STRIDE = (1 << 24) + 1
"""Odd, so that ``id % 2 == (x + y) % 2``; larger than twice :data:`LIMIT`."""
LIMIT = (1 << 23) - 1
"""The largest ``|x|`` or ``|y|`` a cell may have."""
ORIGIN: CellId = 0
"""Cell (0, 0), where the first tile of a game goes."""

NORTH = -STRIDE
WEST = -1
EAST = 1
SOUTH = STRIDE
STEPS = (NORTH, WEST, EAST, SOUTH)
"""Id offsets of the orthogonal neighbours, in reading order."""

CORNER_STEPS = (0, 1, STRIDE + 1, STRIDE)
"""Id offsets from a cell to its corner vertices NW, NE, SE, SW."""
AROUND_STEPS = (-STRIDE - 1, -STRIDE, 0, -1)
"""Id offsets from a vertex to the cells around it: NW, NE, SE, SW of the vertex."""


def cell(x: int, y: int) -> CellId:
    """The id of cell ``(x, y)``; raises ValueError beyond :data:`LIMIT`."""
    if not (-LIMIT <= x <= LIMIT and -LIMIT <= y <= LIMIT):
        raise ValueError(f"cell ({x},{y}) is too far from the origin (limit {LIMIT})")
    return y * STRIDE + x


def xy(cell_id: CellId) -> tuple[int, int]:
    """The coordinates ``(x, y)`` of a cell (or vertex) id."""
    y = (cell_id + STRIDE // 2) // STRIDE
    return cell_id - y * STRIDE, y


def neighbours(cell_id: CellId) -> tuple[CellId, CellId, CellId, CellId]:
    """The four orthogonal neighbours, in reading order (north, west, east, south)."""
    return (cell_id - STRIDE, cell_id - 1, cell_id + 1, cell_id + STRIDE)


def corners(cell_id: CellId) -> tuple[VertexId, VertexId, VertexId, VertexId]:
    """The corner vertices of a cell: NW, NE, SE, SW."""
    return (cell_id, cell_id + 1, cell_id + STRIDE + 1, cell_id + STRIDE)


def cells_around(vertex: VertexId) -> tuple[CellId, CellId, CellId, CellId]:
    """The four cells that meet at a vertex: its NW, NE, SE and SW cells."""
    return (vertex - STRIDE - 1, vertex - STRIDE, vertex, vertex - 1)


def parity(vertex: VertexId) -> int:
    """The checkerboard class of a vertex (or cell): ``(x + y) % 2``."""
    return vertex & 1


def is_adjacent(first: CellId, second: CellId) -> bool:
    """Whether two cells share an edge."""
    return abs(first - second) in (1, STRIDE)


class Neighbours:
    """The orthogonal adjacency of the whole plane, as :mod:`rules.geometry.graph` expects."""

    __slots__ = ()

    def __getitem__(self, cell_id: CellId, /) -> tuple[CellId, CellId, CellId, CellId]:
        return neighbours(cell_id)


NEIGHBOURS = Neighbours()
