"""Tournaments as plain values and pure transitions: formats, pairings, standings, tie-breaks.

A :class:`Tournament` is a frozen value; every transition (:func:`create`, :func:`join`,
:func:`withdraw`, :func:`start`, :func:`pair_round`, :func:`record_result`, :func:`finish`,
:func:`cancel`) returns a new one with ``version`` bumped, or the same value when it changes
nothing (a repeated result), or raises :class:`TournamentError` with a stable ``code``, and
then nothing changes. A game of the event is a :class:`Game` with a deterministic id
(``<tournament>.<round>.<board>``, ``.<replay>`` for a knockout replay, ``<tournament>.a<n>`` in
an arena) that the server turns into an ordinary room, idempotently on that id.

Formats and the rules chosen where players' customs leave a choice:

- Round robin: Berger tables (the first-named player has the first seat), single or double;
  the second cycle swaps colours. With an odd field a dummy makes the table even and its
  opponent has a bye that scores 0 (everyone gets exactly one). Tie-break: Sonneborn-Berger.
- Swiss: a set number of rounds, paired by maximum-weight matching (networkx) whose weights
  put, in this order: no rematch, equal scores (the sum of squared score gaps is minimised),
  compatible colour wishes, then the Dutch order within a score group (top half against
  bottom half). With an odd field a bye node joins the matching; it reaches only players who
  never had a bye and prefers the lowest ranked; a bye scores 1. For speed the field is cut
  into bands of about a hundred players (whole score groups; a big group is sliced so that
  each slice keeps a piece of its top half with the matching piece of its bottom half), and
  each band is matched on a sparse graph (each player against the few players around their
  Dutch partner and their own rank, rematches left out). A band with no perfect matching
  there is merged into the next; if the last one still has none, the whole field is matched,
  finally on every pair with rematches weighted below any rematch-free pairing. So a pairing
  holds a rematch only when none can be avoided. Colours: the stronger wish takes its seat,
  else the higher ranked player's; in the first round the higher ranked plays first on odd
  boards. Tie-breaks: Buchholz, then median Buchholz (over games actually played, so byes
  and forfeits add nothing; the median drops the best and worst opponent from three games).
- Knockout: seeded by rating into a bracket of the next power of two, so the top seeds get
  the byes and seeds 1 and 2 can meet only in the final. A drawn game is replayed with colours
  swapped; after ``KNOCKOUT_MAX_GAMES`` drawn games the higher seed goes through. The first
  game of a match gives the first seat to the player with fewer first seats so far, the higher
  seed on a tie. Standings: rounds won, then seed.
- Arena: a time window; players may join while it is open. A player whose game ends waits and
  is paired at once with the waiting player of closest points who was not their last opponent.
  Points (as arena players know them): win 2, draw 1, loss 0; after two wins in a row a player
  is "on fire" and every game scores double (4 and 2) until a game that is not a win. No game
  starts after the window closes; games running then still count. Standings: points, then
  performance (average opponent rating + 400 x (wins - losses) / games).

Withdrawing before the start leaves the event; withdrawing during it forfeits the game in
progress and every later game (a forfeit scores like a win or a loss but is left out of
tie-breaks and performance). Standings rank by the figures above, then seed.

Imports networkx, :mod:`rules` (to check the game and options), :mod:`lobby.clocks` (for the
longest clock), :mod:`lobby.identity` and :mod:`protocol.errors` (its refusals).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import networkx as nx  # type: ignore[import-untyped]

from lobby.clocks import MAX_LIVE_SECONDS
from lobby.identity import Player, PlayerId
from protocol.errors import ErrorCode, TournamentError
from rules import find_game

ROUND_ROBIN_MAX_PLAYERS = 32
MAX_PLAYERS = 10_000
MAX_ARENA_SECONDS = 24 * 3600.0
"""The longest an arena may run."""
KNOCKOUT_MAX_GAMES = 4
"""A knockout match is at most this many games; if all are drawn the higher seed goes through."""

Pairing = tuple[PlayerId, PlayerId | None]
"""(first player, second player) of one game, or (player, None) for a bye."""


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ARENA = "arena"


class Status(StrEnum):
    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Step(StrEnum):
    """What a scheduler should do next with a tournament (see :func:`next_step`)."""

    START = "start"
    CANCEL = "cancel"
    PAIR = "pair"
    FINISH = "finish"


@dataclass(frozen=True, slots=True)
class Settings:
    """What the creator chose. ``rounds`` is for Swiss only, ``double`` for round robin only,
    ``duration`` (seconds) for arena only."""

    game: str
    format: Format
    starts_at: float
    max_players: int
    rated: bool = True
    options: str = ""
    clock_seconds: int = 300
    increment_seconds: int = 0
    rounds: int = 0
    double: bool = False
    duration: float = 0.0
    name: str = ""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in the event; ``seed`` is 1 for the best rated, fixed at the start."""

    id: PlayerId
    name: str
    rating: float
    seed: int = 0
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the event. ``score`` is the first player's (1, 0.5, 0) once it is over."""

    id: str
    round: int
    board: int
    first: PlayerId
    second: PlayerId | None
    score: float | None = None
    forfeit: bool = False
    replay: int = 0

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def is_over(self) -> bool:
        return self.score is not None

    @property
    def is_played(self) -> bool:
        """Whether the game was really played over the board (not a bye, not a forfeit)."""
        return self.second is not None and self.score is not None and not self.forfeit

    @property
    def pairing(self) -> Pairing:
        return (self.first, self.second)

    def score_of(self, player: PlayerId) -> float:
        assert self.score is not None
        return self.score if player == self.first else 1.0 - self.score

    def opponent_of(self, player: PlayerId) -> PlayerId | None:
        return self.second if player == self.first else self.first


