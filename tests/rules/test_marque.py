"""Marque's rules: the spec's test cases (``cases/marque/*.json``), its seed example, every
option, forced passes, and random play checked against a plain re-statement of spec §4-§6."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest

from rules import marque
from rules.api import IllegalMoveError, InvalidMoveError, OptionsError, RulesError, Seat
from rules.geometry import graph
from rules.geometry import marque_tiling as tiling

CASES = Path(__file__).parent / "cases" / "marque"
MOVE_CASES = sorted(p.stem for p in CASES.glob("*.json") if "move" in json.loads(p.read_text()))
POSITION_CASES = sorted(
    p.stem
    for p in CASES.glob("*.json")
    if "move" not in json.loads(p.read_text()) and "position" in json.loads(p.read_text())
)
ALL_LABELS = list(tiling.LABELS)


def load(name: str) -> dict[str, Any]:
    case: dict[str, Any] = json.loads((CASES / f"{name}.json").read_text())
    return case


def position(spec: dict[str, Any], options: str = "") -> marque.State:
    """A position from a case's ``position`` entry, through from_data."""
    return marque.from_data(
        {
            "game": "marque",
            "options": options,
            "pieces": {"white": spec["white"], "black": spec["black"]},
            "turn": spec["to_move"],
            "ply": spec.get("ply", 1),
            "previous": spec.get("previous", {}),
        }
    )


def texts(moves: Any) -> list[str]:
    return [marque.move_text(move) for move in moves]


# --- the spec's cases ------------------------------------------------------------------------


@pytest.mark.parametrize("name", MOVE_CASES)
def test_spec_case_move_has_the_stated_verdict(name: str) -> None:
    case = load(name)
    expect = case["expect"]
    state = position(case["position"], case["options"])
    legal = texts(marque.legal_moves(state))
    if "legal_count_before" in expect:
        assert len(legal) == expect["legal_count_before"]
    move = marque.parse_move(state, case["move"])
    if not expect["legal"]:
        with pytest.raises(IllegalMoveError, match=re.escape(f"({expect['reason']})")):
            marque.play(state, move)
        assert marque.move_text(move) not in legal
        return
    assert marque.move_text(move) in legal
    for other in expect.get("also_legal", []):
        assert other in legal
    after = marque.play(state, move)
    data = marque.to_data(after)
    if "captured" in expect:
        assert sorted(data["captured"]) == sorted(expect["captured"])
    if "occupied" in expect:
        assert data["occupied"] == expect["occupied"]
    if "winner" in expect:
        outcome = marque.outcome(after)
        assert outcome is not None and outcome.winner == Seat(
            marque.SEAT_NAMES.index(expect["winner"])
        )
    if "wins_under" in expect:
        mover = marque.to_move(state)
        winning = []
        for formation in marque.FORMATIONS:
            flag = "" if formation == "non_adj_3" else f"-{formation}"
            result = marque.outcome(marque.play(position(case["position"], flag), move))
            if result is not None and result.winner == mover:
                winning.append(formation)
        assert sorted(winning) == sorted(expect["wins_under"])


@pytest.mark.parametrize("name", POSITION_CASES)
def test_spec_case_position_has_the_stated_properties(name: str) -> None:
    case = load(name)
    expect = case["expect"]
    state = position(case["position"], case["options"])
    if "legal_moves" in expect:
        assert texts(marque.legal_moves(state)) == expect["legal_moves"]
    if "after_forced_pass" in expect:
        turned = position({**case["position"], "to_move": "white"}, case["options"])
        assert texts(marque.legal_moves(turned)) == expect["after_forced_pass"]["legal_moves"]
    if "occupied" in expect:
        for seat, name_ in enumerate(marque.SEAT_NAMES):
            assert sorted(marque.occupied_bases(state, Seat(seat))) == expect["occupied"][name_]
    for name_, labels in expect.get("winning_group", {}).items():
        found = marque.winning_group(state, Seat(marque.SEAT_NAMES.index(name_)))
        assert found == (None if labels is None else frozenset(labels.split()))
    for name_, listed in expect.get("groups", {}).items():
        seat = Seat(marque.SEAT_NAMES.index(name_))
        found = marque.groups(state, seat)
        assert found == [frozenset(group.split()) for group in listed]
        empty = set(ALL_LABELS) - set(case["position"]["white"]) - set(case["position"]["black"])
        freedoms = [
            len(graph.liberties(group, LABEL_NEIGHBOURS, empty.__contains__)) for group in found
        ]
        assert freedoms == expect["freedoms"][name_]
    if "render" in expect:
        drawn = marque.render(state).split("\n")
        seed = (CASES / expect["render"]).read_text().rstrip("\n").split("\n")
        assert [line.rstrip() for line in drawn[: len(seed)]] == [line.rstrip() for line in seed]


