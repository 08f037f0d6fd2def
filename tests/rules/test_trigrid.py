"""The shared pyramid geometry: the test vectors of spec §1.8 and its structural laws."""

from __future__ import annotations

import math

import pytest

from rules.geometry import trigrid
from rules.geometry.trigrid import pyramid


def ids(g: trigrid.Pyramid, *labels: str) -> set[int]:
    found = {g.parse(label) for label in labels}
    assert None not in found
    return found  # type: ignore[return-value]


def names(g: trigrid.Pyramid, positions: object) -> set[str]:
    return {g.labels[p] for p in positions}  # type: ignore[attr-defined]


def test_positions_per_level_and_total() -> None:
    g = pyramid(4)
    assert [len(level) for level in g.level_positions] == [10, 6, 3, 1]
    assert g.count == 20
    assert [pyramid(n).count for n in range(1, 11)] == [1, 4, 10, 20, 35, 56, 84, 120, 165, 220]
    assert all(pyramid(n).count == trigrid.tetrahedral(n) for n in range(1, 27))


def test_pyramid_is_built_once_per_size() -> None:
    assert pyramid(6) is pyramid(6)
    with pytest.raises(ValueError):
        pyramid(0)
    with pytest.raises(ValueError):
        pyramid(27)


@pytest.mark.parametrize(
    ("label", "uvw"),
    [
        ("c2", (1, 1, 1)),
        ("1b1", (1, 1, 0)),
        ("3a1", (0, 0, 0)),
        ("a1", (3, 0, 0)),
        ("d4", (0, 0, 3)),
    ],
)
def test_uvw_of_labels(label: str, uvw: tuple[int, int, int]) -> None:
    g = pyramid(4)
    p = g.parse(label)
    assert p is not None and g.uvw[p] == uvw
    assert g.at(*uvw) == p


@pytest.mark.parametrize(
    ("label", "supporters"),
    [
        ("1a1", {"a1", "b1", "b2"}),
        ("1c3", {"c3", "d3", "d4"}),
        ("2b2", {"1b2", "1c2", "1c3"}),
        ("3a1", {"2a1", "2b1", "2b2"}),
    ],
)
def test_supporters(label: str, supporters: set[str]) -> None:
    g = pyramid(4)
    p = g.parse(label)
    assert p is not None
    assert names(g, g.supporters[p]) == supporters


def test_supporters_are_in_axis_order_and_board_cubes_have_none() -> None:
    g = pyramid(4)
    p = g.parse("1a1")
    assert p is not None
    assert [g.labels[s] for s in g.supporters[p]] == ["a1", "b1", "b2"]
    assert all(g.supporters[q] == () for q in g.level_positions[0])


def test_cubes_on_top_by_face() -> None:
    g = pyramid(4)
    c2, b11 = g.parse("c2"), g.parse("1b1")
    assert c2 is not None and b11 is not None
    assert [g.labels[q] if q is not None else None for q in g.above[c2]] == ["1c2", "1b2", "1b1"]
    assert [g.labels[q] if q is not None else None for q in g.above[b11]] == ["2b1", "2a1", None]
    assert names(g, g.carried[b11]) == {"2b1", "2a1"}
    assert names(g, g.contacts[b11]) == {"2b1", "2a1", "b1", "c1", "c2"}


@pytest.mark.parametrize(
    ("label", "adjacent"),
    [
        ("c2", {"b1", "b2", "c1", "c3", "d2", "d3"}),
        ("d1", {"c1", "d2"}),
        ("a1", {"b1", "b2"}),
        ("1b1", {"1a1", "1b2", "1c1", "1c2"}),
    ],
)
def test_same_level_adjacency(label: str, adjacent: set[str]) -> None:
    g = pyramid(4)
    p = g.parse(label)
    assert p is not None
    assert names(g, g.adjacent[p]) == adjacent


@pytest.mark.parametrize(
    ("label", "sides"),
    [
        ("a1", "VW"),
        ("c1", "W"),
        ("c2", ""),
        ("c3", "V"),
        ("d1", "UW"),
        ("d2", "U"),
        ("d4", "UV"),
        ("1a1", "VW"),
        ("1b2", "V"),
        ("1c1", "UW"),
        ("1c2", "U"),
        ("2b1", "UW"),
        ("3a1", "UVW"),
    ],
)
def test_sides_of_positions(label: str, sides: str) -> None:
    g = pyramid(4)
    p = g.parse(label)
    assert p is not None
    assert g.sides[p] == sides
    assert all((p in g.slopes[side]) == (side in sides) for side in trigrid.SIDES)


def test_sides_up_to_a_level_limit_slopes() -> None:
    g = pyramid(4)
    b12, c1 = g.parse("1b2"), g.parse("c1")
    apex = g.parse("3a1")
    assert b12 is not None and c1 is not None and apex is not None
    assert g.sides_up_to(1)[b12] == {"V"}
    assert g.sides_up_to(0)[b12] == frozenset()
    assert g.sides_up_to(0)[c1] == {"W"}
    assert g.sides_up_to(-1)[apex] == {"U", "V", "W"}
    assert g.sides_up_to(2)[apex] == frozenset()
    assert g.side_map(0) == {p: frozenset(g.sides[p]) for p in g.level_positions[0] if g.sides[p]}


def test_column_above_d2_on_a_size_6_board() -> None:
    g = pyramid(6)
    occupied = ids(g, "1d2", "2d2") | set(g.level_positions[0])
    d2 = g.parse("d2")
    assert d2 is not None
    assert [g.labels[q] for q in g.column(d2, occupied.__contains__)] == ["1d2", "2d2"]
    assert [g.labels[q] for q in g.up_line(d2, 0)] == ["1d2", "2d2"]
    assert [g.labels[q] for q in g.up_line(d2, 1)] == ["1c2", "2b2"]
    assert [g.labels[q] for q in g.up_line(d2, 2)] == ["1c1"]


