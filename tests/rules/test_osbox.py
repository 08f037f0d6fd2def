"""Osbox rules: the spec's test cases (``cases/osbox/*.json``), the dice, options, data, fuzz."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from rules import osbox
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError, Seat
from rules.geometry.squares import Side

CASES = Path(__file__).parent / "cases" / "osbox"
CASE_FILES = sorted(CASES.glob("*.json"))


def load_case(path: Path) -> dict[str, Any]:
    case: dict[str, Any] = json.loads(path.read_text())
    return case


def cell_of(key: str, size: int) -> int:
    row, col = (int(part) for part in key.split(","))
    return row * size + col


def position(
    options: str = "",
    dice: dict[str, str] | None = None,
    to_move: str = "horz",
    scores: tuple[int, int] = (0, 0),
) -> osbox.State:
    """A position set up through the public data form: dice keyed ``"row,col"``."""
    state = osbox.new_game(osbox.parse_options(options))
    size = state.options.size
    data = osbox.to_data(state)
    data["dice"] = [{"cell": cell_of(k, size), "die": die} for k, die in (dice or {}).items()]
    data["to_move"] = to_move
    data["scores"] = {"horz": scores[0], "vert": scores[1]}
    return osbox.from_data(data)


def board_dice(state: osbox.State) -> dict[str, str]:
    size = state.options.size
    return {
        f"{cell // size},{cell % size}": osbox.die_name(kind)
        for cell, kind in enumerate(state.board)
        if kind
    }


def play_texts(state: osbox.State, texts: list[str]) -> osbox.State:
    for text in texts:
        state = osbox.play(state, osbox.parse_move(state, text))
    return state


# --- the spec's test cases ----------------------------------------------------------------------


def test_case_files_cover_every_spec_case() -> None:
    """Spec §12 lists O1..O17 (O1 in three parts); each has at least one case file."""
    names = [path.stem for path in CASE_FILES]
    for number in range(1, 18):
        assert any(name.startswith(f"o{number:02d}") for name in names), number
    assert {"o01a", "o01b", "o01c"} <= {name[:4] for name in names}


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_spec_case(path: Path) -> None:
    case = load_case(path)
    setup = case["setup"]
    state = position(case["options"], setup["dice"], setup["to_move"], tuple(setup["scores"]))
    before = osbox.to_data(state)
    expect = case["expect"]
    texts: list[str] = case["moves"]
    if expect.get("error") == "syntax":
        with pytest.raises(InvalidMoveError, match=expect["reason"]):
            play_texts(state, texts)
        return
    if expect.get("error") == "illegal":
        with pytest.raises(IllegalMoveError, match=expect["reason"]):
            play_texts(state, texts)
        assert osbox.to_data(state) == before, "a refused move changed the position"
        return
    after = play_texts(state, texts)
    size = after.options.size
    if "dice" in expect:
        assert board_dice(after) == expect["dice"], osbox.render(after)
    if "scores" in expect:
        assert osbox.scores(after) == tuple(expect["scores"])
    if "gained" in expect:
        assert after.gained == expect["gained"]
    if "removed" in expect:
        assert [cell for cell, _ in after.removed] == [cell_of(k, size) for k in expect["removed"]]
    if "to_move" in expect:
        seat = osbox.to_move(after)
        assert (None if seat is None else osbox.SEAT_NAMES[seat]) == expect["to_move"]
    if "last_move" in expect:
        assert after.last is not None and osbox.move_text(after.last) == expect["last_move"]
    result = osbox.outcome(after)
    if "over" in expect:
        assert (result is not None) == expect["over"]
    if "winner" in expect:
        assert result is not None
        winner = "draw" if result.winner is None else osbox.SEAT_NAMES[result.winner]
        assert winner == expect["winner"]


def test_worked_example_renders_like_the_seed_diagram() -> None:
    """Spec §10.1: the board before and after ``a15`` as drawn in the seed (whitespace restored)."""
    lines = (CASES / "seed_example_diagram.txt").read_text().splitlines()
    border = "+-----" * 4 + "+"
    starts = [i for i in range(len(lines[0])) if lines[0].startswith(border, i)]
    assert len(starts) == 2
    case = load_case(CASES / "o06_worked_example.json")
    before = position("", case["setup"]["dice"])
    after = osbox.play(before, osbox.Move("a", 15))
    for state, start in ((before, starts[0]), (after, starts[1])):
        drawn = osbox.render(state).splitlines()
        top = next(i for i, line in enumerate(drawn) if line.lstrip().startswith(border))
        board = [line[6 : 6 + len(border)] for line in drawn[top : top + 17]]
        expected = [line[start : start + len(border)].ljust(len(border)) for line in lines]
        if state is before:
            # The seed draws the pushed die outside the board, sharing its right border.
            expected[4] = "+" + expected[4][1:]
            expected[8] = "+" + expected[8][1:]
            board[4], board[8] = "+" + board[4][1:], "+" + board[8][1:]
        assert [line.ljust(len(border)) for line in board] == expected


# --- the dice -----------------------------------------------------------------------------------

DRAWN_FACES = {
    "a": "B0-B1",
    "b": "T0-B0 T1-B1",
    "c": "L1-B0 L0-B1",
    "e": "L0-R0 L1-B0 R1-B1",
    "f": "T0-L0 T1-R0 R1-B1 B0-L1",
}
"""Spec §2.2: the faces as drawn on the help page (the seed's faces figure)."""

CLOCKWISE = {"T0": "R0", "T1": "R1", "R0": "B1", "R1": "B0", "B0": "L0", "B1": "L1"}
CLOCKWISE |= {"L0": "T1", "L1": "T0"}


def strand_set(text: str) -> set[frozenset[str]]:
    return {frozenset(pair.split("-")) for pair in text.split()}


def turned(strands: set[frozenset[str]], quarter_turns: int) -> set[frozenset[str]]:
    for _ in range(quarter_turns):
        strands = {frozenset(CLOCKWISE[end] for end in pair) for pair in strands}
    return strands


def test_die_table_turns_the_drawn_face_so_its_bottom_leads() -> None:
    """Spec §3.2: none from the top, 90° clockwise from the right, 180°, 90° counter-clockwise."""
    for face, drawn in DRAWN_FACES.items():
        for side, quarter_turns in zip(Side, (0, 1, 2, 3), strict=True):
            table = strand_set(osbox.DIE_TABLE[face][side])
            assert table == turned(strand_set(drawn), quarter_turns), (face, side)


def test_die_every_half_end_of_a_port_is_on_exactly_one_strand() -> None:
    for face, texts in osbox.DIE_TABLE.items():
        for text in texts:
            ends = [end for pair in strand_set(text) for end in pair]
            assert len(ends) == len(set(ends)), (face, text)
            ports = {end[0] for end in ends}
            assert set(ends) == {f"{p}{i}" for p in ports for i in "01"}, (face, text)


def test_die_faces_figure_ports() -> None:
    """The seed's faces figure: ports of a-f as drawn (d is c), entering from the top."""
    expected = {"a": "B", "b": "TB", "c": "BL", "d": "BL", "e": "RBL", "f": "TRBL"}
    for face, ports in expected.items():
        kind = osbox.entering_die("c" if face == "d" else face, Side.TOP)
        assert osbox.die_name(kind) == f"{'c' if face == 'd' else face}:{ports}"


def test_die_kinds_are_fifteen_distinct_orientations() -> None:
    names = osbox.KIND_NAMES[1:]
    assert len(names) == len(set(names)) == 15
    for name in names:
        assert osbox.die_name(osbox.die_kind(name)) == name
    assert osbox.die_kind("d:TL") == osbox.die_kind("c:TL")
    with pytest.raises(ValueError):
        osbox.die_kind("a:TB")
    with pytest.raises(ValueError):
        osbox.die_name(0)


def test_die_f_is_the_same_from_every_side() -> None:
    assert len({osbox.entering_die("f", side) for side in Side}) == 1
    assert len({osbox.entering_die("b", side) for side in Side}) == 2


# --- moves and play -----------------------------------------------------------------------------


def test_parse_move_accepts_case_spaces_and_d() -> None:
    state = osbox.new_game(osbox.Options())
    assert osbox.parse_move(state, " F12 ") == osbox.Move("f", 12)
    assert osbox.parse_move(state, "d5") == osbox.Move("c", 5)
    assert osbox.move_text(osbox.parse_move(state, "D5")) == "c5"
    for bad in ("", "f", "12", "f-1", "ff12", "f 12 x", "swap", "f1.5", "f\u0661"):
        with pytest.raises(InvalidMoveError):
            osbox.parse_move(state, bad)


def test_legal_moves_start_with_every_face_from_home_sides() -> None:
    state = osbox.new_game(osbox.Options())
    texts = {osbox.move_text(m) for m in osbox.legal_moves(state)}
    assert texts == {f"{face}{p}" for face in "abcef" for p in (5, 6, 7, 8, 13, 14, 15, 16)}
    vert = osbox.play(state, osbox.Move("a", 5))
    texts = {osbox.move_text(m) for m in osbox.legal_moves(vert)}
    assert texts == {f"{face}{p}" for face in "abcef" for p in (1, 2, 3, 4, 9, 10, 11, 12)}
    any_side = osbox.new_game(osbox.parse_options("-any_side -size=3"))
    assert len(list(osbox.legal_moves(any_side))) == 5 * 12


def test_legal_moves_leave_out_full_lines() -> None:
    state = position(dice={"1,0": "b:TB", "1,1": "b:TB", "1,2": "b:TB", "1,3": "b:TB"})
    positions = {m.position for m in osbox.legal_moves(state)}
    assert positions == {5, 7, 8, 13, 14, 16}


def test_play_refuses_bad_faces_and_positions_built_by_hand() -> None:
    state = osbox.new_game(osbox.Options())
    with pytest.raises(IllegalMoveError, match="no face"):
        osbox.play(state, osbox.Move("d", 5))
    with pytest.raises(IllegalMoveError, match="no position"):
        osbox.play(state, osbox.Move("a", 17))
    with pytest.raises(IllegalMoveError, match="not an Osbox move"):
        osbox.play(state, "a5")  # type: ignore[arg-type]


def test_play_pushes_only_the_run_touching_the_entry_cell() -> None:
    state = position(dice={"3,1": "a:B", "1,1": "f:TRBL", "0,1": "b:TB"}, to_move="vert")
    after = osbox.play(state, osbox.Move("b", 11))  # bottom of column 1, moving up
    assert board_dice(after) == {"0,1": "b:TB", "1,1": "f:TRBL", "2,1": "a:B", "3,1": "b:TB"}


def test_play_leaves_its_input_unchanged() -> None:
    case = load_case(CASES / "o06_worked_example.json")
    state = position("", case["setup"]["dice"])
    board = state.board
    after = osbox.play(state, osbox.Move("a", 15))
    assert state.board == board and state.scores == (0, 0) and after.scores == (8, 0)


def test_scores_count_for_the_mover_only() -> None:
    case = load_case(CASES / "o06_worked_example.json")
    # Vert may push from the left only with -any_side.
    state = position("-any_side", case["setup"]["dice"], to_move="vert", scores=(2, 3))
    after = osbox.play(state, osbox.Move("a", 15))
    assert osbox.scores(after) == (2, 11)


def test_scores_are_zero_at_the_start() -> None:
    assert osbox.scores(osbox.new_game(osbox.Options())) == (0, 0)


def test_finished_game_refuses_moves() -> None:
    state = position("-size=2", {"0,0": "c:RB", "0,1": "c:BL", "1,0": "a:T"}, scores=(3, 5))
    over = osbox.play(state, osbox.Move("a", 4))
    assert osbox.to_move(over) is None and list(osbox.legal_moves(over)) == []
    with pytest.raises(IllegalMoveError, match="over"):
        osbox.play(over, osbox.Move("a", 3))


def test_random_games_end_on_a_full_board_with_the_higher_score_winning() -> None:
    rng = random.Random(3)
    finished = 0
    for _ in range(50):
        state = osbox.new_game(osbox.parse_options("-size=3"))
        while osbox.to_move(state) is not None:
            state = osbox.play(state, rng.choice(list(osbox.legal_moves(state))))
        assert all(state.board)
        result = osbox.outcome(state)
        assert result is not None
        horz, vert = osbox.scores(state)
        assert result.winner == (None if horz == vert else Seat(int(vert > horz)))
        finished += 1
    assert finished == 50


# --- options ------------------------------------------------------------------------------------


def test_options_every_flag() -> None:
    assert osbox.parse_options("") == osbox.Options(4, False, True, False)
    assert osbox.parse_options("-size=6").size == 6
    assert osbox.parse_options("-any_side").any_side is True
    assert osbox.parse_options("-capture").capture is True
    assert osbox.parse_options("-no_capture").capture is False
    assert osbox.parse_options("-thin_knots").thin_knots is True
    assert osbox.parse_options("-thick_knots").thin_knots is False
    options = osbox.parse_options("-size=3 -any_side -no_capture -thin_knots")
    assert osbox.parse_options(osbox.options_text(options)) == options
    assert osbox.options_text(osbox.parse_options("-capture -thick_knots -size=4")) == ""


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("-bogus", "-bogus"),
        ("-size=1", "-size=1"),
        ("-size=13", "-size=13"),
        ("-size", "-size"),
        ("-size=x", "-size"),
        ("-any_side=2", "-any_side"),
        ("-capture -no_capture", "-no_capture"),
        ("-thin_knots -thick_knots", "-thick_knots"),
    ],
)
def test_options_errors_name_the_flag(text: str, named: str) -> None:
    with pytest.raises(OptionsError, match=named):
        osbox.parse_options(text)


