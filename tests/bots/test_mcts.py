"""The search plays every registered game legally, takes wins, avoids losses, keeps its time.

Strength is measured properly by ``python -m bench.bot_matches``; here a short match against
random moves, on small boards and with few playouts, only checks that the bot is clearly better
than chance.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any, cast

import pytest

from bench.bot_matches import play_game
from bots import analysis, mcts
from bots.levels import LEVELS, Level
from bots.mcts import choose_move
from rules import GAMES, che, find_game, marque, osbox
from rules.api import GameRules, Seat
from rules.pie import is_swap

SMALL_SIZE = 4


def small_options(game: GameRules) -> Any:
    """The game on a board of side 4 where it offers ``-size``, else its defaults."""
    sizes = [f for f in game.FLAGS if f.name == "size" and f.takes_number]
    if sizes and (sizes[0].minimum or 0) <= SMALL_SIZE <= (sizes[0].maximum or SMALL_SIZE):
        return game.parse_options(f"-size={SMALL_SIZE}")
    return game.parse_options("")


def random_positions(game: GameRules, seed: int) -> Iterator[Any]:
    """Every position of seeded random games on the small board, game after game."""
    rng = random.Random(seed)
    while True:
        state = game.new_game(small_options(game))
        while game.to_move(state) is not None:
            yield state
            state = game.play(state, rng.choice(list(game.legal_moves(state))))


def ends_with(game: GameRules, state: Any, move: Any) -> Seat | None | str:
    """Who wins at once by ``move``: a seat, None for a draw, or "open" if play goes on."""
    after = game.play(state, move)
    if game.to_move(after) is not None:
        return "open"
    outcome = game.outcome(after)
    assert outcome is not None
    return outcome.winner


@pytest.mark.parametrize("name", sorted(GAMES))
def test_chosen_move_is_legal_at_the_start_and_later(name: str) -> None:
    game = find_game(name)
    rng = random.Random(1)
    level = Level(0, playouts=12, seconds=None)
    positions = random_positions(game, seed=5)
    for state in [game.new_game(game.parse_options("")), *itertools.islice(positions, 0, 40, 8)]:
        move = choose_move(game, state, level, rng)
        assert move in set(game.legal_moves(state))
        game.play(state, move)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_move_that_wins_at_once_is_played(name: str) -> None:
    """Even with a single playout, a position with a winning move gets that move."""
    game = find_game(name)
    found = 0
    for state in itertools.islice(random_positions(game, seed=11), 3000):
        mover = game.to_move(state)
        wins = [m for m in game.legal_moves(state) if ends_with(game, state, m) is mover]
        if not wins:
            continue
        move = choose_move(game, state, Level(0, playouts=1, seconds=None), random.Random(found))
        assert ends_with(game, state, move) is mover, game.render(state)
        found += 1
        if found == 3:
            return
    pytest.fail(f"random {name} games gave only {found} positions with a winning move")


LOSING_LINES: dict[str, tuple[str, str]] = {
    "osbox": ("-size=2", "c3 a1 a7 a2 e3 c6"),
}
"""Options and moves that reach a position where some moves, not all, lose at once, for games
whose random play seldom meets one (an Osbox board filled with the opponent ahead)."""
NEVER_LOSES_AT_ONCE = {
    "marque": "only the group holding the new pieces is judged, so a move wins or play goes on",
}


def line_position(game: GameRules, options: str, moves: str) -> Any:
    """The position after ``moves`` (move texts, space-separated) from the start."""
    state = game.new_game(game.parse_options(options))
    for text in moves.split():
        state = game.play(state, game.parse_move(state, text))
    return state


def positions_with_a_losing_move(game: GameRules, seed: int) -> Iterator[Any]:
    """Positions where some moves hand the opponent the game at once and others do not."""
    if game.NAME in LOSING_LINES:
        yield line_position(game, *LOSING_LINES[game.NAME])
        return
    for state in itertools.islice(random_positions(game, seed), 3000):
        mover = game.to_move(state)
        assert mover is not None
        endings = [ends_with(game, state, m) for m in game.legal_moves(state)]
        if mover.other in endings and not all(e is mover.other for e in endings):
            yield state


@pytest.mark.parametrize("name", sorted(set(GAMES) - set(NEVER_LOSES_AT_ONCE)))
def test_a_move_that_loses_at_once_is_avoided(name: str) -> None:
    """Where some moves hand the opponent the game and others do not, none of those is played."""
    game = find_game(name)
    positions = list(itertools.islice(positions_with_a_losing_move(game, seed=13), 3))
    assert positions, f"no {name} position where a move loses at once was met"
    for number, state in enumerate(positions):
        mover = game.to_move(state)
        assert mover is not None
        move = choose_move(game, state, Level(0, playouts=3, seconds=None), random.Random(number))
        assert ends_with(game, state, move) is not mover.other, game.render(state)


THREAT_LINES: dict[str, tuple[str, str]] = {
    "boche": ("-size=4", "c:d3"),
    "marque": (
        "",
        "t12 t6 t24 t3 s3 t1 e5 b1 f4 s12 d3,d4 c2,c3 s21 g4 t7 f1,f6 s10 a1,a6 e3,e4 s28 "
        "e1 a2,a3 c1 f3 s6 g2 c5,c6 g1,g6 s15 t4 f5 d1 s8 s17 b5 s26 s29 t13 t15 d6 t22 "
        "s20 t10 s13 a5 s25 s27 t17 b4 s19 b6 t12 t8 a4 t16 s11 d2 s9 s2 t9 b3 s1 d5 t19 "
        "s7 f2 t23 t5 t11 t2 t4 d6 s12 s16 s23 s24 d1 s4 c4 t18 s30 s14 s11 a5 b2 t2 b1 "
        "t20 s18 s27 t5 f4 t21 s14 s5 f5 a3 c2,c3 t9 a1 a4,a5 t14 d6 s22 t1 t3 e2 g5 s29 "
        "g3 t12 a6 s4 a2 t13 t6 s30 t23 t2 s1 s9 t22 c3 t24 s30 s14 t24 s13 s30 t21 f6 "
        "f3,f4 s27 s20",
    ),
}
"""Positions where two of the mover's moves let the opponent win at once (Boche, size 4) and
where all but two do (Marque): options and the moves that lead there."""


@pytest.mark.parametrize("name", sorted(THREAT_LINES))
def test_a_move_that_lets_the_opponent_win_at_once_is_avoided(name: str) -> None:
    """The search plays every reply of a root move it looks at twice, and drops the move if
    one of them wins at once; enough playouts look at every root move twice."""
    game = find_game(name)
    state = line_position(game, *THREAT_LINES[name])
    moves = list(game.legal_moves(state))
    opponent = cast(Seat, game.to_move(state)).other
    assert any(lets_win_at_once(game, game.play(state, m), opponent) for m in moves)
    level = Level(0, playouts=4 * len(moves), seconds=None)
    for seed in range(3):
        move = choose_move(game, state, level, random.Random(seed))
        assert not lets_win_at_once(game, game.play(state, move), opponent), game.move_text(move)


def lets_win_at_once(game: GameRules, state: Any, seat: Seat) -> bool:
    """Whether ``seat`` is to move in ``state`` and has a move that wins at once."""
    if game.to_move(state) is not seat:
        return False
    return any(ends_with(game, state, m) is seat for m in game.legal_moves(state))


BEATS_RANDOM_PLAYOUTS = 15
BEATS_RANDOM_GAMES = 6
SHORT_OF_RANDOM = {
    "osbox": "a side's first knot takes six pushes; with 15 playouts the root tries 15 of its "
    "40 pushes, and 10 of 30 games are won, the rest 0-0 "
    "(bench: level 4 won 45 of 50, level 1 33 of 50, no loss)",
}
"""Games where the bot is known not to beat random play clearly yet (see the match bench)."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=SHORT_OF_RANDOM[name]))
        if name in SHORT_OF_RANDOM
        else name
        for name in sorted(GAMES)
    ],
)
def test_bot_beats_random_play_clearly(name: str) -> None:
    """Six games on the small board with few playouts, colours alternated: five wins or more."""
    game = find_game(name)
    options = small_options(game)
    level = Level(0, playouts=BEATS_RANDOM_PLAYOUTS, seconds=None)
    wins = 0
    for seed in range(BEATS_RANDOM_GAMES):
        first, second = (level, None) if seed % 2 == 0 else (None, level)
        winner, _ = play_game(game, options, first, second, random.Random(seed))
        wins += winner == seed % 2
    assert wins >= 5, f"the bot won only {wins} of {BEATS_RANDOM_GAMES} {name} games against random"


