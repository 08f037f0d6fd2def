"""The bounded square grid: ids, neighbours, lines, sides, side positions 1..4n, drawing."""

from __future__ import annotations

import pytest

from rules.geometry import graph
from rules.geometry.squares import NO_CELL, Side, square_grid


def test_cell_ids_run_row_by_row() -> None:
    g = square_grid(3)
    assert g.count == 9
    assert g.cell(0, 0) == 0 and g.cell(1, 2) == 5 and g.cell(2, 0) == 6
    assert (g.row[5], g.col[5]) == (1, 2)
    with pytest.raises(ValueError):
        g.cell(3, 0)
    with pytest.raises(ValueError):
        g.cell(0, -1)


def test_neighbours_are_orthogonal_only() -> None:
    g = square_grid(3)
    assert sorted(g.neighbours[0]) == [1, 3]
    assert sorted(g.neighbours[1]) == [0, 2, 4]
    assert sorted(g.neighbours[4]) == [1, 3, 5, 7]
    assert sum(len(n) for n in g.neighbours) == 2 * 12  # 12 edges in a 3x3 grid
    assert len(graph.groups(range(g.count), g.neighbours)) == 1


def test_across_gives_the_neighbour_through_each_side() -> None:
    g = square_grid(3)
    assert g.across[4] == (1, 5, 7, 3)  # top, right, bottom, left
    assert g.across[0] == (NO_CELL, 1, 3, NO_CELL)
    assert g.across[8][Side.RIGHT] == NO_CELL and g.across[8][Side.BOTTOM] == NO_CELL
    for cell in range(g.count):
        for side in Side:
            other = g.across[cell][side]
            if other != NO_CELL:
                assert g.across[other][side.opposite] == cell


def test_rows_and_columns() -> None:
    g = square_grid(3)
    assert g.rows == ((0, 1, 2), (3, 4, 5), (6, 7, 8))
    assert g.columns == ((0, 3, 6), (1, 4, 7), (2, 5, 8))


def test_side_cells_run_clockwise() -> None:
    g = square_grid(3)
    assert g.side_cells[Side.TOP] == (0, 1, 2)
    assert g.side_cells[Side.RIGHT] == (2, 5, 8)
    assert g.side_cells[Side.BOTTOM] == (8, 7, 6)
    assert g.side_cells[Side.LEFT] == (6, 3, 0)
    assert g.sides[0] == {Side.TOP, Side.LEFT} and g.sides[4] == frozenset()
    assert g.sides[5] == {Side.RIGHT}


@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_side_positions_follow_the_osbox_numbering(n: int) -> None:
    """Osbox §3.1: top 1..n, right n+1..2n, bottom 2n+1..3n, left 3n+1..4n."""
    g = square_grid(n)
    assert len(g.positions) == 4 * n
    for p in range(1, 4 * n + 1):
        place = g.position(p)
        assert place.number == p
        if p <= n:
            side, line, cells = Side.TOP, p - 1, g.columns[p - 1]
        elif p <= 2 * n:
            side, line, cells = Side.RIGHT, p - n - 1, tuple(reversed(g.rows[p - n - 1]))
        elif p <= 3 * n:
            side, line, cells = Side.BOTTOM, 3 * n - p, tuple(reversed(g.columns[3 * n - p]))
        else:
            side, line, cells = Side.LEFT, 4 * n - p, g.rows[4 * n - p]
        assert (place.side, place.line, place.cells) == (side, line, cells), p
        assert place.is_row == (side in (Side.LEFT, Side.RIGHT))


def test_side_positions_outside_the_range_are_refused() -> None:
    g = square_grid(4)
    for p in (0, 17, -1):
        with pytest.raises(ValueError, match=str(p)):
            g.position(p)


def test_drawing_coordinates() -> None:
    g = square_grid(4)
    assert g.xy[g.cell(1, 2)] == (2, 1)
    assert g.position_xy(1) == (0, -1)
    assert g.position_xy(5) == (4, 0)
    assert g.position_xy(12) == (0, 4)
    assert g.position_xy(15) == (-1, 1)


def test_grids_are_shared_per_size() -> None:
    assert square_grid(5) is square_grid(5)
    with pytest.raises(ValueError):
        square_grid(0)
