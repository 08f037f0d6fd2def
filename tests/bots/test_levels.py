"""The levels and the share of a live clock the bot spends on one move."""

from __future__ import annotations

import itertools

import pytest

from bots.levels import LEVELS, SAFETY_MARGIN, Level, find_level, time_budget


def test_levels_search_more_as_they_rise() -> None:
    """No level gives less time or fewer playouts than the one below, so none is weaker."""
    numbers = sorted(LEVELS)
    assert numbers == [1, 2, 3, 4]
    for low, high in itertools.pairwise(LEVELS[n] for n in numbers):
        low_time = low.seconds if low.seconds is not None else float("inf")
        high_time = high.seconds if high.seconds is not None else float("inf")
        low_playouts = low.playouts if low.playouts is not None else float("inf")
        high_playouts = high.playouts if high.playouts is not None else float("inf")
        assert high_time >= low_time and high_playouts >= low_playouts
        assert (high_time, high_playouts) != (low_time, low_playouts)
    assert LEVELS[4].seconds == pytest.approx(1.0)


def test_levels_are_spaced_widely() -> None:
    """Each level searches about three times as much as the one below, by whichever cap binds,
    so the one above wins most games between them (see the match bench)."""
    for low, high in itertools.pairwise(LEVELS[n] for n in sorted(LEVELS)):
        assert low.seconds is not None and high.seconds is not None
        assert high.seconds >= 2.5 * low.seconds
        if low.playouts is not None:
            assert high.playouts is None or high.playouts >= 3 * low.playouts


def test_find_level_refuses_an_unknown_level() -> None:
    assert find_level(2) is LEVELS[2]
    with pytest.raises(ValueError, match="unknown bot level 7"):
        find_level(7)


def test_level_needs_some_limit() -> None:
    with pytest.raises(ValueError, match="cap"):
        Level(5, playouts=None, seconds=None)


@pytest.mark.parametrize("remaining", [0.0, 0.5, 1.0, 1.2, 3.0, 10.0, 60.0, 600.0, 7200.0])
@pytest.mark.parametrize("increment", [0.0, 1.0, 5.0, 30.0])
@pytest.mark.parametrize("move_number", [0, 1, 20, 79, 200, 5000])
def test_budget_never_spends_the_safety_margin(
    remaining: float, increment: float, move_number: int
) -> None:
    budget = time_budget(remaining, increment, move_number)
    assert 0.0 <= budget <= max(0.0, remaining - SAFETY_MARGIN)


def test_budget_is_nothing_once_the_clock_is_inside_the_margin() -> None:
    assert time_budget(SAFETY_MARGIN, 10.0, 3) == 0.0
    assert time_budget(0.2, 0.0, 3) == 0.0
    assert time_budget(-4.0, 2.0, 3) == 0.0


def test_budget_uses_the_increment() -> None:
    without = time_budget(60.0, 0.0, 10)
    with_increment = time_budget(60.0, 2.0, 10)
    assert with_increment == pytest.approx(without + 1.6)


def test_budget_spreads_the_clock_over_the_moves_left() -> None:
    """Early in a game a move gets a small share; late in it, a larger one, never all."""
    early = time_budget(300.0, 0.0, 0)
    late = time_budget(300.0, 0.0, 200)
    assert early == pytest.approx((300.0 - SAFETY_MARGIN) / 40)
    assert late == pytest.approx((300.0 - SAFETY_MARGIN) / 10)
    assert early < late < 300.0 - SAFETY_MARGIN


def test_budget_respects_a_custom_margin() -> None:
    assert time_budget(5.0, 100.0, 0, margin=4.5) <= 0.5
    assert time_budget(5.0, 0.0, 0, margin=5.0) == 0.0
