"""Marque: Go-like capture and connection of bases on a 3.4.6.4 tiling (``docs/rules/marque.md``).

Pure rules behind the common API of :mod:`rules.api`; imports only :mod:`rules.api` and
:mod:`rules.geometry.marque_tiling` (the 96 cells, their labels and adjacency, the bases).

Model.  Seat.FIRST is O (white), Seat.SECOND is X (black).  A position is two bitmasks of cell
ids (bit ``c`` set = a piece on cell ``c``), which makes copying, hashing and the group floods
cheap.  A move is one cell or two edge-adjacent triangles (spec §4); its text is the spec's
canonical form (``f3``, ``f3,f4``).  After placing, opponent groups without freedom are removed,
then a mover's group without freedom makes the move illegal (§5); a player may not repeat the
set of cells of their own previous move (§6).  A group *holds* a base when it contains three
cyclically consecutive triangles of it (§8); the mover wins when the group holding the new
piece(s) holds a set of bases that satisfies the game's formation (§9, §10).

For the bots, the module supplies the optional evaluation hook (:class:`rules.api.Evaluation`):
:func:`evaluate` values a position by each side's progress towards holding the bases of a
winning formation, :func:`move_priors` ranks moves by the progress they add or take away.  The
optional ending hook (:class:`rules.api.EndingMoves`), :func:`may_end_at_once`, tells it where
no move can win at once, which is most positions.

Decisions (the spec's, §0 and §14, unless said):

* Default formation ``non_adj_3`` (three pairwise non-adjacent bases, {A,E,F} or {B,C,G});
  flags ``-any_2 -any_3 -any_4 -non_adj_2 -opposite -y`` choose the others; two different
  formation flags are incompatible.  ``-y`` (D plus {A,E,F} or {B,C,G}) is experimental.
* No swap, no voluntary pass.  A player without a legal move passes automatically inside
  :func:`play` and the turn comes back to the mover; a forced pass clears the passer's
  previous move (it blocks nothing afterwards).  A forced pass answered by a forced pass
  ends the game in a draw, as the spec says, but it cannot actually happen: the mover would
  have to leave one empty cell, the last freedom of all of their groups, so their pieces
  cover every base and the win, checked first (§10), ends the game.
* Unknown labels and ``f3,f3`` are syntax errors (InvalidMoveError: ``unknown-cell``,
  ``same-cell-twice``); ``pass`` is never accepted as input.  Every illegal move's message
  ends with the spec's reason code in parentheses, e.g. ``(suicide)``.
* Only the group containing the new pieces is examined for a win: every other group of the
  mover was examined when it last changed (§10), so a game played from the start cannot hold
  an unnoticed winning group.
* No third-repetition draw (§10, §14): longer capture cycles are left to the players.
* Groups are kept from move to move as (group, border) bitmask pairs in the State (a cache
  that equality ignores): a group's freedoms are then one AND, and a capture or suicide test
  needs no search.  :func:`play` lists the next player's legal moves anyway, to find a
  forced pass, and keeps that list in the State too.  The few whole-board searches
  (from_data, displays) are bitmask floods here rather than :mod:`rules.geometry.graph`
  calls, which the tests use as the reference.

``to_data(state)`` is a dict (coordinates in cell-edge units, x to the right, y pointing down,
the centre of base D at the origin):

* ``game`` ``"marque"``; ``options`` the flag text; ``formation`` its name; ``ply`` moves
  played (forced passes not counted); ``to_move`` ``"white"``/``"black"`` or None once the game
  is over; ``turn`` the seat whose turn it is or would be; ``last_move`` the text of the last
  move or None, ``last_mover`` its seat; ``passes`` the seats that were forced to pass after it
  (in order); ``previous`` ``{"white": text|None, "black": text|None}``, each player's own
  previous move (the one they may not repeat); ``captured`` the labels the last move removed;
  ``scores`` None (Marque does not score); ``outcome`` None or
  ``{"winner": "white"|"black"|None, "reason": str}``.
* ``pieces``: ``{"white": [labels], "black": [labels]}``.
* ``cells``: one ``{"cell", "shape", "base", "x", "y", "points"}`` per cell: ``shape`` is
  ``"base-tri"``, ``"square"`` or ``"iso-tri"``; ``base`` the letter of a base triangle's base
  (else None); ``x, y`` the centroid; ``points`` the corners ``[[x, y], ...]``.
* ``bases``: one ``{"base", "x", "y"}`` per base A-G (its centre, for the letter).
* ``occupied``: ``{"white": [letters], "black": [letters]}``, the bases each player occupies.
* ``winning_group``: the labels of the winner's winning group, or None.
* ``explanation`` (:func:`rules.api.explanation`) once the game is over: the winning group
  (``cells``, labels) and the bases it joins (``sides``, letters); a draw shows none.

:func:`seat_moves` gives a seat its moves apart from this data, always as texts (never more
than 138): the legal moves to the seat to move, and to the seat that waits the moves it
could make if it were its turn.

:func:`from_data` reads ``options``, ``pieces``, ``turn``, ``ply``, ``previous``,
``last_move``, ``last_mover``, ``passes``, ``captured`` and ``outcome``; the rest is derived.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from rules.api import (
    Flag,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    PlainData,
    Seat,
    check_options,
    explained_group,
    explanation,
    options_flags_text,
    options_from_flags,
    outcome_data,
)
from rules.geometry import marque_tiling as tiling

NAME = "marque"
SEAT_NAMES = ("white", "black")
SEAT_MARKS = ("o", "x")
"""How the pbmserv board writes each seat's pieces (O is white, X is black)."""

FORMATIONS = ("non_adj_3", "any_2", "any_3", "any_4", "non_adj_2", "opposite", "y")
"""Winning formations of spec §9; the first is the default."""

FLAGS: Sequence[Flag] = (
    Flag("any_2", "formation", "any_2", help="win by joining any two occupied bases"),
    Flag("any_3", "formation", "any_3", help="win by joining any three occupied bases"),
    Flag("any_4", "formation", "any_4", help="win by joining any four occupied bases"),
    Flag("non_adj_2", "formation", "non_adj_2", help="win by joining two non-adjacent bases"),
    Flag("opposite", "formation", "opposite", help="win by joining two opposite bases"),
    Flag("y", "formation", "y", help="(experimental) win by joining D and three alternate bases"),
)
"""Default (no flag): win by joining three pairwise non-adjacent occupied bases."""