KNOT_TWO_PUSHES_AWAY = {"0": "f:TRBL", "1": "b:RL", "4": "c:TL", "5": "b:RL"}
"""Osbox dice by cell: Horz closes a knot in the square of rows 0-1, columns 0-1 with one push
from the left into each row (a corner into row 0, a crossing or branch into row 1)."""


def osbox_position(dice: dict[str, str]) -> Any:
    """An Osbox position on the default board with ``dice`` (by cell), Horz to move."""
    data = osbox.to_data(osbox.new_game(osbox.parse_options("")))
    data["dice"] = [{"cell": int(cell), "die": die} for cell, die in dice.items()]
    return osbox.from_data(data)


def test_osbox_bot_closes_a_knot_two_pushes_away() -> None:
    """Its first push is one of the two the knot needs, and once that is in (whatever Vert
    did elsewhere), its second closes the knot."""
    game = find_game("osbox")
    state = osbox_position(KNOT_TWO_PUSHES_AWAY)
    level = Level(0, playouts=100, seconds=None)
    for seed in range(3):
        first = choose_move(game, state, level, random.Random(seed))
        assert osbox.move_text(first) in {"c16", "e15", "f15"}
        after = osbox.play(osbox.play(state, first), osbox.parse_move(state, "b10"))
        second = choose_move(game, after, level, random.Random(seed))
        assert osbox.play(after, second).gained == 4, osbox.render(after)


