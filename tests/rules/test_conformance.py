"""Every registered game honours the common rules API (STYLE principle 3).

Seeded random playouts drive each game through the API only: every legal move plays, the
canonical text of a move parses back to the move, every position round-trips through plain
data (and msgpack), and a move that is not legal raises IllegalMoveError and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from protocol.diff import apply
from rules import GAMES, find_game
from rules.api import (
    GameRules,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    RulesError,
    Seat,
    data_differ,
    ending_test,
    evaluator,
    move_prioritiser,
    move_sampler,
)

GAME_NAMES = sorted(GAMES)
PLAYOUTS = 3
MAX_PLIES = 400
MOVES_TRIED_PER_POSITION = 8


def playout(game: GameRules, seed: int) -> list[tuple[Any, list[Any]]]:
    """A random game: the positions reached and the legal moves in each."""
    rng = random.Random(seed)
    state = game.new_game(game.parse_options(""))
    seen = []
    for _ in range(MAX_PLIES):
        legal = list(game.legal_moves(state))
        seen.append((state, legal))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
    return seen


@pytest.mark.parametrize("name", GAME_NAMES)
def test_game_satisfies_protocol(name: str) -> None:
    game = find_game(name)
    assert isinstance(game.NAME, str) and game.NAME == name
    assert len(game.SEAT_NAMES) == 2 and all(n == n.lower() for n in game.SEAT_NAMES)
    for attribute in GameRules.__annotations__:
        assert hasattr(game, attribute), attribute
    for method in (m for m in dir(GameRules) if not m.startswith("_")):
        assert callable(getattr(game, method)), method


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", range(PLAYOUTS))
def test_random_playout_keeps_the_api_contract(name: str, seed: int) -> None:
    game = find_game(name)
    rng = random.Random(seed)
    positions = playout(game, seed)
    earlier_moves: list[Any] = []
    for state, legal in positions:
        data = game.to_data(state)
        assert game.from_data(data) == state
        assert game.from_data(msgpack.unpackb(msgpack.packb(data))) == state
        hash(state)
        outcome = game.outcome(state)
        seat = game.to_move(state)
        if outcome is not None:
            assert isinstance(outcome, Outcome)
            assert seat is None and legal == []
            continue
        assert isinstance(seat, Seat)
        assert legal, "a game that is not over must offer a legal move"
        assert len(set(legal)) == len(legal), "legal_moves repeats a move"
        for move in rng.sample(legal, min(len(legal), MOVES_TRIED_PER_POSITION)):
            hash(move)
            text = game.move_text(move)
            assert game.parse_move(state, text) == move, text
            after = game.play(state, move)
            assert game.to_data(state) == data, "play() changed the position it was given"
            assert after != state or game.move_text(move) == "swap"
        legal_set = set(legal)
        for move in rng.sample(earlier_moves, min(len(earlier_moves), MOVES_TRIED_PER_POSITION)):
            if move not in legal_set:
                with pytest.raises(IllegalMoveError):
                    game.play(state, move)
                assert game.to_data(state) == data
        earlier_moves.extend(legal[:MOVES_TRIED_PER_POSITION])
    final_state, final_legal = positions[-1]
    if not final_legal:
        assert game.outcome(final_state) is not None


@pytest.mark.parametrize("name", GAME_NAMES)
def test_finished_game_refuses_every_move(name: str) -> None:
    game = find_game(name)
    for seed in range(20):
        positions = playout(game, seed)
        final_state, final_legal = positions[-1]
        if game.outcome(final_state) is None:
            continue
        for _, legal in positions[-4:-1]:
            for move in legal[:4]:
                with pytest.raises(IllegalMoveError):
                    game.play(final_state, move)
        return
    pytest.fail(f"no random {name} game ended within {MAX_PLIES} plies in 20 tries")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_garbage_text_raises_only_rules_errors(name: str) -> None:
    """Random strings never crash the parser: InvalidMoveError, or a move play() judges."""
    game = find_game(name)
    rng = random.Random(7)
    alphabet = "abcdefghxyz0123456789-,:() swapASS\t\n\u00e9"
    state = game.new_game(game.parse_options(""))
    for state_sample, _ in playout(game, 1)[::10][:5] + [(state, [])]:
        for _ in range(300):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            try:
                move = game.parse_move(state_sample, text)
            except InvalidMoveError:
                continue
            try:
                game.play(state_sample, move)
            except IllegalMoveError:
                pass


@pytest.mark.parametrize("name", GAME_NAMES)
def test_bad_options_raise_options_error_naming_the_flag(name: str) -> None:
    game = find_game(name)
    with pytest.raises(RulesError, match="-no_such_flag"):
        game.parse_options("-no_such_flag")
    defaults = game.parse_options("")
    assert game.options_text(defaults) == ""
    assert game.parse_options(game.options_text(defaults)) == defaults


HOOKED_GAMES = [name for name in GAME_NAMES if evaluator(find_game(name)) is not None]
"""The games that supply the optional evaluation hook (rules.api.Evaluation)."""


def test_some_game_supplies_the_evaluation_hook() -> None:
    """The hook's checks below run for at least one game (they would pass vacuously else)."""
    assert HOOKED_GAMES