@dataclass(frozen=True, slots=True)
class Tournament:
    id: str
    creator: PlayerId
    settings: Settings
    status: Status = Status.CREATED
    entrants: tuple[Entrant, ...] = ()
    games: tuple[Game, ...] = ()
    round: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    version: int = 1

    def entrant(self, player: PlayerId) -> Entrant | None:
        return next((e for e in self.entrants if e.id == player), None)

    @property
    def active(self) -> tuple[Entrant, ...]:
        return tuple(e for e in self.entrants if not e.withdrawn)

    @property
    def ends_at(self) -> float | None:
        """The close of an arena's window (from its start); None for other formats."""
        if self.settings.format is not Format.ARENA:
            return None
        return (self.started_at or self.settings.starts_at) + self.settings.duration

    def game(self, game_id: str) -> Game | None:
        return next((g for g in self.games if g.id == game_id), None)


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


@dataclass(frozen=True, slots=True)
class ArenaPlayer:
    """A waiting arena player: points, seed, last opponent and first-seat balance."""

    id: PlayerId
    points: int
    seed: int
    last_opponent: PlayerId | None = None
    colour_balance: int = 0


# ---------------------------------------------------------------------------------------------
# Life cycle


def create(tournament_id: str, creator: Player, settings: Settings, now: float) -> Tournament:
    """A new tournament awaiting players.

    Raises TournamentError: guest-creator for a guest, impossible-settings for settings that
    cannot make an event (unknown game or options, a field under two, a Swiss with more rounds
    than its field allows, an arena without a duration, a start in the past...).
    """
    if creator.guest:
        raise TournamentError(ErrorCode.GUEST_CREATOR, "sign in to create a tournament")
    _check_settings(settings, now)
    return Tournament(id=tournament_id, creator=creator.id, settings=settings)


def join(tournament: Tournament, player: Player, rating: float, now: float) -> Tournament:
    """The tournament with ``player`` entered at ``rating`` (their rating in its game).

    Raises TournamentError: finished, started (an arena may be joined while it is open),
    guest-in-rated, already-joined, full.
    """
    t, s = tournament, tournament.settings
    if t.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError(ErrorCode.FINISHED, "this tournament is over")
    if t.status is Status.RUNNING:
        if s.format is not Format.ARENA:
            raise TournamentError(ErrorCode.STARTED, "this tournament has started")
        assert t.ends_at is not None
        if now >= t.ends_at:
            raise TournamentError(ErrorCode.FINISHED, "this arena has closed")
    if s.rated and player.guest:
        raise TournamentError(ErrorCode.GUEST_IN_RATED, "guests may join casual events only")
    if t.entrant(player.id) is not None:
        raise TournamentError(ErrorCode.ALREADY_JOINED, "you are already in this tournament")
    if len(t.active) >= s.max_players:
        raise TournamentError(ErrorCode.FULL, f"this tournament is full ({s.max_players})")
    seed = len(t.entrants) + 1 if t.status is Status.RUNNING else 0
    entrant = Entrant(player.id, player.name, float(rating), seed)
    joined = _bump(t, entrants=(*t.entrants, entrant))
    if t.status is Status.RUNNING:
        return _pair_arena(joined, now)
    return joined