def test_options_built_by_hand_are_checked() -> None:
    with pytest.raises(OptionsError, match="-size=1"):
        osbox.Options(size=1)


# --- data and drawing ---------------------------------------------------------------------------


def test_to_data_carries_the_drawing() -> None:
    case = load_case(CASES / "o06_worked_example.json")
    state = osbox.play(position("", case["setup"]["dice"]), osbox.Move("a", 15))
    data = osbox.to_data(state)
    assert data["game"] == "osbox" and data["size"] == 4 and data["options"] == ""
    assert len(data["cells"]) == 16 and data["cells"][6] == {
        "cell": 6,
        "row": 1,
        "col": 2,
        "x": 2,
        "y": 1,
    }
    assert [p["position"] for p in data["positions"]] == list(range(1, 17))
    assert data["positions"][14] == {
        "position": 15,
        "side": "left",
        "x": -1,
        "y": 1,
        "cell": 4,
        "seats": ["horz"],
        "line": [4, 5, 6, 7],
    }
    assert data["dice"] == [
        {"cell": 4, "die": "a:R", "face": "a", "ports": "R", "strands": [["R0", "R1"]]},
        {"cell": 5, "die": "a:L", "face": "a", "ports": "L", "strands": [["L0", "L1"]]},
    ]
    assert [d["die"] for d in data["removed"]] == ["a:B", "b:TB", "e:TRB", "a:L", "a:T"]
    assert data["scores"] == {"horz": 8, "vert": 0} and data["gained"] == 8
    assert data["to_move"] == "vert" and data["last_move"] == "a15" and data["outcome"] is None
    legal = osbox.seat_moves(state, Seat.SECOND)
    assert sorted(legal) == sorted(osbox.move_text(m) for m in osbox.legal_moves(state))
    assert osbox.from_data(data) == state


