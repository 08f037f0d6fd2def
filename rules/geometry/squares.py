"""Bounded square grids: cells, orthogonal neighbours, rows, columns, sides and side positions.

A :class:`SquareGrid` of size ``n`` has ``n * n`` cells with small int ids ``row * n + col``
(row 0 at the top, column 0 at the left).  Everything is precomputed once per size;
:func:`square_grid` caches one grid per size.  Standard library only (connection searches over
``neighbours`` go through :mod:`rules.geometry.graph`).

API (``g = square_grid(n)``, ``cell`` an id, ``0 <= cell < g.count``):

* ``g.cell(row, col)`` the id (ValueError off the board); ``g.row[cell]``, ``g.col[cell]``;
  ``g.rows[r]`` and ``g.columns[c]`` the cell ids of a line, top to bottom / left to right.
* ``g.neighbours[cell]`` the orthogonal neighbours; ``g.across[cell][side]`` the neighbour
  across one side of the cell (a :class:`Side`), or :data:`NO_CELL` at the board's edge.
* Sides: ``g.side_cells[side]`` the cells along one side of the board, in clockwise order;
  ``g.sides[cell]`` the board sides a cell lies on.
* Side positions (Osbox §3.1): the ``4n`` places just outside the board, numbered clockwise
  from the top-left corner: top ``1..n`` left to right, right ``n+1..2n`` top to bottom,
  bottom ``2n+1..3n`` right to left, left ``3n+1..4n`` bottom to top.
  ``g.position(p)`` gives a :class:`SidePosition`: the side, the line index, and the cells of
  the line from the entry cell onward in the direction of travel (away from that side).
* Drawing: cell ``(row, col)`` is the unit square with top-left corner ``g.xy[cell] ==
  (col, row)`` (x to the right, **y pointing down**); the board spans ``0..n`` on both axes.
  ``g.position_xy(p)`` is the top-left corner of the unit square just outside the board at
  position ``p`` (where a pushed die is drawn before it enters).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import TypeAlias

CellId: TypeAlias = int

NO_CELL: CellId = -1
"""What ``across`` gives beyond the edge of the board."""


class Side(IntEnum):
    """A side of a cell or of the board, clockwise from the top."""

    TOP = 0
    RIGHT = 1
    BOTTOM = 2
    LEFT = 3

    @property
    def opposite(self) -> Side:
        return Side((self + 2) % 4)

    @property
    def label(self) -> str:
        """Lower-case name: ``"top"``."""
        return self.name.lower()


_STEP = {Side.TOP: (-1, 0), Side.RIGHT: (0, 1), Side.BOTTOM: (1, 0), Side.LEFT: (0, -1)}
"""(row, col) offset of the neighbour across each side."""


@dataclass(frozen=True, slots=True)
class SidePosition:
    """One place outside the board from which a line is entered.

    ``line`` is a row for the left and right sides, a column for the top and bottom; ``cells``
    lists that line from the entry cell (next to ``side``) to the far side.
    """

    number: int
    side: Side
    line: int
    cells: tuple[CellId, ...]

    @property
    def is_row(self) -> bool:
        return self.side in (Side.LEFT, Side.RIGHT)


class SquareGrid:
    """The precomputed geometry of one ``size`` x ``size`` board (see the module docstring)."""

    __slots__ = (
        "size",
        "count",
        "row",
        "col",
        "rows",
        "columns",
        "neighbours",
        "across",
        "side_cells",
        "sides",
        "positions",
        "xy",
    )

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a square grid needs at least one cell per side, not {size}")
        n = size
        self.size = n
        self.count = n * n
        cells = range(n * n)
        self.row: tuple[int, ...] = tuple(cell // n for cell in cells)
        self.col: tuple[int, ...] = tuple(cell % n for cell in cells)
        self.rows: tuple[tuple[CellId, ...], ...] = tuple(
            tuple(r * n + c for c in range(n)) for r in range(n)
        )
        self.columns: tuple[tuple[CellId, ...], ...] = tuple(
            tuple(r * n + c for r in range(n)) for c in range(n)
        )
        self.across: tuple[tuple[CellId, ...], ...] = tuple(
            tuple(self._step(cell, side) for side in Side) for cell in cells
        )
        self.neighbours: tuple[tuple[CellId, ...], ...] = tuple(
            tuple(other for other in self.across[cell] if other != NO_CELL) for cell in cells
        )
        self.side_cells: tuple[tuple[CellId, ...], ...] = (
            self.rows[0],
            self.columns[n - 1],
            tuple(reversed(self.rows[n - 1])),
            tuple(reversed(self.columns[0])),
        )
        self.sides: tuple[frozenset[Side], ...] = tuple(
            frozenset(side for side in Side if cell in self.side_cells[side]) for cell in cells
        )
        self.positions: tuple[SidePosition, ...] = tuple(
            self._side_position(number) for number in range(1, 4 * n + 1)
        )
        self.xy: tuple[tuple[int, int], ...] = tuple(
            (self.col[cell], self.row[cell]) for cell in cells
        )

    def cell(self, row: int, col: int) -> CellId:
        """The id of the cell at ``(row, col)``; raises ValueError off the board."""
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise ValueError(f"({row}, {col}) is not on a {self.size}x{self.size} board")
        return row * self.size + col

    def position(self, number: int) -> SidePosition:
        """The side position numbered ``number`` (1..4n); raises ValueError for other numbers."""
        if not 1 <= number <= 4 * self.size:
            raise ValueError(f"position {number} is not in 1..{4 * self.size}")
        return self.positions[number - 1]

    def position_xy(self, number: int) -> tuple[int, int]:
        """Top-left corner of the unit square just outside the board at side position ``number``."""
        place = self.position(number)
        row, col = self.row[place.cells[0]], self.col[place.cells[0]]
        d_row, d_col = _STEP[place.side]
        return col + d_col, row + d_row

    def _step(self, cell: CellId, side: Side) -> CellId:
        d_row, d_col = _STEP[side]
        row, col = cell // self.size + d_row, cell % self.size + d_col
        if 0 <= row < self.size and 0 <= col < self.size:
            return row * self.size + col
        return NO_CELL

    def _side_position(self, number: int) -> SidePosition:
        n = self.size
        side = Side((number - 1) // n)
        entry = self.side_cells[side][(number - 1) % n]
        line = self.row[entry] if side in (Side.LEFT, Side.RIGHT) else self.col[entry]
        cells = [entry]
        while (following := self.across[cells[-1]][side.opposite]) != NO_CELL:
            cells.append(following)
        return SidePosition(number, side, line, tuple(cells))


@cache
def square_grid(size: int) -> SquareGrid:
    """The shared, precomputed grid of one size; raises ValueError for a size below 1."""
    return SquareGrid(size)
