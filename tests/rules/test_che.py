"""Che rules: the spec's cases (tests/rules/cases/che), notation, options, listing, drawing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rules import che
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError, Seat
from rules.geometry import plane

CASES = sorted((Path(__file__).parent / "cases" / "che").glob("*.json"))
WINNERS = {"light": Seat.FIRST, "dark": Seat.SECOND, "draw": None}


def replay(options: str, moves: list[str]) -> che.State:
    state = che.new_game(che.parse_options(options))
    for text in moves:
        state = che.play(state, che.parse_move(state, text))
    return state


def position(
    tiles: list[list[Any]], options: str = "", turn: int | None = None, supply: int | None = None
) -> che.State:
    """A position from (letter, x, y) tiles numbered in list order."""
    parsed = che.parse_options(options)
    return che.from_data(
        {
            "game": "che",
            "options": options,
            "turn": len(tiles) + 1 if turn is None else turn,
            "supply": parsed.num_tiles - len(tiles) if supply is None else supply,
            "last": [],
            "last_move": None,
            "movement_turns": 0,
            "scores": None,
            "outcome": None,
            "tiles": [
                {"number": n, "tile": t, "x": x, "y": y} for n, (t, x, y) in enumerate(tiles, 1)
            ],
        }
    )


def tile_texts(state: che.State) -> dict[str, str]:
    return {
        str(number): f"{che.LETTERS[letter]}{plane.xy(cell)}".replace(" ", "")
        for number, (cell, letter) in enumerate(state.tiles, 1)
    }


def random_positions(options: str, games: int, seed: int) -> list[che.State]:
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = che.new_game(che.parse_options(options))
        while che.outcome(state) is None and len(found) < 10_000:
            found.append(state)
            state = che.play(state, rng.choice(list(che.legal_moves(state))))
    return found


# --- the spec's cases ---------------------------------------------------------------------


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_spec_case(path: Path) -> None:
    case = json.loads(path.read_text())
    options = case["options"]
    if "quotas" in case:
        state = che.new_game(che.parse_options(options))
        for expected in case["quotas"]:
            assert che.quota(state) == expected
            move = next(m for m in che.legal_moves(state) if len(m.placements) == expected)
            state = che.play(state, move)
        return
    if "board" in case:
        state = position(case["board"], options, case.get("turn"), case.get("supply"))
    else:
        state = replay(options, case["setup"])
    if "quota" in case:
        assert che.quota(state) == case["quota"]
    for text, expected_text in case.get("parse", {}).items():
        assert che.move_text(che.parse_move(state, text)) == expected_text
    for text, reason in case.get("plays", {}).items():
        if reason:
            with pytest.raises(IllegalMoveError, match=reason):
                che.play(state, che.parse_move(state, text))
        else:
            che.play(state, che.parse_move(state, text))
    expect = case.get("expect", {})
    if "move" in case:
        move = che.parse_move(state, case["move"])
        if "illegal" in expect:
            before = che.to_data(state)
            with pytest.raises(IllegalMoveError, match=expect["illegal"]):
                che.play(state, move)
            assert che.to_data(state) == before
            assert move not in set(che.legal_moves(state))
            return
        assert move in set(che.legal_moves(state))
        state = che.play(state, move)
        if "text" in expect:
            assert che.move_text(move) == expect["text"]
        outcome = che.outcome(state)
        if expect["winner"] is None:
            assert outcome is None
        else:
            assert outcome is not None and outcome.winner == WINNERS[expect["winner"]]
            assert che.to_move(state) is None
        if "reason" in expect:
            assert outcome is not None and expect["reason"] in outcome.reason
    check_position(state, expect)


def check_position(state: che.State, expect: dict[str, Any]) -> None:
    if "scores" in expect:
        assert list(che.scores(state) or []) == expect["scores"]
    if "largest" in expect:
        assert list(che.largest_regions(state)) == expect["largest"]
    if "closed" in expect:
        closed = sorted(che.COLOUR_NAMES[r.colour] for r in che.regions(state) if r.closed)
        assert closed == expect["closed"]
    if "region_sizes" in expect:
        for colour, sizes in expect["region_sizes"].items():
            found = [
                r.size
                for r in che.regions(state)
                if che.COLOUR_NAMES[r.colour] == colour and r.size > 0
            ]
            assert sorted(found) == sizes
    if "tiles" in expect:
        texts = tile_texts(state)
        for number, text in expect["tiles"].items():
            assert texts[number] == text
    if "to_move" in expect:
        seat = che.to_move(state)
        assert seat is not None and che.SEAT_NAMES[seat] == expect["to_move"]
    if "candidates" in expect:
        assert [list(plane.xy(c)) for c in state.frontier] == expect["candidates"]
    if "fits" in expect:
        data = che.to_data(state)
        assert ["".join(c["tiles"]) for c in data["candidates"]] == expect["fits"]


def test_every_spec_case_has_a_file() -> None:
    names = {p.stem.split("_")[0] for p in CASES}
    for number in range(1, 20):
        if number in (11, 17):
            continue  # C11 is c11_triples_ramp; C17 is the property test below
        assert any(n.startswith(f"c{number:02d}") for n in names), number
    assert {"e2", "e3", "e4"} <= names


def test_c17_every_candidate_takes_one_tile_of_each_dominant_colour() -> None:
    """Spec §3.4 / C17: every frontier cell fits exactly two letters, one of each dominance."""
    for state in (s for s in random_positions("", 10, seed=17) if s.tiles):
        board = state.board
        for cell in state.frontier:
            fitting = []
            for letter in range(4):
                trial = dict(board)
                trial[cell] = letter
                if all(_edges_match(trial, cell, other) for other in plane.neighbours(cell)):
                    fitting.append(letter)
            assert len(fitting) == 2
            assert {che.LETTERS[f] for f in fitting} in ({"a", "d"}, {"b", "c"})


def _edges_match(board: dict[int, int], cell: int, other: int) -> bool:
    """The match rule of spec §2.3, from the corner table of §2.2 (independent of the engine)."""
    if other not in board:
        return True
    corners = {0: "LDLD", 1: "DLDL", 2: "DLDL", 3: "LDLD"}  # NW NE SE SW
    mine, theirs = corners[board[cell]], corners[board[other]]
    step = other - cell
    if step == -plane.STRIDE:  # other is north: my NW/NE against its SW/SE
        return mine[0] == theirs[3] and mine[1] == theirs[2]
    if step == plane.STRIDE:
        return mine[3] == theirs[0] and mine[2] == theirs[1]
    if step == -1:  # other is west: my NW/SW against its NE/SE
        return mine[0] == theirs[1] and mine[3] == theirs[2]
    return mine[1] == theirs[0] and mine[2] == theirs[3]


# --- notation ------------------------------------------------------------------------------


def test_position_numbers_follow_reading_order_at_the_start_of_the_turn() -> None:
    state = replay("", ["a1"])
    assert che.move_text(che.parse_move(state, "b1,c4")) == "b(0,-1),c(0,1)"
    assert che.move_text(che.parse_move(state, "B3, C2")) == "b(1,0),c(-1,0)"  # as written
    assert che.parse_move(state, "b3,c2") == che.parse_move(state, "c(-1,0),b(1,0)")


def test_second_tile_on_a_new_cell_needs_coordinates_and_follows_the_first() -> None:
    state = replay("", ["a1"])
    typed = che.parse_move(state, "d(0,-2),c1")  # (0,-2) touches only the tile on (0,-1)
    assert che.move_text(typed) == "d(0,-2),c(0,-1)"  # unplayable as written: kept as written
    with pytest.raises(IllegalMoveError, match=r"\(0,-2\) touches no tile"):
        che.play(state, typed)
    move = che.parse_move(state, "c1,d(0,-2)")
    assert che.move_text(move) == "c(0,-1),d(0,-2)"
    after = che.play(state, move)
    assert tile_texts(after)["2"] == "c(0,-1)" and tile_texts(after)["3"] == "d(0,-2)"
    with pytest.raises(InvalidMoveError, match="no position 5"):
        che.parse_move(state, "b5")


def test_hand_built_move_out_of_canonical_order_is_refused() -> None:
    state = replay("", ["a1"])
    first, second = che.Placement("b", 1, 0), che.Placement("c", -1, 0)
    with pytest.raises(IllegalMoveError, match=r"canonical order: c\(-1,0\),b\(1,0\)"):
        che.play(state, che.Move((first, second)))
    che.play(state, che.Move((second, first)))


def test_decisive_tile_written_second_is_put_first() -> None:
    """A set whose reading order starts with a deciding tile is canonical the other way."""
    state = replay("", ["b(0,0)", "a(1,0),a(0,1)"])
    move = che.parse_move(state, "c(0,2),b(1,1)")  # b(1,1) comes first in reading order
    assert che.move_text(move) == "c(0,2),b(1,1)"
    assert che.outcome(che.play(state, move)) is not None
    with pytest.raises(IllegalMoveError, match="decided after placement 1"):
        che.play(state, che.parse_move(state, "b(1,1),c(0,2)"))
    single = che.parse_move(state, "b(1,1)")
    assert single in set(che.legal_moves(state))
    assert che.outcome(che.play(state, single)) is not None


def test_garbage_and_well_formed_illegal_moves_raise_only_rules_errors() -> None:
    rng = random.Random(11)
    alphabet = "abcdeABCD0123456789-,() x"
    positions = random_positions("-move_anytime", 2, seed=4)[::3]
    for state in positions:
        for _ in range(150):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
            try:
                move = che.parse_move(state, text)
            except InvalidMoveError:
                continue
            try:
                che.play(state, move)
            except IllegalMoveError:
                pass
        for _ in range(60):
            placements = tuple(
                che.Placement(rng.choice("abcd"), rng.randint(-4, 4), rng.randint(-4, 4))
                for _ in range(rng.randint(1, 3))
            )
            lifted = rng.choice([None, rng.randint(-1, 60)])
            move = che.Move(placements[:1] if lifted is not None else placements, lifted)
            try:
                che.play(state, move)
            except IllegalMoveError:
                pass
    with pytest.raises(InvalidMoveError):
        che.parse_move(positions[0], "a(99999999,0)")
    with pytest.raises(IllegalMoveError, match="no tile 'x'"):
        che.play(positions[0], che.Move((che.Placement("x", 0, 0),)))


# --- listing --------------------------------------------------------------------------------


def brute_force_texts(state: che.State) -> set[str]:
    """Every canonical move text found by trying every ordered list of placements."""
    count = che.quota(state)
    found: set[str] = set()

    def extend(prefix: list[str], board_state: che.State) -> None:
        cells = {plane.xy(c) for c in state.frontier}
        for text in prefix:
            x, y = (int(v) for v in text[2:-1].split(","))
            cells |= {plane.xy(n) for n in plane.neighbours(plane.cell(x, y))}
        taken = {plane.xy(c) for c in state.board} | {
            tuple(int(v) for v in t[2:-1].split(",")) for t in prefix
        }
        for x, y in sorted(cells - taken):
            for letter in "abcd":
                trial = [*prefix, f"{letter}({x},{y})"]
                move = che.parse_move(state, ",".join(trial))
                try:
                    after = che.play(state, move)
                except IllegalMoveError as error:
                    if len(trial) < count and "too few" in str(error):
                        extend(trial, board_state)
                    continue
                found.add(che.move_text(che.Move(move.placements)))  # the set, canonically
                if len(trial) < count and che.outcome(after) is None:
                    extend(trial, board_state)

    extend([], state)
    return found


@pytest.mark.parametrize("options", ["", "-adjacent", "-triples", "-group_area=3"])
def test_legal_moves_are_exactly_the_playable_sets(options: str) -> None:
    rng = random.Random(len(options))
    state = che.new_game(che.parse_options(options))
    for _ in range(3):
        listed = [che.move_text(m) for m in che.legal_moves(state)]
        assert len(listed) == len(set(listed))
        assert set(listed) == brute_force_texts(state)
        state = che.play(state, rng.choice(list(che.legal_moves(state))))


def test_fast_pair_listing_matches_the_general_search() -> None:
    for options in ("", "-adjacent"):
        for state in random_positions(options, 6, seed=5)[1::2]:
            if che.quota(state) != 2:
                continue
            fast = list(che.legal_moves(state))
            general = list(che._placement_sets(state, 2))
            assert len(fast) == len(set(fast)) == len(general)
            assert set(fast) == set(general)


def test_listing_again_and_in_a_sibling_gives_the_same_moves() -> None:
    states = random_positions("", 3, seed=9)
    for state in states[2::3]:
        first = list(che.legal_moves(state))
        assert list(che.legal_moves(state)) == first
        moves = first[:3]
        children = [che.play(state, m) for m in moves]
        for child in children:
            again = che.play(state, che.parse_move(state, child.last_move or ""))
            assert set(che.legal_moves(child)) == set(che.legal_moves(again))


# --- options --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("-num_tiles=64", "num_tiles", 64),
        ("-num_tiles=-1", "num_tiles", -1),
        ("-num_tiles=999", "num_tiles", -1),
        ("-placements=4", "placements", 4),
        ("-single", "placements", 1),
        ("-pairs", "placements", 2),
        ("-triples", "placements", 3),
        ("-adjacent", "adjacent", True),
        ("-nonadjacent", "adjacent", False),
        ("-tie_none", "tie", che.Tie.NONE),
        ("-tie_move", "tie", che.Tie.MOVE),
        ("-tie_largest_wins", "tie", che.Tie.LARGEST_WINS),
        ("-tie_largest_loses", "tie", che.Tie.LARGEST_LOSES),
        ("-move_anytime", "move_anytime", True),
        ("-no_move_anytime", "move_anytime", False),
        ("-move_anytime -num_free=2", "num_free", 2),
        ("-tie_move -free_corner", "free_corner", True),
        ("-group_area=16", "group_area", 16),
        ("-group_extent=6", "group_extent", 6),
    ],
)
def test_option_flag_sets_its_field_and_round_trips(text: str, field: str, value: object) -> None:
    options = che.parse_options(text)
    assert getattr(options, field) == value
    assert che.parse_options(che.options_text(options)) == options


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("-bogus", "-bogus"),
        ("-num_tiles=0", "-num_tiles=0"),
        ("-num_tiles=1000", "-num_tiles=1000"),
        ("-placements=0", "-placements=0"),
        ("-placements=10", "-placements=10"),
        ("-move_anytime -num_free=5", "-num_free=5"),
        ("-group_area=0", "-group_area=0"),
        ("-group_extent=x", "-group_extent"),
        ("-single -triples", "-triples"),
        ("-placements=3 -pairs", "-pairs"),
        ("-tie_none -tie_move", "-tie_move"),
        ("-adjacent -nonadjacent", "-nonadjacent"),
        ("-move_anytime -no_move_anytime", "-no_move_anytime"),
        ("-free_corner", "-free_corner"),
        ("-num_free=2", "-num_free=2"),
        ("-single -adjacent", "-adjacent"),
        ("-num_tiles=-1 -tie_none", "-tie_none"),
        ("-adjacent=1", "-adjacent"),
    ],
)
def test_bad_option_is_an_error_naming_it(text: str, named: str) -> None:
    with pytest.raises(OptionsError, match=named):
        che.parse_options(text)


def test_unlimited_pool_never_runs_out() -> None:
    state = che.new_game(che.parse_options("-num_tiles=-1"))
    rng = random.Random(2)
    for _ in range(40):
        if che.outcome(state) is not None:
            break
        assert state.supply == che.UNLIMITED and che.quota(state) == min(state.turn, 2)
        state = che.play(state, rng.choice(list(che.legal_moves(state))))
    assert che.outcome(state) is None or "ran out" not in che.outcome(state).reason  # type: ignore[union-attr]


def test_placements_option_ramps_one_two_three_four() -> None:
    state = che.new_game(che.parse_options("-placements=4 -num_tiles=20"))
    quotas = []
    for _ in range(4):
        quotas.append(che.quota(state))
        move = next(iter(che.legal_moves(state)))
        state = che.play(state, move)
    assert quotas == [1, 2, 3, 4]


def test_tie_move_turns_are_tile_moves_after_the_pool_runs_out() -> None:
    state = replay("-num_tiles=3 -tie_move", ["a(0,0)", "b(1,0),d(2,0)"])
    assert che.outcome(state) is None and che.scores(state) is None
    assert che.quota(state) == 0
    moves = list(che.legal_moves(state))
    assert moves and all(m.lifted is not None for m in moves)
    assert {m.lifted for m in moves} == {1}  # tiles 2 and 3 were placed on the last turn
    with pytest.raises(IllegalMoveError, match="run out"):
        che.play(state, che.parse_move(state, "b(0,-1)"))
    after = che.play(state, moves[0])
    assert after.movement_turns == 1 and che.to_move(after) == Seat.SECOND


def test_tie_move_without_a_movable_tile_is_a_draw() -> None:
    state = replay("-num_tiles=1 -tie_move", ["a1"])
    outcome = che.outcome(state)
    assert outcome is not None and outcome.winner is None and "cannot move" in outcome.reason


def test_hundred_movement_turns_are_a_draw() -> None:
    state = replay("-num_tiles=2 -tie_move", ["a(0,0)", "b(1,0)"])
    turns = 0
    while che.outcome(state) is None:
        state = che.play(state, next(iter(che.legal_moves(state))))
        turns += 1
    assert turns == che.MOVEMENT_TURN_LIMIT
    assert "tile-move turns" in che.outcome(state).reason  # type: ignore[union-attr]


def test_move_anytime_offers_tile_moves_and_counts_the_turn_in_the_ramp() -> None:
    state = replay("-move_anytime -triples", ["a(0,0)", "b(1,0),b(-1,0)", "c(0,1),c(0,-1),d(1,1)"])
    assert che.quota(state) == 3
    assert any(m.lifted is not None for m in che.legal_moves(state))
    moved = che.play(state, che.parse_move(state, "2-d(1,-1)"))
    assert moved.turn == 5 and che.quota(moved) == 3 and moved.supply == 42
    assert moved.last == (2,) and tile_texts(moved)["2"] == "d(1,-1)"
    plain = replay("", ["a1", "b3,c2"])
    with pytest.raises(IllegalMoveError, match="-move_anytime"):
        che.play(plain, che.parse_move(plain, "2-a(0,1)"))


def test_num_free_two_refuses_a_tile_with_one_free_side() -> None:
    state = replay("-move_anytime -num_free=2", ["a(0,0)", "b(1,0),b(-1,0)", "c(0,1),c(0,-1)"])
    # Tile 2 (the first of Dark's pair in reading order) is at (-1,0), with three free sides.
    che.play(state, che.parse_move(state, "2-d(1,1)"))
    state = replay("-move_anytime -num_free=4", ["a(0,0)", "b(1,0),b(-1,0)", "c(0,1),c(0,-1)"])
    with pytest.raises(IllegalMoveError, match="3 free sides; it needs 4"):
        che.play(state, che.parse_move(state, "2-d(1,1)"))


def test_free_corner_refuses_a_tile_without_one() -> None:
    state = replay(
        "-move_anytime -free_corner",
        ["a(0,0)", "b(1,0),b(-1,0)", "c(0,1),c(0,-1)", "d(1,1),a(1,-1)"],
    )
    # Tile 2 at (1,0) has tiles N, S and W of it: each corner touches another tile.
    with pytest.raises(IllegalMoveError, match="no free corner"):
        che.play(state, che.parse_move(state, "2-b(2,1)"))


# --- state, data and drawing ----------------------------------------------------------------


def test_play_leaves_its_input_alone_and_refuses_after_the_end() -> None:
    state = replay("", ["b(0,0)", "a(1,0),a(0,1)"])
    before = che.to_data(state)
    over = che.play(state, che.parse_move(state, "b(1,1)"))
    assert che.to_data(state) == before
    with pytest.raises(IllegalMoveError, match="game is over"):
        che.play(over, che.parse_move(over, "c(-1,0)"))
    assert list(che.legal_moves(over)) == []


def test_to_data_carries_the_drawing_and_round_trips() -> None:
    state = replay("-num_tiles=30", ["a1", "b3,c2"])
    data = che.to_data(state)
    assert data["game"] == "che" and data["options"] == "-num_tiles=30"
    assert data["to_move"] == "light" and data["quota"] == 2 and data["supply"] == 27
    first = data["tiles"][0]
    assert first == {
        "number": 1,
        "tile": "a",
        "x": 0,
        "y": 0,
        "dominant": "light",
        "corners": ["light", "dark", "light", "dark"],
        "band": "nw-se",
    }
    # Numbered as written: b3 (at (1,0)) is tile 2, c2 (at (-1,0)) tile 3.
    assert data["tiles"][1]["tile"] == "b" and data["tiles"][1]["band"] == "ne-sw"
    assert data["tiles"][2]["tile"] == "c" and data["tiles"][2]["band"] == "nw-se"
    assert data["tiles"][2]["corners"] == ["dark", "light", "dark", "light"]
    assert [c["position"] for c in data["candidates"]] == list(range(1, 9))
    assert data["bounds"] == {"min_x": -2, "min_y": -1, "max_x": 2, "max_y": 1}
    assert che.from_data(data) == state


def test_seat_moves_lists_texts_while_few_and_blocks_past_300() -> None:
    state = replay("-num_tiles=30", ["a1", "b3,c2"])
    mover = che.to_move(state)
    assert mover is not None
    assert che.seat_moves(state, mover) == [che.move_text(m) for m in che.legal_moves(state)]
    later = state
    while len(list(che.legal_moves(later))) <= 300:
        later = che.play(later, min(che.legal_moves(later), key=che.move_text))
    mover = che.to_move(later)
    assert mover is not None
    assert any(isinstance(block, dict) for block in che.seat_moves(later, mover))
    opening = che.new_game(che.parse_options(""))
    assert sorted(che.seat_moves(opening, Seat.FIRST)) == ["a(0,0)", "b(0,0)", "c(0,0)", "d(0,0)"]
    assert che.seat_moves(opening, Seat.SECOND) == []  # the opening tile settles the colours


def test_seat_moves_lists_nothing_past_300_where_a_turn_places_three_tiles() -> None:
    """Three tiles a turn have no blocks, and their tens of thousands of texts are too many."""
    rng = random.Random(2)
    state = che.new_game(che.parse_options("-placements=3"))
    while (mover := che.to_move(state)) is not None:
        legal = list(che.legal_moves(state))
        if len(legal) > 300:
            assert che.quota(state) == 3 and che.seat_moves(state, mover) == []
            return
        state = che.play(state, rng.choice(legal))
    pytest.fail("no position had more than 300 moves")


def test_from_data_refuses_positions_the_rules_cannot_reach() -> None:
    with pytest.raises(ValueError, match="does not match"):
        position([["a", 0, 0], ["a", 1, 0]])
    with pytest.raises(ValueError, match="one group"):
        position([["a", 0, 0], ["a", 2, 2]])
    with pytest.raises(ValueError):
        position([["z", 0, 0]])
    with pytest.raises(ValueError):
        che.from_data({"game": "osbox"})


def test_render_draws_tiles_as_the_help_page_does() -> None:
    drawing = che.render(replay("", ["a1"]))
    assert "+---|---+" in drawing and "|    \\..|" in drawing and "__    \\__" in drawing
    assert "[1]" in drawing and "[4]" in drawing
    assert "Dark to place 2 tiles" in drawing
    over = che.render(replay("", ["b(0,0)", "a(1,0),a(0,1)", "b(1,1)"]))
    assert "Dark wins" in over
    # Inside the 2x2 block the four dark caps meet at one vertex (seed figure E2).
    assert "|...+...|" in over


def test_random_games_end_and_listing_stays_exact_under_every_rule_set() -> None:
    for options in ("-single", "-move_anytime", "-group_extent=4", "-num_tiles=9 -tie_move"):
        rng = random.Random(1)
        state = che.new_game(che.parse_options(options))
        for _ in range(300):
            legal = list(che.legal_moves(state))
            if not legal:
                break
            assert len(legal) == len(set(legal))
            for move in rng.sample(legal, min(4, len(legal))):
                assert che.parse_move(state, che.move_text(move)) == move
            state = che.play(state, rng.choice(legal))
        assert che.outcome(state) is not None, options


@pytest.mark.parametrize("options", ["", "-group_area=10", "-move_anytime", "-adjacent"])
def test_seat_moves_lists_the_legal_texts_exactly_when_there_are_at_most_300(
    options: str,
) -> None:
    """seat_moves may skip listing when a count bound already passes the limit: never wrongly."""
    rng = random.Random(3)
    for _ in range(4):
        state = che.new_game(che.parse_options(options))
        while (mover := che.to_move(state)) is not None:
            legal = list(che.legal_moves(state))
            texts = [che.move_text(m) for m in legal]
            listed = che.seat_moves(state, mover)
            if len(texts) <= 300:
                assert listed == texts
            else:
                assert any(isinstance(block, dict) for block in listed)
            state = che.play(state, rng.choice(legal))
        assert che.seat_moves(state, Seat.FIRST) == che.seat_moves(state, Seat.SECOND) == []


def test_moves_shared_between_games_list_as_freshly_built_ones() -> None:
    """The pair moves games share (by cell pair and colour parity) are the moves a game
    with an empty share builds for itself, whichever colour the first tile set."""
    for seed in (5, 6, 7):
        rng = random.Random(seed)
        state = che.new_game(che.parse_options(""))
        while che.outcome(state) is None:
            shared = [che.move_text(m) for m in che.legal_moves(state)]
            che._SHARED.clear()
            fresh = che.from_data(che.to_data(state))
            assert [che.move_text(m) for m in che.legal_moves(fresh)] == shared
            state = che.play(state, rng.choice(list(che.legal_moves(state))))


def test_a_full_share_drops_its_oldest_blocks_and_lists_the_same_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With room for few blocks the share keeps making room: its count stays exact and
    bounded, and every listing is still exact."""
    limit = 600
    monkeypatch.setattr(che, "_BLOCK_LIMIT", limit)
    che._SHARED.clear()
    rng = random.Random(8)
    made_room = 0
    for _ in range(4):
        state = che.new_game(che.parse_options(""))
        while che.outcome(state) is None:
            before = che._SHARED.blocks
            listed = list(che.legal_moves(state))
            made_room += che._SHARED.blocks < before
            rows = che._SHARED.rows.values()
            assert che._SHARED.blocks == sum(len(row) + 1 for row in rows)
            if che.quota(state) == 2:
                assert che._SHARED.blocks < limit + len(listed)
                assert len(set(listed)) == len(listed)
                assert set(listed) == set(che._placement_sets(state, 2))
                kept = che._SHARED.blocks
                assert list(che.legal_moves(state)) == listed
                if kept < limit:
                    assert che._SHARED.blocks == kept, "listing again builds nothing"
            state = che.play(state, rng.choice(listed))
    assert made_room


