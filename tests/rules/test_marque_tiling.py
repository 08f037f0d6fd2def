"""Marque's tiling, built from the geometry of spec §2.1, against the spec's own tables."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from rules.geometry import marque_tiling as tiling

CASES = Path(__file__).parent / "cases" / "marque"


def spec_cell_table() -> dict[str, list[str]]:
    """Spec §2.6, one row per cell: shape, bases, neighbours, deg, edge, glyph, centroid."""
    rows = {}
    for line in (CASES / "cells.txt").read_text().splitlines():
        if not line.startswith("|"):
            continue
        fields = [field.strip() for field in line.strip("|").split("|")]
        rows[fields[0]] = fields[1:]
    return rows


SPEC = spec_cell_table()


def test_tiling_has_the_spec_cell_counts() -> None:
    shapes = [tiling.SHAPES[c] for c in range(tiling.CELL_COUNT)]
    assert len(SPEC) == tiling.CELL_COUNT == 96
    assert shapes.count(tiling.BASE_TRIANGLE) == 42
    assert shapes.count(tiling.SQUARE) == 30
    assert shapes.count(tiling.ISOLATED_TRIANGLE) == 24


def test_tiling_labels_follow_the_id_order() -> None:
    assert tiling.LABELS[:7] == ("a1", "a2", "a3", "a4", "a5", "a6", "b1")
    assert tiling.LABELS[42] == "s1" and tiling.LABELS[71] == "s30"
    assert tiling.LABELS[72] == "t1" and tiling.LABELS[95] == "t24"
    assert all(tiling.CELL_IDS[label] == c for c, label in enumerate(tiling.LABELS))


@pytest.mark.parametrize("label", sorted(SPEC))
def test_tiling_cell_matches_the_spec_table(label: str) -> None:
    shape, bases, neighbours, degree, edge, glyph, centroid = SPEC[label]
    cell = tiling.CELL_IDS[label]
    assert tiling.SHAPES[cell] == shape
    assert "".join(sorted(tiling.BASE_NAMES[b] for b in tiling.CELL_BASES[cell])) == bases
    assert {tiling.LABELS[n] for n in tiling.NEIGHBOURS[cell]} == set(neighbours.split())
    assert len(tiling.NEIGHBOURS[cell]) == int(degree)
    assert (cell in tiling.EDGE_CELLS) == (edge == "yes")
    assert tiling.GLYPHS[cell] == tuple(int(n) for n in glyph.split(","))
    x, y = (float(n) for n in centroid.split(","))
    assert tiling.CENTROIDS[cell] == pytest.approx((x, y), abs=5e-4)


def test_tiling_adjacency_is_symmetric_with_144_pairs() -> None:
    pairs = {
        frozenset((cell, other))
        for cell in range(tiling.CELL_COUNT)
        for other in tiling.NEIGHBOURS[cell]
    }
    assert len(pairs) == 144
    for cell in range(tiling.CELL_COUNT):
        assert cell not in tiling.NEIGHBOURS[cell]
        for other in tiling.NEIGHBOURS[cell]:
            assert cell in tiling.NEIGHBOURS[other]


def test_tiling_triangle_pairs_are_the_42_ring_neighbours() -> None:
    expected = {
        frozenset((f"{base}{k}", f"{base}{k % 6 + 1}")) for base in "abcdefg" for k in range(1, 7)
    }
    found = {frozenset(tiling.LABELS[c] for c in pair) for pair in tiling.TRIANGLE_PAIRS}
    assert found == expected and len(tiling.TRIANGLE_PAIRS) == 42
    assert all(a < b for a, b in tiling.TRIANGLE_PAIRS)


def test_tiling_base_triangles_are_cyclically_adjacent() -> None:
    for base, triangles in enumerate(tiling.BASE_TRIANGLES):
        assert [tiling.LABELS[c] for c in triangles] == [
            f"{tiling.BASE_NAMES[base].lower()}{k}" for k in range(1, 7)
        ]
        for k in range(6):
            assert triangles[(k + 1) % 6] in tiling.NEIGHBOURS[triangles[k]]
            assert triangles[(k + 2) % 6] not in tiling.NEIGHBOURS[triangles[k]]


def test_tiling_base_adjacency_is_the_spec_twelve_pairs() -> None:
    names = tiling.BASE_NAMES
    found = {
        "".join(sorted(names[a] + names[b])) for a in range(7) for b in tiling.BASE_NEIGHBOURS[a]
    }
    assert found == set("AB AC AD BD BE CD DE CF DF DG EG FG".split())
    assert tiling.BASE_NEIGHBOURS[names.index("D")] == frozenset(range(7)) - {3}


def test_tiling_opposite_bases_are_point_symmetric_through_d() -> None:
    names = tiling.BASE_NAMES
    found = {
        "".join(sorted(names[a] + names[b])) for a, b in enumerate(tiling.OPPOSITE) if b is not None
    }
    assert found == {"AG", "BF", "CE"}
    assert tiling.OPPOSITE[names.index("D")] is None


def test_tiling_only_two_triples_of_bases_are_pairwise_non_adjacent() -> None:
    triples = {
        "".join(tiling.BASE_NAMES[b] for b in triple)
        for triple in itertools.combinations(range(7), 3)
        if all(b not in tiling.BASE_NEIGHBOURS[a] for a, b in itertools.combinations(triple, 2))
    }
    assert triples == {"AEF", "BCG"}


def test_tiling_blank_board_keeps_outline_and_base_letters_only() -> None:
    assert len(tiling.BLANK_BOARD) == 37
    text = "\n".join(tiling.BLANK_BOARD)
    for letter in tiling.BASE_NAMES:
        assert text.count(letter) == 1
    assert not any(ch.isdigit() for ch in text)
    for row, column in tiling.GLYPHS:
        assert tiling.BLANK_BOARD[row][column] == " "


def test_tiling_polygons_are_unit_edged() -> None:
    for polygon in tiling.POLYGONS:
        for i, (x, y) in enumerate(polygon):
            px, py = polygon[i - 1]
            assert ((x - px) ** 2 + (y - py) ** 2) ** 0.5 == pytest.approx(1.0)


def test_tiling_cell_classes_of_section_2_4() -> None:
    def labels(predicate: Callable[[int], bool]) -> set[str]:
        return {tiling.LABELS[c] for c in range(tiling.CELL_COUNT) if predicate(c)}

    squares = labels(lambda c: tiling.SHAPES[c] == tiling.SQUARE)
    between = labels(lambda c: tiling.SHAPES[c] == tiling.SQUARE and len(tiling.CELL_BASES[c]) == 2)
    assert between == set("s6 s9 s10 s11 s12 s15 s16 s19 s20 s21 s22 s25".split())
    assert squares - between == labels(
        lambda c: tiling.SHAPES[c] == tiling.SQUARE and c in tiling.EDGE_CELLS
    )
    isolated_edge = labels(
        lambda c: tiling.SHAPES[c] == tiling.ISOLATED_TRIANGLE and c in tiling.EDGE_CELLS
    )
    assert isolated_edge == set("t1 t2 t3 t5 t9 t12 t13 t16 t20 t22 t23 t24".split())
    degrees: dict[str, set[int]] = {}
    for c in range(tiling.CELL_COUNT):
        kind = tiling.SHAPES[c] + ("-edge" if c in tiling.EDGE_CELLS else "")
        degrees.setdefault(kind, set()).add(len(tiling.NEIGHBOURS[c]))
    assert degrees == {
        "base-tri": {3},
        "square": {4},
        "square-edge": {3},
        "iso-tri": {3},
        "iso-tri-edge": {2},
    }
