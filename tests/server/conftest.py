"""Fixtures of the server tests: the test-only game, registered for the test session only."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from bench.loopback import tictactoe


@pytest.fixture
def ttt() -> Iterator[ModuleType]:
    """tic-tac-toe in ``rules.GAMES`` during the test (and only then: other tests list GAMES)."""
    with tictactoe.registered():
        yield tictactoe