def test_adjacent_triples_are_checked_in_the_order_written() -> None:
    """§5.2 rule 6: each tile after the first touches an earlier tile of the turn."""
    state = replay("-triples -adjacent", ["a(0,0)", "b(0,-1),a(0,-2)"])
    assert che.quota(state) == 3
    listed = list(che.legal_moves(state))
    for move in listed:  # every listed order can be played as it stands
        cells = [plane.cell(p.x, p.y) for p in move.placements]
        assert all(
            any(c in plane.neighbours(e) for e in cells[:i]) for i, c in enumerate(cells) if i
        ), move

    # A line of three beside the board's column, written ends first: the middle tile comes
    # last, so the second touches no earlier tile of the turn (though it touches the board).
    def beside_board(p: che.Placement) -> bool:
        return any(n in state.board for n in plane.neighbours(plane.cell(p.x, p.y)))

    line = next(
        m
        for m in listed
        if len(m.placements) == 3
        and len({p.x for p in m.placements}) == 1
        and all(map(beside_board, m.placements))
    )
    first, middle, last = sorted(line.placements, key=lambda p: p.y)
    refused = che.parse_move(state, f"{first},{last},{middle}")
    with pytest.raises(IllegalMoveError, match="touches an earlier one"):
        che.play(state, refused)
    written = che.parse_move(state, f"{last},{middle},{first}")
    assert written == line and che.move_text(written) == f"{last},{middle},{first}"
    after = che.play(state, written)
    numbers = {n: text for n, text in tile_texts(after).items() if int(n) > 3}
    assert numbers == {"4": str(last), "5": str(middle), "6": str(first)}
    assert after.last_move == f"{last},{middle},{first}"
    replayed = che.play(state, che.parse_move(state, after.last_move))
    assert tile_texts(replayed) == tile_texts(after)