@pytest.mark.parametrize("name", HOOKED_GAMES)
def test_evaluation_hook_keeps_its_contract(name: str) -> None:
    """In range, from FIRST's side, exact on finished games, deterministic and pure; priors
    one per move, in range and deterministic."""
    game = find_game(name)
    evaluate = evaluator(game)
    priors = move_prioritiser(game)
    assert evaluate is not None
    finished = 0
    for seed in range(PLAYOUTS):
        for state, legal in playout(game, seed):
            data = game.to_data(state)
            value = evaluate(state)
            assert -1.0 <= value <= 1.0
            assert evaluate(state) == value
            assert evaluate(game.from_data(data)) == value
            outcome = game.outcome(state)
            if outcome is not None:
                finished += 1
                expected = {None: 0.0, Seat.FIRST: 1.0, Seat.SECOND: -1.0}[outcome.winner]
                assert value == expected, game.render(state)
            elif priors is not None:
                given = list(priors(state, legal))
                assert len(given) == len(legal)
                assert all(0.0 <= p <= 1.0 for p in given)
                assert list(priors(state, legal)) == given
            assert game.to_data(state) == data, "the hook changed the position it was given"
    assert finished, f"no random {name} game ended"


ENDING_GAMES = [name for name in GAME_NAMES if ending_test(find_game(name)) is not None]
"""The games that say where no move ends the game at once (rules.api.EndingMoves)."""
ENDING_OPTIONS = {"marque": ["-any_2", "-opposite", "-y"]}
"""Options, beyond the defaults, under which a move ends the game differently."""


def test_some_game_supplies_the_ending_hook() -> None:
    assert ENDING_GAMES


@pytest.mark.parametrize(
    ("name", "options"),
    [(name, "") for name in ENDING_GAMES]
    + [(name, options) for name in ENDING_GAMES for options in ENDING_OPTIONS.get(name, [])],
)
def test_ending_hook_never_hides_a_move_that_ends_the_game(name: str, options: str) -> None:
    """Over random games, wherever the hook says no move ends the game, every legal move is
    played and none does; it says so of some positions, and of every finished one; it is
    deterministic and leaves the position as it was."""
    game = find_game(name)
    may_end = ending_test(game)
    assert may_end is not None
    quiet = 0
    for seed in range(PLAYOUTS):
        for state in _random_game(game, seed, options):
            data = game.to_data(state)
            verdict = may_end(state)
            assert may_end(game.from_data(data)) == verdict
            assert game.to_data(state) == data, "the hook changed the position it was given"
            if game.to_move(state) is None:
                assert not verdict
            elif not verdict:
                quiet += 1
                for move in game.legal_moves(state):
                    assert game.to_move(game.play(state, move)) is not None, game.render(state)
    assert quiet, f"the hook never ruled out a move that ends {name}"


