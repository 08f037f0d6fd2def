"""Games as the lobby sees them: the live list, finished games with their records, replay.

A :class:`LiveGame` is one line of the live games list, which the server derives from each
committed change of the room; a :class:`FinishedGame` is the summary kept for each player's
history, with the full move record.  Records travel as pbmserv-style text (one move per line)
or as plain data, and replay through the rules to the final position.  Pure; imports :mod:`rules`,
:mod:`lobby.identity` and :mod:`protocol.errors`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from lobby.identity import Player, PlayerId, player_data, player_from_data
from protocol.errors import BadRecordError, UnknownGameError
from rules import find_game
from rules.api import RulesError, Seat
from rules.pie import is_swap_text
from rules.record import RecordError, parse_record_text

RoomId = str


@dataclass(frozen=True, slots=True)
class LiveGame:
    """One game in progress, as listed for spectators.

    ``players`` are the current (FIRST, SECOND) seat holders: a swap exchanges them.
    ``move_number`` counts the entries of the record so far (a swap is one).
    """

    room_id: RoomId
    game: str
    options: str
    players: tuple[Player, Player]
    rated: bool
    started: float
    move_number: int = 0
    spectators: int = 0
    time_control: str | None = None
    waiting_for: PlayerId | None = None
    """The player to move (a correspondence player's "games waiting for me")."""
    deadline: float | None = None
    """When the running clock's time runs out (seconds since the epoch), if one runs."""
    version: int = 0
    """The room version this line was derived from: an older one never replaces it."""

    def has_player(self, player_id: PlayerId) -> bool:
        return any(p.id == player_id for p in self.players)

    def to_data(self) -> dict[str, Any]:
        return {
            "room_id": self.room_id,
            "game": self.game,
            "options": self.options,
            "players": [player_data(p) for p in self.players],
            "rated": self.rated,
            "started": self.started,
            "move_number": self.move_number,
            "spectators": self.spectators,
            "time_control": self.time_control,
            "waiting_for": self.waiting_for,
            "deadline": self.deadline,
            "version": self.version,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> LiveGame:
        try:
            first, second = data["players"]
            return cls(
                room_id=str(data["room_id"]),
                game=str(data["game"]),
                options=str(data["options"]),
                players=(player_from_data(first), player_from_data(second)),
                rated=bool(data["rated"]),
                started=float(data["started"]),
                move_number=int(data["move_number"]),
                spectators=int(data["spectators"]),
                time_control=data["time_control"],
                # Entries stored before clocks have neither field.
                waiting_for=data.get("waiting_for"),
                deadline=data.get("deadline"),
                version=int(data.get("version", 0)),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not live game data: {error!r}") from error


LIVE_FIELDS = frozenset(LiveGame.__slots__) - {"waiting_for", "deadline", "version"}
"""The fields every live line's plain data has (:meth:`LiveGame.to_data`; lines stored before
clocks lack the other three, as :meth:`LiveGame.from_data` allows)."""


@dataclass(frozen=True, slots=True)
class LiveLine:
    """A live line as plain data (:meth:`LiveGame.to_data`), with what its store needs read
    off once.  The lobby's drain passes each commit's line on to the store this way: the
    line is written and announced as it came, without a :class:`LiveGame` made of it and
    its data made again (a line a move, for every game in play)."""

    data: dict[str, Any]
    room_id: RoomId
    version: int
    started: float
    player_ids: tuple[PlayerId, PlayerId]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> LiveLine:
        """The line of ``data``; raises ValueError when it is not a live line's data."""
        try:
            missing = LIVE_FIELDS - data.keys()
            if missing:
                raise KeyError(", ".join(sorted(missing)))
            first, second = data["players"]
            return cls(
                data,
                str(data["room_id"]),
                int(data.get("version", 0)),
                float(data["started"]),
                (str(first["id"]), str(second["id"])),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not live game data: {error!r}") from error

    @classmethod
    def of(cls, live: LiveGame) -> LiveLine:
        return cls.from_data(live.to_data())


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A game that ended, with its full record, as kept in both players' histories.

    ``players`` are the (FIRST, SECOND) seat holders at the start, so ``players[0]`` made
    the first move; :func:`seat_holders` gives them after any swaps.  ``winner`` is the
    winning seat in the rules' sense (a colour), None for a draw or an aborted game;
    ``reason`` says how it ended ("resigned", "aborted", or the rules' reason).
    """

    room_id: RoomId
    game: str
    options: str
    players: tuple[Player, Player]
    rated: bool
    started: float
    finished: float
    record: tuple[str, ...]
    winner: Seat | None
    reason: str
    time_control: str | None = None

    @property
    def winner_player(self) -> Player | None:
        """Who won, after any swaps; None for a draw or an aborted game."""
        if self.winner is None:
            return None
        return seat_holders(self.players, self.record)[self.winner]

    def has_player(self, player_id: PlayerId) -> bool:
        return any(p.id == player_id for p in self.players)

    def to_data(self) -> dict[str, Any]:
        """Plain data: what a player downloads as the game's JSON record."""
        return {
            "room_id": self.room_id,
            "game": self.game,
            "options": self.options,
            "players": [player_data(p) for p in self.players],
            "rated": self.rated,
            "started": self.started,
            "finished": self.finished,
            "record": list(self.record),
            "winner": None if self.winner is None else int(self.winner),
            "reason": self.reason,
            "time_control": self.time_control,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> FinishedGame:
        try:
            first, second = data["players"]
            winner = data["winner"]
            return cls(
                room_id=str(data["room_id"]),
                game=str(data["game"]),
                options=str(data["options"]),
                players=(player_from_data(first), player_from_data(second)),
                rated=bool(data["rated"]),
                started=float(data["started"]),
                finished=float(data["finished"]),
                record=tuple(str(m) for m in data["record"]),
                winner=None if winner is None else Seat(int(winner)),
                reason=str(data["reason"]),
                time_control=data["time_control"],
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not finished game data: {error!r}") from error


def finish(
    live: LiveGame,
    record: Sequence[str],
    winner: Seat | None,
    reason: str,
    now: float,
    first_players: tuple[Player, Player] | None = None,
) -> FinishedGame:
    """The finished game for a live one; ``first_players`` are the seats at the start.

    Without ``first_players`` they are worked back from the live seats and the swaps in
    ``record``.
    """
    start = first_players if first_players is not None else seat_holders(live.players, record)
    return FinishedGame(
        room_id=live.room_id,
        game=live.game,
        options=live.options,
        players=start,
        rated=live.rated,
        started=live.started,
        finished=now,
        record=tuple(record),
        winner=winner,
        reason=reason,
        time_control=live.time_control,
    )


@dataclass(frozen=True, slots=True)
class OpponentScore:
    """A player's wins, draws and losses against one opponent."""

    opponent: Player
    won: int = 0
    drawn: int = 0
    lost: int = 0

    def to_data(self) -> dict[str, Any]:
        return {
            "opponent": player_data(self.opponent),
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
        }


UNSCORED_ENDS = frozenset({"aborted", "idle"})
"""Ends that count as neither a win, a draw nor a loss (nobody played the game out)."""


def scores_by_opponent(games: Sequence[FinishedGame], player_id: PlayerId) -> list[OpponentScore]:
    """The player's wins, draws and losses against each opponent in ``games`` (aborted and
    idle games left out), the opponent met most first, then by name."""
    scores: dict[PlayerId, OpponentScore] = {}
    for game in games:
        if game.reason in UNSCORED_ENDS or not game.has_player(player_id):
            continue
        opponent = next((p for p in game.players if p.id != player_id), game.players[1])
        score = scores.get(opponent.id, OpponentScore(opponent))
        winner = game.winner_player
        if winner is None:
            score = OpponentScore(opponent, score.won, score.drawn + 1, score.lost)
        elif winner.id == player_id:
            score = OpponentScore(opponent, score.won + 1, score.drawn, score.lost)
        else:
            score = OpponentScore(opponent, score.won, score.drawn, score.lost + 1)
        scores[opponent.id] = score
    return sorted(
        scores.values(), key=lambda s: (-(s.won + s.drawn + s.lost), s.opponent.name.lower())
    )


def seat_holders(players: tuple[Player, Player], record: Sequence[str]) -> tuple[Player, Player]:
    """The (FIRST, SECOND) seat holders after ``record``: each swap exchanges them.

    The same function turns final seats back into starting seats, since an exchange undoes
    itself.
    """
    swaps = sum(1 for move in record if is_swap_text(move))
    return players if swaps % 2 == 0 else (players[1], players[0])


def replay_states(game: str, options: str, moves: Sequence[str]) -> Iterator[Any]:
    """The start position, then the position after each move in turn.

    Raises UnknownGameError, or BadRecordError naming the move (numbered from 1) and the
    rules' reason.
    """
    try:
        rules = find_game(game)
    except ValueError as error:
        raise UnknownGameError(str(error)) from error
    try:
        state = rules.new_game(rules.parse_options(options))
    except RulesError as error:
        raise BadRecordError(f"the record's options do not parse: {error}") from error
    yield state
    for number, text in enumerate(moves, start=1):
        try:
            state = rules.play(state, rules.parse_move(state, text))
        except RulesError as error:
            raise BadRecordError(f"move {number} ({text!r}) does not replay: {error}") from error
        yield state


def replay(game: str, options: str, moves: Sequence[str]) -> Any:
    """The final position of a record; raises as :func:`replay_states` does."""
    return deque(replay_states(game, options, moves), maxlen=1)[0]


def view_record(text: str, game: str | None = None, ply: int | None = None) -> dict[str, Any]:
    """An imported record, checked by replaying every move, with the position after ``ply``
    moves (the last when None) as the rules draw it.

    The game is the record's ``Game`` tag, else ``game``; its options the ``Options`` tag.
    Raises BadRecordError (naming the line, or the move and the rules' reason) or
    UnknownGameError.
    """
    try:
        record = parse_record_text(text)
    except RecordError as error:
        raise BadRecordError(str(error)) from error
    name = record.tag("Game") or game
    if not name:
        raise BadRecordError('the record names no game: add a line [Game "osbox"], or choose one')
    name = name.strip().lower()
    options = record.tag("Options") or ""
    plies = len(record.moves)
    at = plies if ply is None else ply
    if at > plies:
        raise BadRecordError(f"the record has {plies} moves, so no position after {at}")
    shown = final = None
    for number, state in enumerate(replay_states(name, options, record.moves)):
        if number == at:
            shown = state
        final = state
    rules = find_game(name)
    seat = rules.to_move(shown)
    outcome = rules.outcome(final)
    return {
        "game": name,
        "options": options,
        "colours": list(rules.SEAT_NAMES),
        "tags": [list(tag) for tag in record.tags],
        "moves": list(record.moves),
        "ply": at,
        "data": rules.to_data(shown),
        "to_move": None if seat is None else int(seat),
        "outcome": None
        if outcome is None
        else {
            "winner": None if outcome.winner is None else int(outcome.winner),
            "reason": outcome.reason,
        },
    }
