"""Round robin: Berger tables (the first-named player has the first seat), single or double;
the second cycle swaps colours. With an odd field a dummy makes the table even and its
opponent has a bye that scores 0 (everyone gets exactly one). Tie-break: Sonneborn-Berger
(:mod:`lobby.tournaments.standings`).
"""

from __future__ import annotations

from lobby.tournaments.model import Pairing, Tournament

ROUND_ROBIN_MAX_PLAYERS = 32


def berger_round(players: int, round_number: int) -> list[tuple[int, int]]:
    """Round ``round_number`` (from 1) of the Berger table for an even number of seeds,
    board by board, the first-named player in the first seat.

    Seed n meets the seed i with 2i = r + 1 modulo n - 1, playing first in even rounds; board
    k + 1 then holds i + k against i - k (modulo n - 1, first-named first).
    """
    n = players
    if n < 2 or n % 2 or not 1 <= round_number <= n - 1:
        raise ValueError(f"no round {round_number} in a Berger table of {n}")
    m = n - 1
    i = next(s for s in range(1, n) if (2 * s - round_number - 1) % m == 0)
    games = [(n, i) if round_number % 2 == 0 else (i, n)]
    for k in range(1, n // 2):
        games.append(((i + k - 1) % m + 1, (i - k - 1) % m + 1))
    return games


def round_robin_pairs(t: Tournament, number: int) -> list[Pairing]:
    by_seed = {e.seed: e.id for e in t.entrants}
    n = len(by_seed) + len(by_seed) % 2
    cycle = n - 1
    pairs: list[Pairing] = []
    for a, b in berger_round(n, (number - 1) % cycle + 1):
        if number > cycle:
            a, b = b, a
        if a in by_seed and b in by_seed:
            pairs.append((by_seed[a], by_seed[b]))
        else:
            pairs.append((by_seed[a] if a in by_seed else by_seed[b], None))
    withdrawn = {e.id for e in t.entrants if e.withdrawn}
    return [p for p in pairs if not (p[0] in withdrawn and (p[1] is None or p[1] in withdrawn))]
