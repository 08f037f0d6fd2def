"""A tournament's plain data: it round-trips through JSON, and anything else is refused."""

from __future__ import annotations

import json

import pytest

from lobby.tournaments import lifecycle, model
from lobby.tournaments.model import Format
from tests.lobby.tournaments.helpers import START, event


def test_data_round_trips_through_json() -> None:
    t = lifecycle.start(event(Format.KNOCKOUT, 5), START)
    t = lifecycle.record_result(t, lifecycle.pairings(t)[1].id, 0.5, START)
    assert model.from_data(json.loads(json.dumps(model.to_data(t)))) == t
    with pytest.raises(ValueError):
        model.from_data({"id": "t"})


@pytest.mark.parametrize(
    ("field", "value"),
    [("starts_at", float("inf")), ("duration", float("nan")), ("clock_seconds", float("inf"))],
)
def test_data_with_a_number_that_is_not_finite_is_not_a_tournament(
    field: str, value: float
) -> None:
    """What an older server may have stored reads as an error, not as an event that cannot
    be written out as JSON again."""
    data = model.to_data(event(Format.KNOCKOUT, 4))
    data["settings"][field] = value
    with pytest.raises(ValueError):
        model.from_data(json.loads(json.dumps(data)))
