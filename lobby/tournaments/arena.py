"""Arena: a time window; players may join while it is open.

A player whose game ends waits and is paired at once with the waiting player of closest
points who was not their last opponent. Points (as arena players know them): win 2, draw 1,
loss 0; after two wins in a row a player is "on fire" and every game scores double (4 and 2)
until a game that is not a win. No game starts after the window closes; games running then
still count. Standings: points, then performance (average opponent rating + 400 x (wins -
losses) / games).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lobby.identity import PlayerId
from lobby.tournaments.model import Game, Status, Tournament, bump

MAX_ARENA_SECONDS = 24 * 3600.0
"""The longest an arena may run."""


@dataclass(frozen=True, slots=True)
class ArenaPlayer:
    """A waiting arena player: points, seed, last opponent and first-seat balance."""

    id: PlayerId
    points: int
    seed: int
    last_opponent: PlayerId | None = None
    colour_balance: int = 0


def arena_points(scores: Iterable[float]) -> int:
    """Arena points of one player's results in order (see the module docstring)."""
    points, wins_in_row = 0, 0
    for score in scores:
        base = 2 if score == 1.0 else 1 if score == 0.5 else 0
        points += base * (2 if wins_in_row >= 2 else 1)
        wins_in_row = wins_in_row + 1 if score == 1.0 else 0
    return points


def arena_pairings(waiting: Sequence[ArenaPlayer]) -> list[tuple[PlayerId, PlayerId]]:
    """Pair waiting arena players of closest points, never with their last opponent.

    Greedy from the top: each player takes the next waiting player down the ranking who is not
    their last opponent (and whose last opponent they are not); whoever finds none waits.
    """
    ranked = sorted(waiting, key=lambda p: (-p.points, p.seed))
    taken: set[PlayerId] = set()
    games: list[tuple[PlayerId, PlayerId]] = []
    for k, player in enumerate(ranked):
        if player.id in taken:
            continue
        for other in ranked[k + 1 :]:
            if other.id in taken or player.last_opponent == other.id:
                continue
            if other.last_opponent == player.id:
                continue
            taken.update((player.id, other.id))
            if (other.colour_balance, other.seed) < (player.colour_balance, player.seed):
                games.append((other.id, player.id))
            else:
                games.append((player.id, other.id))
            break
    return games


def pair_arena(t: Tournament, now: float) -> Tournament:
    """Pair every waiting arena player who can be paired, while the window is open."""
    if t.status is not Status.RUNNING or t.ends_at is None or now >= t.ends_at:
        return t
    busy = {p for g in t.games if not g.is_over for p in (g.first, g.second)}
    history: dict[PlayerId, list[Game]] = defaultdict(list)
    for g in t.games:
        if g.is_over and g.second is not None:
            history[g.first].append(g)
            history[g.second].append(g)
    waiting = []
    for e in t.active:
        if e.id in busy:
            continue
        games = history[e.id]
        waiting.append(
            ArenaPlayer(
                e.id,
                arena_points(g.score_of(e.id) for g in games),
                e.seed,
                games[-1].opponent_of(e.id) if games else None,
                sum(1 if g.first == e.id else -1 for g in games if not g.forfeit),
            )
        )
    pairs = arena_pairings(waiting)
    if not pairs:
        return t
    count = len(t.games)
    new = tuple(
        Game(f"{t.id}.a{count + k}", 0, count + k, first, second)
        for k, (first, second) in enumerate(pairs, start=1)
    )
    return bump(t, games=(*t.games, *new))
