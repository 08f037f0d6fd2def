"""The Python client's lobby copy follows events as the browser's does (shared fixture)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from client import apply_lobby_event
from protocol.errors import FrameError

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "lobby_events.json"


def test_lobby_events_bring_the_snapshot_to_the_expected_lobby() -> None:
    """The second case's snapshot lists only the newest games: its count of games in play
    follows new games and ended ones, not updates of older games it does not list."""
    for case in json.loads(FIXTURE.read_text())["cases"]:
        lobby = copy.deepcopy(case["before"])
        for event in case["events"]:
            apply_lobby_event(lobby, event, case["me"])
        assert lobby == case["after"]


def test_an_unknown_lobby_event_is_refused() -> None:
    with pytest.raises(FrameError):
        apply_lobby_event({}, {"t": "weather"}, "g:me")
