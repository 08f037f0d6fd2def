"""Swiss: a set number of rounds, paired by maximum-weight matching (networkx).

The weights put, in this order: no rematch, equal scores (the sum of squared score gaps is
minimised), compatible colour wishes, then the Dutch order within a score group (top half
against bottom half). With an odd field a bye node joins the matching; it reaches only players
who never had a bye and prefers the lowest ranked; a bye scores 1. For speed the field is cut
into bands of about a hundred players (whole score groups; a big group is sliced so that each
slice keeps a piece of its top half with the matching piece of its bottom half), and each band
is matched on a sparse graph (each player against the few players around their Dutch partner
and their own rank, rematches left out). A band with no perfect matching there is merged into
the next; if the last one still has none, the whole field is matched, finally on every pair
with rematches weighted below any rematch-free pairing. So a pairing holds a rematch only when
none can be avoided. Colours: the stronger wish takes its seat, else the higher ranked
player's; in the first round the higher ranked plays first on odd boards. Tie-breaks
(:mod:`lobby.tournaments.standings`): Buchholz, then median Buchholz (over games actually
played, so byes and forfeits add nothing; the median drops the best and worst opponent from
three games).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import networkx as nx  # type: ignore[import-untyped]

from lobby.identity import PlayerId
from lobby.tournaments.model import Pairing, Tournament


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """What Swiss pairing needs to know of a player before a round."""

    id: PlayerId
    score: float
    seed: int
    opponents: frozenset[PlayerId] = field(default_factory=frozenset)
    colour_balance: int = 0
    last_colour: int = 0
    had_bye: bool = False


def max_swiss_rounds(players: int) -> int:
    """Rounds a Swiss of ``players`` can hold without a rematch or a second bye."""
    return players - 1 if players % 2 == 0 else players


def swiss_pairings(players: Sequence[SwissPlayer]) -> list[Pairing]:
    """One Swiss round: (first, second) pairs in board order, then (player, None) for a bye.

    Rematches only when no pairing avoids them; a bye only to a player who had none, unless
    every remaining player had one. See the module docstring for the weights.
    """
    ranked = sorted(players, key=lambda p: (-p.score, p.seed))
    if len(ranked) < 2:
        return [(p.id, None) for p in ranked]
    bands = _score_bands(ranked)
    pairs: list[tuple[SwissPlayer, SwissPlayer | None]] | None = []
    k = 0
    while pairs is not None and k < len(bands):
        matched = _match_swiss(bands[k], complete=False)
        if matched is not None:
            pairs.extend(matched)
        elif k + 1 < len(bands):
            bands[k + 1] = [*bands[k], *bands[k + 1]]
        else:
            pairs = None
        k += 1
    if pairs is None:
        pairs = _match_swiss(ranked, complete=True) or []
    games: list[Pairing] = []
    bye: Pairing | None = None
    for a, b in pairs:
        if b is None:
            bye = (a.id, None)
        else:
            first, second = _swiss_colours(a, b, len(games) + 1)
            games.append((first.id, second.id))
    return [*games, bye] if bye is not None else games


def swiss_players(t: Tournament) -> list[SwissPlayer]:
    """Each active player's score, opponents, seat balance and byes, in one pass over games."""
    score: dict[PlayerId, float] = defaultdict(float)
    balance: dict[PlayerId, int] = defaultdict(int)
    last: dict[PlayerId, int] = defaultdict(int)
    opponents: dict[PlayerId, set[PlayerId]] = defaultdict(set)
    had_bye: set[PlayerId] = set()
    for g in t.games:
        if g.second is None:
            had_bye.add(g.first)
            score[g.first] += 1.0
            continue
        opponents[g.first].add(g.second)
        opponents[g.second].add(g.first)
        if g.score is not None:
            score[g.first] += g.score
            score[g.second] += 1.0 - g.score
        if not g.forfeit:
            balance[g.first] += 1
            balance[g.second] -= 1
            last[g.first], last[g.second] = 1, -1
    return [
        SwissPlayer(
            e.id,
            score[e.id],
            e.seed,
            frozenset(opponents[e.id]),
            balance[e.id],
            last[e.id],
            e.id in had_bye,
        )
        for e in t.active
    ]


_SWISS_WIDTHS = (3, 12)
"""Neighbourhood sizes of the sparse Swiss graphs tried before the complete one."""


_SWISS_BAND = 100
"""Score bands of about this many players are matched one by one, for speed."""


_NOT_A_REMATCH = 10**15


_SCORE_UNIT = 10**6


_COLOUR_UNIT = 10**3


