"""Connected groups, sides touched, liberties and enclosure over any adjacency.

Cells are any hashable values (usually small ints indexing a tuple of neighbour tuples, which
is the fast form); ``neighbours[cell]`` gives the cells next to one cell.  Every game's
connection, capture and enclosure test goes through these functions, so a game module never
walks its board by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Protocol, TypeVar

Cell = TypeVar("Cell")
Label = TypeVar("Label")


class Adjacency(Protocol[Cell]):
    """Anything that maps a cell to its neighbours: a dict, or a tuple indexed by cell id."""

    def __getitem__(self, cell: Cell, /) -> Iterable[Cell]: ...


def flood(start: Cell, neighbours: Adjacency[Cell], member: Callable[[Cell], bool]) -> set[Cell]:
    """Every cell reachable from ``start`` through cells for which ``member`` holds.

    ``start`` itself is included whether or not ``member(start)`` holds.
    """
    seen = {start}
    frontier = [start]
    while frontier:
        cell = frontier.pop()
        for other in neighbours[cell]:
            if other not in seen and member(other):
                seen.add(other)
                frontier.append(other)
    return seen


def groups(cells: Iterable[Cell], neighbours: Adjacency[Cell]) -> list[set[Cell]]:
    """Split ``cells`` into maximal connected groups (adjacency restricted to ``cells``)."""
    remaining = set(cells)
    found = []
    while remaining:
        group = flood(remaining.pop(), neighbours, remaining.__contains__)
        remaining -= group
        found.append(group)
    return found


def boundary(group: Collection[Cell], neighbours: Adjacency[Cell]) -> set[Cell]:
    """The cells outside ``group`` that touch it."""
    return {other for cell in group for other in neighbours[cell] if other not in group}


def liberties(
    group: Collection[Cell], neighbours: Adjacency[Cell], is_empty: Callable[[Cell], bool]
) -> set[Cell]:
    """The empty cells next to ``group`` (its freedoms, in Go terms)."""
    return {cell for cell in boundary(group, neighbours) if is_empty(cell)}


def has_liberty(
    group: Iterable[Cell], neighbours: Adjacency[Cell], is_empty: Callable[[Cell], bool]
) -> bool:
    """Whether any cell next to ``group`` is empty; stops at the first one found."""
    return any(is_empty(other) for cell in group for other in neighbours[cell])


def sides_touched(group: Iterable[Cell], sides: Mapping[Cell, Iterable[Label]]) -> set[Label]:
    """The union of the side labels of the cells of ``group`` (cells on no side are absent)."""
    touched: set[Label] = set()
    for cell in group:
        labels = sides.get(cell)
        if labels is not None:
            touched.update(labels)
    return touched


def connects(
    group: Iterable[Cell], sides: Mapping[Cell, Iterable[Label]], required: Collection[Label]
) -> bool:
    """Whether ``group`` touches every side in ``required``."""
    return set(required) <= sides_touched(group, sides)


def enclosed_regions(
    cells: Iterable[Cell],
    neighbours: Adjacency[Cell],
    is_wall: Callable[[Cell], bool],
    is_open: Callable[[Cell], bool],
) -> list[set[Cell]]:
    """The groups of non-wall ``cells`` that reach no open cell (an edge, an empty place).

    A region is a maximal connected set of cells that are not walls; it is enclosed when none
    of its cells is open and no cell next to it is open.
    """
    free = [cell for cell in cells if not is_wall(cell)]
    return [
        region
        for region in groups(free, neighbours)
        if not any(is_open(cell) for cell in region)
        and not any(is_open(cell) for cell in boundary(region, neighbours))
    ]
