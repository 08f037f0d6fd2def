"""Standings: each format's score, its tie-breaks, then seed; and the crosstable.

Scores: round robin and Swiss count game points (a bye 0 in a round robin, 1 in a Swiss),
a knockout the rounds won, an arena its points (:func:`lobby.tournaments.arena.arena_points`).
Tie-breaks are over games actually played: Sonneborn-Berger (round robin), Buchholz then
median Buchholz (Swiss), performance (arena); a knockout has none.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lobby.identity import PlayerId
from lobby.tournaments.arena import arena_points
from lobby.tournaments.knockout import knockout_rounds_won
from lobby.tournaments.model import Entrant, Format, Game, Tournament


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: PlayerId
    name: str
    score: float
    tiebreaks: tuple[tuple[str, float], ...]
    games: int
    withdrawn: bool

    def to_data(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "id": self.player,
            "name": self.name,
            "score": self.score,
            "tiebreaks": dict(self.tiebreaks),
            "games": self.games,
            "withdrawn": self.withdrawn,
        }


def standings(tournament: Tournament) -> list[Standing]:
    """Every entrant ranked by the format's score and tie-breaks, then seed."""
    t = tournament
    fmt = t.settings.format
    finished = [g for g in t.games if g.is_over]
    by_player: dict[PlayerId, list[Game]] = defaultdict(list)
    for g in finished:
        by_player[g.first].append(g)
        if g.second is not None:
            by_player[g.second].append(g)
    if fmt is Format.KNOCKOUT:
        won = knockout_rounds_won(t)
        scores = {e.id: float(won[e.id]) for e in t.entrants}
    elif fmt is Format.ARENA:
        scores = {
            e.id: float(arena_points(g.score_of(e.id) for g in by_player[e.id] if not g.is_bye))
            for e in t.entrants
        }
    else:
        bye_value = 1.0 if fmt is Format.SWISS else 0.0
        scores = {
            e.id: sum(bye_value if g.is_bye else g.score_of(e.id) for g in by_player[e.id])
            for e in t.entrants
        }
    rows: list[tuple[tuple[float, ...], Entrant, tuple[tuple[str, float], ...]]] = []
    ratings = {e.id: e.rating for e in t.entrants}
    for e in t.entrants:
        played = [g for g in by_player[e.id] if g.is_played]
        breaks = _tiebreaks(fmt, e.id, played, scores, ratings)
        key = (-scores[e.id], *(-value for _, value in breaks), float(e.seed or 10**9))
        rows.append((key, e, breaks))
    rows.sort(key=lambda row: row[0])
    return [
        Standing(
            rank,
            e.id,
            e.name,
            scores[e.id],
            breaks,
            sum(1 for g in by_player[e.id] if not g.is_bye),
            e.withdrawn,
        )
        for rank, (_, e, breaks) in enumerate(rows, start=1)
    ]


def crosstable(tournament: Tournament) -> dict[str, Any]:
    """Standings with each player's games, as JSON-ready data.

    ``players`` is in standings order; each row's ``games`` lists, in order, the round, the
    opponent's id and rank (None for a bye), the seat (``first``/``second``), the player's
    score (None while running), whether it was forfeited, and the game id (for the room).
    """
    t = tournament
    table = standings(t)
    rank_of = {row.player: row.rank for row in table}
    rows = []
    for row in table:
        games = []
        for g in t.games:
            if row.player not in (g.first, g.second):
                continue
            opponent = g.opponent_of(row.player)
            games.append(
                {
                    "round": g.round,
                    "opponent": opponent,
                    "opponent_rank": None if opponent is None else rank_of.get(opponent),
                    "seat": "first" if g.first == row.player else "second",
                    "score": g.score_of(row.player) if g.is_over else None,
                    "forfeit": g.forfeit,
                    "game_id": None if g.is_bye else g.id,
                }
            )
        rows.append({**row.to_data(), "games": games})
    return {"format": t.settings.format.value, "round": t.round, "players": rows}


def _tiebreaks(
    fmt: Format,
    player: PlayerId,
    played: Sequence[Game],
    scores: Mapping[PlayerId, float],
    ratings: Mapping[PlayerId, float],
) -> tuple[tuple[str, float], ...]:
    if fmt is Format.ROUND_ROBIN:
        berger = sum(g.score_of(player) * scores[_opponent(g, player)] for g in played)
        return (("sonneborn_berger", berger),)
    if fmt is Format.SWISS:
        faced = sorted(scores[_opponent(g, player)] for g in played)
        buchholz = sum(faced)
        median = sum(faced[1:-1]) if len(faced) >= 3 else buchholz
        return (("buchholz", buchholz), ("median_buchholz", median))
    if fmt is Format.ARENA:
        if not played:
            return (("performance", 0.0),)
        average = sum(ratings[_opponent(g, player)] for g in played) / len(played)
        wins = sum(1 for g in played if g.score_of(player) == 1.0)
        losses = sum(1 for g in played if g.score_of(player) == 0.0)
        return (("performance", round(average + 400 * (wins - losses) / len(played), 1)),)
    return ()


def _opponent(game: Game, player: PlayerId) -> PlayerId:
    """The opponent in a game that was played (so has two players)."""
    opponent = game.opponent_of(player)
    assert opponent is not None
    return opponent