def test_spec_case_parsing_t24() -> None:
    state = marque.new_game(marque.parse_options(""))
    for entry in load("t24")["parse"]:
        if "canonical" in entry:
            assert marque.move_text(marque.parse_move(state, entry["text"])) == entry["canonical"]
        else:
            with pytest.raises(InvalidMoveError, match=re.escape(f"({entry['error']})")):
                marque.parse_move(state, entry["text"])


def test_spec_formation_table_of_section_9() -> None:
    for row in load("formations")["table"]:
        for formation in marque.FORMATIONS:
            assert marque.formation_wins(formation, row["held"]) == (
                formation in row["wins_under"]
            ), (row["held"], formation)


# --- the seed example ------------------------------------------------------------------------


def test_seed_example_replays_to_o_win_under_the_default() -> None:
    case = load("seed_replay")
    state = position(case["position"])
    assert marque.outcome(state) is None
    assert marque.winning_group(state, Seat.FIRST) is None
    after = marque.play(state, marque.parse_move(state, case["move"]))
    outcome = marque.outcome(after)
    assert outcome is not None and outcome.winner == Seat.FIRST
    assert "A, E, F" in outcome.reason
    assert marque.to_move(after) is None and list(marque.legal_moves(after)) == []
    assert sorted(marque.occupied_bases(after, Seat.FIRST)) == ["A", "E", "F"]
    assert sorted(marque.occupied_bases(after, Seat.SECOND)) == ["B", "C", "E", "G"]
    assert marque.winning_group(after, Seat.SECOND) is None
    drawn = marque.render(after).split("\n")
    seed = (CASES / "seed_board.txt").read_text().rstrip("\n").split("\n")
    assert [line.rstrip() for line in drawn[: len(seed)]] == [line.rstrip() for line in seed]
    assert "O wins" in drawn[-1]


@pytest.mark.parametrize(
    ("flag", "white_wins"),
    [("", True), ("-opposite", False), ("-y", False), ("-any_4", False), ("-any_3", True)],
)
def test_seed_position_verdicts_of_section_12_3(flag: str, white_wins: bool) -> None:
    state = position(load("t25_seed")["position"], flag)
    assert (marque.winning_group(state, Seat.FIRST) is not None) == white_wins
    if flag in ("", "-opposite", "-y", "-any_4"):
        assert marque.winning_group(state, Seat.SECOND) is None


# --- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("formation", marque.FORMATIONS[1:])
def test_options_every_flag_selects_its_formation(formation: str) -> None:
    options = marque.parse_options(f"-{formation.upper()}")
    assert options.formation == formation
    assert marque.options_text(options) == f"-{formation}"
    assert marque.parse_options(marque.options_text(options)) == options
    state = marque.new_game(options)
    assert marque.to_data(state)["options"] == f"-{formation}"