def _score_bands(ranked: Sequence[SwissPlayer]) -> list[list[SwissPlayer]]:
    """The field cut into bands of about ``_SWISS_BAND`` players, each with an even count but
    the last, that can be matched one by one: whole score groups, and a big score group split
    into slices that each keep a piece of its top half with the matching piece of its bottom
    half, so Dutch partners stay together."""
    groups: list[list[SwissPlayer]] = []
    for player in ranked:
        if groups and groups[-1][0].score == player.score:
            groups[-1].append(player)
        else:
            groups.append([player])
    units: list[list[SwissPlayer]] = []
    for group in groups:
        half = len(group) // 2
        if half <= _SWISS_BAND:
            units.append(group)
            continue
        pieces = -(-half // _SWISS_BAND)
        size = -(-half // pieces)
        for k in range(0, half, size):
            units.append(
                [*group[k : min(k + size, half)], *group[half + k : half + min(k + size, half)]]
            )
        if len(group) % 2:
            units.append(group[-1:])
    bands: list[list[SwissPlayer]] = [[]]
    for unit in units:
        if len(bands[-1]) >= _SWISS_BAND and len(bands[-1]) % 2 == 0:
            bands.append([])
        bands[-1].extend(unit)
    return bands


def _match_swiss(
    ranked: Sequence[SwissPlayer], complete: bool
) -> list[tuple[SwissPlayer, SwissPlayer | None]] | None:
    """Pairs (higher ranked first, or a bye) of a maximum-weight perfect matching of
    ``ranked``; None if the sparse graphs (tried unless ``complete``) have none."""
    n = len(ranked)
    widths: tuple[int | None, ...] = (*_SWISS_WIDTHS, None) if complete else _SWISS_WIDTHS
    for width in widths:
        if width is not None and width * 4 >= n:
            width = None
            if not complete:
                width = n
        matching = nx.max_weight_matching(_swiss_graph(ranked, width), maxcardinality=True)
        if 2 * len(matching) == n + n % 2:
            pairs: list[tuple[SwissPlayer, SwissPlayer | None]] = []
            for a, b in sorted((min(pair), max(pair)) for pair in matching):
                pairs.append((ranked[a], ranked[b] if b < n else None))
            return pairs
        if width is None or width >= n:
            break
    return None


def _swiss_graph(ranked: Sequence[SwissPlayer], width: int | None) -> nx.Graph:
    """Weighted candidate pairs; ``width`` None means every pair, rematches included."""
    n = len(ranked)
    span = int(2 * ranked[0].score) + 2
    group_of: list[tuple[int, int]] = []
    start = 0
    for k in range(1, n + 1):
        if k == n or ranked[k].score != ranked[start].score:
            group_of.extend([(start, k - start)] * (k - start))
            start = k
    graph = nx.Graph()
    graph.add_nodes_from(range(n))

    def consider(i: int, j: int) -> None:
        if i == j or graph.has_edge(i, j):
            return
        a, b = ranked[i], ranked[j]
        rematch = b.id in a.opponents
        if rematch and width is not None:
            return
        gap = int(round(2 * abs(a.score - b.score)))
        weight = 0 if rematch else _NOT_A_REMATCH
        weight += _SCORE_UNIT * (span * span - gap * gap)
        weight += _COLOUR_UNIT * _colour_fit(a, b)
        weight += 100 - min(100, abs(_dutch_partner(i, group_of[i]) - j))
        graph.add_edge(i, j, weight=weight)

    for i in range(n):
        if width is None:
            for j in range(i + 1, n):
                consider(i, j)
            continue
        ideal = _dutch_partner(i, group_of[i])
        for j in range(max(0, ideal - width), min(n, ideal + width + 1)):
            consider(i, j)
        for j in range(max(0, i - width), min(n, i + width + 1)):
            consider(i, j)
    if n % 2:
        # The bye is node n: reachable by players who had none (the lowest ranked of them in a
        # sparse graph); in the complete graph also by the others, weighted like a rematch.
        lowest = int(round(2 * ranked[-1].score))
        eligible = [i for i in range(n) if not ranked[i].had_bye]
        if width is not None:
            eligible = eligible[-(2 * width + 1) :]
        for i in range(n):
            first_bye = not ranked[i].had_bye
            if i not in eligible and (width is not None or first_bye):
                continue
            gap = int(round(2 * ranked[i].score)) - lowest
            weight = _NOT_A_REMATCH if first_bye else 0
            weight += _SCORE_UNIT * (span * span - gap * gap) + 2 * _COLOUR_UNIT + (100 * i) // n
            graph.add_edge(i, n, weight=weight)
    return graph


def _dutch_partner(i: int, group: tuple[int, int]) -> int:
    """The index Dutch pairing would give ``i``: top half of its score group meets bottom."""
    start, size = group
    half = size // 2
    if half == 0:
        return i + 1
    k = i - start
    return start + k + half if k < half else start + k - half


def _wish(p: SwissPlayer) -> int:
    """+1 wants the first seat, -1 the second, 0 either; strong (2, -2) when unbalanced."""
    if p.colour_balance <= -1:
        return 2
    if p.colour_balance >= 1:
        return -2
    return -p.last_colour


def _colour_fit(a: SwissPlayer, b: SwissPlayer) -> int:
    """2 when the wishes agree, 1 for a mild clash, 0 when both strongly want one seat."""
    wa, wb = _wish(a), _wish(b)
    if wa * wb <= 0:
        return 2
    return 0 if abs(wa) == 2 and abs(wb) == 2 else 1


def _swiss_colours(a: SwissPlayer, b: SwissPlayer, board: int) -> tuple[SwissPlayer, SwissPlayer]:
    """Who takes the first seat: the stronger wish for it, else the higher ranked's wish; with
    no wish on either side (the first round), the higher ranked on odd boards only."""
    wa, wb = _wish(a), _wish(b)
    if wa != wb:
        return (a, b) if wa > wb else (b, a)
    higher, lower = (a, b) if (-a.score, a.seed) <= (-b.score, b.seed) else (b, a)
    if wa == 0:
        return (higher, lower) if board % 2 else (lower, higher)
    return (lower, higher) if wa < 0 else (higher, lower)