def withdraw(tournament: Tournament, player: PlayerId, now: float) -> Tournament:
    """The tournament without ``player``: gone before the start, forfeiting once running.

    Raises TournamentError: finished, not-joined.
    """
    t = tournament
    if t.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError(ErrorCode.FINISHED, "this tournament is over")
    entrant = t.entrant(player)
    if entrant is None or entrant.withdrawn:
        raise TournamentError(ErrorCode.NOT_JOINED, "you are not in this tournament")
    if t.status is Status.CREATED:
        return _bump(t, entrants=tuple(e for e in t.entrants if e.id != player))
    entrants = tuple(replace(e, withdrawn=True) if e.id == player else e for e in t.entrants)
    games = tuple(
        replace(g, score=0.0 if g.first == player else 1.0, forfeit=True)
        if not g.is_over and player in (g.first, g.second)
        else g
        for g in t.games
    )
    withdrawn = _bump(t, entrants=entrants, games=games)
    if t.settings.format is Format.ARENA:
        return _pair_arena(withdrawn, now)
    return withdrawn


def start(tournament: Tournament, now: float) -> Tournament:
    """The tournament running: seeds fixed by rating, the first round (or arena games) paired.

    Raises TournamentError: started, finished, too-early, too-few-players (the scheduler then
    cancels it).
    """
    t, s = tournament, tournament.settings
    if t.status is Status.RUNNING:
        raise TournamentError(ErrorCode.STARTED, "this tournament has started")
    if t.status is not Status.CREATED:
        raise TournamentError(ErrorCode.FINISHED, "this tournament is over")
    if now < s.starts_at:
        raise TournamentError(ErrorCode.TOO_EARLY, "this tournament starts later")
    needed = min_players(s)
    if len(t.entrants) < needed:
        raise TournamentError(
            ErrorCode.TOO_FEW_PLAYERS, f"{needed} players are needed, {len(t.entrants)} joined"
        )
    order = sorted(enumerate(t.entrants), key=lambda item: (-item[1].rating, item[0]))
    seeds = {entrant.id: n for n, (_, entrant) in enumerate(order, start=1)}
    entrants = tuple(replace(e, seed=seeds[e.id]) for e in t.entrants)
    running = _bump(t, status=Status.RUNNING, entrants=entrants, started_at=now)
    if s.format is Format.ARENA:
        return _pair_arena(running, now)
    return _pair_next_round(running)


def pair_round(tournament: Tournament, now: float) -> Tournament:
    """The tournament with its next round paired (an arena: its waiting players paired).

    Raises TournamentError: not-started, finished, round-unfinished, no-more-rounds.
    """
    t = tournament
    _require_running(t)
    if t.settings.format is Format.ARENA:
        return _pair_arena(t, now)
    if not is_round_complete(t):
        raise TournamentError(ErrorCode.ROUND_UNFINISHED, f"round {t.round} is still being played")
    if t.round >= total_rounds(t) or len(t.active) < 2:
        raise TournamentError(ErrorCode.NO_MORE_ROUNDS, "every round has been paired")
    return _pair_next_round(t)