def test_time_budget_of_a_level_is_respected_with_an_injected_clock() -> None:
    """Level 4 thinks 1 s: the search stops once the (fake) clock passes it."""
    game = find_game("boche")
    ticks = itertools.count()
    reads = 0

    def clock() -> float:
        nonlocal reads
        reads += 1
        return next(ticks) * 0.01

    state = game.new_game(small_options(game))
    choose_move(game, state, LEVELS[4], random.Random(2), clock=clock)
    assert 99 <= reads <= 102


def test_clock_share_caps_the_level_time() -> None:
    game = find_game("boche")
    state = game.new_game(small_options(game))
    ticks = itertools.count()
    choose_move(game, state, LEVELS[4], random.Random(2), lambda: next(ticks) * 0.01, 0.25)
    assert 25 <= next(ticks) <= 28


def test_no_time_left_still_gives_a_legal_move() -> None:
    game = find_game("marque")
    state = next(itertools.islice(random_positions(game, seed=3), 30, None))
    frozen = 100.0
    move = choose_move(game, state, LEVELS[4], random.Random(4), lambda: frozen, seconds=0.0)
    assert move in set(game.legal_moves(state))


class CountingPlays:
    """A game module whose play() calls are counted (a stand-in for a slow, wide game)."""

    def __init__(self, game: GameRules) -> None:
        self.game = game
        self.plays = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def play(self, state: Any, move: Any) -> Any:
        self.plays += 1
        return self.game.play(state, move)


def test_a_long_move_list_does_not_overrun_the_budget() -> None:
    """With the time already spent, the root's scan of hundreds of Che moves stops at once."""
    che = find_game("che")
    state = next(s for s in random_positions(che, seed=1) if len(list(che.legal_moves(s))) > 300)
    counting = CountingPlays(che)
    ticks = itertools.count()
    move = choose_move(
        cast(GameRules, counting),
        state,
        LEVELS[4],
        random.Random(5),
        clock=lambda: float(next(ticks)),
        seconds=0.5,
    )
    assert move in set(che.legal_moves(state))
    assert counting.plays < 64


@pytest.mark.parametrize("name", sorted(GAMES))
def test_finished_game_raises(name: str) -> None:
    game = find_game(name)
    rng = random.Random(3)
    state = game.new_game(small_options(game))
    while game.to_move(state) is not None:
        state = game.play(state, rng.choice(list(game.legal_moves(state))))
    with pytest.raises(ValueError, match="over"):
        choose_move(game, state, 1, rng)


def test_unknown_level_raises() -> None:
    game = find_game("osbox")
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_move(game, game.new_game(game.parse_options("")), 9, random.Random(1))


def test_swap_is_taken_exactly_after_a_winning_first_move() -> None:
    """On Boche's 2-hole board a few first cubes win by force: the bot swaps after those only.

    The swap is valued for the colour its player takes, so this fails if the search counted
    the swap's playouts for the seat that was to move.
    """
    game = find_game("boche")
    start = game.new_game(game.parse_options("-size=2"))
    level = Level(0, playouts=600, seconds=None)
    winning: list[Any] = []
    losing: list[Any] = []
    for first in game.legal_moves(start):
        state = game.play(start, first)
        (winning if _forced_winner(game, state) is Seat.FIRST else losing).append(state)
    assert winning and losing
    for state in winning:
        assert is_swap(choose_move(game, state, level, random.Random(1))), game.render(state)
    for state in losing[:3]:
        assert not is_swap(choose_move(game, state, level, random.Random(1))), game.render(state)