def test_options_default_is_three_non_adjacent_bases() -> None:
    options = marque.parse_options("")
    assert options.formation == "non_adj_3" and marque.options_text(options) == ""


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("-non_adj_3", "-non_adj_3"),
        ("-swap", "-swap"),
        ("-any_5", "-any_5"),
        ("-opposite=2", "-opposite"),
        ("-any_2=3", "-any_2"),
        ("opposite", "opposite"),
        ("-any_2 -opposite", "-opposite"),
        ("-y -any_4", "-any_4"),
    ],
)
def test_options_bad_flags_raise_options_error_naming_them(text: str, named: str) -> None:
    with pytest.raises(OptionsError, match=re.escape(named)):
        marque.parse_options(text)


def test_options_repeated_flag_is_accepted() -> None:
    assert marque.parse_options("-y -y").formation == "y"


def test_options_unknown_formation_value_is_refused() -> None:
    with pytest.raises(OptionsError, match="no_such"):
        marque.Options("no_such")


# --- moves and notation ----------------------------------------------------------------------


def test_notation_every_move_round_trips() -> None:
    state = marque.new_game(marque.parse_options(""))
    moves = [marque.Move((cell,)) for cell in range(tiling.CELL_COUNT)]
    moves += [marque.Move(pair) for pair in tiling.TRIANGLE_PAIRS]
    for move in moves:
        text = marque.move_text(move)
        assert marque.parse_move(state, text) == move
        assert marque.parse_move(state, text.upper()) == move
    assert marque.move_text(marque.parse_move(state, "a6,a1")) == "a1,a6"


@pytest.mark.parametrize("text", ["", "pass", "PASS", "a1,a2,a3", "a1,", ",", "a 1", "a1;a2"])
def test_notation_bad_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        marque.parse_move(marque.new_game(marque.Options()), text)


def test_first_move_allows_exactly_the_66_triangles() -> None:
    state = marque.new_game(marque.Options())
    legal = texts(marque.legal_moves(state))
    assert legal == [tiling.LABELS[c] for c in sorted(tiling.TRIANGLES)]
    assert all(not label.startswith("s") for label in legal)


def test_play_refuses_a_move_of_another_type() -> None:
    state = marque.new_game(marque.Options())
    with pytest.raises(IllegalMoveError):
        marque.play(state, "a1")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="unknown-cell"):
        marque.play(state, marque.Move((200,)))


# --- forced passes and the end of the game ---------------------------------------------------


EYES = [f"{base}{k}" for base in "abcdefg" for k in (1, 4)] + ["t1", "t24"]
"""Sixteen pairwise non-adjacent cells; with O on every other cell no base is held."""


def test_forced_pass_gives_the_turn_back() -> None:
    """O fills s15; every empty cell is then suicide for X, who passes; O moves again."""
    white = [label for label in ALL_LABELS if label not in EYES and label != "s15"]
    state = position({"white": white, "black": [], "to_move": "white"})
    after = marque.play(state, marque.parse_move(state, "s15"))
    assert marque.outcome(after) is None
    assert marque.to_move(after) == Seat.FIRST
    assert after.passes == (Seat.SECOND,)
    assert sorted(texts(marque.legal_moves(after))) == sorted(EYES)
    data = marque.to_data(after)
    assert data["passes"] == ["black"] and data["last_move"] == "s15"
    assert data["previous"] == {"white": "s15", "black": None}
    assert "X has no legal move and passes" in marque.render(after)
    after = marque.play(after, marque.parse_move(after, "a1"))
    assert marque.to_move(after) == Seat.FIRST and after.passes == (Seat.SECOND,)


def test_forced_pass_clears_the_passers_previous_move() -> None:
    white = [label for label in ALL_LABELS if label not in EYES and label != "s15"]
    state = position(
        {"white": white, "black": [], "to_move": "white", "previous": {"black": "t24"}}
    )
    after = marque.play(state, marque.parse_move(state, "s15"))
    assert after.previous == (marque.parse_move(state, "s15"), None)