def record_result(
    tournament: Tournament, game_id: str, first_score: float, now: float
) -> Tournament:
    """The tournament with a game's result; repeating the same result changes nothing.

    A drawn knockout game brings a replay with colours swapped; an arena result pairs the
    players again at once. Raises TournamentError: not-started, unknown-game, bad-result,
    result-conflict (a different result was recorded, or the game was forfeited otherwise).
    """
    t = tournament
    game = t.game(game_id)
    if game is None:
        raise TournamentError(ErrorCode.UNKNOWN_GAME, f"no game {game_id} in this tournament")
    if first_score not in (0.0, 0.5, 1.0):
        raise TournamentError(ErrorCode.BAD_RESULT, f"a score is 0, 0.5 or 1, not {first_score}")
    if game.is_over:
        if game.score == first_score:
            return t
        raise TournamentError(ErrorCode.RESULT_CONFLICT, f"game {game_id} already has a result")
    _require_running(t)
    played = replace(game, score=first_score)
    games = tuple(played if g.id == game_id else g for g in t.games)
    s = t.settings
    if s.format is Format.KNOCKOUT and first_score == 0.5:
        if game.replay + 1 < KNOCKOUT_MAX_GAMES:
            assert game.second is not None
            again = Game(
                f"{t.id}.{game.round}.{game.board}.{game.replay + 1}",
                game.round,
                game.board,
                game.second,
                game.first,
                replay=game.replay + 1,
            )
            games = (*games, again)
    recorded = _bump(t, games=games)
    if s.format is Format.ARENA:
        return _pair_arena(recorded, now)
    return recorded


def finish(tournament: Tournament, now: float) -> Tournament:
    """The tournament over, its standings final.

    Raises TournamentError: not-started, finished, not-over (rounds or arena games remain).
    """
    t = tournament
    _require_running(t)
    if not is_over(t, now):
        raise TournamentError(ErrorCode.NOT_OVER, "games remain to be played")
    return _bump(t, status=Status.FINISHED, finished_at=now)


def cancel(tournament: Tournament) -> Tournament:
    """A tournament that never started (too few players). Raises TournamentError: started."""
    if tournament.status is not Status.CREATED:
        raise TournamentError(ErrorCode.STARTED, "only a tournament not yet started is cancelled")
    return _bump(tournament, status=Status.CANCELLED)


# ---------------------------------------------------------------------------------------------
# Queries


def next_step(tournament: Tournament, now: float) -> Step | None:
    """What is due now: start (or cancel) at the start time, pair, finish; None if nothing."""
    t = tournament
    if t.status is Status.CREATED:
        if now < t.settings.starts_at:
            return None
        return Step.START if len(t.entrants) >= min_players(t.settings) else Step.CANCEL
    if t.status is not Status.RUNNING:
        return None
    if is_over(t, now):
        return Step.FINISH
    if t.settings.format is not Format.ARENA and is_round_complete(t):
        return Step.PAIR
    return None


def is_round_complete(tournament: Tournament) -> bool:
    """Whether every game of the current round (replays included) has a result."""
    return all(g.is_over for g in tournament.games if g.round == tournament.round)


def is_over(tournament: Tournament, now: float) -> bool:
    """Whether the event can finish: rounds all played (or fewer than two players left), or an
    arena's window closed with no game running."""
    t = tournament
    if t.settings.format is Format.ARENA:
        assert t.ends_at is not None
        return now >= t.ends_at and all(g.is_over for g in t.games)
    if not is_round_complete(t):
        return False
    if t.settings.format is Format.KNOCKOUT:
        return t.round >= total_rounds(t)
    return t.round >= total_rounds(t) or len(t.active) < 2


def total_rounds(tournament: Tournament) -> int:
    """Rounds of the event for its field (0 for an arena, and before the start)."""
    t, s = tournament, tournament.settings
    n = len(t.entrants)
    if t.status is Status.CREATED or n < 2:
        return 0
    if s.format is Format.SWISS:
        return s.rounds
    if s.format is Format.ROUND_ROBIN:
        return (n - 1 + n % 2) * (2 if s.double else 1)
    if s.format is Format.KNOCKOUT:
        return math.ceil(math.log2(n))
    return 0


def min_players(settings: Settings) -> int:
    """The smallest field that can hold the event: two, or enough for a Swiss's rounds."""
    if settings.format is Format.SWISS:
        return max(2, settings.rounds + (settings.rounds % 2 == 0))
    return 2


def max_swiss_rounds(players: int) -> int:
    """Rounds a Swiss of ``players`` can hold without a rematch or a second bye."""
    return players - 1 if players % 2 == 0 else players


def pairings(tournament: Tournament, round_number: int | None = None) -> list[Game]:
    """The games of a round (the current one by default); every arena game for an arena."""
    t = tournament
    if t.settings.format is Format.ARENA:
        return list(t.games)
    wanted = t.round if round_number is None else round_number
    return [g for g in t.games if g.round == wanted]