@dataclass(frozen=True, slots=True)
class Options:
    """The winning formation (spec §9); pbmserv's default is ``non_adj_3``."""

    formation: str = FORMATIONS[0]

    def __post_init__(self) -> None:
        check_options(self, FLAGS)


Chains: TypeAlias = tuple[tuple[int, int], ...]
"""One seat's groups as (group mask, border mask) pairs; the border is every cell next to the
group, so a group's freedoms are ``border & empty`` and never need a search."""


@dataclass(frozen=True, slots=True)
class Move:
    """One cell, or two edge-adjacent triangles: cell ids, ascending."""

    cells: tuple[int, ...]


@dataclass(slots=True, unsafe_hash=True, init=False)
class State:
    """A position: both players' pieces as bitmasks of cell ids, indexed by Seat.

    Its fields are Final (see "Values" in :mod:`rules.api`).
    """

    options: Final[Options]
    pieces: Final[tuple[int, int]]
    turn: Final[Seat]
    ply: Final[int]
    """Moves played; the first move (ply 0) must be one triangle."""
    previous: Final[tuple[Move | None, Move | None]]
    """Each seat's own previous move, which it may not repeat (None: none, or a pass)."""
    last_move: Final[Move | None]
    last_mover: Final[Seat | None]
    passes: Final[tuple[Seat, ...]]
    """Seats forced to pass after the last move, in order (two of them end the game)."""
    captured: Final[int]
    """The cells the last move removed."""
    outcome: Final[Outcome | None]
    chains: tuple[Chains, Chains] | None = field(default=None, compare=False, repr=False)
    """Derived from ``pieces`` and kept for speed: each seat's groups (see :data:`Chains`)."""
    legal: list[Move] | None = field(default=None, compare=False, repr=False)
    """Derived and kept for speed: the legal moves, found by :func:`play` while it looks
    for a forced pass."""

    def __init__(
        self,
        options: Options,
        pieces: tuple[int, int] = (0, 0),
        turn: Seat = Seat.FIRST,
        ply: int = 0,
        previous: tuple[Move | None, Move | None] = (None, None),
        last_move: Move | None = None,
        last_mover: Seat | None = None,
        passes: tuple[Seat, ...] = (),
        captured: int = 0,
        outcome: Outcome | None = None,
        chains: tuple[Chains, Chains] | None = None,
        legal: list[Move] | None = None,
    ) -> None:
        self.options = options
        self.pieces = pieces
        self.turn = turn
        self.ply = ply
        self.previous = previous
        self.last_move = last_move
        self.last_mover = last_mover
        self.passes = passes
        self.captured = captured
        self.outcome = outcome
        self.chains = chains
        self.legal = legal


def parse_options(text: str) -> Options:
    """pbmserv flags (``-opposite``) to Options; raises OptionsError naming a bad flag."""
    return options_from_flags(Options, text, FLAGS)


def options_text(options: Options) -> str:
    """The flags of ``options``, empty for the default formation."""
    return options_flags_text(options, FLAGS)


def new_game(options: Options) -> State:
    """The empty board, O to move."""
    return State(options)


def to_move(state: State) -> Seat | None:
    """The seat to move, or None once the game is over."""
    return None if state.outcome is not None else state.turn


def outcome(state: State) -> Outcome | None:
    """The win or draw that ended the game, or None while it goes on."""
    return state.outcome


def scores(state: State) -> tuple[int, int] | None:
    """Marque does not score (captures count for nothing, spec §5)."""
    return None


def legal_moves(state: State) -> Iterator[Move]:
    """Every legal move once: singles by cell, then pairs by base (spec §4-§6)."""
    if state.outcome is not None:
        return iter(())
    if state.legal is not None:
        return iter(state.legal)
    seat = state.turn
    chains = _chains(state)
    return iter(
        _legal(
            state.pieces[seat],
            state.pieces[1 - seat],
            chains[seat],
            chains[1 - seat],
            state.ply == 0,
            state.previous[seat],
        )
    )


def play(state: State, move: object) -> State:
    """The position after ``move``, with any forced passes that follow it.

    Raises IllegalMoveError (reason code in parentheses) and leaves ``state`` unchanged.
    """
    if state.outcome is not None:
        raise IllegalMoveError("the game is over")
    if not isinstance(move, Move):
        raise IllegalMoveError(f"not a Marque move: {move!r}")
    seat = state.turn
    own, opp = state.pieces[seat], state.pieces[1 - seat]
    mask = _SHAPE_MASKS.get(move.cells, 0)
    if not mask or state.ply == 0:
        mask = _check_shape(move.cells, state.ply == 0)
        cells = tuple(sorted(move.cells))
        move = _SINGLE_MOVES[cells[0]] if len(cells) == 1 else _PAIR_MOVES[(cells[0], cells[1])]
    if mask & (own | opp):
        raise IllegalMoveError(f"{move_text(move)}: that cell is occupied (cell-occupied)")
    previous_move = state.previous[seat]
    if previous_move is not None and previous_move.cells == move.cells:
        raise IllegalMoveError(
            f"{move_text(move)} repeats your own previous move (repeats-own-previous-move)"
        )
    chains = state.chains or _chains(state)
    resolved = _resolve(own, opp, chains[seat], chains[1 - seat], mask)
    if resolved is None:
        raise IllegalMoveError(
            f"{move_text(move)} would leave your group without a freedom (suicide)"
        )
    own, opp, own_chains, opp_chains, group, captured = resolved
    if seat == Seat.FIRST:
        pieces, chains = (own, opp), (own_chains, opp_chains)
        previous: tuple[Move | None, Move | None] = (move, state.previous[1])
    else:
        pieces, chains = (opp, own), (opp_chains, own_chains)
        previous = (state.previous[0], move)
    options, ply = state.options, state.ply + 1
    held = _held(group) if (group & _BASE_TRIANGLE_MASK).bit_count() >= 6 else 0
    other = _OTHER[seat]
    if _WINS[options.formation][held]:
        won = Outcome(seat, f"joined bases {_base_letters(held)}")
        return State(options, pieces, other, ply, previous, move, seat, (), captured, won)
    legal = _legal(opp, own, opp_chains, own_chains, False, previous[other])
    if legal:
        return State(
            options, pieces, other, ply, previous, move, seat, (), captured, None, chains, legal
        )
    # The opponent must pass: the turn comes back, and a pass blocks nothing later.
    previous = (None, previous[1]) if other == Seat.FIRST else (previous[0], None)
    legal = _legal(own, opp, own_chains, opp_chains, False, move)
    if legal:
        passes = (other,)
        return State(
            options, pieces, seat, ply, previous, move, seat, passes, captured, None, chains, legal
        )
    draw = Outcome(None, "neither player has a legal move")
    return State(options, pieces, other, ply, previous, move, seat, (other, seat), captured, draw)