def test_a_finished_game_has_the_outcome_and_no_moves_for_either_seat() -> None:
    state = position("-size=2", {"0,0": "c:RB", "0,1": "c:BL", "1,0": "a:T"}, scores=(5, 5))
    over = osbox.play(state, osbox.Move("a", 4))
    data = osbox.to_data(over)
    assert data["outcome"]["winner"] is None and data["to_move"] is None
    assert osbox.seat_moves(over, Seat.FIRST) == osbox.seat_moves(over, Seat.SECOND) == []


@pytest.mark.parametrize(
    "change",
    [
        {"game": "che"},
        {"dice": [{"cell": 99, "die": "a:R"}]},
        {"dice": [{"cell": 0, "die": "z:Q"}]},
        {"to_move": "nobody"},
        {"options": "-size=99"},
        {"scores": {}},
        {"last_move": "g1"},
    ],
)
def test_from_data_refuses_what_to_data_did_not_write(change: dict[str, Any]) -> None:
    data = osbox.to_data(osbox.new_game(osbox.Options())) | change
    with pytest.raises(ValueError):
        osbox.from_data(data)


def test_render_numbers_the_positions_clockwise() -> None:
    text = osbox.render(osbox.new_game(osbox.parse_options("-size=2")))
    lines = text.splitlines()
    assert lines[0].startswith("Osbox -size=2") and "Horz to move" in lines[0]
    numbers = [line.split() for line in lines if line.strip() and line.strip()[0].isdigit()]
    assert numbers[0] == ["1", "2"]
    assert numbers[1][0] == "8" and numbers[1][-1] == "3"
    assert numbers[2][0] == "7" and numbers[2][-1] == "4"
    assert numbers[3] == ["6", "5"]


