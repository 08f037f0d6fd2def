"""Knockout: seeded by rating into a bracket of the next power of two, so the top seeds get
the byes and seeds 1 and 2 can meet only in the final.

A drawn game is replayed with colours swapped; after :data:`KNOCKOUT_MAX_GAMES` drawn games
the higher seed goes through. The first game of a match gives the first seat to the player
with fewer first seats so far, the higher seed on a tie. Standings: rounds won, then seed.
"""

from __future__ import annotations

from collections import defaultdict

from lobby.identity import PlayerId
from lobby.tournaments.model import Game, Pairing, Tournament

KNOCKOUT_MAX_GAMES = 4
"""A knockout match is at most this many games; if all are drawn the higher seed goes through."""


def knockout_bracket(players: int) -> list[tuple[int, int | None]]:
    """First-round matches of a seeded bracket: (higher seed, lower seed or None for a bye)."""
    if players < 2:
        raise ValueError("a knockout needs two players")
    size = 1 << (players - 1).bit_length()
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return [
        (order[k], order[k + 1] if order[k + 1] <= players else None) for k in range(0, size, 2)
    ]


def knockout_pairs(t: Tournament, number: int) -> list[Pairing]:
    by_seed = {e.seed: e for e in t.entrants}
    if number == 1:
        return [
            (by_seed[a].id, by_seed[b].id if b is not None else None)
            for a, b in knockout_bracket(len(by_seed))
        ]
    winners = _knockout_winners(t, number - 1)
    seed_of = {e.id: e.seed for e in t.entrants}
    firsts: dict[PlayerId, int] = defaultdict(int)
    for g in t.games:
        if g.second is not None and not g.forfeit:
            firsts[g.first] += 1
    pairs: list[Pairing] = []
    for k in range(0, len(winners), 2):
        a, b = winners[k], winners[k + 1]
        if (firsts[b], seed_of[b]) < (firsts[a], seed_of[a]):
            a, b = b, a
        pairs.append((a, b))
    return pairs


def knockout_replay(t: Tournament, drawn: Game) -> Game | None:
    """The game that replays a drawn one with colours swapped; None after
    :data:`KNOCKOUT_MAX_GAMES` games (the higher seed then goes through)."""
    if drawn.replay + 1 >= KNOCKOUT_MAX_GAMES:
        return None
    assert drawn.second is not None
    return Game(
        f"{t.id}.{drawn.round}.{drawn.board}.{drawn.replay + 1}",
        drawn.round,
        drawn.board,
        drawn.second,
        drawn.first,
        replay=drawn.replay + 1,
    )


def knockout_rounds_won(t: Tournament) -> dict[PlayerId, int]:
    """Matches each player won (a bye counts), over the rounds that are complete."""
    won: dict[PlayerId, int] = defaultdict(int)
    for number in range(1, t.round + 1):
        if not all(g.is_over for g in t.games if g.round == number):
            break
        for player in _knockout_winners(t, number):
            won[player] += 1
    return won


def _knockout_winners(t: Tournament, round_number: int) -> list[PlayerId]:
    """Who won each board of a finished knockout round, in board order."""
    boards: dict[int, list[Game]] = defaultdict(list)
    for g in t.games:
        if g.round == round_number:
            boards[g.board].append(g)
    seed_of = {e.id: e.seed for e in t.entrants}
    winners = []
    for board in sorted(boards):
        last = max(boards[board], key=lambda g: g.replay)
        if last.second is None or last.score == 1.0:
            winners.append(last.first)
        elif last.score == 0.0:
            winners.append(last.second)
        else:
            winners.append(min((last.first, last.second), key=lambda p: seed_of[p]))
    return winners
