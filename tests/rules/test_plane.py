"""The unbounded plane of square cells: ids, reading order, neighbours, vertices, parity."""

from __future__ import annotations

import random

import pytest

from rules.geometry import plane
from rules.geometry.graph import flood


def test_cell_xy_round_trip_near_and_far() -> None:
    for x, y in [(0, 0), (3, -7), (-5, 2), (plane.LIMIT, -plane.LIMIT), (-plane.LIMIT, 0)]:
        assert plane.xy(plane.cell(x, y)) == (x, y)
    assert plane.cell(0, 0) == plane.ORIGIN


def test_cell_beyond_the_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="too far"):
        plane.cell(plane.LIMIT + 1, 0)
    with pytest.raises(ValueError, match="too far"):
        plane.cell(0, -plane.LIMIT - 1)


def test_ids_sort_in_reading_order() -> None:
    rng = random.Random(3)
    points = [(rng.randint(-50, 50), rng.randint(-50, 50)) for _ in range(300)]
    by_id = sorted(points, key=lambda p: plane.cell(*p))
    assert by_id == sorted(points, key=lambda p: (p[1], p[0]))


def test_neighbours_are_north_west_east_south() -> None:
    cells = plane.neighbours(plane.cell(2, -3))
    assert [plane.xy(c) for c in cells] == [(2, -4), (1, -3), (3, -3), (2, -2)]
    assert plane.is_adjacent(plane.cell(2, -3), plane.cell(2, -2))
    assert not plane.is_adjacent(plane.cell(2, -3), plane.cell(3, -2))


def test_corners_and_cells_around_a_vertex_agree() -> None:
    cell = plane.cell(-4, 6)
    nw, ne, se, sw = plane.corners(cell)
    assert [plane.xy(v) for v in (nw, ne, se, sw)] == [(-4, 6), (-3, 6), (-3, 7), (-4, 7)]
    # The cell is the SE cell of its NW corner, the SW cell of its NE corner, and so on.
    assert plane.cells_around(nw)[2] == cell
    assert plane.cells_around(ne)[3] == cell
    assert plane.cells_around(se)[0] == cell
    assert plane.cells_around(sw)[1] == cell


def test_parity_is_a_checkerboard() -> None:
    for x in range(-3, 4):
        for y in range(-3, 4):
            assert plane.parity(plane.cell(x, y)) == (x + y) % 2
    vertex = plane.cell(1, 1)
    assert {plane.parity(v) for v in plane.corners(vertex)} == {0, 1}


def test_neighbours_serve_the_graph_searches() -> None:
    members = {plane.cell(x, 0) for x in range(5)} | {plane.cell(9, 9)}
    found = flood(plane.cell(0, 0), plane.NEIGHBOURS, members.__contains__)
    assert found == {plane.cell(x, 0) for x in range(5)}