# --- fuzz ---------------------------------------------------------------------------------------


def random_positions(rng: random.Random, options: str, count: int) -> list[osbox.State]:
    found = []
    while len(found) < count:
        state = osbox.new_game(osbox.parse_options(options))
        while osbox.to_move(state) is not None and len(found) < count:
            found.append(state)
            state = osbox.play(state, rng.choice(list(osbox.legal_moves(state))))
        found.append(state)
    return found


def test_fuzz_random_text_and_illegal_moves_raise_only_rules_errors() -> None:
    rng = random.Random(11)
    alphabet = "abcdefgABCDEFG0123456789 -:+\t\u00e9\u0661xyz"
    for options in ("", "-size=2", "-size=5 -any_side -thin_knots -no_capture"):
        for state in random_positions(rng, options, 40):
            for _ in range(30):
                text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
                try:
                    move = osbox.parse_move(state, text)
                except InvalidMoveError:
                    continue
                try:
                    osbox.play(state, move)
                except IllegalMoveError:
                    pass
            legal = set(osbox.legal_moves(state))
            size = state.options.size
            for _ in range(30):
                move = osbox.Move(rng.choice("abcdefgz"), rng.randint(-3, 4 * size + 3))
                if move in legal:
                    osbox.play(state, move)
                    continue
                with pytest.raises(IllegalMoveError):
                    osbox.play(state, move)