def games_to_open(before: Tournament, after: Tournament) -> list[Game]:
    """Games a transition created that need a room: new, not byes, not already forfeited."""
    known = {g.id for g in before.games}
    return [g for g in after.games if g.id not in known and not g.is_bye and not g.is_over]


def arena_points(scores: Iterable[float]) -> int:
    """Arena points of one player's results in order (see the module docstring)."""
    points, wins_in_row = 0, 0
    for score in scores:
        base = 2 if score == 1.0 else 1 if score == 0.5 else 0
        points += base * (2 if wins_in_row >= 2 else 1)
        wins_in_row = wins_in_row + 1 if score == 1.0 else 0
    return points


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
        won = _knockout_rounds_won(t)
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


# ---------------------------------------------------------------------------------------------
# Pairing rules, pure over plain values (public so they can be tested on hand-built standings)


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


# ---------------------------------------------------------------------------------------------
# Data


def to_data(tournament: Tournament) -> dict[str, Any]:
    """Plain JSON-safe data that :func:`from_data` turns back into the same value."""
    t, s = tournament, tournament.settings
    return {
        "id": t.id,
        "creator": t.creator,
        "settings": {
            "game": s.game,
            "format": s.format.value,
            "starts_at": s.starts_at,
            "max_players": s.max_players,
            "rated": s.rated,
            "options": s.options,
            "clock_seconds": s.clock_seconds,
            "increment_seconds": s.increment_seconds,
            "rounds": s.rounds,
            "double": s.double,
            "duration": s.duration,
            "name": s.name,
        },
        "status": t.status.value,
        "entrants": [[e.id, e.name, e.rating, e.seed, e.withdrawn] for e in t.entrants],
        "games": [
            [g.id, g.round, g.board, g.first, g.second, g.score, g.forfeit, g.replay]
            for g in t.games
        ],
        "round": t.round,
        "started_at": t.started_at,
        "finished_at": t.finished_at,
        "version": t.version,
    }


def from_data(data: Mapping[str, Any]) -> Tournament:
    """The tournament that :func:`to_data` wrote; raises ValueError for anything else
    (a number that is not finite included: no event may hold one)."""
    try:
        raw = data["settings"]
        settings = Settings(
            game=str(raw["game"]),
            format=Format(raw["format"]),
            starts_at=_finite(raw["starts_at"]),
            max_players=int(raw["max_players"]),
            rated=bool(raw["rated"]),
            options=str(raw["options"]),
            clock_seconds=int(raw["clock_seconds"]),
            increment_seconds=int(raw["increment_seconds"]),
            rounds=int(raw["rounds"]),
            double=bool(raw["double"]),
            duration=_finite(raw["duration"]),
            name=str(raw["name"]),
        )
        return Tournament(
            id=str(data["id"]),
            creator=str(data["creator"]),
            settings=settings,
            status=Status(data["status"]),
            entrants=tuple(
                Entrant(str(i), str(n), _finite(r), int(s), bool(w))
                for i, n, r, s, w in data["entrants"]
            ),
            games=tuple(
                Game(
                    str(i),
                    int(r),
                    int(b),
                    str(f),
                    None if s is None else str(s),
                    None if sc is None else _finite(sc),
                    bool(ff),
                    int(rp),
                )
                for i, r, b, f, s, sc, ff, rp in data["games"]
            ),
            round=int(data["round"]),
            started_at=None if data["started_at"] is None else _finite(data["started_at"]),
            finished_at=None if data["finished_at"] is None else _finite(data["finished_at"]),
            version=int(data["version"]),
        )
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"not a tournament: {error}") from error


# ---------------------------------------------------------------------------------------------
# Private helpers

_SWISS_WIDTHS = (3, 12)
"""Neighbourhood sizes of the sparse Swiss graphs tried before the complete one."""
_SWISS_BAND = 100
"""Score bands of about this many players are matched one by one, for speed."""
_NOT_A_REMATCH = 10**15
_SCORE_UNIT = 10**6
_COLOUR_UNIT = 10**3


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{number} is not a finite number")
    return number


