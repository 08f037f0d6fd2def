"""Glicko-2 on the paper's worked example, and the rules around it (provisional, guests, aging)."""

from __future__ import annotations

import pytest

from lobby.identity import Player
from lobby.ratings import (
    PERIOD_SECONDS,
    PROVISIONAL_DEVIATION,
    Rating,
    age,
    can_be_rated,
    rate_game,
    update,
)


def test_update_reproduces_the_papers_worked_example() -> None:
    """Glickman (2013): 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, results)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_update_does_not_depend_on_where_the_scale_starts() -> None:
    """Shifting every rating by 400 shifts the result by 400 and changes nothing else."""
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    base = update(Rating(1500, 200, 0.06), results)
    shifted = update(
        Rating(1900, 200, 0.06), [(Rating(r.rating + 400, r.deviation), s) for r, s in results]
    )
    assert shifted.rating - 400 == pytest.approx(base.rating, abs=1e-9)
    assert shifted.deviation == pytest.approx(base.deviation, abs=1e-9)
    assert shifted.volatility == pytest.approx(base.volatility, abs=1e-12)


def test_rate_game_moves_winner_up_and_loser_down_by_the_same_amount_when_alike() -> None:
    winner, loser = rate_game(Rating(), Rating(), 1.0)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation < 350 and loser.deviation < 350


def test_rate_game_draw_between_equals_keeps_ratings() -> None:
    first, second = rate_game(Rating(1600, 80), Rating(1600, 80), 0.5)
    assert first.rating == pytest.approx(1600)
    assert second.rating == pytest.approx(1600)


def test_update_refuses_a_score_outside_zero_to_one() -> None:
    with pytest.raises(ValueError):
        update(Rating(), [(Rating(), 2.0)])


def test_update_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1700, 60, 0.06), [])
    assert after.rating == 1700
    assert after.deviation > 60


def test_rating_is_provisional_and_shown_with_question_mark_while_deviation_is_high() -> None:
    assert Rating().text() == "1500?"
    assert Rating(1732.4, PROVISIONAL_DEVIATION).text() == "1732"
    assert Rating(1732.6, PROVISIONAL_DEVIATION + 1).text() == "1733?"


def test_age_grows_deviation_per_idle_week_up_to_a_newcomers() -> None:
    rating = Rating(1800, 50, 0.06)
    assert age(rating, PERIOD_SECONDS - 1) == rating
    one_week = age(rating, PERIOD_SECONDS)
    ten_weeks = age(rating, 10 * PERIOD_SECONDS)
    assert 50 < one_week.deviation < ten_weeks.deviation
    assert age(rating, 1e12).deviation == pytest.approx(350)
    assert ten_weeks.rating == 1800


def test_can_be_rated_only_between_two_registered_players() -> None:
    alice = Player("alice", "alice", guest=False)
    bob = Player("bob", "bob", guest=False)
    guest = Player("g:01", "Guest-BoldCube-0001", guest=True)
    assert can_be_rated(alice, bob)
    assert not can_be_rated(alice, guest)
    assert not can_be_rated(guest, bob)
    assert not can_be_rated(alice, alice)


def test_rating_data_round_trips_and_rejects_garbage() -> None:
    rating = Rating(1612.5, 77.25, 0.0612)
    assert Rating.from_data(rating.to_data()) == rating
    with pytest.raises(ValueError):
        Rating.from_data({"r": 1500})


def test_games_against_a_bot_count_in_the_computer_pool() -> None:
    from lobby.identity import Player
    from lobby.ratings import rating_pool

    ann = Player(id="u:ann", name="Ann", guest=False)
    bob = Player(id="u:bob", name="Bob", guest=False)
    bot = Player(id="u:bot-3", name="bot-3", guest=False)
    assert rating_pool("che", ann, bob) == "che"
    assert rating_pool("che", ann, bot) == "che:computer"
    assert rating_pool("che", bot, ann) == "che:computer"