def test_two_forced_passes_give_way_to_the_win_of_the_filler() -> None:
    """The only way both sides could be without a move: O captures X's t1 with s1 and X may
    not retake (its own previous move), O filling t1 would be suicide.  But O then covers
    every other cell and holds all seven bases, and the win is checked first (spec §10)."""
    white = [label for label in ALL_LABELS if label not in ("t1", "s1")]
    for flag in ("", "-opposite", "-y", "-any_4"):
        state = position(
            {"white": white, "black": ["t1"], "to_move": "white", "previous": {"black": "t1"}},
            flag,
        )
        after = marque.play(state, marque.parse_move(state, "s1"))
        outcome = marque.outcome(after)
        assert outcome is not None and outcome.winner == Seat.FIRST
        assert after.passes == () and marque.to_data(after)["captured"] == ["t1"]


def test_t23_position_played_by_x_is_a_forced_pass() -> None:
    """The literal T23 position, X to move: X has no move at all, so to_move never names X
    there in play; O's only moves are t1 and t24."""
    state = position(load("t23")["position"])
    assert list(marque.legal_moves(state)) == []
    white = [label for label in ALL_LABELS if label not in ("t1", "t24")]
    turned = position({"white": white, "black": [], "to_move": "white"})
    after = marque.play(turned, marque.parse_move(turned, "t1"))
    assert marque.outcome(after) is not None  # O holds every base


def test_win_ends_the_game_and_refuses_moves() -> None:
    case = load("t18")
    state = position(case["position"], "-opposite")
    after = marque.play(state, marque.parse_move(state, "e4"))
    assert marque.outcome(after) is not None and marque.to_move(after) is None
    with pytest.raises(IllegalMoveError, match="game is over"):
        marque.play(after, marque.parse_move(after, "t7"))
    data = marque.to_data(after)
    assert data["outcome"]["winner"] == "white"
    assert marque.seat_moves(after, Seat.FIRST) == marque.seat_moves(after, Seat.SECOND) == []
    assert set(data["winning_group"]) >= {"c1", "c2", "c3", "e4", "e5", "e6"}


# --- data and drawing ------------------------------------------------------------------------


def test_data_carries_the_drawing_and_round_trips() -> None:
    state = position(load("t25_seed")["position"])
    data = marque.to_data(state)
    assert marque.from_data(msgpack.unpackb(msgpack.packb(data))) == state
    assert len(data["cells"]) == 96 and len(data["bases"]) == 7
    a1 = data["cells"][0]
    assert a1["cell"] == "a1" and a1["shape"] == "base-tri" and a1["base"] == "A"
    assert a1["x"] == pytest.approx(-1.655, abs=1e-3) and a1["y"] == pytest.approx(-2.866, abs=1e-3)
    assert len(a1["points"]) == 3 and len(data["cells"][42]["points"]) == 4
    assert data["pieces"]["white"][:2] == ["a1", "a2"] and len(data["pieces"]["black"]) == 33
    assert data["to_move"] == "black" and data["scores"] is None
    assert data["occupied"] == {"white": ["A", "E", "F"], "black": ["B", "C", "E", "G"]}
    assert marque.seat_moves(state, Seat.SECOND) == texts(marque.legal_moves(state))


@pytest.mark.parametrize(
    "data",
    [
        {"game": "che"},
        {"pieces": {"white": ["z9"], "black": []}},
        {"pieces": {"white": ["a1"], "black": ["a1"]}},
        {"pieces": {"white": [], "black": []}, "turn": "green"},
        {"pieces": {"white": [], "black": []}, "previous": {"white": "a1,a1"}},
        {"pieces": "nothing"},
        {},
    ],
)
def test_data_it_did_not_write_is_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        marque.from_data(data)


def test_render_shows_turn_last_move_and_captures() -> None:
    case = load("t12")
    state = position(case["position"])
    after = marque.play(state, marque.parse_move(state, "t1"))
    drawn = marque.render(after)
    assert "Last move: X t1, capturing s1 s2" in drawn
    assert drawn.endswith("O to move")
    row, column = tiling.GLYPHS[tiling.CELL_IDS["t1"]]
    assert drawn.split("\n")[row][column] == "x"


# --- random play against a plain statement of the rules --------------------------------------