def parse_move(state: State, text: str) -> Move:
    """``f3`` or ``f3,f4`` (any case, blanks around labels and the comma) to a Move.

    Raises InvalidMoveError for an unknown label (``unknown-cell``), a cell given twice
    (``same-cell-twice``), ``pass`` or anything else that is not one or two labels.
    """
    words = text.strip().lower().split(",")
    if len(words) > 2:
        raise InvalidMoveError("a move is one cell or two cells separated by a comma: f3,f4")
    cells = []
    for word in words:
        label = word.strip()
        if label == "pass":
            raise InvalidMoveError(
                "a pass cannot be chosen: it is made for a player who cannot move"
            )
        cell = tiling.CELL_IDS.get(label)
        if cell is None:
            raise InvalidMoveError(f"there is no cell {label!r} (unknown-cell)")
        cells.append(cell)
    if len(cells) == 2:
        if cells[0] == cells[1]:
            raise InvalidMoveError(f"{words[0].strip()} is given twice (same-cell-twice)")
        return _PAIR_MOVES.get((min(cells), max(cells))) or Move((min(cells), max(cells)))
    return _SINGLE_MOVES[cells[0]]


def move_text(move: Move) -> str:
    """The canonical text: lower case, a pair's labels sorted and joined by a comma."""
    return ",".join(tiling.LABELS[cell] for cell in move.cells)


def occupied_bases(state: State, seat: Seat) -> frozenset[str]:
    """The letters of the bases ``seat`` occupies (three consecutive triangles, spec §8)."""
    return frozenset(_base_letters(_held(state.pieces[seat])).split(", ")) - {""}


def formation_wins(formation: str, bases: Collection[str]) -> bool:
    """Whether a group holding ``bases`` (letters) wins under ``formation`` (spec §9 table)."""
    held = sum(1 << tiling.BASE_NAMES.index(letter) for letter in set(bases))
    return _WINS[formation][held]


def groups(state: State, seat: Seat) -> list[frozenset[str]]:
    """The labels of each group of ``seat``, largest first (for tests and displays)."""
    stones = state.pieces[seat]
    found = []
    while stones:
        group = _group(_cell_of(stones & -stones), stones)
        stones &= ~group
        found.append(frozenset(_labels(group)))
    return sorted(found, key=lambda g: (-len(g), sorted(g)))


def winning_group(state: State, seat: Seat) -> frozenset[str] | None:
    """A group of ``seat`` whose held bases satisfy the formation, or None."""
    formation = _WINS[state.options.formation]
    stones = state.pieces[seat]
    while stones:
        group = _group(_cell_of(stones & -stones), stones)
        stones &= ~group
        if formation[_held(group)]:
            return frozenset(_labels(group))
    return None


PROGRESS_SCALE = 3.0
"""Lead in formation progress (in triangles, one held base being three) at which
:func:`evaluate` says about 0.76 for the side ahead."""


def evaluate(state: State) -> float:
    """White's prospects in [-1, 1]: the optional hook of :class:`rules.api.Evaluation`.

    Exact once the game is over (1, -1 or 0).  Before, each side's progress towards its
    nearest winning formation: for each base of the formation, the most of the side's pieces
    in three consecutive triangles of it that hold none of the opponent's (three holds the
    base), summed over the formation's bases; a formation with a base the side can no longer
    hold counts nothing.  tanh maps White's lead over :data:`PROGRESS_SCALE` into (-1, 1).
    A random playout of Marque lasts about 150 plies, so a search on a move's budget of
    milliseconds plays only a few; this lets it stop after a few plies and still tell a
    position that builds towards a formation from one that does not.  Connection between the
    bases is not counted.
    """
    result = state.outcome
    if result is not None:
        winner = result.winner
        return 0.0 if winner is None else 1.0 if winner == Seat.FIRST else -1.0
    white, black = state.pieces
    formations = _MINIMAL_WINS[state.options.formation]
    lead = _progress(white, black, formations) - _progress(black, white, formations)
    return math.tanh(lead / PROGRESS_SCALE)


def move_priors(state: State, moves: Sequence[Move]) -> list[float]:
    """How promising each move is for the mover (:class:`rules.api.Evaluation`): by the
    pieces it adds to three consecutive triangles of a base still open to the mover, and
    takes from the opponent's, over the two pieces a move may place (1 at most)."""
    seat = state.turn
    own, opp = state.pieces[seat], state.pieces[1 - seat]
    priors = []
    for move in moves:
        gain = 0
        for cell in move.cells:
            if cell < 6 * _BASE_COUNT:
                shift = cell - cell % 6
                before = _WINDOW_PROGRESS[own >> shift & 63][opp >> shift & 63]
                after = _WINDOW_PROGRESS[(own | 1 << cell) >> shift & 63][opp >> shift & 63]
                blocked = _WINDOW_PROGRESS[opp >> shift & 63][own >> shift & 63]
                left = _WINDOW_PROGRESS[opp >> shift & 63][(own | 1 << cell) >> shift & 63]
                gain += max(0, after - before) + max(0, blocked - left)
        priors.append(min(1.0, gain / 4))
    return priors


OPEN_CELLS_WITHOUT_DRAW = 8
"""Empty cells with an empty neighbour that rule out a draw at once: a move fills at most two
cells and takes the last empty neighbour of at most four others, so two such cells remain,
each a legal move for the next player (at most one of them is that player's banned single)."""