def test_column_is_empty_without_a_cube_on_top_and_undefined_with_two() -> None:
    g = pyramid(4)
    c2 = g.parse("c2")
    assert c2 is not None
    assert g.column(c2, set(g.level_positions[0]).__contains__) == ()
    with pytest.raises(ValueError):
        g.column(c2, (set(g.level_positions[0]) | ids(g, "1c2", "1b1")).__contains__)


def test_pit_triple_carries_a_position_and_peak_triple_does_not() -> None:
    g = pyramid(4)
    pit, peak = ids(g, "b1", "c1", "c2"), ids(g, "b1", "b2", "c2")
    carriers = {p: set(g.supporters[p]) for p in range(g.count)}
    assert [g.labels[p] for p, s in carriers.items() if s == pit] == ["1b1"]
    assert not any(s == peak for s in carriers.values())


def test_labels_round_trip_and_parse_case_insensitively() -> None:
    for n in (1, 4, 6, 26):
        g = pyramid(n)
        for p in range(g.count):
            assert g.parse(g.labels[p]) == p
            assert g.parse(g.labels[p].upper()) == p
            assert g.find(*g.coords[p]) == p
    g = pyramid(4)
    assert g.labels[g.find(0, 3, 2) or 0] == "d3"
    assert trigrid.format_label(1, 1, 0) == "1b1"
    assert trigrid.parse_label("3A1") == (3, 0, 0)
    assert g.parse("e1") is None and g.parse("1d1") is None and g.parse("a2") is None


@pytest.mark.parametrize("text", ["", "d", "3", "d0", "0d3", "d-3", "dd3", "1 d3", "d3x", "ä3"])
def test_malformed_labels_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        trigrid.parse_label(text)
    with pytest.raises(ValueError):
        pyramid(4).parse(text)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_structure_laws(n: int) -> None:
    """Support is the inverse of carrying, adjacency is symmetric, lattice sums follow levels."""
    g = pyramid(n)
    for p in range(g.count):
        level, row, index = g.coords[p]
        assert sum(g.uvw[p]) == n - 1 - level
        assert len(g.supporters[p]) == (3 if level else 0)
        for s in g.supporters[p]:
            assert p in g.carried[s] and g.level[s] == level - 1
        for q in g.carried[p]:
            assert p in g.supporters[q]
        for q in g.adjacent[p]:
            assert p in g.adjacent[q] and g.level[q] == level
        for q in g.edge_contacts[p]:
            assert p in g.edge_contacts[q] and abs(g.level[q] - level) == 2
        assert 0 <= row < n - level and 0 <= index <= row
    interior = [p for p in g.level_positions[0] if not g.sides[p]]
    assert all(len(g.adjacent[p]) == 6 for p in interior)


def test_drawing_places_stacked_cubes_left_of_the_hole_below() -> None:
    """A level-L cube is drawn L radii left of the hole with its row and index (§1.2)."""
    g = pyramid(4)
    for p in range(g.count):
        level, row, index = g.coords[p]
        hole = g.find(0, row, index)
        assert hole is not None
        assert math.isclose(g.xy[p][0], g.xy[hole][0] - level)
        assert math.isclose(g.xy[p][1], g.xy[hole][1], abs_tol=1e-9)
    a1, c2, apex = g.parse("a1"), g.parse("c2"), g.parse("3a1")
    assert a1 is not None and c2 is not None and apex is not None
    assert g.xy[apex] == pytest.approx(g.xy[c2])
    assert g.xy[a1][0] > g.xy[c2][0]


def test_rim_of_lattice_points() -> None:
    g = pyramid(4)
    assert g.point_rim((0, 2, 2)) == "U"
    assert g.point_rim((4, 0, 0)) == "VW"
    assert g.point_rim((0, 1, 1)) == ""
    assert g.point_rim((1, 1, 1)) == ""


def test_face_corners_of_c2() -> None:
    """Upper faces F_U, F_V, F_W of c2 (top corner (1,1,1)) as T, A, F, B."""
    g = pyramid(4)
    c2 = g.parse("c2")
    assert c2 is not None
    assert g.face_corners[c2] == (
        ((1, 1, 1), (1, 2, 1), (1, 2, 2), (1, 1, 2)),
        ((1, 1, 1), (1, 1, 2), (2, 1, 2), (2, 1, 1)),
        ((1, 1, 1), (2, 1, 1), (2, 2, 1), (1, 2, 1)),
    )


def test_face_corners_draw_left_lower_and_upper_rhombi() -> None:
    """§1.4: in the drawing F_U is the left rhombus, F_V the lower one, F_W the upper one."""
    g = pyramid(5)
    for p in range(g.count):
        cx, cy = g.xy[p]
        f_u, f_v, f_w = ([trigrid.point_xy(k) for k in face] for face in g.face_corners[p])
        assert all(x <= cx + 1e-9 for x, _ in f_u) and min(x for x, _ in f_u) < cx - 0.9
        assert all(y <= cy + 1e-9 for _, y in f_v) and min(y for _, y in f_v) < cy - 0.5
        assert all(y >= cy - 1e-9 for _, y in f_w) and max(y for _, y in f_w) > cy + 0.5
        for face in g.face_corners[p]:
            assert face[0] == g.uvw[p] and sum(face[2]) == sum(face[0]) + 2