# --- the evaluation hook --------------------------------------------------------------------

LIGHT_ABOUT_TO_CLOSE = [["d", 0, 0], ["c", 1, 0], ["c", 0, 1]]
"""Three Dark-dominant tiles cap the Light vertex (1,1): a tile on (1,1) that caps it too
closes a Light region (§6.3)."""
COLOUR_MIRROR = {"a": "c", "b": "d", "c": "a", "d": "b"}
"""Each letter to the one with the same band and the other colours (§2.2)."""


def test_evaluate_favours_the_side_that_can_close_a_region_and_mirrors_with_the_colours() -> None:
    light_to_move = position(LIGHT_ABOUT_TO_CLOSE, turn=5)
    dark_to_move = position(LIGHT_ABOUT_TO_CLOSE, turn=4)
    assert che.evaluate(light_to_move) > che.evaluate(dark_to_move) > 0
    mirrored = [[COLOUR_MIRROR[letter], x, y] for letter, x, y in LIGHT_ABOUT_TO_CLOSE]
    assert che.evaluate(position(mirrored, turn=4)) == -che.evaluate(light_to_move)
    assert che.evaluate(position(mirrored, turn=5)) == -che.evaluate(dark_to_move)


def test_evaluate_prefers_the_tile_that_leads_a_threatened_region_into_open_space() -> None:
    """A Dark-dominant tile on (1,1) would cap the Light vertex and close it; the Light band
    of ``a`` there joins the vertex to (2,2), with three empty cells around it; a pair of
    tiles elsewhere leaves the vertex one tile from closing."""
    state = position(LIGHT_ABOUT_TO_CLOSE)
    other = "b(0,-1)"
    spoiled = che.play(state, che.parse_move(state, f"a(1,1),{other}"))
    ignored = che.play(state, che.parse_move(state, f"b(-1,0),{other}"))
    assert che.outcome(spoiled) is None and che.outcome(ignored) is None
    assert che.evaluate(spoiled) < che.evaluate(ignored)