def may_end_at_once(state: State) -> bool:
    """Whether some legal move of ``state`` might end the game: the optional hook of
    :class:`rules.api.EndingMoves`.  False promises that none does.

    A move ends the game by winning (§10) or, with no legal move left for either side, by a
    draw.  Its pieces go on one cell or two neighbouring triangles of one base, and a capture
    only empties cells, so the bases the mover holds afterwards are those its pieces hold now
    and at most one more, where three consecutive triangles hold some of its pieces, none of
    the opponent's and the move fills the rest.  Where such a set satisfies the formation,
    each placement is tried on the groups it would join, without playing it.  If enough empty
    cells have an empty neighbour (:data:`OPEN_CELLS_WITHOUT_DRAW`), no move draws.  So a
    search need not play every move of a position, nor every reply, to look for a win at once.
    """
    if state.outcome is not None:
        return False
    seat = state.turn
    own, opp = state.pieces[seat], state.pieces[1 - seat]
    empty = _FULL ^ own ^ opp
    near_empty = 0
    for shift, table in _SPREAD_TABLES:
        near_empty |= table[empty >> shift & _CHUNK_MASK]
    if (empty & near_empty).bit_count() < OPEN_CELLS_WITHOUT_DRAW:
        return True
    wins = _WINS[state.options.formation]
    held = _held(own)
    within_reach = wins[held]
    for base in range(_BASE_COUNT):
        shift = 6 * base
        if (
            not held >> base & 1
            and _HOLDS_IN_ONE_MOVE[own >> shift & 63][opp >> shift & 63]
            and wins[held | 1 << base]
        ):
            within_reach = True
    return within_reach and _some_move_wins(_chains(state)[seat], empty, wins)


def _some_move_wins(own_chains: Chains, empty: int, wins: tuple[bool, ...]) -> bool:
    """Whether placing some single or pair on ``empty`` cells, legal or not, would join the
    mover's groups it touches into one that holds a winning set of bases."""
    triangles = empty & _BASE_TRIANGLE_MASK
    pairs = triangles & _following(triangles)
    placements = [1 << cell for cell in _cells(empty)]
    placements += [_PAIR_MASK_OF_BIT[1 << bit] for bit in _cells(pairs)]
    for mask in placements:
        group = mask
        for chain, border in own_chains:
            if border & mask:
                group |= chain
        if wins[_held(group)]:
            return True
    return False


