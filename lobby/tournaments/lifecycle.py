"""A tournament's life: the transitions from creation to the end, and what is due next.

Each transition returns a new :class:`~lobby.tournaments.model.Tournament` (or the same one
when it changes nothing) or raises TournamentError and changes nothing; the formats' own
rules are in their modules, which this one calls.
"""

from __future__ import annotations

import math
from dataclasses import replace

from lobby.clocks import MAX_LIVE_SECONDS
from lobby.identity import Player, PlayerId
from lobby.tournaments.arena import MAX_ARENA_SECONDS, pair_arena
from lobby.tournaments.knockout import knockout_pairs, knockout_replay
from lobby.tournaments.model import (
    MAX_PLAYERS,
    Entrant,
    Format,
    Game,
    Settings,
    Status,
    Step,
    Tournament,
    bump,
)
from lobby.tournaments.round_robin import ROUND_ROBIN_MAX_PLAYERS, round_robin_pairs
from lobby.tournaments.swiss import max_swiss_rounds, swiss_pairings, swiss_players
from protocol.errors import ErrorCode, TournamentError
from rules import find_game


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
    joined = bump(t, entrants=(*t.entrants, entrant))
    if t.status is Status.RUNNING:
        return pair_arena(joined, now)
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
        return bump(t, entrants=tuple(e for e in t.entrants if e.id != player))
    entrants = tuple(replace(e, withdrawn=True) if e.id == player else e for e in t.entrants)
    games = tuple(
        replace(g, score=0.0 if g.first == player else 1.0, forfeit=True)
        if not g.is_over and player in (g.first, g.second)
        else g
        for g in t.games
    )
    withdrawn = bump(t, entrants=entrants, games=games)
    if t.settings.format is Format.ARENA:
        return pair_arena(withdrawn, now)
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
    running = bump(t, status=Status.RUNNING, entrants=entrants, started_at=now)
    if s.format is Format.ARENA:
        return pair_arena(running, now)
    return _pair_next_round(running)


def pair_round(tournament: Tournament, now: float) -> Tournament:
    """The tournament with its next round paired (an arena: its waiting players paired).

    Raises TournamentError: not-started, finished, round-unfinished, no-more-rounds.
    """
    t = tournament
    _require_running(t)
    if t.settings.format is Format.ARENA:
        return pair_arena(t, now)
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
        again = knockout_replay(t, game)
        if again is not None:
            games = (*games, again)
    recorded = bump(t, games=games)
    if s.format is Format.ARENA:
        return pair_arena(recorded, now)
    return recorded


def finish(tournament: Tournament, now: float) -> Tournament:
    """The tournament over, its standings final.

    Raises TournamentError: not-started, finished, not-over (rounds or arena games remain).
    """
    t = tournament
    _require_running(t)
    if not is_over(t, now):
        raise TournamentError(ErrorCode.NOT_OVER, "games remain to be played")
    return bump(t, status=Status.FINISHED, finished_at=now)


def cancel(tournament: Tournament) -> Tournament:
    """A tournament that never started (too few players). Raises TournamentError: started."""
    if tournament.status is not Status.CREATED:
        raise TournamentError(ErrorCode.STARTED, "only a tournament not yet started is cancelled")
    return bump(tournament, status=Status.CANCELLED)


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


def _pair_next_round(t: Tournament) -> Tournament:
    number = t.round + 1
    fmt = t.settings.format
    if fmt is Format.ROUND_ROBIN:
        pairs = round_robin_pairs(t, number)
    elif fmt is Format.SWISS:
        pairs = swiss_pairings(swiss_players(t))
    else:
        pairs = knockout_pairs(t, number)
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
    return bump(t, round=number, games=(*t.games, *games))
