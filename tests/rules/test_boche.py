"""Boche: every test vector of spec §3.9 (as data in cases/boche/), options, notation, laws."""

from __future__ import annotations

import itertools
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

from rules import boche
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError, Seat, move_blocks
from rules.geometry.trigrid import pyramid
from rules.pie import SWAP

CASES = sorted((Path(__file__).parent / "cases" / "boche").glob("*.json"))
REASONS = {
    "no-such-position": "no position",
    "occupied": "is occupied",
    "unsupported": "not supported",
    "parity": "takes rotations",
    "not-adjacent": "touches no cube",
    "game-over": "the game is over",
    "swap": "swap is only allowed",
}
"""Spec reason codes (§3.3) to the words of the message play() raises."""


def replay(options: str, moves: list[str]) -> boche.State:
    state = boche.new_game(boche.parse_options(options))
    for text in moves:
        state = boche.play(state, boche.parse_move(state, text))
    return state


def random_playout(options: str, seed: int, limit: int = 10_000) -> list[boche.State]:
    rng = random.Random(seed)
    state = boche.new_game(boche.parse_options(options))
    states = [state]
    for _ in range(limit):
        legal = list(boche.legal_moves(state))
        if not legal:
            break
        state = boche.play(state, rng.choice(legal))
        states.append(state)
    return states


def seat(name: str | None) -> Seat | None:
    return None if name is None else Seat(boche.SEAT_NAMES.index(name))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_spec_case(path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text())
    state = boche.new_game(boche.parse_options(case["options"]))
    played = 0
    for entry in case["moves"]:
        step = {"move": entry} if isinstance(entry, str) else entry
        move = boche.parse_move(state, step["move"])
        if "illegal" in step:
            with pytest.raises(IllegalMoveError, match=REASONS[step["illegal"]]):
                boche.play(state, move)
            continue
        state = boche.play(state, move)
        played += 1
        if played < case.get("decided_at", 10**6):
            assert state.outcome is None, f"result after move {played}: {state.outcome}"
        if "to_move" in step:
            assert boche.to_move(state) == seat(step["to_move"])
    result = boche.outcome(state)
    if case["winner"] is None:
        assert result is None
    else:
        assert result is not None and result.winner == seat(case["winner"])
        assert played == case["decided_at"]
        assert case.get("reason", "") in result.reason
        assert boche.to_move(state) is None and list(boche.legal_moves(state)) == []
    if "to_move" in case:
        assert boche.to_move(state) == seat(case["to_move"])
    if "z" in case:
        assert state.z == case["z"]
    found = boche.groups(state)
    for expected in case.get("groups", []):
        points = frozenset(tuple(p) for p in expected["points"])
        match = [g for g in found if g.points == points]
        assert len(match) == 1, f"no group {sorted(points)}"
        assert match[0].colour == seat(expected["colour"])
        for field in ("enclosed", "sides"):
            if field in expected:
                assert getattr(match[0], field) == expected[field]
    for colour, sizes in case.get("group_sizes", {}).items():
        assert sorted((g.size for g in found if g.colour == seat(colour)), reverse=True) == sizes
    for colour, size in case.get("largest", {}).items():
        assert max(g.size for g in found if g.colour == seat(colour)) == size


def test_help_example_hidden_cubes_do_not_change_the_final_evaluation() -> None:
    """§3.9 B0b: any consistent choice for the partly hidden cubes gives the same surface."""
    moves = json.loads((CASES[0]).read_text())["moves"]
    reference = replay("-size=4", moves)
    choices = {
        "b1": "ac",
        "b2": "ad",
        "c1": "bd",
        "c3": "bc",
        "d2": "ab",
        "d3": "cd",
        "1b1": "fh",
        "1b2": "fg",
        "1c2": "gh",
        "c2": "abcd",
    }
    grid = pyramid(4)

    def surface(state: boche.State) -> list[tuple[Seat, frozenset[Any], bool, str]]:
        return sorted((g.colour, g.points, g.enclosed, g.sides) for g in boche.groups(state))

    expected = surface(reference)
    rng = random.Random(3)
    for _ in range(60):
        board = list(reference.board)
        for label, letters in choices.items():
            board[grid.parse(label) or 0] = boche.ROTATIONS.index(rng.choice(letters))
        state = boche.State(reference.options, tuple(board), reference.placed, reference.z)
        assert surface(state) == expected