LABEL_NEIGHBOURS = {
    tiling.LABELS[c]: [tiling.LABELS[n] for n in tiling.NEIGHBOURS[c]]
    for c in range(tiling.CELL_COUNT)
}
PAIRS = {frozenset(tiling.LABELS[c] for c in pair) for pair in tiling.TRIANGLE_PAIRS}
TRIANGLE_LABELS = {tiling.LABELS[c] for c in tiling.TRIANGLES}


def reference_play(
    own: set[str], opp: set[str], cells: set[str]
) -> tuple[set[str], set[str], set[str]] | None:
    """Spec §5 read literally with graph.py: place, remove dead opponent groups, refuse suicide."""
    own = own | cells
    empty = set(ALL_LABELS) - own - opp
    captured: set[str] = set()
    for group in graph.groups(opp, LABEL_NEIGHBOURS):
        if not graph.has_liberty(group, LABEL_NEIGHBOURS, empty.__contains__):
            captured |= group
    opp = opp - captured
    empty |= captured
    start = next(iter(cells))
    group = graph.flood(start, LABEL_NEIGHBOURS, own.__contains__)
    if not graph.has_liberty(group, LABEL_NEIGHBOURS, empty.__contains__):
        return None
    return own, opp, captured


def reference_legal(state: marque.State) -> set[str]:
    """Every move that spec §4-§6 allows, tried one by one."""
    seat = state.turn
    own = set(marque.to_data(state)["pieces"][marque.SEAT_NAMES[seat]])
    opp = set(marque.to_data(state)["pieces"][marque.SEAT_NAMES[1 - seat]])
    empty = set(ALL_LABELS) - own - opp
    previous = state.previous[seat]
    banned = None if previous is None else set(marque.move_text(previous).split(","))
    shapes: list[set[str]] = [{label} for label in ALL_LABELS]
    if state.ply == 0:
        shapes = [shape for shape in shapes if shape <= TRIANGLE_LABELS]
    else:
        shapes += [set(pair) for pair in PAIRS]
    return {
        ",".join(sorted(shape, key=tiling.CELL_IDS.__getitem__))
        for shape in shapes
        if shape <= empty and shape != banned and reference_play(own, opp, shape) is not None
    }


@pytest.mark.parametrize("flag", ["", "-any_2", "-opposite"])
@pytest.mark.parametrize("seed", range(4))
def test_random_play_matches_the_reference_rules(flag: str, seed: int) -> None:
    rng = random.Random(seed)
    state = marque.new_game(marque.parse_options(flag))
    for _ in range(250):
        if marque.outcome(state) is not None:
            break
        legal = texts(marque.legal_moves(state))
        assert set(legal) == reference_legal(state)
        assert len(legal) == len(set(legal))
        text = rng.choice(legal)
        seat = state.turn
        data = marque.to_data(state)
        own, opp = (set(data["pieces"][marque.SEAT_NAMES[s]]) for s in (seat, 1 - seat))
        expected = reference_play(own, opp, set(text.split(",")))
        assert expected is not None
        after = marque.play(state, marque.parse_move(state, text))
        after_data = marque.to_data(after)
        assert set(after_data["pieces"][marque.SEAT_NAMES[seat]]) == expected[0]
        assert set(after_data["pieces"][marque.SEAT_NAMES[1 - seat]]) == expected[1]
        assert set(after_data["captured"]) == expected[2]
        won = marque.winning_group(after, seat) is not None
        outcome = marque.outcome(after)
        assert won == (outcome is not None and outcome.winner == seat)
        assert marque.winning_group(after, seat.other) is None
        assert marque.from_data(after_data) == after
        state = after


def test_random_games_end_and_keep_every_group_free() -> None:
    rng = random.Random(11)
    ended = 0
    for _ in range(20):
        state = marque.new_game(marque.Options())
        for _ in range(400):
            legal = list(marque.legal_moves(state))
            if not legal:
                break
            state = marque.play(state, rng.choice(legal))
            data = marque.to_data(state)
            empty = set(ALL_LABELS) - set(data["pieces"]["white"]) - set(data["pieces"]["black"])
            for name in marque.SEAT_NAMES:
                for group in graph.groups(data["pieces"][name], LABEL_NEIGHBOURS):
                    assert graph.has_liberty(group, LABEL_NEIGHBOURS, empty.__contains__)
        ended += marque.outcome(state) is not None
    assert ended > 0