def to_data(state: State) -> PlainData:
    """Plain data for storage and drawing; the shape is in the module docstring."""
    seat = to_move(state)
    winner = None if state.outcome is None else state.outcome.winner
    winning = None if winner is None else winning_group(state, winner)
    return {
        "game": NAME,
        "options": _OPTIONS_TEXT[state.options.formation],
        "formation": state.options.formation,
        "ply": state.ply,
        "to_move": None if seat is None else SEAT_NAMES[seat],
        "turn": SEAT_NAMES[state.turn],
        "last_move": None if state.last_move is None else move_text(state.last_move),
        "last_mover": None if state.last_mover is None else SEAT_NAMES[state.last_mover],
        "passes": [SEAT_NAMES[s] for s in state.passes],
        "previous": _previous_data(state),
        "captured": _labels(state.captured),
        "scores": None,
        "outcome": outcome_data(state.outcome, SEAT_NAMES),
        "pieces": {
            name: _labels(state.pieces[s]) for s, name in zip(Seat, SEAT_NAMES, strict=True)
        },
        "cells": _CELLS_DATA,
        "bases": _BASES_DATA,
        "occupied": {
            name: sorted(occupied_bases(state, s)) for s, name in zip(Seat, SEAT_NAMES, strict=True)
        },
        "winning_group": _winning_data(winning),
        "explanation": None if state.outcome is None else _explanation(winner, winning),
    }


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The texts of the moves ``seat`` could make (see the module docstring): the hook of
    :meth:`rules.api.GameRules.seat_moves`."""
    mover = to_move(state)
    if mover is None:
        return []
    return _legal_texts(state) if seat == mover else _premove_texts(state)


def data_changes(before: State, after: State, before_data: PlainData) -> list[PlainData]:
    """The operations that turn ``before_data`` (``to_data(before)``) into ``to_data(after)``:
    the optional hook of :class:`rules.api.DataChanges`.

    The fields are compared as the states hold them and only the parts that differ are
    built: a move changes the pieces of one seat, or two with a capture.
    """
    if before.options != after.options:
        return [["s", [], to_data(after)]]
    ops: list[PlainData] = []
    if before.ply != after.ply:
        ops.append(["s", ["ply"], after.ply])
    if to_move(before) != to_move(after):
        seat = to_move(after)
        ops.append(["s", ["to_move"], None if seat is None else SEAT_NAMES[seat]])
    if before.turn != after.turn:
        ops.append(["s", ["turn"], SEAT_NAMES[after.turn]])
    if before.last_move != after.last_move:
        last = after.last_move
        ops.append(["s", ["last_move"], None if last is None else move_text(last)])
    if before.last_mover != after.last_mover:
        mover = after.last_mover
        ops.append(["s", ["last_mover"], None if mover is None else SEAT_NAMES[mover]])
    if before.passes != after.passes:
        ops.append(["s", ["passes"], [SEAT_NAMES[s] for s in after.passes]])
    if before.previous != after.previous:
        ops.append(["s", ["previous"], _previous_data(after)])
    if before.captured != after.captured:
        ops.append(["s", ["captured"], _labels(after.captured)])
    if before.outcome != after.outcome:
        ops.append(["s", ["outcome"], outcome_data(after.outcome, SEAT_NAMES)])
    for seat, name in zip(Seat, SEAT_NAMES, strict=True):
        was, now = before.pieces[seat], after.pieces[seat]
        if was != now:
            ops.append(["s", ["pieces", name], _labels(now)])
            if _held(was) != _held(now):
                ops.append(["s", ["occupied", name], sorted(occupied_bases(after, seat))])
    if before.outcome != after.outcome or before.pieces != after.pieces:
        winner = None if after.outcome is None else after.outcome.winner
        winning = None if winner is None else winning_group(after, winner)
        winning_data = _winning_data(winning)
        if winning_data != before_data["winning_group"]:
            ops.append(["s", ["winning_group"], winning_data])
        explained = None if after.outcome is None else _explanation(winner, winning)
        if explained != before_data["explanation"]:
            ops.append(["s", ["explanation"], explained])
    return ops


def _legal_texts(state: State) -> list[str]:
    """The texts of :func:`legal_moves`, which :func:`play` has mostly listed already."""
    return [_MOVE_TEXTS.get(move) or move_text(move) for move in legal_moves(state)]


def _premove_texts(state: State) -> list[str]:
    """The texts of the moves of the seat that waits, as if it were its turn, read from
    tables of texts without making the moves."""
    seat = state.turn
    other = _OTHER[seat]
    chains = _chains(state)
    return _legal_texts_of(
        state.pieces[other],
        state.pieces[seat],
        chains[other],
        chains[seat],
        False,
        state.previous[other],
    )


def _previous_data(state: State) -> dict[str, str | None]:
    return {
        name: None if move is None else move_text(move)
        for name, move in zip(SEAT_NAMES, state.previous, strict=True)
    }


def _winning_data(winning: frozenset[str] | None) -> list[str] | None:
    return None if winning is None else sorted(winning, key=tiling.CELL_IDS.__getitem__)


def _explanation(winner: Seat | None, winning: frozenset[str] | None) -> PlainData:
    """The winning group and the bases it holds (nothing to show for a draw)."""
    if winner is None or winning is None:
        return explanation([])
    cells: list[str] = sorted(winning, key=tiling.CELL_IDS.__getitem__)
    bases = _base_letters(_held(_mask(cells))).split(", ")
    return explanation(
        [explained_group(SEAT_NAMES[winner], cells=cells, sides=bases, size=len(cells))]
    )


def from_data(data: PlainData) -> State:
    """The state that :func:`to_data` described; raises ValueError on data it did not write."""
    try:
        if data.get("game", NAME) != NAME:
            raise ValueError(f"not a Marque position: {data.get('game')!r}")
        options = parse_options(data.get("options", ""))
        white, black = (_mask(data["pieces"].get(name, [])) for name in SEAT_NAMES)
        if white & black:
            raise ValueError("a cell holds two pieces")
        previous = data.get("previous") or {}
        result = data.get("outcome")
        return State(
            options,
            (white, black),
            _seat(data.get("turn", SEAT_NAMES[0])),
            int(data.get("ply", 0)),
            (_move_or_none(previous.get("white")), _move_or_none(previous.get("black"))),
            _move_or_none(data.get("last_move")),
            None if data.get("last_mover") is None else _seat(data["last_mover"]),
            tuple(_seat(name) for name in data.get("passes", ())),
            _mask(data.get("captured", [])),
            None
            if result is None
            else Outcome(
                None if result["winner"] is None else _seat(result["winner"]), result["reason"]
            ),
        )
    except (KeyError, TypeError, AttributeError, InvalidMoveError) as error:
        raise ValueError(f"malformed Marque data: {error}") from error


def render(state: State) -> str:
    """The pbmserv text board (spec §11) with the turn, last move and occupations below."""
    rows = [list(line) for line in tiling.BLANK_BOARD]
    for seat in Seat:
        for cell in _cells(state.pieces[seat]):
            row, column = tiling.GLYPHS[cell]
            rows[row][column] = SEAT_MARKS[seat]
    lines = ["".join(row).rstrip() for row in rows]
    lines.append("")
    if state.last_move is not None and state.last_mover is not None:
        mark = SEAT_MARKS[state.last_mover].upper()
        taken = f", capturing {' '.join(_labels(state.captured))}" if state.captured else ""
        lines.append(f"Last move: {mark} {move_text(state.last_move)}{taken}")
    for seat in state.passes:
        lines.append(f"{SEAT_MARKS[seat].upper()} has no legal move and passes")
    for seat in Seat:
        bases = ", ".join(sorted(occupied_bases(state, seat))) or "none"
        lines.append(f"{SEAT_MARKS[seat].upper()} occupies: {bases}")
    if state.outcome is None:
        lines.append(f"{SEAT_MARKS[state.turn].upper()} to move")
    elif state.outcome.winner is None:
        lines.append(f"Draw: {state.outcome.reason}")
    else:
        lines.append(f"{SEAT_MARKS[state.outcome.winner].upper()} wins: {state.outcome.reason}")
    return "\n".join(lines)


# --- private helpers -------------------------------------------------------------------------

_CELL_COUNT = tiling.CELL_COUNT
_OTHER = (Seat.SECOND, Seat.FIRST)
_FULL = (1 << _CELL_COUNT) - 1
_NEIGHBOUR_MASKS: tuple[int, ...] = tuple(
    sum(1 << other for other in tiling.NEIGHBOURS[cell]) for cell in range(_CELL_COUNT)
)
_TRIANGLE_MASK = sum(1 << cell for cell in tiling.TRIANGLES)
_PAIR_INDEX = {pair: index for index, pair in enumerate(tiling.TRIANGLE_PAIRS)}
_SINGLE_MOVES: tuple[Move, ...] = tuple(Move((cell,)) for cell in range(_CELL_COUNT))
_PAIR_MOVES: dict[tuple[int, int], Move] = {pair: Move(pair) for pair in tiling.TRIANGLE_PAIRS}
_SQUARE_MASK = sum(1 << cell for cell in range(_CELL_COUNT) if tiling.SHAPES[cell] == tiling.SQUARE)
_CHUNK = 8
"""Masks are read in chunks of this many cells through tables of 2**_CHUNK entries."""
_CHUNK_MASK = (1 << _CHUNK) - 1


MoveTables: TypeAlias = tuple[tuple[int, tuple[tuple[Move, ...], ...]], ...]
TextTables: TypeAlias = tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]


def _move_tables(moves: Sequence[Move]) -> MoveTables:
    """For a mask whose bit i stands for ``moves[i]``: per chunk (its shift), the moves of
    the bits set in each value of the chunk, in bit order."""
    tables = []
    for shift in range(0, len(moves), _CHUNK):
        table: list[tuple[Move, ...]] = [()]
        for value in range(1, 1 << _CHUNK):
            low = value & -value
            bit = shift + low.bit_length() - 1
            rest = table[value ^ low]
            table.append((moves[bit], *rest) if bit < len(moves) else rest)
        tables.append((shift, tuple(table)))
    return tuple(tables)


def _text_tables(tables: MoveTables) -> TextTables:
    """``tables`` with each move's text in its place."""
    return tuple(
        (shift, tuple(tuple(_MOVE_TEXTS[move] for move in moves) for moves in table))
        for shift, table in tables
    )


