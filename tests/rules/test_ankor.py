"""Ankor: the spec's test vectors (data in cases/ankor/), its rules checked against a plain
re-reading of the reference algorithm of spec §4.5, options, notation, data and drawing."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rules import ankor
from rules.api import (
    IllegalMoveError,
    InvalidMoveError,
    OptionsError,
    Seat,
    expand_blocks,
    move_blocks,
)
from rules.geometry import trigrid
from rules.pie import SWAP

CASES = Path(__file__).parent / "cases" / "ankor"
SEATS = {"white": Seat.FIRST, "blue": Seat.SECOND}


# --- the spec's cases, as data ---------------------------------------------------------------


def case_files() -> list[Path]:
    return sorted(CASES.glob("*.json"))


def start(case: dict[str, Any]) -> ankor.State:
    options = ankor.parse_options(case["options"])
    setup = case.get("setup")
    if setup is None:
        return ankor.new_game(options)
    supply = setup.get("supply")
    return ankor.set_up(
        options,
        setup["white"],
        setup["blue"],
        SEATS[setup["to_move"]],
        None if supply is None else (supply[0], supply[1]),
        setup.get("last", ""),
    )


def cubes(state: ankor.State, colour: str) -> set[str]:
    g = trigrid.pyramid(state.options.size)
    code = SEATS[colour] + 1
    return {g.labels[p] for p, owner in enumerate(state.board) if owner == code}


def targets(state: ankor.State, source: str) -> set[str]:
    return {
        m.to for m in ankor.legal_moves(state) if isinstance(m, ankor.Shift) and m.source == source
    }


def check(state: ankor.State, expected: dict[str, Any]) -> None:
    outcome = ankor.outcome(state)
    if "result" in expected:
        if expected["result"] == "none":
            assert outcome is None
        elif expected["result"] == "draw":
            assert outcome is not None and outcome.winner is None
        else:
            assert outcome is not None and outcome.winner == SEATS[expected["result"]]
    if "reason" in expected:
        assert outcome is not None and expected["reason"] in outcome.reason
    if "to_move" in expected:
        seat = ankor.to_move(state)
        assert (None if seat is None else ankor.SEAT_NAMES[seat]) == expected["to_move"]
    for colour in ("white", "blue"):
        if colour in expected:
            assert cubes(state, colour) == set(expected[colour])
    if "supply" in expected:
        assert list(state.supply) == expected["supply"]
    if "passes" in expected:
        assert state.passes == expected["passes"]


@pytest.mark.parametrize("path", case_files(), ids=lambda p: p.stem)
def test_spec_case(path: Path) -> None:
    case = json.loads(path.read_text())
    state = start(case)
    for step in case["steps"]:
        if "play" in step:
            state = ankor.play(state, ankor.parse_move(state, step["play"]))
        elif "illegal" in step:
            move = ankor.parse_move(state, step["illegal"])
            with pytest.raises(IllegalMoveError, match=step["reason"]):
                ankor.play(state, move)
        elif "targets" in step:
            found = targets(state, step["targets"])
            if "expect" in step:
                assert found == set(step["expect"])
            else:
                assert set(step["expect_includes"]) <= found
        elif "column" in step:
            g = trigrid.pyramid(state.options.size)
            p = g.parse(step["column"])
            assert p is not None
            column = g.column(p, state.board.__getitem__)
            assert [g.labels[q] for q in column] == step["expect"]
        elif "check" in step:
            check(state, step["check"])
        elif "render" in step:
            picture = (CASES / step["render"]).read_text().rstrip("\n").split("\n")
            assert ankor.render(state).split("\n")[: len(picture)] == picture
        else:
            raise AssertionError(f"unknown step {step}")


def test_spec_cases_cover_every_vector() -> None:
    covered = {json.loads(p.read_text())["case"] for p in case_files()}
    vectors = {f"A{k}" for k in range(1, 14)} | {"A1b", "A8b", "A8c", "A8d", "A8e"}
    assert vectors <= covered


# --- a plain reading of the reference algorithm (spec §4.5) ----------------------------------


def reference_destinations(g: trigrid.Pyramid, pos: dict[int, int], c: int) -> set[int]:
    if sum(1 for q in g.carried[c] if q in pos) > 1:
        return set()
    moving = {c, *g.column(c, pos.__contains__)}
    reach, todo = {c}, [c]
    while todo:
        a = todo.pop()
        for b in g.adjacent[a] + g.supporters[a] + g.carried[a]:
            if b not in reach and pos.get(b) == pos[c]:
                reach.add(b)
                todo.append(b)
    out = set()
    for r in reach:
        for d in g.adjacent[r] + g.carried[r]:
            below = g.supporters[d]
            if d not in pos and all(s in pos for s in below) and not moving & set(below):
                out.add(d)
    return out


def reference_winning(g: trigrid.Pyramid, pos: dict[int, int], colour: int, h: int) -> bool:
    remaining = {p for p, owner in pos.items() if owner == colour}
    while remaining:
        component, todo = set(), [remaining.pop()]
        while todo:
            a = todo.pop()
            component.add(a)
            for b in g.contacts[a]:
                if b in remaining:
                    remaining.discard(b)
                    todo.append(b)
        touched = {x for q in component for x in g.sides[q] if h == -1 or g.level[q] <= h}
        if touched == {"U", "V", "W"}:
            return True
    return False


def occupancy(state: ankor.State) -> dict[int, int]:
    return {p: owner for p, owner in enumerate(state.board) if owner}


def random_game(options: ankor.Options, seed: int, plies: int) -> Iterator[ankor.State]:
    rng = random.Random(seed)
    state = ankor.new_game(options)
    yield state
    for _ in range(plies):
        moves = list(ankor.legal_moves(state))
        if not moves:
            return
        # Prefer moves over adds now and then, so that stacks grow.
        shifts = [m for m in moves if isinstance(m, ankor.Shift)]
        pool = shifts if shifts and rng.random() < 0.6 else moves
        state = ankor.play(state, rng.choice(pool))
        yield state


GAMES = [("-size=3", 0), ("-size=4", 1), ("", 2), ("", 3), ("-size=5 -win_height=-1", 4)]


@pytest.mark.parametrize(("flags", "seed"), GAMES)
def test_legal_moves_match_reference_algorithm(flags: str, seed: int) -> None:
    options = ankor.parse_options(flags)
    g = trigrid.pyramid(options.size)
    for state in random_game(options, seed, 160):
        seat = ankor.to_move(state)
        if seat is None:
            continue
        pos = occupancy(state)
        expected = {
            (g.labels[c], g.labels[d])
            for c, owner in pos.items()
            if owner == seat + 1
            for d in reference_destinations(g, pos, c)
        }
        found = {(m.source, m.to) for m in ankor.legal_moves(state) if isinstance(m, ankor.Shift)}
        assert found == expected, ankor.render(state)
        adds = {m.to for m in ankor.legal_moves(state) if isinstance(m, ankor.Add)}
        holes = {g.labels[p] for p in g.level_positions[0] if p not in pos}
        assert adds == (holes if state.supply[seat] else set())


@pytest.mark.parametrize(("flags", "seed"), GAMES)
def test_every_position_is_judged_like_the_reference(flags: str, seed: int) -> None:
    """After every action: wins as the reference sees them, every cube supported, no cube
    lost, and the player to move (if any) has an action."""
    options = ankor.parse_options(flags)
    g = trigrid.pyramid(options.size)
    total = 2 * ankor.supply_per_player(options.size)
    previous = None
    for state in random_game(options, seed, 300):
        pos = occupancy(state)
        assert all(all(s in pos for s in g.supporters[p]) for p in pos)
        assert len(pos) + sum(state.supply) == total
        white = reference_winning(g, pos, ankor.WHITE, options.win_height)
        blue = reference_winning(g, pos, ankor.BLUE, options.win_height)
        outcome = ankor.outcome(state)
        if outcome is not None and "connect" in outcome.reason:
            assert previous is not None and previous.turn is not None
            mover = previous.turn
            winner = mover.other if white and blue else Seat.FIRST if white else Seat.SECOND
            assert outcome.winner == winner
        else:
            assert not white and not blue
        if outcome is None:
            assert ankor.to_move(state) is not None and list(ankor.legal_moves(state))
        previous = state


def test_cached_moves_agree_with_a_fresh_search_through_passes() -> None:
    """Size-3 games pass often; every position lists the same moves as its plain-data copy,
    which carries no cached destinations."""
    options = ankor.parse_options("-size=3")
    passes = 0
    for seed in range(30):
        for state in random_game(options, seed, 200):
            passes += state.passes
            fresh = ankor.from_data(ankor.to_data(state))
            assert set(ankor.legal_moves(state)) == set(ankor.legal_moves(fresh))
    assert passes > 0


def test_legal_moves_come_swap_adds_then_moves_in_position_order() -> None:
    """The listing order is fixed (so to_data's legal list is the same on every run): adds
    by hole, then moves by source position and, for each source, by destination."""
    index = ankor._tables(6).index
    moves_seen = 0
    for seed in range(3):
        for state in random_game(ankor.parse_options(""), seed, 300):
            listed = list(ankor.legal_moves(state))
            kinds = [0 if m == SWAP else 1 if isinstance(m, ankor.Add) else 2 for m in listed]
            assert kinds == sorted(kinds)
            adds = [index[m.to] for m in listed if isinstance(m, ankor.Add)]
            moves = [(index[m.source], index[m.to]) for m in listed if isinstance(m, ankor.Shift)]
            assert adds == sorted(adds) and moves == sorted(moves)
            moves_seen += len(moves)
    assert moves_seen > 0


def test_premoves_are_the_waiting_seats_moves_as_move_blocks_groups_them() -> None:
    """The premoves are grouped straight from each cube's destinations; they are exactly
    what move_blocks makes of the waiting seat's moves, listed as if it were its turn."""
    checked = 0
    for seed in range(3):
        for state in random_game(ankor.parse_options(""), seed, 300):
            if state.turn is None:
                continue
            waiting = dataclasses.replace(state, turn=state.turn.other, memo=None, ply=2)
            parts = [tuple(ankor.move_text(m).split("-")) for m in ankor.legal_moves(waiting)]
            assert ankor.seat_moves(state, state.turn.other) == move_blocks(parts, "-")
            checked += sum(len(p) == 2 for p in parts)
    assert checked > 0


# --- rules the cases do not reach -------------------------------------------------------------


@pytest.mark.parametrize(("size", "cubes"), [(1, 1), (2, 2), (3, 5), (4, 10), (5, 18), (6, 28)])
def test_supply_is_28_at_size_6_and_half_the_pyramid_elsewhere(size: int, cubes: int) -> None:
    state = ankor.new_game(ankor.parse_options(f"-size={size}"))
    assert state.supply == (cubes, cubes)
    assert not any(state.board) and len(state.board) == trigrid.tetrahedral(size)


def test_default_game_is_size_6_with_tips_and_swap() -> None:
    options = ankor.parse_options("")
    assert (options.size, options.win_height, options.pie) == (6, 1, True)
    state = ankor.new_game(options)
    assert ankor.to_move(state) == Seat.FIRST
    assert {ankor.move_text(m) for m in ankor.legal_moves(state)} == {
        trigrid.pyramid(6).labels[p] for p in range(21)
    }


def test_swap_is_offered_only_on_move_2() -> None:
    state = ankor.play(ankor.new_game(ankor.parse_options("")), ankor.Add("a1"))
    assert SWAP in set(ankor.legal_moves(state))
    after = ankor.play(state, SWAP)
    assert after.board == state.board and ankor.to_move(after) == Seat.SECOND
    assert SWAP not in set(ankor.legal_moves(after))


def test_no_swap_option_refuses_the_swap() -> None:
    state = ankor.play(ankor.new_game(ankor.parse_options("-no_swap")), ankor.Add("a1"))
    assert SWAP not in set(ankor.legal_moves(state))
    with pytest.raises(IllegalMoveError, match="-no_swap"):
        ankor.play(state, SWAP)


def test_size_1_first_cube_touches_all_sides_and_wins() -> None:
    state = ankor.play(ankor.new_game(ankor.parse_options("-size=1")), ankor.Add("a1"))
    outcome = ankor.outcome(state)
    assert outcome is not None and outcome.winner == Seat.FIRST
    assert ankor.to_move(state) is None and list(ankor.legal_moves(state)) == []
    with pytest.raises(IllegalMoveError, match="over"):
        ankor.play(state, ankor.Add("a1"))


def test_double_path_loses_for_the_mover() -> None:
    """White's apex touches every side at any height; Blue's c2-1b1-1b2 touches U, V, W."""
    options = ankor.parse_options("-size=3 -win_height=-1")
    white, blue = ["a1", "b1", "b2", "c1", "c3", "1a1", "2a1"], ["c2", "1b1", "1b2"]
    after_white = ankor.outcome(ankor.set_up(options, white, blue, Seat.SECOND))
    after_blue = ankor.outcome(ankor.set_up(options, white, blue, Seat.FIRST))
    assert after_white is not None and after_white.winner == Seat.SECOND
    assert after_blue is not None and after_blue.winner == Seat.FIRST
    assert "mover loses" in after_white.reason
    single = ankor.outcome(ankor.set_up(ankor.parse_options("-size=3"), white, blue))
    assert single is not None and single.winner == Seat.SECOND  # the apex is too high at h=1


def test_player_without_action_passes_automatically() -> None:
    options = ankor.parse_options("-size=3")
    state = ankor.set_up(options, ["a1", "c1"], [], Seat.SECOND, supply=(3, 0))
    assert ankor.to_move(state) == Seat.FIRST and state.passes == 1
    assert "Blue passed" in ankor.render(state)
    assert ankor.Shift("a1", "b1") in set(ankor.legal_moves(state))
    state = ankor.play(state, ankor.Add("c2"))
    assert ankor.to_move(state) == Seat.FIRST and state.passes == 1
    assert {ankor.Shift("c1", "b1"), ankor.Add("b1")} <= set(ankor.legal_moves(state))
    with pytest.raises(InvalidMoveError, match="automatically"):
        ankor.parse_move(state, "pass")


def test_repetition_counts_only_since_the_last_add() -> None:
    state = ankor.new_game(ankor.parse_options("-size=4"))
    for text in "a1 d1 a1-b1 d1-d2 b1-a1 d2-d1 c3".split():
        state = ankor.play(state, ankor.parse_move(state, text))
    assert len(state.history) == 1
    for text in "d1-d2 a1-b1 d2-d1 b1-a1 d1-d2 a1-b1 d2-d1 b1-a1".split():
        assert ankor.outcome(state) is None
        state = ankor.play(state, ankor.parse_move(state, text))
    outcome = ankor.outcome(state)
    assert outcome is not None and outcome.winner is None and "third" in outcome.reason


# --- options ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("-size=4", ankor.Options(size=4)),
        ("-win_height=0", ankor.Options(win_height=0)),
        ("-win_height=-1 -size=8", ankor.Options(size=8, win_height=-1)),
        ("-no_swap", ankor.Options(pie=False)),
        ("-swap -size=6", ankor.Options()),
        ("-size=26 -win_height=25", ankor.Options(size=26, win_height=25)),
    ],
)
def test_options_parse_and_print_back(flags: str, expected: ankor.Options) -> None:
    options = ankor.parse_options(flags)
    assert options == expected
    assert ankor.parse_options(ankor.options_text(options)) == options


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        ("-colour=blue", "-colour"),
        ("-size=0", "-size=0"),
        ("-size=27", "-size=27"),
        ("-size=big", "-size"),
        ("-win_height=-2", "-win_height=-2"),
        ("-win_height=26", "-win_height=26"),
        ("-win_height=0 -win_height=1", "-win_height=1"),
        ("-swap -no_swap", "-no_swap"),
        ("-no_swap=1", "-no_swap"),
    ],
)
def test_bad_options_name_the_flag(flags: str, named: str) -> None:
    with pytest.raises(OptionsError, match=named):
        ankor.parse_options(flags)