DESCRIBED_GAMES = [name for name in GAME_NAMES if data_differ(find_game(name)) is not None]
"""The games that say what a move changed in their data (rules.api.DataChanges)."""
DESCRIBED_OPTIONS = {
    "osbox": ["-size=3 -any_side -no_capture", "-size=5 -thin_knots"],
    "marque": ["-any_2", "-opposite"],
    "boche": ["-size=3 -adjacent", "-size=4 -fill_board -join_any"],
    "che": [
        "-triples",
        "-single -num_tiles=12",
        "-num_tiles=20 -tie_move",
        "-move_anytime -num_free=2",
        "-placements=4 -adjacent -group_area=6",
    ],
}
"""Options, beyond the defaults, that change the shape or the content of a game's data."""


def test_some_game_supplies_the_describing_hook() -> None:
    assert DESCRIBED_GAMES


@pytest.mark.parametrize(
    ("name", "options"),
    [(name, "") for name in DESCRIBED_GAMES]
    + [(name, options) for name in DESCRIBED_GAMES for options in DESCRIBED_OPTIONS.get(name, [])],
)
def test_describing_hook_turns_the_data_of_one_position_into_the_next(
    name: str, options: str
) -> None:
    """Over whole random games, each move's operations, replayed on the data read back from
    msgpack, give the next position's data byte for byte; so do those between two positions
    drawn at random (a takeback, or a jump forward), and none between a position and itself."""
    game = find_game(name)
    describe = data_differ(game)
    assert describe is not None
    rng = random.Random(name + options)
    for seed in range(PLAYOUTS):
        states = _random_game(game, seed, options)
        pairs = list(zip(states, states[1:], strict=False))
        pairs += [(rng.choice(states), rng.choice(states)) for _ in range(len(states) // 4)]
        for before, after in pairs:
            before_data = msgpack.unpackb(msgpack.packb(game.to_data(before)))
            ops = describe(before, after, before_data)
            replayed = apply(before_data, msgpack.unpackb(msgpack.packb(ops)))
            assert msgpack.packb(replayed) == msgpack.packb(game.to_data(after))
        last = states[-1]
        assert describe(last, game.from_data(game.to_data(last)), game.to_data(last)) == []


def _random_game(game: GameRules, seed: int, options: str) -> list[Any]:
    """The positions of a random game under ``options``, its moves drawn by the game's
    sampling hook where it has one (``-triples`` lists tens of thousands of moves a turn)."""
    rng = random.Random(seed)
    sample = move_sampler(game)
    state = game.new_game(game.parse_options(options))
    states = [state]
    for _ in range(MAX_PLIES):
        if game.to_move(state) is None:
            break
        move = None if sample is None else sample(state, rng)
        if move is None:
            move = rng.choice(list(game.legal_moves(state)))
        state = game.play(state, move)
        states.append(state)
    return states


SAMPLED = [
    ("che", "-triples"),
    ("che", "-triples -adjacent"),
    ("che", "-placements=4 -adjacent -group_area=6"),
    ("che", "-triples -move_anytime"),
]
"""Games and options where the optional sampling hook (rules.api.MoveSampling) draws moves."""
SAMPLED_PLIES = 7
"""Plies of each game checked: the legal list, built to compare, stays a few thousand long."""


def test_every_game_with_the_sampling_hook_is_checked() -> None:
    sampling = {name for name in GAME_NAMES if move_sampler(find_game(name)) is not None}
    assert sampling == {name for name, _ in SAMPLED}


@pytest.mark.parametrize(("name", "options"), SAMPLED)
def test_sampling_hook_draws_only_legal_moves(name: str, options: str) -> None:
    """Every move drawn is in the legal list and plays; several differ; None only where the
    game lists its moves cheaply."""
    game = find_game(name)
    sample = move_sampler(game)
    assert sample is not None
    drawn_in_all = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_game(game.parse_options(options))
        for _ in range(SAMPLED_PLIES):
            if game.to_move(state) is None:
                break
            legal = list(game.legal_moves(state))
            first = sample(state, rng)
            if first is not None:
                drawn = [first, *(sample(state, rng) for _ in range(30))]
                legal_set = set(legal)
                assert all(move in legal_set for move in drawn), game.render(state)
                for move in drawn[:5]:
                    game.play(state, move)
                assert len(set(drawn)) > 1
                drawn_in_all += len(drawn)
            else:
                assert len(legal) < 2000  # None only where the list is short
            state = game.play(state, rng.choice(legal))
    assert drawn_in_all > 0