# --- fuzz ------------------------------------------------------------------------------------


def test_fuzz_random_text_raises_only_rules_errors() -> None:
    rng = random.Random(5)
    alphabet = "abcdefghstxyz0123456789, -ASFT\t\u00e9\u0131"
    states = [marque.new_game(marque.Options()), position(load("t25_seed")["position"])]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
        state = rng.choice(states)
        try:
            move = marque.parse_move(state, text)
        except InvalidMoveError:
            continue
        try:
            marque.play(state, move)
        except IllegalMoveError:
            pass


def test_fuzz_well_formed_illegal_moves_raise_illegal_move_error() -> None:
    rng = random.Random(6)
    state = position(load("t25_seed")["position"])
    legal = set(texts(marque.legal_moves(state)))
    refused = 0
    for _ in range(2000):
        labels = rng.sample(ALL_LABELS, rng.choice((1, 2)))
        move = marque.parse_move(state, ",".join(labels))
        text = marque.move_text(move)
        try:
            marque.play(state, move)
        except IllegalMoveError as error:
            assert text not in legal
            assert re.search(r"\([a-z-]+\)$", str(error)), str(error)
            refused += 1
        except RulesError:  # pragma: no cover - would be a bug
            raise
        else:
            assert text in legal
    assert refused > 1000


# --- the evaluation hook -------------------------------------------------------------------------


def test_evaluate_counts_progress_towards_a_formation_from_whites_side() -> None:
    """Two of White's triangles in a row on base A (of the formation A, E, F) lead; Black's
    piece among them takes the lead away, and the same pieces for Black count against."""
    building = position({"white": ["a1", "a2"], "black": ["s30"], "to_move": "black"})
    blocked = position({"white": ["a1", "a2"], "black": ["a3", "a6"], "to_move": "white"})
    mirrored = position({"white": ["s30"], "black": ["a1", "a2"], "to_move": "white"})
    assert marque.evaluate(building) > 0
    assert marque.evaluate(blocked) < marque.evaluate(building)
    assert marque.evaluate(mirrored) == pytest.approx(-marque.evaluate(building))


def test_move_priors_favour_a_pair_that_holds_a_base_over_a_square() -> None:
    state = position({"white": ["a1"], "black": ["s30"], "to_move": "white", "ply": 2})
    moves = {marque.move_text(move): move for move in marque.legal_moves(state)}
    chosen = [moves["a2,a3"], moves["a3"], moves["s1"]]
    holding, single, square = marque.move_priors(state, chosen)
    assert holding > single > square == 0.0


@pytest.mark.parametrize(
    ("white", "black", "ends"),
    [
        (["a1", "a2", "a3", "s6", "b6"], ["s30", "t24"], True),  # b4,b5 or b1,b2 joins A to B
        (["a1", "a2", "a3", "s6", "b6"], ["b1", "b4"], False),  # every run of B through b6 cut
        (["a1", "a2", "a3", "b6"], ["s30", "t24"], False),  # B held only apart from A
        ([], [], False),
    ],
)
def test_ending_hook_sees_a_win_in_one_move_and_only_there(
    white: list[str], black: list[str], ends: bool
) -> None:
    """Under ``-any_2`` (two held bases joined), White holds A; whether one move wins is
    whether White can also hold B with the group that holds A."""
    state = position({"white": white, "black": black, "to_move": "white", "ply": 6}, "-any_2")
    wins = [
        move
        for move in marque.legal_moves(state)
        if marque.to_move(marque.play(state, move)) is None
    ]
    assert bool(wins) is ends
    assert marque.may_end_at_once(state) is ends