def test_win_height_above_the_apex_counts_every_level() -> None:
    white, blue = ["1a1"], ["a1", "b1", "b2"]
    for flags in ("-size=2 -win_height=1", "-size=2 -win_height=5", "-size=2 -win_height=-1"):
        outcome = ankor.outcome(ankor.set_up(ankor.parse_options(flags), white, blue))
        assert outcome is not None and outcome.winner == Seat.FIRST, flags


def test_options_values_are_checked_when_built_directly() -> None:
    with pytest.raises(OptionsError, match="-size"):
        ankor.Options(size=30)
    with pytest.raises(OptionsError, match="-win_height"):
        ankor.Options(win_height=-5)


# --- notation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("d3", ankor.Add("d3")),
        (" D3 ", ankor.Add("d3")),
        ("d3-1c2", ankor.Shift("d3", "1c2")),
        ("1C2 - E5", ankor.Shift("1c2", "e5")),
        ("SWAP", SWAP),
    ],
)
def test_parse_move_accepts_the_spec_forms(text: str, move: ankor.Move) -> None:
    state = ankor.new_game(ankor.parse_options(""))
    assert ankor.parse_move(state, text) == move
    assert ankor.parse_move(state, ankor.move_text(move)) == move


@pytest.mark.parametrize(
    "text", ["", "-", "d3-", "-d3", "d3-e4-f5", "g1", "6a1", "0d3", "d0", "d3:1c2", "pass", "a1x"]
)
def test_parse_move_rejects_bad_text(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        ankor.parse_move(ankor.new_game(ankor.parse_options("")), text)


def test_off_board_label_depends_on_size() -> None:
    small = ankor.new_game(ankor.parse_options("-size=4"))
    with pytest.raises(InvalidMoveError, match="size-4"):
        ankor.parse_move(small, "e1")
    assert ankor.parse_move(ankor.new_game(ankor.parse_options("")), "e1") == ankor.Add("e1")


# --- fuzz ---------------------------------------------------------------------------------


def fuzz_states() -> list[ankor.State]:
    states = list(random_game(ankor.parse_options(""), 11, 120))[::6]
    states += list(random_game(ankor.parse_options("-size=3"), 12, 60))[::5]
    # Positions rebuilt from data carry no memo: play() then checks moves from scratch.
    return states + [ankor.from_data(ankor.to_data(s)) for s in states]


def test_fuzz_random_text_raises_only_rules_errors() -> None:
    rng = random.Random(5)
    alphabet = "abcdefgz0123456789-- swapPASS:\t\u00e9"
    for state in fuzz_states():
        for _ in range(150):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
            try:
                move = ankor.parse_move(state, text)
            except InvalidMoveError:
                continue
            try:
                ankor.play(state, move)
            except IllegalMoveError:
                pass


def test_fuzz_well_formed_moves_are_legal_exactly_when_listed() -> None:
    """Every add and cube move on every label pair: play() accepts it iff legal_moves lists it,
    and refuses it with IllegalMoveError otherwise."""
    rng = random.Random(6)
    for state in fuzz_states():
        g = trigrid.pyramid(state.options.size)
        legal = set(ankor.legal_moves(state))
        labels = list(g.labels)
        candidates: list[ankor.Move] = [ankor.Add(label) for label in labels]
        candidates += [ankor.Shift(rng.choice(labels), rng.choice(labels)) for _ in range(150)]
        candidates += [m for m in legal if isinstance(m, ankor.Shift)][:40]
        candidates += [SWAP, ankor.Add("z9"), ankor.Shift("a1", "q99")]
        for move in candidates:
            fresh = ankor.from_data(ankor.to_data(state))
            if move in legal:
                ankor.play(fresh, move)
                ankor.play(state, move)
            else:
                with pytest.raises(IllegalMoveError):
                    ankor.play(fresh, move)
                with pytest.raises(IllegalMoveError):
                    ankor.play(state, move)


def test_play_refuses_foreign_moves() -> None:
    with pytest.raises(IllegalMoveError):
        ankor.play(ankor.new_game(ankor.parse_options("")), "d3")  # type: ignore[arg-type]


# --- data and drawing ---------------------------------------------------------------------


def test_to_data_describes_every_position_for_drawing() -> None:
    case = json.loads((CASES / "a08_pbmserv_example.json").read_text())
    state = start(case)
    data = ankor.to_data(state)
    g = trigrid.pyramid(6)
    assert data["game"] == "ankor" and data["options"] == "" and data["size"] == 6
    assert len(data["positions"]) == 56
    by_label = {p["label"]: p for p in data["positions"]}
    assert (by_label["2c3"]["x"], by_label["2c3"]["y"]) == g.xy[g.parse("2c3") or 0]
    assert by_label["2c3"]["owner"] == "blue" and by_label["2c3"]["last"] is True
    assert by_label["2c3"]["faces"] == "UVW"
    assert by_label["e3"]["faces"] == ""  # carries 1d2, 1d3 and 1e3
    assert by_label["a1"]["owner"] is None and by_label["a1"]["faces"] == ""
    assert data["outcome"] == {"winner": "blue", "reason": "connected the three sides"}
    assert data["to_move"] is None
    assert ankor.seat_moves(state, Seat.FIRST) == ankor.seat_moves(state, Seat.SECOND) == []
    assert ankor.from_data(data) == state


def test_to_data_of_played_states_matches_data_made_afresh() -> None:
    """Play carries derived data (history texts, destinations) from state to state, and to_data
    keeps the positions' looks on the state; to_data gives what it gives for the same state
    with nothing carried over."""
    rng = random.Random(11)
    for size in (3, 4):
        state = ankor.new_game(ankor.Options(size=size))
        while state.turn is not None:
            fresh = dataclasses.replace(state, memo=None, texts=None, looks=None)
            assert ankor.to_data(state) == ankor.to_data(fresh)
            state = ankor.play(state, rng.choice(list(ankor.legal_moves(state))))
            if rng.random() < 0.1:
                state = ankor.from_data(ankor.to_data(state))


def test_seat_moves_lists_legal_texts_while_the_list_is_short() -> None:
    state = ankor.play(ankor.new_game(ankor.parse_options("")), ankor.Add("d3"))
    legal = ankor.seat_moves(state, Seat.SECOND)
    assert "swap" in legal and len(legal) == 21 and all(isinstance(m, str) for m in legal)
    data = ankor.to_data(state)
    assert data["last"] == "d3" and data["supply"] == [27, 28] and data["to_move"] == "blue"


def test_seat_moves_gives_blocks_once_the_legal_moves_are_many() -> None:
    """Past LEGAL_LIMIT moves the mover gets blocks, which stand for exactly its moves."""
    for state in random_game(ankor.Options(size=10), 0, 600):
        if state.turn is None:
            continue
        legal = [ankor.move_text(m) for m in ankor.legal_moves(state)]
        if len(legal) > ankor.LEGAL_LIMIT:
            blocks = ankor.seat_moves(state, state.turn)
            assert any(isinstance(block, dict) for block in blocks)
            assert sorted(expand_blocks(blocks)) == sorted(legal)
            return
    pytest.fail("no position of the game had more than LEGAL_LIMIT moves")


@pytest.mark.parametrize(
    "change",
    [
        {"game": "boche"},
        {"board": "w"},
        {"board": "?" * 56},
        {"board": "é" * 56},
        {"board": "." * 55 + "\x01"},
        {"history": ["..2"]},
        {"history": ["." * 55 + "x0"]},
        {"to_move": "red"},
        {"supply": None},
    ],
)
def test_from_data_refuses_data_it_did_not_write(change: dict[str, Any]) -> None:
    data = ankor.to_data(ankor.new_game(ankor.parse_options("")))
    data.update(change)
    with pytest.raises(ValueError):
        ankor.from_data(data)


def test_render_capitalises_the_last_cube_and_says_whose_turn() -> None:
    state = ankor.new_game(ankor.parse_options("-size=2"))
    state = ankor.play(state, ankor.Add("a1"))
    picture = ankor.render(state)
    assert "O" in picture and "o" not in picture.split("\n\n")[0]
    assert picture.endswith("Blue to move.")
    assert "White (O) 1 in hand, Blue (X) 2 in hand." in picture


@pytest.mark.parametrize(
    ("white", "blue", "problem"),
    [(["1a1"], [], "not supported"), (["q1"], [], "q1"), (["a1"], ["a1"], "a1")],
)
def test_set_up_refuses_impossible_positions(
    white: list[str], blue: list[str], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        ankor.set_up(ankor.parse_options("-size=4"), white, blue)