def _spread_tables() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Per chunk of cells (its shift): the neighbours of the cells set in each value."""
    tables = []
    for shift in range(0, _CELL_COUNT, _CHUNK):
        table = [0]
        for value in range(1, 1 << _CHUNK):
            low = value & -value
            cell = shift + low.bit_length() - 1
            near = _NEIGHBOUR_MASKS[cell] if cell < _CELL_COUNT else 0
            table.append(table[value ^ low] | near)
        tables.append((shift, tuple(table)))
    return tuple(tables)


_MOVE_TEXTS: dict[Move, str] = {
    move: move_text(move) for move in (*_SINGLE_MOVES, *_PAIR_MOVES.values())
}
"""The text of every canonical move, for the legal move texts of :func:`seat_moves`."""
_OPTIONS_TEXT: dict[str, str] = {
    formation: options_text(Options(formation)) for formation in FORMATIONS
}
"""The flags of each formation (the only option), for to_data."""
_SINGLE_TABLES = _move_tables(_SINGLE_MOVES)
_SPREAD_TABLES = _spread_tables()
_SHAPE_MASKS: dict[tuple[int, ...], int] = {
    move.cells: sum(1 << cell for cell in move.cells)
    for move in (*_SINGLE_MOVES, *_PAIR_MOVES.values())
}
"""The mask of every well-shaped move (spec §4), keyed by its cells."""
_BASE_TRIANGLE_MASK = (1 << 6 * len(tiling.BASE_NAMES)) - 1
_SQUARE_SPREAD_TABLES = tuple(
    (shift, table) for shift, table in _SPREAD_TABLES if (_CHUNK_MASK << shift) & _SQUARE_MASK
)
_FIRSTS = sum(1 << 6 * base for base in range(len(tiling.BASE_NAMES)))
"""Triangle 1 of every base."""
_SIXTHS = _FIRSTS << 5
"""Triangle 6 of every base."""
_PAIR_OF_BIT: tuple[Move, ...] = tuple(
    _PAIR_MOVES[(min(a, b), max(a, b))]
    for ring in tiling.BASE_TRIANGLES
    for a, b in zip(ring, ring[1:] + ring[:1], strict=True)
)
"""The pair move that bit 6*base + k stands for: triangles k and k+1 (mod 6) of the base."""
_PAIR_BITS: dict[Move, int] = {move: 1 << bit for bit, move in enumerate(_PAIR_OF_BIT)}
_PAIR_MASK_OF_BIT: dict[int, int] = {
    1 << bit: _SHAPE_MASKS[move.cells] for bit, move in enumerate(_PAIR_OF_BIT)
}
_PAIR_TABLES = _move_tables(_PAIR_OF_BIT)
_SINGLE_TEXT_TABLES = _text_tables(_SINGLE_TABLES)
_PAIR_TEXT_TABLES = _text_tables(_PAIR_TABLES)
_BASE_COUNT = len(tiling.BASE_NAMES)

_HOLDS: tuple[bool, ...] = tuple(
    any(all(pattern >> ((k + i) % 6) & 1 for i in range(3)) for k in range(6))
    for pattern in range(64)
)
"""Whether a base's six-bit triangle pattern has three cyclically consecutive pieces."""


def _formation_table(name: str) -> tuple[bool, ...]:
    """For every set of held bases (a 7-bit mask, bit 0 = A), whether it wins (spec §9)."""
    non_adjacent = [
        (1 << a) | (1 << b)
        for a in range(_BASE_COUNT)
        for b in range(a + 1, _BASE_COUNT)
        if b not in tiling.BASE_NEIGHBOURS[a]
    ]
    triples = [
        (1 << a) | (1 << b) | (1 << c)
        for a, b, c in itertools.combinations(range(_BASE_COUNT), 3)
        if b not in tiling.BASE_NEIGHBOURS[a]
        and c not in tiling.BASE_NEIGHBOURS[a]
        and c not in tiling.BASE_NEIGHBOURS[b]
    ]
    opposite = [
        (1 << a) | (1 << b) for a, b in enumerate(tiling.OPPOSITE) if b is not None and a < b
    ]
    centre = 1 << tiling.BASE_NAMES.index("D")
    wanted = {
        "non_adj_3": triples,
        "non_adj_2": non_adjacent,
        "opposite": opposite,
        "y": [centre | t for t in triples],
    }
    table = []
    for held in range(1 << _BASE_COUNT):
        if name.startswith("any_"):
            table.append(bin(held).count("1") >= int(name[4:]))
        else:
            table.append(any(held & w == w for w in wanted[name]))
    return tuple(table)


_WINS: dict[str, tuple[bool, ...]] = {name: _formation_table(name) for name in FORMATIONS}


def _minimal_wins(table: tuple[bool, ...]) -> tuple[int, ...]:
    """The winning sets of bases (7-bit masks) none of whose proper subsets wins."""
    return tuple(
        held
        for held, wins in enumerate(table)
        if wins and not any(table[held & ~(1 << b)] for b in range(_BASE_COUNT) if held >> b & 1)
    )


_MINIMAL_WINS: dict[str, tuple[int, ...]] = {
    name: _minimal_wins(_WINS[name]) for name in FORMATIONS
}


def _window_progress(own: int, opp: int) -> int:
    """A base's progress for the side with triangles ``own`` (six bits) against ``opp``: the
    most of its pieces in three cyclically consecutive triangles free of the opponent's, -1
    where every such run holds an opponent's piece."""
    best = -1
    for k in range(6):
        window = sum(1 << (k + i) % 6 for i in range(3))
        if not window & opp:
            best = max(best, (window & own).bit_count())
    return best


_WINDOW_PROGRESS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_window_progress(own, opp) for opp in range(64)) for own in range(64)
)
"""_window_progress for every pair of six-bit patterns."""


