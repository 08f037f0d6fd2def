"""Quick-pairing pools as values: which pools exist, who may join them, the paired game."""

from __future__ import annotations

import pytest

from lobby.challenges import Status
from lobby.identity import Player, new_guest
from lobby.pools import TIME_CONTROLS, Entry, Pool, paired_challenge, pool_for
from protocol.errors import BadOptionsError, GuestRatedError, UnknownGameError


def test_every_offered_time_control_names_a_pool() -> None:
    guest = new_guest()
    for control in TIME_CONTROLS:
        assert pool_for(guest, "boche", control, False) == Pool("boche", control, False)
    assert pool_for(guest, "Marque", "5+3", False).name == "marque/5+3/casual"


@pytest.mark.parametrize(
    ("game", "control", "error"),
    [
        ("chess", "5+3", UnknownGameError),
        ("boche", "7+1", BadOptionsError),
        ("che", "x", BadOptionsError),
    ],
)
def test_a_pool_that_is_not_offered_is_refused_with_the_reason(
    game: str, control: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        pool_for(new_guest(), game, control, False)


def test_guests_may_not_join_a_rated_pool() -> None:
    with pytest.raises(GuestRatedError):
        pool_for(new_guest(), "osbox", "10+5", True)
    assert pool_for(Player("p-1", "ann", False), "osbox", "10+5", True).name == "osbox/10+5/rated"


def test_the_paired_game_is_an_accepted_challenge_whose_challenger_waited() -> None:
    waited, joined = new_guest(), new_guest()
    pool = Pool("ankor", "1d", True)
    challenge = paired_challenge(pool, waited, joined, "qp-1", 100.0, seed=3)
    assert challenge.status is Status.ACCEPTED
    assert challenge.challenger == waited and challenge.accepter == joined
    assert (challenge.game, challenge.time_control, challenge.rated) == ("ankor", "1d", True)
    assert challenge.seats is not None and set(challenge.seats) == {waited, joined}
    seats = {paired_challenge(pool, waited, joined, "qp-1", 0, seed).seats for seed in range(20)}
    assert len(seats) == 2  # first move by lot


def test_an_entry_round_trips_through_its_data() -> None:
    entry = Entry(Player("p-1", "ann", False), "che/3+2/rated", 1512.5, "socket", 130.0)
    assert Entry.from_data(entry.to_data()) == entry
    with pytest.raises(ValueError):
        Entry.from_data({"pool": "x"})