def test_help_example_is_won_by_dark_whatever_the_apex_rotation() -> None:
    """Spec O6: Dark's path along side W exists before the apex is placed."""
    moves = json.loads((CASES[0]).read_text())["moves"]
    for rotation in "efgh":
        state = replay("-size=4", moves[:-1] + [f"{rotation}:3a1"])
        assert state.outcome is not None and state.outcome.winner == boche.DARK


# Options ------------------------------------------------------------------------------------


def test_options_defaults_are_pbmserv_defaults() -> None:
    options = boche.parse_options("")
    assert (options.size, options.kill, options.fill_board, options.adjacent) == (
        6,
        4,
        False,
        False,
    )
    assert (options.join, options.immediate_win, options.pie) == ("face", False, True)
    assert pyramid(options.size).count == 56 == len(boche.new_game(options).board)


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("-size=4", "size", 4),
        ("-size=1", "size", 1),
        ("-size=26", "size", 26),
        ("-kill=1", "kill", 1),
        ("-kill=9", "kill", 9),
        ("-fill_board", "fill_board", True),
        ("-adjacent", "adjacent", True),
        ("-join_any", "join", "any"),
        ("-join_face", "join", "face"),
        ("-immediate_win", "immediate_win", True),
        ("-no_swap", "pie", False),
        ("-SIZE=5", "size", 5),
    ],
)
def test_options_each_flag_sets_its_field(text: str, field: str, value: object) -> None:
    options = boche.parse_options(text)
    assert getattr(options, field) == value
    assert boche.parse_options(boche.options_text(options)) == options


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("-bogus", "-bogus"),
        ("-size=0", "-size=0"),
        ("-size=27", "-size=27"),
        ("-size=x", "-size"),
        ("-size", "-size"),
        ("-kill=0", "-kill=0"),
        ("-kill=-3", "-kill=-3"),
        ("-adjacent=1", "-adjacent"),
        ("-join_any -join_face", "-join_any"),
        ("-swap -no_swap", "-swap"),
        ("size=4", "size=4"),
    ],
)
def test_options_errors_name_the_flag(text: str, named: str) -> None:
    with pytest.raises(OptionsError, match=named):
        boche.parse_options(text)


def test_options_out_of_range_in_the_dataclass_are_errors() -> None:
    with pytest.raises(OptionsError, match="-size"):
        boche.Options(size=30)
    with pytest.raises(OptionsError, match="-kill"):
        boche.Options(kill=0)
    with pytest.raises(OptionsError, match="join"):
        boche.Options(join="edge")


def test_options_fill_board_beats_kill() -> None:
    """§3.7: with both -fill_board and -kill, enclosures never end the game."""
    moves = json.loads((CASES[0].parent / "b08_dark_encloses_light.json").read_text())["moves"]
    assert replay("-size=4 -kill=3 -fill_board", moves).outcome is None
    assert replay("-size=4 -kill=3", moves).outcome is not None


def test_options_size_1_to_7_play_out_to_one_winner() -> None:
    for size in range(1, 8):
        final = random_playout(f"-size={size} -fill_board", size)[-1]
        assert final.placed == pyramid(size).count
        assert final.outcome is not None and final.outcome.winner is not None


# Notation -----------------------------------------------------------------------------------


def test_parse_move_is_case_insensitive_and_canonical() -> None:
    state = boche.new_game(boche.parse_options(""))
    assert boche.parse_move(state, "C:D3") == boche.Place("c", "d3")
    assert boche.parse_move(state, " e : 1B1 ") == boche.Place("e", "1b1")
    assert boche.parse_move(state, "SWAP") is SWAP
    assert boche.move_text(boche.Place("c", "d3")) == "c:d3"
    assert boche.move_text(SWAP) == "swap"