def _holds_in_one_move(own: int, opp: int) -> bool:
    """Whether one move, a triangle or two neighbouring ones, on a base whose six-bit
    patterns are ``own`` and ``opp`` gives the side with ``own`` three consecutive triangles."""
    empty = 63 & ~own & ~opp
    placements = [1 << k for k in range(6)] + [1 << k | 1 << (k + 1) % 6 for k in range(6)]
    return any(placed & empty == placed and _HOLDS[own | placed] for placed in placements)


_HOLDS_IN_ONE_MOVE: tuple[tuple[bool, ...], ...] = tuple(
    tuple(_holds_in_one_move(own, opp) for opp in range(64)) for own in range(64)
)
"""_holds_in_one_move for every pair of six-bit patterns."""


def _progress(own: int, opp: int, formations: tuple[int, ...]) -> int:
    """The side's progress towards its nearest formation (see :func:`evaluate`)."""
    per_base = [
        _WINDOW_PROGRESS[own >> 6 * base & 63][opp >> 6 * base & 63] for base in range(_BASE_COUNT)
    ]
    best = 0
    for formation in formations:
        total = 0
        for base in range(_BASE_COUNT):
            if formation >> base & 1:
                progress = per_base[base]
                if progress < 0:
                    total = -1
                    break
                total += progress
        best = max(best, total)
    return best


def _check_shape(cells: tuple[int, ...], first: bool) -> int:
    """The mask of a well-shaped move (spec §4 steps 1-4); raises IllegalMoveError."""
    if not 1 <= len(cells) <= 2 or not all(
        isinstance(c, int) and 0 <= c < _CELL_COUNT for c in cells
    ):
        raise IllegalMoveError("a move is one cell or two cells of the board (unknown-cell)")
    if len(cells) == 2 and cells[0] == cells[1]:
        raise IllegalMoveError("the same cell is given twice (same-cell-twice)")
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    if first and (len(cells) != 1 or not mask & _TRIANGLE_MASK):
        raise IllegalMoveError(
            "the first move is one piece on a triangle (first-move-not-single-triangle)"
        )
    if len(cells) == 2:
        if mask & _TRIANGLE_MASK != mask:
            raise IllegalMoveError("both pieces of a pair go on triangles (pair-not-triangles)")
        if (min(cells), max(cells)) not in _PAIR_INDEX:
            raise IllegalMoveError(
                "the two triangles of a pair must share an edge (pair-not-adjacent)"
            )
    return mask


def _group(start: int, stones: int) -> int:
    """The group of ``stones`` (a mask) that contains cell ``start``."""
    group = 1 << start
    stack = [start]
    neighbours = _NEIGHBOUR_MASKS
    while stack:
        fresh = neighbours[stack.pop()] & stones & ~group
        while fresh:
            low = fresh & -fresh
            group |= low
            stack.append(low.bit_length() - 1)
            fresh ^= low
    return group


def _border(mask: int) -> int:
    """Every cell next to a cell of ``mask`` and not in it."""
    border = 0
    rest = mask
    neighbours = _NEIGHBOUR_MASKS
    while rest:
        low = rest & -rest
        border |= neighbours[low.bit_length() - 1]
        rest ^= low
    return border & ~mask


def _split(stones: int) -> Chains:
    """The groups of ``stones`` with their borders."""
    found = []
    while stones:
        group = _group((stones & -stones).bit_length() - 1, stones)
        stones ^= group
        found.append((group, _border(group)))
    return tuple(found)


def _chains(state: State) -> tuple[Chains, Chains]:
    """Both seats' groups; computed from the pieces once for a state that lacks them."""
    chains = state.chains
    if chains is None:
        chains = (_split(state.pieces[0]), _split(state.pieces[1]))
        state.chains = chains  # a cache of derived data, not a change
    return chains


def _resolve(
    own: int, opp: int, own_chains: Chains, opp_chains: Chains, mask: int
) -> tuple[int, int, Chains, Chains, int, int] | None:
    """Place ``mask`` for ``own``, remove dead opponent groups, refuse suicide (spec §5).

    Returns (own, opp, own chains, opp chains, the mover's new group, captured cells), or
    None when the mover's new group has no freedom.
    """
    own |= mask
    empty = _FULL ^ own ^ opp
    group = mask
    border = _border(mask)
    kept = []
    for chain in own_chains:
        if chain[1] & mask:
            group |= chain[0]
            border |= chain[1]
        else:
            kept.append(chain)
    border &= ~group
    captured = 0
    survivors = []
    for chain in opp_chains:
        if chain[1] & mask and not chain[1] & empty:
            captured |= chain[0]
        else:
            survivors.append(chain)
    if captured:
        opp ^= captured
        empty |= captured
    elif not border & empty:
        return None
    kept.append((group, border))
    return own, opp, tuple(kept), tuple(survivors) if captured else opp_chains, group, captured


def _legal(
    own: int, opp: int, own_chains: Chains, opp_chains: Chains, first: bool, banned: Move | None
) -> list[Move]:
    """The legal moves for the side owning ``own``: singles by cell, then pairs by base,
    each base clockwise from its pair of triangles 1 and 2 (see :func:`_legal_bits`)."""
    singles, pairs = _legal_bits(own, opp, own_chains, opp_chains, first, banned)
    moves: list[Move] = []
    for shift, single_moves in _SINGLE_TABLES:
        chunk = singles >> shift & _CHUNK_MASK
        if chunk:
            moves += single_moves[chunk]
    for shift, pair_moves in _PAIR_TABLES:
        chunk = pairs >> shift & _CHUNK_MASK
        if chunk:
            moves += pair_moves[chunk]
    return moves


def _legal_texts_of(
    own: int, opp: int, own_chains: Chains, opp_chains: Chains, first: bool, banned: Move | None
) -> list[str]:
    """The texts of :func:`_legal`'s moves, in its order, read from tables of texts (the
    server asks for both seats' moves at every move)."""
    singles, pairs = _legal_bits(own, opp, own_chains, opp_chains, first, banned)
    texts: list[str] = []
    for shift, single_texts in _SINGLE_TEXT_TABLES:
        chunk = singles >> shift & _CHUNK_MASK
        if chunk:
            texts += single_texts[chunk]
    for shift, pair_texts in _PAIR_TEXT_TABLES:
        chunk = pairs >> shift & _CHUNK_MASK
        if chunk:
            texts += pair_texts[chunk]
    return texts