def _check_settings(s: Settings, now: float) -> None:
    def refuse(reason: str) -> TournamentError:
        return TournamentError(ErrorCode.IMPOSSIBLE_SETTINGS, reason)

    try:
        find_game(s.game).parse_options(s.options)
    except ValueError as error:
        raise refuse(str(error)) from error
    if not 2 <= s.max_players <= MAX_PLAYERS:
        raise refuse(f"a tournament holds 2 to {MAX_PLAYERS} players")
    if not 0 < s.clock_seconds <= MAX_LIVE_SECONDS or not (
        0 <= s.increment_seconds <= MAX_LIVE_SECONDS
    ):
        raise refuse(
            f"the clock needs a time of 1 to {MAX_LIVE_SECONDS:g} seconds and an increment of "
            f"0 to {MAX_LIVE_SECONDS:g}"
        )
    if not math.isfinite(s.starts_at):
        raise refuse("the start time must be a finite number")
    if not 0 <= s.duration <= MAX_ARENA_SECONDS:
        raise refuse(f"an arena lasts at most {MAX_ARENA_SECONDS:g} seconds")
    if s.starts_at < now:
        raise refuse("the start time has passed")
    if s.format is not Format.SWISS and s.rounds:
        raise refuse("only a Swiss has a set number of rounds")
    if s.format is not Format.ROUND_ROBIN and s.double:
        raise refuse("only a round robin is played double")
    if s.format is not Format.ARENA and s.duration:
        raise refuse("only an arena has a duration")
    if s.format is Format.SWISS and not 1 <= s.rounds <= max_swiss_rounds(s.max_players):
        raise refuse(
            f"a Swiss of at most {s.max_players} players has 1 to "
            f"{max_swiss_rounds(s.max_players)} rounds"
        )
    if s.format is Format.ROUND_ROBIN and s.max_players > ROUND_ROBIN_MAX_PLAYERS:
        raise refuse(f"a round robin holds at most {ROUND_ROBIN_MAX_PLAYERS} players")
    if s.format is Format.ARENA and s.duration <= 0:
        raise refuse("an arena needs a duration")


def _require_running(t: Tournament) -> None:
    if t.status is Status.CREATED:
        raise TournamentError(ErrorCode.NOT_STARTED, "this tournament has not started")
    if t.status is not Status.RUNNING:
        raise TournamentError(ErrorCode.FINISHED, "this tournament is over")


def _bump(t: Tournament, **changes: Any) -> Tournament:
    return replace(t, version=t.version + 1, **changes)


def _pair_next_round(t: Tournament) -> Tournament:
    number = t.round + 1
    fmt = t.settings.format
    if fmt is Format.ROUND_ROBIN:
        pairs = _round_robin_pairs(t, number)
    elif fmt is Format.SWISS:
        pairs = swiss_pairings(_swiss_players(t))
    else:
        pairs = _knockout_pairs(t, number)
    withdrawn = {e.id for e in t.entrants if e.withdrawn}
    bye_score = 0.0 if fmt is Format.ROUND_ROBIN else 1.0
    games: list[Game] = []
    for board, (first, second) in enumerate(pairs, start=1):
        gid = f"{t.id}.{number}.{board}"
        if second is None:
            games.append(Game(gid, number, board, first, None, score=bye_score))
        elif first in withdrawn or second in withdrawn:
            score = 0.0 if first in withdrawn else 1.0
            games.append(Game(gid, number, board, first, second, score=score, forfeit=True))
        else:
            games.append(Game(gid, number, board, first, second))
    return _bump(t, round=number, games=(*t.games, *games))


def _round_robin_pairs(t: Tournament, number: int) -> list[Pairing]:
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


def _swiss_players(t: Tournament) -> list[SwissPlayer]:
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


def _knockout_pairs(t: Tournament, number: int) -> list[Pairing]:
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


def _knockout_rounds_won(t: Tournament) -> dict[PlayerId, int]:
    """Matches each player won (a bye counts), over the rounds that are complete."""
    won: dict[PlayerId, int] = defaultdict(int)
    for number in range(1, t.round + 1):
        if not all(g.is_over for g in t.games if g.round == number):
            break
        for player in _knockout_winners(t, number):
            won[player] += 1
    return won


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


def _pair_arena(t: Tournament, now: float) -> Tournament:
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
    return _bump(t, games=(*t.games, *new))
