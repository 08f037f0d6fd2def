"""The shared graph searches, on a 3x3 grid small enough to check by eye."""

from __future__ import annotations

from rules.geometry import graph

#  0 1 2
#  3 4 5
#  6 7 8
GRID = (
    (1, 3),
    (0, 2, 4),
    (1, 5),
    (0, 4, 6),
    (1, 3, 5, 7),
    (2, 4, 8),
    (3, 7),
    (4, 6, 8),
    (5, 7),
)
SIDES = {
    0: {"top", "left"},
    1: {"top"},
    2: {"top", "right"},
    3: {"left"},
    5: {"right"},
    6: {"bottom", "left"},
    7: {"bottom"},
    8: {"bottom", "right"},
}


def test_groups_split_cells_by_adjacency() -> None:
    found = graph.groups([0, 1, 8, 5, 6], GRID)
    assert sorted(sorted(g) for g in found) == [[0, 1], [5, 8], [6]]


def test_flood_follows_members_only() -> None:
    assert graph.flood(0, GRID, {1, 2, 5}.__contains__) == {0, 1, 2, 5}


def test_liberties_are_empty_neighbours() -> None:
    occupied = {0, 1, 3}
    assert graph.liberties({0, 1}, GRID, lambda c: c not in occupied) == {2, 4}
    assert graph.has_liberty({0, 1}, GRID, lambda c: c not in occupied)
    assert not graph.has_liberty({0}, GRID, lambda c: c not in occupied)


def test_sides_touched_and_connects() -> None:
    column = {1, 4, 7}
    assert graph.sides_touched(column, SIDES) == {"top", "bottom"}
    assert graph.connects(column, SIDES, {"top", "bottom"})
    assert not graph.connects(column, SIDES, {"left", "right"})


def test_enclosed_regions_reach_no_open_cell() -> None:
    walls = {1, 3, 5, 7}
    regions = graph.enclosed_regions(range(9), GRID, walls.__contains__, lambda c: c in {0, 2})
    assert sorted(sorted(r) for r in regions) == [[4], [6], [8]]