def _legal_bits(
    own: int, opp: int, own_chains: Chains, opp_chains: Chains, first: bool, banned: Move | None
) -> tuple[int, int]:
    """The legal moves for the side owning ``own`` as two masks: the cells of its legal
    singles, and the bits of its legal pairs (bit 6*base + k: see ``_PAIR_OF_BIT``).

    A cell or pair with an empty neighbour is always legal; for one without, the groups
    around it decide: a group of the mover keeping another freedom, or an opponent group
    losing its last one (spec §5).  Masks are read through tables of chunks of cells, so
    the work grows with the number of chunks of the board rather than with its cells.
    """
    empty = _FULL ^ own ^ opp
    candidates = empty
    banned_pair = None
    if banned is not None:
        if len(banned.cells) == 1:
            candidates &= ~(1 << banned.cells[0])
        else:
            banned_pair = _PAIR_MOVES.get((banned.cells[0], banned.cells[1]))
    if first:
        candidates &= _TRIANGLE_MASK
    near_empty = 0
    for shift, table in _SPREAD_TABLES:
        near_empty |= table[empty >> shift & _CHUNK_MASK]
    hard = candidates & ~near_empty
    candidates &= near_empty
    if hard:
        candidates |= hard & _playable(own_chains, opp_chains, empty, hard)
    if first:
        return candidates, 0
    # Pairs by bit 6*base + k: triangles k and k+1 (mod 6) of the base, as in _PAIR_BITS.
    triangles = empty & _BASE_TRIANGLE_MASK
    square_free = 0
    empty_squares = empty & _SQUARE_MASK
    for shift, table in _SQUARE_SPREAD_TABLES:
        square_free |= table[empty_squares >> shift & _CHUNK_MASK]
    square_free &= _BASE_TRIANGLE_MASK
    following = _following(triangles)
    pairs = triangles & following
    if banned_pair is not None:
        pairs &= ~_PAIR_BITS[banned_pair]
    hard = pairs & ~(_preceding(triangles) | _following(following) | square_free)
    hard &= ~_following(square_free)
    if hard:
        pairs ^= hard
        while hard:
            low = hard & -hard
            hard ^= low
            if _pair_playable(own_chains, opp_chains, empty, _PAIR_MASK_OF_BIT[low]):
                pairs |= low
    return candidates, pairs


def _playable(own_chains: Chains, opp_chains: Chains, empty: int, hard: int) -> int:
    """Which of the ``hard`` cells (no empty neighbour) the mover may still fill.

    One is playable when it is a freedom of a group of the mover that has another freedom,
    or the last freedom of an opponent group (filling it captures).
    """
    playable = 0
    for _, border in own_chains:
        if border & hard:
            free = border & empty
            if free.bit_count() > 1:
                playable |= free
    for _, border in opp_chains:
        if border & hard:
            free = border & empty
            if free.bit_count() == 1:
                playable |= free
    return playable


def _pair_playable(own_chains: Chains, opp_chains: Chains, empty: int, pair: int) -> bool:
    """Whether a pair without empty neighbours joins a group of the mover that keeps a
    freedom, or takes the last freedoms of an opponent group."""
    outside = empty & ~pair
    for _, border in own_chains:
        if border & pair and border & outside:
            return True
    for _, border in opp_chains:
        if border & pair and not border & outside:
            return True
    return False


def _following(mask: int) -> int:
    """Base triangles rotated within their base: bit k is set iff triangle k+1 (mod 6) is."""
    return (mask >> 1) & ~_SIXTHS | (mask & _FIRSTS) << 5


def _preceding(mask: int) -> int:
    """Base triangles rotated within their base: bit k is set iff triangle k-1 (mod 6) is."""
    return (mask << 1) & ~_FIRSTS & _BASE_TRIANGLE_MASK | (mask & _SIXTHS) >> 5


def _held(stones: int) -> int:
    """The bases (7-bit mask, bit 0 = A) where ``stones`` has three consecutive triangles."""
    held = 0
    holds = _HOLDS
    for base in range(_BASE_COUNT):
        if holds[stones >> (6 * base) & 63]:
            held |= 1 << base
    return held


def _base_letters(held: int) -> str:
    return ", ".join(tiling.BASE_NAMES[b] for b in range(_BASE_COUNT) if held >> b & 1)


def _cell_of(bit: int) -> int:
    return bit.bit_length() - 1


def _cells(mask: int) -> list[int]:
    """The cells of ``mask``, ascending (one step per cell held, not per cell of the board)."""
    cells = []
    while mask:
        low = mask & -mask
        cells.append(low.bit_length() - 1)
        mask ^= low
    return cells


def _labels(mask: int) -> list[str]:
    return [tiling.LABELS[cell] for cell in _cells(mask)]


def _mask(labels: list[str]) -> int:
    mask = 0
    for label in labels:
        cell = tiling.CELL_IDS.get(label)
        if cell is None:
            raise ValueError(f"there is no cell {label!r}")
        mask |= 1 << cell
    return mask


def _seat(name: str) -> Seat:
    if name not in SEAT_NAMES:
        raise ValueError(f"unknown seat {name!r}")
    return Seat(SEAT_NAMES.index(name))


def _move_or_none(text: str | None) -> Move | None:
    return None if text is None else parse_move(State(Options()), text)


_CELLS_DATA: list[dict[str, object]] = [
    {
        "cell": tiling.LABELS[cell],
        "shape": tiling.SHAPES[cell],
        "base": tiling.BASE_NAMES[min(tiling.CELL_BASES[cell])]
        if tiling.SHAPES[cell] == tiling.BASE_TRIANGLE
        else None,
        "x": round(tiling.CENTROIDS[cell][0], 4),
        "y": round(-tiling.CENTROIDS[cell][1], 4) + 0.0,
        "points": [[round(x, 4) + 0.0, round(-y, 4) + 0.0] for x, y in tiling.POLYGONS[cell]],
    }
    for cell in range(_CELL_COUNT)
]
_BASES_DATA: list[dict[str, object]] = [
    {"base": name, "x": round(x, 4) + 0.0, "y": round(-y, 4) + 0.0}
    for name, (x, y) in zip(tiling.BASE_NAMES, tiling.BASE_CENTRES, strict=True)
]
