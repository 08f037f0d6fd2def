"""What the tournament tests share: players, an event with its field joined, and checks of
coded refusals and seat balance."""

from __future__ import annotations

from collections import Counter

import pytest

from lobby.identity import Player
from lobby.tournaments import lifecycle
from lobby.tournaments.model import Format, Settings, Tournament
from protocol.errors import ErrorCode, TournamentError

HOST = Player("host", "Host", guest=False)
GUEST = Player("g:01", "Guest-BoldCube-0001", guest=True)
START = 1000.0


def player(n: int) -> Player:
    return Player(f"p{n}", f"P{n}", guest=False)


def event(fmt: Format, players: int, max_players: int = 16, **extra: object) -> Tournament:
    """A tournament created at time 0 with ``players`` joined, p1 the best rated."""
    settings = Settings("osbox", fmt, START, max_players, **extra)  # type: ignore[arg-type]
    t = lifecycle.create("t", HOST, settings, 0.0)
    for n in range(1, players + 1):
        t = lifecycle.join(t, player(n), 2000 - 10 * n, 0.0)
    return t


def refused(code: ErrorCode) -> pytest.RaisesExc[TournamentError]:
    return pytest.raises(TournamentError, check=lambda error: error.code is code)


def seat_balance(t: Tournament) -> Counter[str]:
    balance: Counter[str] = Counter()
    for g in t.games:
        if g.second is not None and not g.forfeit:
            balance[g.first] += 1
            balance[g.second] -= 1
    return balance