@pytest.mark.parametrize("options", ["", "-size=3 -any_side", "-size=5 -thin_knots -no_capture"])
def test_move_priors_rank_pushes_by_the_points_play_scores(options: str) -> None:
    """The hook scores the pushes without playing them; on every position of seeded random
    games (closing knots included) it finds the points play() gives each one."""
    rng = random.Random(7)
    closing = 0
    for _ in range(40):
        state = osbox.new_game(osbox.parse_options(options))
        while state.seat is not None:
            moves = list(osbox.legal_moves(state))
            points = [osbox.play(state, move).gained for move in moves]
            assert osbox.move_priors(state, moves) == [p / (p + 4.0) for p in points]
            closing += max(points) > 0
            state = osbox.play(state, rng.choice(moves))
    assert closing > 0


# --- the evaluation hook ------------------------------------------------------------------------

KNOT_IN_THE_MAKING = {
    # Horz has the top half of a knot in rows 0-1 (corner and crossing) and the corner of its
    # bottom half at the far end of row 1: two pushes from the right into row 1 bring that
    # corner to column 1, and one from the left completes the knot.  Vert's is the same
    # position turned a quarter clockwise, which turns Horz's pushes into Vert's (the left
    # side becomes the top): the right half in column 3, the corner of the left half at the
    # foot of column 2, two pushes from the bottom and one from the top.  (A mirror image is
    # no such symmetry: its corner, pushed up its column, lands in a row where Horz can use it.)
    "horz": ({"0,0": "c:RB", "0,1": "f:TRBL", "1,3": "c:TL"}, {6, 15}),
    "vert": ({"0,3": "c:BL", "1,3": "f:TRBL", "3,2": "c:TR"}, {3, 10}),
}


