"""``python -m bench.swiss_simulation``: a Swiss of 1,000 players and 9 rounds, paired by the
pure code of :mod:`lobby.tournaments` with random results.

Prints the pairing time of each round as processor time of this one process (median and max;
the target is under 5 s per round on one core; wall time would also count other work on the
machine) and the number of avoidable rematches, which must be 0. A rematch counts as
avoidable when the players of its round could have been paired with fewer rematches: that is
checked with a maximum matching over every pair of players who have not met (run only for a
round that holds a rematch, as it is slow).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import networkx as nx  # type: ignore[import-untyped]

from lobby.identity import Player
from lobby.tournaments import lifecycle, standings
from lobby.tournaments.model import Format, Game, Settings, Tournament


def simulate(players: int, rounds: int, seed: int) -> tuple[list[float], list[int], int, int]:
    """Play the event; returns (pairing seconds per round, games between unequal scores per
    round, rematches, avoidable rematches)."""
    rng = random.Random(seed)
    settings = Settings("osbox", Format.SWISS, 0.0, players, rounds=rounds)
    event = lifecycle.create("bench", Player("host", "host", guest=False), settings, 0.0)
    strength: dict[str, float] = {}
    for n in range(players):
        strength[f"p{n}"] = rng.gauss(1500, 300)
        event = lifecycle.join(event, Player(f"p{n}", f"p{n}", guest=False), strength[f"p{n}"], 0.0)
    met: set[frozenset[str]] = set()
    times: list[float] = []
    floats: list[int] = []
    rematches = avoidable = 0
    for number in range(1, rounds + 1):
        before = event
        began = time.process_time()
        event = lifecycle.start(event, 0.0) if number == 1 else lifecycle.pair_round(event, 0.0)
        times.append(time.process_time() - began)
        games = [g for g in lifecycle.pairings(event) if g.second is not None]
        score = {row.player: row.score for row in standings.standings(before)}
        floats.append(sum(1 for g in games if score[g.first] != score[g.second or ""]))
        repeated = [g for g in games if frozenset((g.first, g.second)) in met]
        rematches += len(repeated)
        if repeated:
            avoidable += len(repeated) - _fewest_rematches(before, games, met)
        for g in games:
            assert g.second is not None
            met.add(frozenset((g.first, g.second)))
            expected = 1 / (1 + 10 ** ((strength[g.second] - strength[g.first]) / 400))
            roll = rng.random()
            score = 0.5 if abs(roll - expected) < 0.05 else 1.0 if roll < expected else 0.0
            event = lifecycle.record_result(event, g.id, score, 0.0)
    return times, floats, rematches, avoidable


def _fewest_rematches(before: Tournament, games: list[Game], met: set[frozenset[str]]) -> int:
    """The fewest rematches any pairing of this round's players could have had."""
    paired = {p for g in games for p in (g.first, g.second) if p is not None}
    fresh = nx.Graph()
    fresh.add_nodes_from(paired)
    ordered = sorted(paired)
    for k, a in enumerate(ordered):
        for b in ordered[k + 1 :]:
            if frozenset((a, b)) not in met:
                fresh.add_edge(a, b)
    matched = len(nx.max_weight_matching(fresh, maxcardinality=True))
    return len(games) - matched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.swiss_simulation", description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    times, floats, rematches, avoidable = simulate(args.players, args.rounds, args.seed)
    for number, (seconds, floated) in enumerate(zip(times, floats, strict=True), start=1):
        print(
            f"round {number}: paired in {seconds:.2f} s of CPU, "
            f"{floated} games between unequal scores"
        )
    print(
        f"Swiss of {args.players} players, {args.rounds} rounds: pairing median "
        f"{statistics.median(times):.2f} s, max {max(times):.2f} s (target < 5 s); "
        f"rematches {rematches}, avoidable rematches {avoidable} (must be 0)"
    )
    return 0 if avoidable == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