@pytest.mark.parametrize(
    "text", ["", "c", "d3", "c:", ":d3", "i:d3", "c:0d3", "c-d3", "cd3", "c:d"]
)
def test_parse_move_rejects_bad_syntax(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        boche.parse_move(boche.new_game(boche.parse_options("")), text)


def test_off_board_position_parses_and_is_illegal() -> None:
    state = boche.new_game(boche.parse_options("-size=4"))
    move = boche.parse_move(state, "a:9z9")
    with pytest.raises(IllegalMoveError, match="no position 9z9"):
        boche.play(state, move)


def test_fuzz_bad_input_raises_only_rules_errors() -> None:
    rng = random.Random(11)
    alphabet = string.ascii_letters + string.digits + ":-_ \t\u00e9\u0661"
    states = random_playout("-size=5", 3)
    for state in states[::4]:
        for _ in range(200):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
            try:
                move = boche.parse_move(state, text)
            except InvalidMoveError:
                continue
            try:
                boche.play(state, move)
            except IllegalMoveError:
                pass
        legal = set(boche.legal_moves(state))
        for _ in range(100):
            level = rng.randint(0, 6)
            label = f"{level or ''}{rng.choice('abcdefg')}{rng.randint(1, 7)}"
            move = boche.Place(rng.choice(boche.ROTATIONS), label)
            if move in legal:
                boche.play(state, move)
                continue
            with pytest.raises(IllegalMoveError):
                boche.play(state, move)
        for odd in (boche.Place("z", "a1"), boche.Place("ab", "a1"), boche.Place("a", "A1")):
            with pytest.raises(IllegalMoveError):
                boche.play(state, odd)


# Play ---------------------------------------------------------------------------------------


def test_legal_moves_first_move_is_any_rotation_on_any_hole() -> None:
    state = boche.new_game(boche.parse_options("-size=4"))
    moves = list(boche.legal_moves(state))
    assert len(moves) == 8 * 10 and len(set(moves)) == len(moves)
    assert all(isinstance(m, boche.Place) and not m.position[0].isdigit() for m in moves)


def test_legal_moves_follow_parity_support_and_swap() -> None:
    state = replay("-size=3", ["a:a1"])
    moves = list(boche.legal_moves(state))
    assert moves[0] is SWAP and moves.count(SWAP) == 1
    assert {m.rotation for m in moves if isinstance(m, boche.Place)} == set("abcd")
    state = replay("-size=3", ["a:a1", "b:b1", "c:b2"])
    moves = list(boche.legal_moves(state))
    assert SWAP not in moves
    assert {str(m) for m in moves if m.position == "1a1"} == {"e:1a1", "f:1a1", "g:1a1", "h:1a1"}
    assert not any(m.position == "1b1" for m in moves)


def test_legal_moves_agree_with_play() -> None:
    """Every well-formed placement is legal exactly when legal_moves offers it."""
    for options in ("-size=3", "-size=3 -adjacent", "-size=4 -no_swap"):
        for state in random_playout(options, 5):
            legal = set(boche.legal_moves(state))
            grid = pyramid(state.options.size)
            for label in grid.labels:
                for rotation in boche.ROTATIONS:
                    move = boche.Place(rotation, label)
                    try:
                        boche.play(state, move)
                    except IllegalMoveError:
                        assert move not in legal
                    else:
                        assert move in legal


def test_swap_keeps_the_board_and_gives_dark_the_move() -> None:
    before = replay("-size=4", ["a:c2"])
    after = boche.play(before, SWAP)
    assert after.board == before.board and after.swapped
    assert boche.to_move(before) == boche.to_move(after) == boche.DARK
    with pytest.raises(IllegalMoveError, match="without the swap"):
        boche.play(replay("-size=4 -no_swap", ["a:c2"]), SWAP)
    with pytest.raises(IllegalMoveError, match="second move"):
        boche.play(after, SWAP)
    with pytest.raises(IllegalMoveError, match="second move"):
        boche.play(boche.new_game(boche.parse_options("")), SWAP)


def test_play_leaves_its_input_alone() -> None:
    state = replay("-size=4", ["a:c2", "b:c1"])
    data = boche.to_data(state)
    boche.play(state, boche.Place("a", "d2"))
    with pytest.raises(IllegalMoveError):
        boche.play(state, boche.Place("e", "d2"))
    assert boche.to_data(state) == data


def test_enclosure_search_near_the_new_cube_matches_a_full_search() -> None:
    """§3.5: only groups through the new cube can change; check against all groups."""
    for seed in range(12):
        kill = 1 + seed % 4
        states = random_playout(f"-size={3 + seed % 3} -kill={kill}", seed)
        for state in states[:-1]:
            assert not any(g.enclosed and g.size >= kill for g in boche.groups(state))
        final = states[-1]
        assert final.outcome is not None
        enclosed = {g.colour for g in boche.groups(final) if g.enclosed and g.size >= kill}
        if "enclosed" in final.outcome.reason:
            assert len(enclosed) == 1 and final.outcome.winner == next(iter(enclosed)).other
        elif "both colours" in final.outcome.reason:
            assert len(enclosed) == 2
        else:
            assert not enclosed and final.placed == pyramid(final.options.size).count


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_full_pyramid_has_one_connecting_colour_in_both_join_modes(size: int) -> None:
    """The Y property of §3.6, and join_face equals join_any on a full pyramid."""
    for seed in range(6):
        final = random_playout(f"-size={size} -fill_board", seed)[-1]
        connecting = {g.colour for g in boche.groups(final) if g.sides == "UVW"}
        assert len(connecting) == 1
        assert final.outcome is not None and {final.outcome.winner} == connecting
        surface = boche._Surface(boche._tables(size), final.board, final.z or 0)
        tables = boche._tables(size)
        assert boche._path_colours(tables, surface, "face") == connecting
        assert boche._path_colours(tables, surface, "any") == connecting


def test_visible_faces_are_three_per_board_cube() -> None:
    grid = pyramid(5)
    for state in random_playout("-size=5 -fill_board", 2)[::7]:
        faces = boche.to_data(state)["faces"]
        assert len(faces) == 3 * len(grid.labels)  # a slot for every face, shown or not
        board_cubes = sum(state.board[p] != boche.EMPTY for p in grid.level_positions[0])
        assert sum(face is not None for face in faces) == 3 * board_cubes


def test_a_move_changes_only_the_face_slots_it_shows_or_covers() -> None:
    """Faces keep their slots, so a room's diff of a move stays small: the cube's three faces
    appear, and each cube it rests on loses the face it covers."""
    states = random_playout("-size=5", 4)
    for before, after in itertools.pairwise(states[1:]):
        old, new = boche.to_data(before)["faces"], boche.to_data(after)["faces"]
        changed = sum(a is not b for a, b in zip(old, new, strict=True))
        assert 0 < changed <= 6


# Data and drawing ---------------------------------------------------------------------------


def test_to_data_round_trips_and_describes_the_drawing() -> None:
    state = replay("-size=4", ["a:c2", "swap", "b:c1"])
    data = boche.to_data(state)
    assert boche.from_data(data) == state
    assert data["game"] == "boche" and data["options"] == "-size=4" and data["ply"] == 3
    assert data["to_move"] == "light" and data["last_move"] == "b:c1" and data["swapped"]
    assert len(data["positions"]) == 20
    legal = boche.seat_moves(state, Seat.FIRST)
    assert sorted(legal) == sorted(boche.move_text(m) for m in boche.legal_moves(state))
    cubes = {p["position"]: p["rotation"] for p in data["positions"] if p["rotation"]}
    assert cubes == {"c2": "a", "c1": "b"}
    shown = [f for f in data["faces"] if f is not None]
    face = next(f for f in shown if f["position"] == "c2" and f["face"] == "U")
    assert face["band"] == "TF" and face["colours"] == ["dark", "light", "dark", "light"]
    assert len(face["corners"]) == 4 and all(len(c) == 2 for c in face["corners"])


def test_to_data_of_a_finished_game_round_trips() -> None:
    state = replay("-size=2", ["b:a1", "d:b1", "c:b2"])
    data = boche.to_data(state)
    assert data["outcome"]["winner"] == "light" and data["to_move"] is None
    assert boche.seat_moves(state, Seat.FIRST) == boche.seat_moves(state, Seat.SECOND) == []
    assert boche.from_data(data) == state


def test_seat_moves_gives_long_legal_lists_as_blocks() -> None:
    state = boche.new_game(boche.parse_options("-size=10"))
    moves = list(boche.legal_moves(state))
    assert len(moves) > boche.LEGAL_TEXT_LIMIT
    placements = [(m.rotation, m.position) for m in moves if isinstance(m, boche.Place)]
    assert boche.seat_moves(state, Seat.FIRST) == move_blocks(placements, ":")


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"game": "che"},
        {"game": "boche", "options": "-bogus"},
        {
            "game": "boche",
            "options": "-size=2",
            "positions": [{"position": "q9", "rotation": "a"}],
        },
    ],
)
def test_from_data_rejects_what_to_data_did_not_write(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        boche.from_data(data)


def test_from_data_rejects_positions_the_rules_cannot_reach() -> None:
    data = boche.to_data(replay("-size=3", ["a:a1", "b:b1", "c:b2", "e:1a1"]))

    def changed(position: str, rotation: str | None) -> dict[str, Any]:
        copy = json.loads(json.dumps(data))
        for entry in copy["positions"]:
            if entry["position"] == position:
                entry["rotation"] = rotation
        return copy

    boche.from_data(changed("a1", "b"))
    with pytest.raises(ValueError, match="not supported"):
        boche.from_data(changed("b2", None))
    with pytest.raises(ValueError, match="parity"):
        boche.from_data(changed("1a1", "a"))
    with pytest.raises(ValueError, match="parity"):
        boche.from_data({**data, "z": None})
    with pytest.raises(ValueError, match="swap"):
        boche.from_data({**data, "swapped": "yes"})


def test_render_draws_dark_as_o_and_empty_holes_by_label() -> None:
    empty = boche.render(boche.new_game(boche.parse_options("-size=3")))
    assert all(label in empty for label in ("a1", "b1", "b2", "c1", "c2", "c3"))
    assert "o" not in empty.split("\n\n")[0]
    assert "Light to move" in empty
    state = replay("-size=3", ["a:c2"])
    drawing = boche.render(state)
    assert "c2" not in drawing.split("\n\n")[0] and "o" in drawing
    assert "a:c2" in drawing and "Dark to move" in drawing


def test_render_of_the_help_example_is_the_help_page_drawing() -> None:
    """The seed's figure, character for character; b1 is played as c, one of the two
    rotations the figure allows for that partly hidden cube (§3.9)."""
    moves = json.loads((CASES[0]).read_text())["moves"]
    assert moves[1] == "a:b1"
    state = replay("-size=4", [moves[0], "c:b1", *moves[2:]])
    assert state.outcome is not None and state.outcome.winner == boche.DARK
    expected = (CASES[0].parent / "b00_help_example_drawing.txt").read_text()
    drawing, legend = boche.render(state).split("\n\n")
    assert drawing + "\n" == expected
    assert "Dark wins" in legend


@pytest.mark.parametrize("options", ["", "-size=4 -adjacent"])
def test_premoves_are_the_common_blocks_of_the_placements(options: str) -> None:
    """The blocks seat_moves groups itself are those of rules.api.move_blocks, in its order."""
    rng = random.Random(options)
    state = boche.new_game(boche.parse_options(options))
    checked = 0
    while (mover := boche.to_move(state)) is not None:
        moves = list(boche.legal_moves(state))
        placements = [(m.rotation, m.position) for m in moves if isinstance(m, boche.Place)]
        assert boche.seat_moves(state, mover.other) == move_blocks(placements, ":")
        checked += 1
        state = boche.play(state, rng.choice(moves))
    assert checked > 5