@pytest.mark.parametrize("mover", sorted(KNOT_IN_THE_MAKING))
def test_evaluation_prefers_the_push_that_builds_a_knot(mover: str) -> None:
    """No push scores or leaves its side a push that scores, so the lead and the knots one
    push away tell the pushes apart no more than random play does; the knot in the making
    does: the evaluation rates a push into the line that the knot still needs above every
    push elsewhere, for either colour."""
    dice, building = KNOT_IN_THE_MAKING[mover]
    state = position(dice=dice, to_move=mover)
    sign = 1 if mover == "horz" else -1
    values: dict[bool, list[float]] = {True: [], False: []}
    for move in osbox.legal_moves(state):
        after = osbox.play(state, move)
        again = dataclasses.replace(after, seat=state.seat)
        assert after.gained == 0
        assert all(osbox.play(again, m).gained == 0 for m in osbox.legal_moves(again))
        values[move.position in building].append(sign * osbox.evaluate(after))
    assert values[True] and values[False]
    assert max(values[True]) > max(values[False])


def test_evaluation_tells_the_first_pushes_that_start_a_knot_from_the_rest() -> None:
    """Alone, a side needs six pushes for its first knot; the evaluation looks that far, so on
    the empty board it already rates some of Horz's first pushes above others (the pushes
    that leave Horz as far from a knot as before rate lowest), rather than all alike."""
    start = osbox.new_game(osbox.parse_options(""))
    values = {move: osbox.evaluate(osbox.play(start, move)) for move in osbox.legal_moves(start)}
    best = max(values.values())
    starting = [move for move, value in values.items() if value == best]
    assert 0 < len(starting) < len(values)
    assert {move.face for move in starting} <= {"c", "e", "f"}


# Horz's knot two pushes away in the square of rows 0-1, columns 0-1: a corner pushed in
# from the left in front of the crossing in row 0, a crossing in front of the other corner
# in row 1.
TWO_PUSHES_FROM_A_KNOT = {"0,0": "f:TRBL", "0,1": "b:RL", "1,0": "c:TL", "1,1": "b:RL"}
SHELTER = {"2,0": "b:TB", "3,0": "b:TB", "2,1": "b:TB", "3,1": "b:TB"}
"""Dice that fill columns 0 and 1, so that Vert cannot push into the square."""


def test_a_knot_in_the_making_counts_less_where_the_other_side_can_push_into_it() -> None:
    """Vert's push from the top into column 0 or 1 would shift the square's dice down and
    break Horz's plan; with those columns full it cannot, and the plan counts for more."""
    exposed = position(dice=TWO_PUSHES_FROM_A_KNOT)
    sheltered = position(dice={**TWO_PUSHES_FROM_A_KNOT, **SHELTER})
    for state in (exposed, sheltered):
        assert all(osbox.play(state, move).gained == 0 for move in osbox.legal_moves(state))
    exposed_value = osbox._building(exposed)[0]
    sheltered_value = osbox._building(sheltered)[0]
    assert 0 < exposed_value < sheltered_value