def _forced_winner(game: GameRules, state: Any) -> Seat | None:
    """The winner under perfect play with no swap (a tiny board only)."""
    mover = game.to_move(state)
    if mover is None:
        outcome = game.outcome(state)
        assert outcome is not None
        return outcome.winner
    results = [
        _forced_winner(game, game.play(state, m)) for m in game.legal_moves(state) if not is_swap(m)
    ]
    if mover in results:
        return mover
    return None if None in results else mover.other


class Judged:
    """A game module with the evaluation hook added: ``evaluate`` counts its calls and holds
    one of FIRST's moves for winning; ``move_priors`` may rank that move first."""

    def __init__(self, game: GameRules, favourite: Any, priors: bool) -> None:
        self.game = game
        self.favourite = favourite
        self.evaluations = 0
        self.move_priors = self._priors if priors else self._no_priors

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def evaluate(self, state: Any) -> float:
        self.evaluations += 1
        return 0.9 if state.last == self.favourite else 0.0

    def _priors(self, state: Any, moves: Any) -> list[float]:
        return [1.0 if move == self.favourite else 0.0 for move in moves]

    def _no_priors(self, state: Any, moves: Any) -> list[float]:
        return [0.0 for _ in moves]


@pytest.mark.parametrize("priors", [False, True])
def test_search_follows_a_games_evaluation(priors: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the hook, playouts stop early and are valued by it (here at once, so that the
    evaluation sees the root's move): the search plays the one move the evaluation likes,
    among forty that random playouts could not tell apart."""
    monkeypatch.setattr(mcts, "EVALUATED_PLIES", 0)
    osbox = find_game("osbox")
    state = osbox.new_game(osbox.parse_options(""))
    favourite = osbox.parse_move(state, "b6")
    judged = Judged(osbox, favourite, priors)
    level = Level(0, playouts=200, seconds=None)
    for seed in range(3):
        assert choose_move(cast(GameRules, judged), state, level, random.Random(seed)) == favourite
    assert judged.evaluations >= 200 * 3 - 3 * 40


class _ListsNothing:
    """Che as the search sees it, except that listing the moves of a turn of three tiles
    fails: a game with the sampling hook must be searched without its lists."""

    def __init__(self) -> None:
        self.drawn = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(che, name)

    def legal_moves(self, state: Any) -> Any:
        assert che.quota(state) <= 2, "the search listed every move of a -triples turn"
        return che.legal_moves(state)

    def random_move(self, state: Any, rng: random.Random) -> Any:
        self.drawn += 1
        return che.random_move(state, rng)


def test_a_game_with_the_sampling_hook_is_searched_without_listing_its_moves() -> None:
    rng = random.Random(1)  # a game with no win at once after ten plies (many have one)
    state = che.new_game(che.parse_options("-triples"))
    for _ in range(10):  # into the middle game, where a turn has tens of thousands of moves
        move = che.random_move(state, rng) or rng.choice(list(che.legal_moves(state)))
        state = che.play(state, move)
    assert che.quota(state) == 3 and che.to_move(state) is not None
    game = _ListsNothing()
    chosen = mcts.choose_move(game, state, Level(0, playouts=100, seconds=None), rng)  # type: ignore[arg-type]
    assert game.drawn > 100 * 5  # the playouts drew their candidates too
    che.play(state, chosen)  # a legal move
    evaluation = analysis.evaluate(game, state, rng, playouts=50)  # type: ignore[arg-type]
    assert evaluation.best is not None
    che.play(state, evaluation.best)


class _CountsPlays:
    """Marque as the search sees it, counting the moves played, with or without its ending
    hook."""

    def __init__(self, hooked: bool) -> None:
        self.plays = 0
        self.hooked = hooked

    def __getattr__(self, name: str) -> Any:
        if name == "may_end_at_once" and not self.hooked:
            raise AttributeError(name)
        return getattr(marque, name)

    def play(self, state: Any, move: Any) -> Any:
        self.plays += 1
        return marque.play(state, move)


def test_a_game_with_the_ending_hook_is_searched_without_its_scans() -> None:
    """Where no move can end the game, the root does not play every move, nor every reply of
    each root move: the same search plays several times fewer moves, and its moves are legal."""
    state = line_position(marque, "", "t12 t6 t24 t3 s3 t1 e5 b1")
    assert not marque.may_end_at_once(state)
    level = Level(0, playouts=30, seconds=None)
    plays = {}
    for hooked in (False, True):
        game = _CountsPlays(hooked)
        move = choose_move(cast(GameRules, game), state, level, random.Random(1))
        assert move in set(marque.legal_moves(state))
        plays[hooked] = game.plays
    assert plays[False] > 30 * 50  # a reply scan per root move tried, of 100 moves or so
    assert plays[True] < plays[False] / 5
