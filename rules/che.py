"""Che: place Truchet tiles on an unbounded plane and close a region (spec ``docs/rules/che.md``).

Pure rules behind the common API of :mod:`rules.api`; imports only :mod:`rules.api`,
:mod:`rules.geometry.plane` (cells, vertices, the checkerboard) and :mod:`rules.geometry.graph`
(floods).

Model (spec §2-§6).  A tile is a letter ``a``-``d`` on a cell (letter codes 0-3).  Every grid
vertex has one colour, a fixed checkerboard set by the first tile (§3.2), so a cell takes only
two letters: one Light-dominant, one Dark-dominant (§3.3) and the real choice is the dominant
colour.  A tile's *band* joins its two corners of the dominant colour; its caps join nothing.
Regions are the components of the graph whose nodes are vertices (split in two where only two
diagonally opposite cells are occupied) and whose edges are bands (§6.2); a region's size is
its number of bands, and it is closed when all its vertices have four tiles around them.

Notation (§4).  A placement is ``letter(x,y)``; a move is its placements joined by ``,`` (in
canonical order unless written otherwise), a tile move ``N-letter(x,y)``.
:func:`parse_move` also accepts pbmserv position numbers (``d3,a2``): the empty cells next to
a tile, numbered in reading order on the board at the start of the turn.  Placements are
validated one at a time, in the order written, on the board that holds the earlier ones, and
the game is judged after every tile (§5.2, §7.2).

Listing (§4.4).  A turn of two tiles has about (2K)^2 / 2 legal moves for K candidate cells.
Whether a pair is playable, and in which order, depends only on which single tiles decide the
game on their own, so :func:`legal_moves` builds the moves of two cells once, in rows by
first cell that every game shares (``_SHARED``, which drops the pairs used longest ago when
it is full), and from then on only looks them up; a pair move is one object (see
:class:`Move`).  A test checks the list against a brute force over every ordered list of
placements.

For the bots, the module supplies the optional evaluation hook (:class:`rules.api.Evaluation`):
:func:`evaluate` counts the regions each side could close within a turn or two, and
:data:`EVALUATED_PLIES` asks a search to value the positions it reaches without random plies.

Decisions where the spec leaves a choice or where this module departs from it:

* A move is a *set* of placements (§4.4).  Its canonical order is the first order, in reading
  order of the cells, in which it can be played: a later tile may need an earlier one as its
  neighbour, and no tile but the last may decide the game.  Listings name each set once, in
  that order, and two moves placing the same tiles are equal.  :func:`parse_move` keeps any
  other playable order as written (``b3,c2`` is ``c(-1,0),b(1,0)`` written
  ``b(1,0),c(-1,0)``), and :func:`play` plays the tiles in that order; an order that cannot be
  played is kept as typed, so :func:`play` names what is wrong with it (C7b: "decided after
  placement 1").
* Tiles are numbered in the order their player wrote them (§4.2, §5.2), as pbmserv does, so a
  pbmserv record that moves "tile 2" moves the tile its players meant: Dark's
  ``b(1,0),b(-1,0)`` numbers ``b(1,0)`` 2 and ``b(-1,0)`` 3 (the spec's C13 cases), and the
  move's record keeps the order written, so replaying it numbers the tiles alike.
* Two flags that set one option differently (``-single -triples``, ``-tie_none -tie_move``)
  are an error naming both, as for every game: an error is clearer than a silent choice.
  Options that can have no effect are errors too:
  ``-num_free``/``-free_corner`` without tile movement (``-move_anytime`` or ``-tie_move``),
  ``-adjacent`` with one tile per turn, and an end-of-pool rule with an unlimited pool.
* ``-placements`` accepts 1..9 (pbmserv sets only p >= 1; legal move lists grow as the p-th
  power of the frontier).  ``-num_tiles=999`` is stored as ``-1`` (unlimited).
* ``-adjacent`` asks that every tile of a turn after the first touch an earlier tile of the
  turn, in the order written (§5.2, rule 6); so the turn's tiles form one orthogonally
  connected set, and an order in which a tile touches only later ones is refused.
* The draw after 100 movement turns (§9) counts any unbroken run of tile-move turns, with
  ``-move_anytime`` too, so no game can run for ever.
* :func:`scores` gives the largest region sizes (Light, Dark) once the game has ended because
  the tiles ran out (under ``-tie_largest_wins``, ``-tie_largest_loses`` or ``-tie_none``), and
  None otherwise.
* Coordinates are limited to ``|x|, |y| <=`` :data:`rules.geometry.plane.LIMIT`.

``to_data(state)`` is a dict:

* ``game`` ``"che"``; ``options`` the flag text; ``turn`` the turn about to be played (1 for
  the opening); ``quota`` the tiles to place this turn (0 when only tile moves remain);
  ``supply`` tiles left (-1 unlimited); ``to_move`` ``"light"``/``"dark"`` or None;
  ``last_move`` text or None; ``last`` the numbers of the tiles placed or moved last turn;
  ``movement_turns`` the current run of tile-move turns; ``scores`` ``[light, dark]`` or None;
  ``outcome`` None or ``{"winner": "light"|"dark"|None, "reason": str}``.
* ``tiles``: one ``{"number", "tile", "x", "y", "dominant", "corners", "band"}`` per tile, in
  number order.  The tile is drawn in the unit square with top-left corner (x, y), y pointing
  down; ``corners`` gives the colours (``"light"``/``"dark"``) of its corners NW, NE, SE, SW;
  ``band`` is ``"nw-se"`` or ``"ne-sw"``, the two corners its dominant band joins (each cap is
  a quarter disc of radius 1/2 around one of the other two corners).
* ``candidates``: one ``{"position", "x", "y", "tiles"}`` per empty cell where a tile may go,
  ``tiles`` the two letters that fit there (Light-dominant first).
* ``bounds``: ``{"min_x", "min_y", "max_x", "max_y"}`` over tiles and candidates (cells).
* ``tile_pictures``: per letter, its dominant colour, the colours of its corners NW, NE, SE,
  SW and its band, as a tile of that letter is drawn wherever it goes.
* ``explanation`` (:func:`rules.api.explanation`) once the game is over: the closed regions
  (or, under the New Rules, the regions too large), or when the tiles ran out the largest
  region of each colour; each with its band cells (``cells``, ``"x,y"``), its bands
  (``links``, corner to corner), its vertices (``points``) and its size in bands.

:func:`seat_moves` gives a seat its moves apart from this data.  The seat to move gets every
legal move text when there are at most 300, else the legal moves as blocks
(:func:`rules.api.move_blocks`), or none where a turn places more than two tiles (too many
to send, and no blocks to share).  A turn of two tiles has one block of every non-deciding
tile (``parts[0]``) with every tile (``parts[1]``), which also yields two tiles on one cell
(not moves: drop them), a block per cell of its non-deciding tiles with the tiles of the
cells that touch only it, and the deciding tiles alone; a tile move is ``N-placement``, a
block per tile.  Each move of a block is written in an order that can be played, which may
not be the canonical one (:func:`parse_move` takes any playable order).  The seat that waits
gets its moves as blocks, as if the next turn were its own (none on the opening or where a
turn places more than two tiles).

:func:`from_data` reads ``options``, ``tiles`` (number, tile, x, y), ``turn``, ``supply``,
``last``, ``last_move``, ``movement_turns``, ``scores`` and ``outcome``; the rest is derived.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import chain, islice
from operator import itemgetter
from typing import Final, TypeAlias, TypeVar

from rules.api import (
    Flag,
    IllegalMoveError,
    InvalidMoveError,
    OptionsError,
    Outcome,
    PlainData,
    Seat,
    check_options,
    explained_group,
    explanation,
    move_blocks,
    options_flags_text,
    options_from_flags,
    outcome_data,
)
from rules.geometry import plane
from rules.geometry.graph import flood
from rules.geometry.plane import LIMIT, STRIDE, CellId, VertexId, cells_around, corners, neighbours

NAME = "che"
SEAT_NAMES = ("light", "dark")

LETTERS = "abcd"
"""Tile letters by code: a Front-Left, b Front-Right, c Back-Left, d Back-Right (§2.2)."""
LIGHT = 0
DARK = 1
"""Colours; a colour's owner is the seat with the same number (Light moves first)."""
COLOUR_NAMES = ("light", "dark")

UNLIMITED = -1
"""``supply`` and ``num_tiles`` of an unlimited pool."""
MOVEMENT_TURN_LIMIT = 100
"""A run of this many tile-move turns without a decision is a draw (§9)."""
MAX_PLACEMENTS = 9
LEGAL_LIST_LIMIT = 300
""":func:`seat_moves` lists the legal moves as texts when there are at most this many."""


class Tie(StrEnum):
    """What happens when the pool runs out with no decision (§8)."""

    LARGEST_WINS = "largest_wins"
    LARGEST_LOSES = "largest_loses"
    NONE = "none"
    MOVE = "move"


FLAGS: Sequence[Flag] = (
    Flag(
        "num_tiles",
        "num_tiles",
        None,
        1,
        998,
        special=(-1, 999),
        help="tiles in the pool (default 48; -1 or 999 unlimited)",
        names=((UNLIMITED, "unlimited"),),
    ),
    Flag("placements", "placements", None, 1, MAX_PLACEMENTS, help="tiles per turn (default 2)"),
    Flag("single", "placements", 1, help="one tile per turn"),
    Flag("pairs", "placements", 2, help="two tiles per turn after the opening (default)"),
    Flag("triples", "placements", 3, help="three tiles per turn after the ramp 1, 2"),
    Flag("adjacent", "adjacent", True, help="the tiles of a turn must touch each other"),
    Flag("nonadjacent", "adjacent", False, help="the tiles of a turn need not touch (default)"),
    Flag("tie_largest_wins", "tie", Tie.LARGEST_WINS, help="pool out: largest region wins"),
    Flag("tie_largest_loses", "tie", Tie.LARGEST_LOSES, help="pool out: largest region loses"),
    Flag("tie_none", "tie", Tie.NONE, help="pool out: the game is a draw"),
    Flag("tie_move", "tie", Tie.MOVE, help="pool out: move one tile each turn"),
    Flag("move_anytime", "move_anytime", True, help="a tile may be moved instead of placing"),
    Flag("no_move_anytime", "move_anytime", False, help="no tile moves before the pool is out"),
    Flag("num_free", "num_free", None, 0, 4, help="free sides a tile needs to be moved (1)"),
    Flag("free_corner", "free_corner", True, help="a tile needs a free corner to be moved"),
    Flag(
        "group_area",
        "group_area",
        None,
        1,
        None,
        help="New Rules: lose at a group of n",
        names=((0, "off"),),
    ),
    Flag(
        "group_extent",
        "group_extent",
        None,
        1,
        None,
        help="New Rules: lose at extent n",
        names=((0, "off"),),
    ),
)


@dataclass(frozen=True, slots=True)
class Options:
    """The flags of a Che game (spec §11); pbmserv defaults."""

    num_tiles: int = 48
    placements: int = 2
    adjacent: bool = False
    tie: Tie = Tie.LARGEST_WINS
    move_anytime: bool = False
    num_free: int = 1
    free_corner: bool = False
    group_area: int = 0
    group_extent: int = 0

    def __post_init__(self) -> None:
        if self.num_tiles == 999:
            object.__setattr__(self, "num_tiles", UNLIMITED)
        check_options(self, FLAGS)
        movement = self.move_anytime or self.tie is Tie.MOVE
        if self.num_free != 1 and not movement:
            raise OptionsError(
                f"option -num_free={self.num_free} needs tile movement (-move_anytime or -tie_move)"
            )
        if self.free_corner and not movement:
            raise OptionsError(
                "option -free_corner needs tile movement (-move_anytime or -tie_move)"
            )
        if self.adjacent and self.placements == 1:
            raise OptionsError("option -adjacent needs more than one tile per turn (not -single)")
        if self.num_tiles == UNLIMITED and self.tie is not Tie.LARGEST_WINS:
            raise OptionsError(f"option -tie_{self.tie} has no effect with -num_tiles=-1")

    @property
    def group_rules(self) -> bool:
        """Whether the New Rules (§10) replace the standard aim."""
        return bool(self.group_area or self.group_extent)


@dataclass(frozen=True, slots=True)
class Placement:
    """One tile put on a cell: ``tile`` is the letter, ``(x, y)`` the cell (§4.3)."""

    tile: str
    x: int
    y: int

    def __str__(self) -> str:
        return f"{self.tile}({self.x},{self.y})"


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Move:
    """A turn: tiles placed, or (``lifted`` = N) tile N moved (§4, §9).

    Made from its placements in canonical order, ``Move((a, b))``, and read through
    :attr:`placements`; two moves are equal when they place the same tiles.  A move read
    from what a player wrote in another playable order keeps that order in :attr:`written`
    (None otherwise): its tiles are numbered, and ``-adjacent`` is checked, in that order
    (§4.2, §5.2), and its record is written so.  The first two placements have slots of
    their own, the rest a tuple (shared and empty for most moves), so that a pair move is one
    object: a turn lists about 1,100 of them and keeps them between games (see
    :class:`_Row`), and a tuple per move would nearly double their memory and double the
    objects the garbage collector walks.
    """

    first: Placement | None
    second: Placement | None
    more: tuple[Placement, ...]
    lifted: int | None
    written: tuple[Placement, ...] | None = field(compare=False, hash=False)

    def __init__(
        self,
        placements: Sequence[Placement],
        lifted: int | None = None,
        written: Sequence[Placement] | None = None,
    ) -> None:
        count = len(placements)
        object.__setattr__(self, "first", placements[0] if count else None)
        object.__setattr__(self, "second", placements[1] if count > 1 else None)
        object.__setattr__(self, "more", tuple(placements[2:]))
        object.__setattr__(self, "lifted", lifted)
        object.__setattr__(self, "written", None if written is None else tuple(written))

    @property
    def placements(self) -> tuple[Placement, ...]:
        """The tiles placed, in canonical order."""
        first, second = self.first, self.second
        if first is None:
            return ()
        if second is None:
            return (first,)
        return (first, second, *self.more)

    @property
    def played(self) -> tuple[Placement, ...]:
        """The tiles placed, in the order they are played: as written."""
        written = self.written
        return self.placements if written is None else written

    def __repr__(self) -> str:
        lifted = "" if self.lifted is None else f", {self.lifted}"
        written = "" if self.written is None else f", written={self.written!r}"
        return f"Move({self.placements!r}{lifted}{written})"

    def __str__(self) -> str:
        return move_text(self)


@dataclass(slots=True, unsafe_hash=True, init=False)
class State:
    """A Che position.  ``tiles[i]`` is ``(cell, letter code)`` of tile number ``i + 1``.

    ``turn`` is the turn about to be played (1 = Light's opening); ``supply`` the tiles left
    (-1 unlimited); ``last`` the numbers of the tiles placed or moved on the previous turn.
    The fields after ``scores`` are derived and take no part in equality.

    Its fields are Final (see "Values" in :mod:`rules.api`).
    """

    options: Final[Options]
    tiles: Final[tuple[tuple[CellId, int], ...]]
    turn: Final[int]
    supply: Final[int]
    last: Final[tuple[int, ...]]
    last_move: Final[str | None]
    movement_turns: Final[int]
    outcome: Final[Outcome | None]
    scores: Final[tuple[int, int] | None]
    board: dict[CellId, int] = field(compare=False, hash=False, repr=False)
    """cell -> letter code"""
    frontier: tuple[CellId, ...] = field(compare=False, hash=False, repr=False)
    """The candidate cells of this turn in reading order: position numbers 1..K."""
    light_parity: int = field(compare=False, hash=False, repr=False)
    """The vertex parity that is Light (-1 before the first tile)."""
    masks: list[int] | None = field(default=None, compare=False, hash=False, repr=False)
    """:func:`_decisive_masks` once something asked for them (the move lists do, often twice)."""
    blocks: list[PlainData] | None = field(default=None, compare=False, hash=False, repr=False)
    """The mover's :func:`_blocks` once :func:`seat_moves` asked for them (see
    :func:`_mover_blocks`)."""

    def __init__(
        self,
        options: Options,
        tiles: tuple[tuple[CellId, int], ...],
        turn: int,
        supply: int,
        last: tuple[int, ...],
        last_move: str | None,
        movement_turns: int,
        outcome: Outcome | None,
        scores: tuple[int, int] | None,
        board: dict[CellId, int],
        frontier: tuple[CellId, ...],
        light_parity: int,
        masks: list[int] | None = None,
        blocks: list[PlainData] | None = None,
    ) -> None:
        self.options = options
        self.tiles = tiles
        self.turn = turn
        self.supply = supply
        self.last = last
        self.last_move = last_move
        self.movement_turns = movement_turns
        self.outcome = outcome
        self.scores = scores
        self.board = board
        self.frontier = frontier
        self.light_parity = light_parity
        self.masks = masks
        self.blocks = blocks


# --- the common API ----------------------------------------------------------------------


def parse_options(text: str) -> Options:
    """pbmserv flags to Options; raises OptionsError naming a bad flag."""
    return options_from_flags(Options, text, FLAGS)


@lru_cache(maxsize=256)  # to_data names the options at every move
def options_text(options: Options) -> str:
    """The flags that differ from the defaults."""
    return options_flags_text(options, FLAGS)


def new_game(options: Options) -> State:
    """The empty plane, Light to place the first tile at (0,0)."""
    return _state(options, (), 1, options.num_tiles, (), None, 0, None, None)


def to_move(state: State) -> Seat | None:
    """Light on odd turns, Dark on even ones; None once the game is over."""
    if state.outcome is not None:
        return None
    return Seat.FIRST if state.turn % 2 else Seat.SECOND


def quota(state: State) -> int:
    """Tiles to place this turn (§5.1): min(turn, placements, supply); 0 once the pool is out."""
    if state.supply == 0:
        return 0
    count = min(state.turn, state.options.placements)
    return count if state.supply == UNLIMITED else min(count, state.supply)


def legal_moves(state: State) -> Iterator[Move]:
    """Every legal move once, in canonical form: placements, then tile moves."""
    if state.outcome is not None:
        return iter(())
    count = quota(state)
    placements: Iterable[Move] = ()
    if count == 1:
        placements = _single_moves(state)
    elif count == 2:
        placements = _pair_moves(state)
    elif count > 2:
        placements = _placement_sets(state, count)
    if count == 0 or state.options.move_anytime:
        return chain(placements, _tile_moves(state))
    return iter(placements)


def random_move(state: State, rng: random.Random) -> Move | None:
    """A legal move drawn at random without listing them all, where a turn places three or
    more tiles (:class:`rules.api.MoveSampling`): the lists grow as the power of the tiles a
    turn, to tens of thousands in mid-game with ``-triples``.  The tiles are drawn one at a
    time as :func:`_placement_sets` lists them (a cell of the frontier, touching the turn's
    tiles with ``-adjacent``, and one of the two tiles that fit it), ending early where one
    decides the game; with ``-move_anytime`` a tile move is drawn as often as a placement.
    None where listing is cheap (one or two tiles a turn, or none) or the game is over."""
    if state.outcome is not None:
        return None
    count = quota(state)
    if count <= 2:
        return None
    if state.options.move_anytime and rng.random() < 0.5:
        tile_moves = list(_tile_moves(state))
        if tile_moves:
            return rng.choice(tile_moves)
    for _ in range(RANDOM_WALKS):
        drawn = _random_placements(state, count, rng)
        if drawn is not None:
            return Move(_canonical_order(state, drawn))
    listed = list(legal_moves(state))  # every walk met a dead end: a rare, cramped board
    return rng.choice(listed) if listed else None


RANDOM_WALKS = 20
"""Draws :func:`random_move` tries before it lists the moves (a draw fails only where
``-adjacent`` leaves no cell touching the turn's tiles)."""


def _random_placements(
    state: State, count: int, rng: random.Random
) -> tuple[Placement, ...] | None:
    """One playable set of placements drawn tile by tile, or None at a dead end."""
    lp = state.light_parity
    options = state.options
    mover = to_move(state)
    assert mover is not None
    board = dict(state.board)
    frontier = set(state.frontier)
    path: list[tuple[CellId, int]] = []
    while len(path) < count:
        candidates = sorted(frontier)
        if options.adjacent and path:
            placed = [c for c, _ in path]
            candidates = [c for c in candidates if _touches_any(c, placed)]
        if not candidates:
            return None
        cell = candidates[int(rng.random() * len(candidates))]
        letter = _fits(cell, lp)[int(rng.random() * 2)]
        board[cell] = letter
        path.append((cell, letter))
        if (options.group_rules or _could_close(board, cell)) and _verdict(
            board, lp, cell, options, mover
        ) is not None:
            break  # this tile decides the game: the turn ends with it
        frontier.discard(cell)
        frontier.update(other for other in neighbours(cell) if other not in board)
    return tuple(_placement(c, t) for c, t in path)


def play(state: State, move: Move) -> State:
    """The position after ``move``; raises IllegalMoveError with the reason."""
    if state.outcome is not None:
        raise IllegalMoveError("the game is over")
    if move.lifted is not None:
        return _play_tile_move(state, move)
    written = move.written
    result = _apply_placements(state, move.placements if written is None else written)
    if isinstance(result, str):
        raise IllegalMoveError(result)
    if written is not None:
        if _canonical_order(state, written) != move.placements:
            raise IllegalMoveError("the move's tiles differ from the tiles written")
    elif not _is_sorted(result.cells):
        canonical = _canonical_order(state, move.placements)
        if canonical != move.placements:
            text = ",".join(map(str, canonical))
            raise IllegalMoveError(f"write the placements in canonical order: {text}")
    return _after_placements(state, move, result)


def outcome(state: State) -> Outcome | None:
    """How the game ended, or None."""
    return state.outcome


def scores(state: State) -> tuple[int, int] | None:
    """Largest region sizes (Light, Dark) when the game ended because the tiles ran out."""
    return state.scores


EVALUATED_PLIES = 0
"""Plies a search's playouts play before they ask :func:`evaluate` (see
:func:`rules.api.evaluated_plies`): none, because a random pair of tiles usually leaves the
opponent a region to close, so a few random plies tell less than the evaluation of the
position itself.  Level 3 against level 2 (the L3-L2 match of python -m bench.bot_matches che,
20 games with seed 1 and 40 with seed 2) scored 52 of 60 with 0 plies and 36 of 60 with the
search's default of 4."""
WIN_AT_HAND = 0.9
""":func:`evaluate`'s value for the mover when a region of its colour lacks no more tiles than
it places this turn: it closes the region and wins, unless a tile it must place closes one of
the other colour too (rare)."""
DEFENCE_OVERWHELMED = 0.8
""":func:`evaluate`'s value against the mover when the waiting side has more threats (regions
it could close on its next turn) than the mover has tiles to spoil them, one tile each."""
THREAT_WEIGHT = 0.6
"""Weight of each threat of the waiting side that the mover can still spoil."""
NEAR_WEIGHTS = ((0.25, 0.15), (0.05, 0.03))
"""Weights of the regions one tile beyond a threat (mover's, waiting side's), then two tiles
beyond: the material of the next threats; the mover's count for more, as it moves first."""


def evaluate(state: State) -> float:
    """Light's prospects in [-1, 1]: the optional hook of :class:`rules.api.Evaluation`.

    Exact once the game is over.  Before, it counts for every region the empty cells around
    its vertices (its *lack*: tiles capping those cells close it, §6.2) with regions that
    touch at a split vertex taken as one, since filling the vertex joins them.  The mover wins
    at once with a region of its colour lacking at most the tiles it places; otherwise each
    region of the waiting side that it could close on its next turn is a threat the mover must
    spoil with a tile (a band that leads the region out into open space), and more threats
    than tiles lose.  The regions a tile or two beyond a threat count a little, and tanh maps
    the sum into (-1, 1).  Random play leaves a region closable nearly every turn, so a
    search that plays random games learns little from them; this says which moves leave one.
    Under the New Rules (§10) a closed region wins for the other colour, so a region is
    counted for that colour; the limits on area and extent are not looked at.  A turn that
    moves a tile (§9) counts as placing one.
    """
    result = state.outcome
    if result is not None:
        winner = result.winner
        return 0.0 if winner is None else 1.0 if winner is Seat.FIRST else -1.0
    lp = state.light_parity
    if lp < 0:
        return 0.0
    mover = Seat.FIRST if state.turn % 2 else Seat.SECOND
    tiles = max(1, quota(state))
    waiting_tiles = _next_quota(state, tiles)
    flip = 1 if state.options.group_rules else 0
    # By side (0 the mover's), the regions that lack each number of cells.
    counts = ([0] * (_LACK_COUNTED + 1), [0] * (_LACK_COUNTED + 1))
    for colour, lack in _lacks(state.board, lp):
        if lack <= _LACK_COUNTED:
            counts[0 if colour ^ flip == mover else 1][lack] += 1
    mine, theirs = counts
    if any(mine[1 : tiles + 1]):
        value = WIN_AT_HAND
    else:
        threats = sum(theirs[1 : waiting_tiles + 1])
        if threats > tiles:
            value = -DEFENCE_OVERWHELMED
        else:
            lead = -THREAT_WEIGHT * threats
            for beyond, (mine_weight, theirs_weight) in enumerate(NEAR_WEIGHTS, 1):
                lack = waiting_tiles + beyond
                if lack <= _LACK_COUNTED:
                    lead += mine_weight * mine[lack] - theirs_weight * theirs[lack]
            value = math.tanh(lead)
    return value if mover is Seat.FIRST else -value


_LACK_COUNTED = 6
"""Regions that lack more cells than this are not counted (nor are they near closing)."""


def _next_quota(state: State, placed: int) -> int:
    """Tiles the waiting side places on its next turn, once the mover has placed ``placed``."""
    count = min(state.turn + 1, state.options.placements)
    supply = state.supply
    if supply != UNLIMITED:
        count = min(count, supply - placed)
    return max(1, count)


def _lacks(board: dict[CellId, int], light_parity: int) -> list[tuple[int, int]]:
    """(colour, empty cells around its vertices) of every region, regions that meet at a
    split vertex taken as one (see :func:`evaluate`)."""
    parent: dict[VertexId, VertexId] = {}

    def root(vertex: VertexId) -> VertexId:
        while parent[vertex] != vertex:
            parent[vertex] = parent[parent[vertex]]  # halve the path
            vertex = parent[vertex]
        return vertex

    for cell, letter in board.items():
        nw, ne, se, sw = cell, cell + 1, cell + STRIDE + 1, cell + STRIDE
        for vertex in (nw, ne, se, sw):
            if vertex not in parent:
                parent[vertex] = vertex
        one, other = (nw, se) if _LEFT[letter] else (ne, sw)
        one, other = root(one), root(other)
        if one != other:
            parent[one] = other
    empty: dict[VertexId, set[CellId]] = {}
    for vertex in parent:
        cells = empty.setdefault(root(vertex), set())
        for cell in (vertex - STRIDE - 1, vertex - STRIDE, vertex, vertex - 1):
            if cell not in board:
                cells.add(cell)
    return [(_vertex_colour(top, light_parity), len(cells)) for top, cells in empty.items()]


def parse_move(state: State, text: str) -> Move:
    """Placements (``d3,a2``, ``b(1,0),c(-1,0)``) or a tile move (``6-c10``) to a Move.

    Position numbers refer to the candidates at the start of the turn (§4.1).  Placements
    written in a playable order other than the canonical one keep it as :attr:`Move.written`
    (the tiles are numbered in the order written, §4.2); an unplayable order is kept as it
    is, so that :func:`play` says what is wrong with it.  Raises InvalidMoveError.
    """
    compact = "".join(text.split()).lower()
    tile_move = _TILE_MOVE_RE.fullmatch(compact)
    if tile_move is not None:
        placement = _parse_placement(state, tile_move.group(2))
        return Move((placement,), int(tile_move.group(1)))
    if not _PLACEMENTS_RE.fullmatch(compact):
        raise InvalidMoveError(
            f"cannot read {text!r}: write tiles as letter+position, "
            "like d3,a2 or b(1,0),c(-1,0), or a tile move like 6-c10"
        )
    placements = tuple(
        _parse_placement(state, match.group(0)) for match in _PLACEMENT_RE.finditer(compact)
    )
    if len(placements) > 1 and state.outcome is None:
        typed = _apply_placements(state, placements)
        if not isinstance(typed, str):
            canonical = _canonical_order(state, placements)
            if canonical != placements:
                return Move(canonical, written=placements)
    return Move(placements)


def move_text(move: Move) -> str:
    """The move's text: ``c(-1,0),b(1,0)`` or ``6-c(2,-1)`` (§4.4), canonical unless its
    player wrote the tiles in another playable order, which the record keeps (the order
    numbers the tiles, §4.2)."""
    text = ",".join(map(str, move.played))
    return text if move.lifted is None else f"{move.lifted}-{text}"


def to_data(state: State) -> PlainData:
    """Plain data for storage and drawing (shape in the module docstring)."""
    lp = state.light_parity
    tiles = [_tile_data(number, tile, lp) for number, tile in enumerate(state.tiles, 1)]
    candidates = [
        _candidate_data(position, cell, lp) for position, cell in enumerate(state.frontier, 1)
    ]
    return {
        "game": NAME,
        "options": options_text(state.options),
        "turn": state.turn,
        "quota": quota(state),
        "supply": state.supply,
        "to_move": _to_move_name(state),
        "last_move": state.last_move,
        "last": list(state.last),
        "movement_turns": state.movement_turns,
        "scores": None if state.scores is None else list(state.scores),
        "outcome": outcome_data(state.outcome, SEAT_NAMES),
        "tiles": tiles,
        "candidates": candidates,
        "bounds": _bounds(state),
        "tile_pictures": _TILE_PICTURES,
        "explanation": None if state.outcome is None else _explanation(state),
    }


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The moves ``seat`` could make, as blocks (see the module docstring): the hook of
    :meth:`rules.api.GameRules.seat_moves`."""
    mover = to_move(state)
    if mover is None:
        return []
    if seat != mover:
        count = quota(state)
        if count > 0 and not state.options.move_anytime and quota(_waiting(state)) == count:
            return _mover_blocks(state)
        return _premoves(state)
    if not _surely_more_moves(state, LEGAL_LIST_LIMIT):
        first = list(islice(legal_moves(state), LEGAL_LIST_LIMIT + 1))
        if len(first) <= LEGAL_LIST_LIMIT:
            return [move_text(m) for m in first]
    return _mover_blocks(state)


def data_changes(before: State, after: State, before_data: PlainData) -> list[PlainData]:
    """The operations that turn ``before_data`` (``to_data(before)``) into ``to_data(after)``:
    the optional hook of :class:`rules.api.DataChanges`.

    The fields are compared as the states hold them and only the parts that differ are
    built: the tiles placed or moved, and the candidates whose cell changed.
    """
    if before.options != after.options:
        return [["s", [], to_data(after)]]
    ops: list[PlainData] = []
    if before.turn != after.turn:
        ops.append(["s", ["turn"], after.turn])
    if quota(before) != quota(after):
        ops.append(["s", ["quota"], quota(after)])
    if before.supply != after.supply:
        ops.append(["s", ["supply"], after.supply])
    if to_move(before) != to_move(after):
        ops.append(["s", ["to_move"], _to_move_name(after)])
    if before.last_move != after.last_move:
        ops.append(["s", ["last_move"], after.last_move])
    if before.last != after.last:
        ops.append(["s", ["last"], list(after.last)])
    if before.movement_turns != after.movement_turns:
        ops.append(["s", ["movement_turns"], after.movement_turns])
    if before.scores != after.scores:
        ops.append(["s", ["scores"], None if after.scores is None else list(after.scores)])
    if before.outcome != after.outcome:
        ops.append(["s", ["outcome"], outcome_data(after.outcome, SEAT_NAMES)])
    lp = after.light_parity
    if before.light_parity != lp:  # the opening: every corner's colour is settled
        tiles = [_tile_data(number, tile, lp) for number, tile in enumerate(after.tiles, 1)]
        ops.append(["s", ["tiles"], tiles])
        cells = after.frontier
        candidates = [_candidate_data(position, cell, lp) for position, cell in enumerate(cells, 1)]
        ops.append(["s", ["candidates"], candidates])
    else:
        _list_changes("tiles", before.tiles, after.tiles, lp, _tile_data, ops)
        _list_changes("candidates", before.frontier, after.frontier, lp, _candidate_data, ops)
    if before.tiles != after.tiles:
        bounds = _bounds(after)
        if bounds != before_data["bounds"]:
            ops.append(["s", ["bounds"], bounds])
    if before.outcome != after.outcome or (after.outcome is not None and before != after):
        explained = None if after.outcome is None else _explanation(after)
        ops.append(["s", ["explanation"], explained])
    return ops


_Item = TypeVar("_Item")


def _list_changes(
    name: str,
    was: Sequence[_Item],
    now: Sequence[_Item],
    lp: int,
    entry: Callable[[int, _Item, int], PlainData],
    ops: list[PlainData],
) -> None:
    """The operations on the list ``name`` of entries ``entry(number, item, lp)`` of the
    items ``was`` (numbered from 1) to those of ``now``, as the diff of the two lists would
    make them: the changed and the new entries, or the whole list when most of it changed."""
    kept = min(len(was), len(now))
    changed = [i for i in range(kept) if was[i] != now[i]]
    if len(changed) + max(0, len(now) - len(was)) > max(1, len(now) // 2):
        ops.append(["s", [name], [entry(i, item, lp) for i, item in enumerate(now, 1)]])
        return
    ops.extend(["s", [name, i], entry(i + 1, now[i], lp)] for i in changed)
    if len(now) < len(was):
        ops.append(["d", [name, len(now)]])
    ops.extend(["s", [name, i], entry(i + 1, now[i], lp)] for i in range(len(was), len(now)))


def _tile_data(number: int, tile: tuple[CellId, int], lp: int) -> PlainData:
    cell, letter = tile
    x, y = plane.xy(cell)
    return {
        "number": number,
        "tile": LETTERS[letter],
        "x": x,
        "y": y,
        "dominant": _DOMINANT_NAMES[letter],
        "corners": _CORNER_COLOURS[(cell & 1) ^ lp],
        "band": "nw-se" if _LEFT[letter] else "ne-sw",
    }


def _candidate_data(position: int, cell: CellId, lp: int) -> PlainData:
    x, y = plane.xy(cell)
    fits = _ANY_TILE if lp < 0 else _FIT_LETTERS[(cell & 1) ^ lp]
    return {"position": position, "x": x, "y": y, "tiles": fits}


def _bounds(state: State) -> dict[str, int]:
    """The box of the tiles and candidates (cells)."""
    xs = []
    ys = []
    for cell, _ in state.tiles:
        x, y = plane.xy(cell)
        xs.append(x)
        ys.append(y)
    for cell in state.frontier:
        x, y = plane.xy(cell)
        xs.append(x)
        ys.append(y)
    return {"min_x": min(xs), "min_y": min(ys), "max_x": max(xs), "max_y": max(ys)}


def _to_move_name(state: State) -> str | None:
    seat = to_move(state)
    return None if seat is None else SEAT_NAMES[seat]


def _blocks(state: State) -> list[PlainData] | None:
    """The legal moves as blocks (see the module docstring); None for more than two tiles."""
    count = quota(state)
    if count > 2 or (count and state.light_parity < 0):
        return None
    blocks: list[PlainData] = []
    if count == 1:
        blocks += [move_text(move) for move in _single_moves(state)]
    elif count == 2:
        blocks += _pair_blocks(state)
    if count == 0 or state.options.move_anytime:
        tile_moves = [(str(m.lifted), str(m.placements[0])) for m in _tile_moves(state)]
        blocks += move_blocks(tile_moves, "-")
    return blocks


def _mover_blocks(state: State) -> list[PlainData]:
    """:func:`_blocks` of ``state`` (none where it has none), kept on the state.

    Where the next turn places as many tiles and moves none, they are the waiting seat's
    moves too, the very same list: the tiles belong to nobody, so only the quota and the tile
    moves (a tile of the last turn stays put) tell the two turns apart; the server asks for
    both seats' moves at every move.
    """
    blocks = state.blocks
    if blocks is None:
        blocks = state.blocks = _blocks(state) or []
    return blocks


def _pair_blocks(state: State) -> list[PlainData]:
    """The moves of a turn of two tiles as blocks; the same moves as :func:`_pair_moves`."""
    lp = state.light_parity
    frontier = state.frontier
    masks = _decisive_masks(state)
    candidates = set(frontier)
    taken = state.board.keys() | candidates
    deciding: list[PlainData] = []
    free: list[str] = []
    every: list[str] = []
    joined_blocks: list[PlainData] = []
    for cell, mask in zip(frontier, masks, strict=True):
        row = _row(cell, lp)
        texts = [str(p) for p in row.firsts]
        every += texts
        mine = [text for bit, text in enumerate(texts) if not mask >> bit & 1]
        deciding += [text for bit, text in enumerate(texts) if mask >> bit & 1]
        free += mine
        if state.options.adjacent:
            seconds = [other for other in row.around if other in candidates]
        else:
            seconds = []
        seconds += [other for other in row.around if other not in taken]
        if mine and seconds:
            after = [str(p) for other in seconds for p in _row(other, lp).firsts]
            joined_blocks.append({"parts": [mine, after], "join": ","})
    if state.options.adjacent:
        return deciding + joined_blocks
    return deciding + [{"parts": [free, every], "join": ","}] + joined_blocks


def _premoves(state: State) -> list[PlainData]:
    """The moves of the seat that waits, as if the next turn were its own (none on the
    opening, nor where a turn places more than two tiles)."""
    if state.light_parity < 0:
        return []
    return _blocks(_waiting(state)) or []


def _waiting(state: State) -> State:
    """``state`` as the seat that waits would find it on its turn, the board unchanged."""
    return State(
        state.options,
        state.tiles,
        state.turn + 1,
        state.supply,
        (),
        state.last_move,
        state.movement_turns,
        None,
        None,
        state.board,
        state.frontier,
        state.light_parity,
        state.masks,
    )


def _explanation(state: State) -> PlainData:
    """Why the game ended (see the module docstring); a draw with no region shows none."""
    board = state.board
    bands = _Bands(board)
    options = state.options
    starts = ((vertex, cell) for cell in board for vertex in corners(cell))
    found = [
        (_vertex_colour(vertex, state.light_parity), region, sorted(bands.band_cells(region)))
        for vertex, region in _regions_from(bands, starts)
    ]
    shown = []
    if state.scores is not None:
        for colour in (LIGHT, DARK):
            mine = [entry for entry in found if entry[0] == colour and entry[2]]
            if mine:
                shown.append(max(mine, key=lambda entry: len(entry[2])))
    else:
        for colour, region, cells in found:
            too_large = options.group_rules and (
                (options.group_area and len(cells) >= options.group_area)
                or (options.group_extent and cells and _extent(cells) >= options.group_extent)
            )
            if too_large or _is_closed(board, region):
                shown.append((colour, region, cells))
    groups = []
    for colour, region, cells in shown:
        vertices = sorted(node if isinstance(node, int) else node[0] for node in region)
        # A region of caps only (one full vertex) lies in the four cells around it.
        held = cells or sorted(cells_around(vertices[0]))
        groups.append(
            explained_group(
                COLOUR_NAMES[colour],
                cells=["{},{}".format(*plane.xy(cell)) for cell in held],
                links=[_band_segment(cell, board[cell]) for cell in cells],
                points=[plane.xy(vertex) for vertex in vertices],
                size=len(cells),
            )
        )
    return explanation(groups)


def _band_segment(cell: CellId, letter: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The diagonal of a tile's band, from corner to corner."""
    x, y = plane.xy(cell)
    if _LEFT[letter]:
        return (x, y), (x + 1, y + 1)
    return (x + 1, y), (x, y + 1)


def _surely_more_moves(state: State, limit: int) -> bool:
    """Whether there are surely more than ``limit`` legal moves, known without listing them.

    With two tiles to place and no adjacency rule, each pair of candidates whose first cell
    (in reading order) holds no deciding tile gives four moves (see :func:`_pair_moves`).
    """
    if quota(state) != 2 or state.options.adjacent or state.light_parity < 0:
        return False
    count = len(state.frontier)
    if 2 * count * (count - 1) <= limit:
        return False
    pairs = sum(count - 1 - index for index, mask in enumerate(_decisive_masks(state)) if not mask)
    return 4 * pairs > limit


def from_data(data: PlainData) -> State:
    """The state :func:`to_data` described; raises ValueError on anything else."""
    try:
        if data["game"] != NAME:
            raise ValueError(f"not a {NAME} position: {data['game']!r}")
        options = parse_options(data["options"])
        tiles = []
        for number, tile in enumerate(data["tiles"], 1):
            letter = _LETTER_CODES.get(tile["tile"])
            if tile["number"] != number or letter is None:
                raise ValueError(f"bad tile {tile!r}")
            tiles.append((plane.cell(int(tile["x"]), int(tile["y"])), letter))
        outcome_data = data["outcome"]
        result = None
        if outcome_data is not None:
            winner = outcome_data["winner"]
            result = Outcome(
                None if winner is None else Seat(SEAT_NAMES.index(winner)),
                str(outcome_data["reason"]),
            )
        scores_data = data["scores"]
        state = _state(
            options,
            tuple(tiles),
            int(data["turn"]),
            int(data["supply"]),
            tuple(int(n) for n in data["last"]),
            None if data["last_move"] is None else str(data["last_move"]),
            int(data["movement_turns"]),
            result,
            None if scores_data is None else (int(scores_data[0]), int(scores_data[1])),
        )
    except (KeyError, TypeError, IndexError, AttributeError) as error:
        raise ValueError(f"not a {NAME} position: {error!r}") from error
    _check_position(state)
    return state


def render(state: State) -> str:
    """ASCII drawing in the style of the pbmserv help page: dots are Dark, blanks Light.

    Tiles show their numbers; empty candidate cells show their position numbers in brackets.
    """
    seat = to_move(state)
    lines = []
    if state.outcome is not None:
        winner = state.outcome.winner
        result = "a draw" if winner is None else f"{SEAT_NAMES[winner].title()} wins"
        lines.append(f"Che: game over, {result} ({state.outcome.reason})")
    else:
        assert seat is not None
        count = quota(state)
        doing = f"place {count} tile{'s' if count > 1 else ''}" if count else "move a tile"
        lines.append(f"Che: turn {state.turn}, {SEAT_NAMES[seat].title()} to {doing}")
    supply = "unlimited" if state.supply == UNLIMITED else str(state.supply)
    lines.append(f"Tiles left: {supply}; last move: {state.last_move or '-'}")
    lines.extend(_drawing(state))
    return "\n".join(lines)


# --- tiles and the checkerboard (§2-§3) ----------------------------------------------------

_LETTER_CODES = {letter: code for code, letter in enumerate(LETTERS)}
_DOMINANT = (LIGHT, LIGHT, DARK, DARK)
_LEFT = (True, False, True, False)
"""Left tiles (a, c) join NW and SE with their band; right tiles (b, d) join NE and SW."""
_NW_COLOUR = (LIGHT, DARK, DARK, LIGHT)
_FITS = ((0, 3), (1, 2))
"""By the colour of a cell's NW vertex: the letters that fit, Light-dominant first."""


def _vertex_colour(vertex: VertexId, light_parity: int) -> int:
    return (vertex & 1) ^ light_parity


def _fits(cell: CellId, light_parity: int) -> tuple[int, int]:
    """The two letters that fit a cell (§3.3), Light-dominant first."""
    return _FITS[(cell & 1) ^ light_parity]


_DOMINANT_NAMES = tuple(COLOUR_NAMES[_DOMINANT[letter]] for letter in range(4))
_CORNER_COLOURS = tuple(
    [COLOUR_NAMES[_vertex_colour(v, parity)] for v in corners(0)] for parity in (0, 1)
)
"""to_data's corner colours of a tile on a cell whose id parity xor the Light parity is the
index (shared lists: plain data that nobody mutates)."""
_FIT_LETTERS = tuple([LETTERS[c] for c in _fits(0, parity)] for parity in (0, 1))
"""to_data's two letters that fit a cell, by the same index."""
_ANY_TILE = list(LETTERS)

_TILE_PICTURES = {
    LETTERS[letter]: {
        "dominant": _DOMINANT_NAMES[letter],
        "corners": [
            _DOMINANT_NAMES[letter] if (corner in (0, 2)) == _LEFT[letter] else other
            for corner in range(4)
        ],
        "band": "nw-se" if _LEFT[letter] else "ne-sw",
    }
    for letter in range(4)
    for other in [COLOUR_NAMES[1 - _DOMINANT[letter]]]
}
"""to_data's ``tile_pictures``: a tile's band joins its two corners of the dominant colour."""


def _light_parity(tiles: Sequence[tuple[CellId, int]]) -> int:
    if not tiles:
        return -1
    cell, letter = tiles[0]
    return (cell & 1) ^ _NW_COLOUR[letter]


# --- regions (§6.2) ----------------------------------------------------------------------

_Node: TypeAlias = int | tuple[int, int]
"""A vertex, or (vertex, cell) for one cell's side of a split vertex."""


class _Bands:
    """The region graph of a board, as an adjacency for :func:`flood`."""

    __slots__ = ("board",)

    def __init__(self, board: dict[CellId, int]) -> None:
        self.board = board

    def node(self, vertex: VertexId, via: CellId) -> _Node:
        """The node at ``vertex`` that the pieces of cell ``via`` touch."""
        board = self.board
        nw = vertex - STRIDE - 1 in board
        ne = vertex - STRIDE in board
        se = vertex in board
        sw = vertex - 1 in board
        if (nw and se and not ne and not sw) or (ne and sw and not nw and not se):
            return (vertex, via)
        return vertex

    def bands_at(self, node: _Node) -> list[tuple[CellId, VertexId]]:
        """(cell, far vertex) of every band that ends at ``node``."""
        if isinstance(node, tuple):
            vertex, via = node
            cells: tuple[CellId, ...] = (via,)
        else:
            vertex = node
            cells = cells_around(vertex)
        board = self.board
        found = []
        for cell in cells:
            letter = board.get(cell)
            if letter is None:
                continue
            step = vertex - cell
            left = _LEFT[letter]
            if step == STRIDE + 1 and left:
                found.append((cell, cell))
            elif step == STRIDE and not left:
                found.append((cell, cell + 1))
            elif step == 0 and left:
                found.append((cell, cell + STRIDE + 1))
            elif step == 1 and not left:
                found.append((cell, cell + STRIDE))
        return found

    def __getitem__(self, node: _Node) -> list[_Node]:
        return [self.node(far, cell) for cell, far in self.bands_at(node)]

    def band_cells(self, region: Iterable[_Node]) -> set[CellId]:
        return {cell for node in region for cell, _ in self.bands_at(node)}


def _always(_: object) -> bool:
    return True


def _is_full(board: dict[CellId, int], vertex: VertexId) -> bool:
    return (
        vertex in board
        and vertex - 1 in board
        and vertex - STRIDE in board
        and vertex - STRIDE - 1 in board
    )


def _is_closed(board: dict[CellId, int], region: Iterable[_Node]) -> bool:
    return all(not isinstance(node, tuple) and _is_full(board, node) for node in region)


def _extent(cells: Iterable[CellId]) -> int:
    points = [plane.xy(cell) for cell in cells]
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return max(max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)


@dataclass(frozen=True, slots=True)
class Region:
    """A region of one colour: its size (bands), band cells, and whether it is closed."""

    colour: int
    size: int
    cells: frozenset[CellId]
    closed: bool


def regions(state: State) -> list[Region]:
    """Every region of the position that holds a band, plus the closed cap-only ones."""
    board = state.board
    bands = _Bands(board)
    found = []
    starts = ((vertex, cell) for cell in board for vertex in corners(cell))
    for vertex, region in _regions_from(bands, starts):
        cells = bands.band_cells(region)
        closed = _is_closed(board, region)
        if cells or closed:
            colour = _vertex_colour(vertex, state.light_parity)
            found.append(Region(colour, len(cells), frozenset(cells), closed))
    return found


def _regions_from(
    bands: _Bands, starts: Iterable[tuple[VertexId, CellId]]
) -> Iterator[tuple[VertexId, set[_Node]]]:
    """Each region met at the corners ``(vertex, cell)`` once, with the vertex it was met at."""
    seen: set[_Node] = set()
    for vertex, via in starts:
        start = bands.node(vertex, via)
        if start not in seen:
            region = flood(start, bands, _always)
            seen |= region
            yield vertex, region


def largest_regions(state: State) -> tuple[int, int]:
    """The size of the largest Light and the largest Dark region (0 when there is none)."""
    return _largest(state.board)


def _largest(board: dict[CellId, int]) -> tuple[int, int]:
    bands = _Bands(board)
    counted: set[CellId] = set()
    largest = [0, 0]
    for cell, letter in board.items():
        if cell in counted:
            continue
        start = bands.node(cell if _LEFT[letter] else cell + 1, cell)
        cells = bands.band_cells(flood(start, bands, _always))
        counted |= cells
        colour = _DOMINANT[letter]
        largest[colour] = max(largest[colour], len(cells))
    return largest[0], largest[1]


def _achieved(
    board: dict[CellId, int], light_parity: int, cell: CellId, options: Options
) -> tuple[str, str]:
    """Why (Light, Dark) achieve a win once the tile on ``cell`` is down ("" for no win).

    Spec §7.1 and §10.  Only regions touching the new tile can have changed: before it no
    region was closed and none was too large, and a tile joins regions only at its corners.
    """
    wins = ["", ""]
    if not options.group_rules:
        for vertex in corners(cell):
            if _is_full(board, vertex) and _closes(board, vertex):
                colour = _vertex_colour(vertex, light_parity)
                wins[colour] = f"a closed {COLOUR_NAMES[colour].title()} region"
        return wins[0], wins[1]
    bands = _Bands(board)
    for vertex, region in _regions_from(bands, ((corner, cell) for corner in corners(cell))):
        colour = _vertex_colour(vertex, light_parity)
        name = COLOUR_NAMES[colour].title()
        cells = bands.band_cells(region)
        if _is_closed(board, region):
            wins[1 - colour] = f"surrounded a {name} region"
        elif options.group_area and len(cells) >= options.group_area:
            wins[1 - colour] = f"a {name} group reached area {len(cells)}"
        elif options.group_extent and cells and _extent(cells) >= options.group_extent:
            wins[1 - colour] = f"a {name} group reached extent {_extent(cells)}"
    return wins[0], wins[1]


_BAND_STEPS = (
    (-STRIDE - 1, -STRIDE - 1, True),
    (-STRIDE, -STRIDE + 1, False),
    (0, STRIDE + 1, True),
    (-1, STRIDE - 1, False),
)
"""From a vertex, per cell around it (NW, NE, SE, SW): the step to the cell, the step to the
far end of a band of that cell that ends at the vertex, and whether such a band is a left
tile's."""


def _closes(board: dict[CellId, int], vertex: VertexId) -> bool:
    """Whether the region at the full ``vertex`` is closed: a search that stops at the first
    vertex with an empty cell around it (most regions are open, and found so at once)."""
    seen = {vertex}
    stack = [vertex]
    south = STRIDE
    left = _LEFT
    while stack:
        here = stack.pop()
        # ``here`` is full, so not split: every band that ends at it belongs to the region.
        for cell_step, far_step, band_left in _BAND_STEPS:
            if left[board[here + cell_step]] is not band_left:
                continue
            far = here + far_step
            if far in seen:
                continue
            if not (
                far in board
                and far - 1 in board
                and far - south in board
                and far - south - 1 in board
            ):
                return False
            seen.add(far)
            stack.append(far)
    return True


def _verdict(
    board: dict[CellId, int], light_parity: int, cell: CellId, options: Options, mover: Seat
) -> Outcome | None:
    """The outcome once the tile on ``cell`` is down, or None if the game goes on."""
    light, dark = _achieved(board, light_parity, cell, options)
    if light and dark:
        return Outcome(
            mover.other, f"{light} and {dark}: the move won for both, so the mover loses"
        )
    if light:
        return Outcome(Seat.FIRST, light)
    if dark:
        return Outcome(Seat.SECOND, dark)
    return None


def _could_close(board: dict[CellId, int], cell: CellId) -> bool:
    """Whether a tile on the empty ``cell`` would fill one of its corners (needed to close)."""
    for vertex in corners(cell):
        if (
            (vertex == cell or vertex in board)
            and (vertex - 1 == cell or vertex - 1 in board)
            and (vertex - STRIDE == cell or vertex - STRIDE in board)
            and (vertex - STRIDE - 1 == cell or vertex - STRIDE - 1 in board)
        ):
            return True
    return False


# --- placing tiles (§5) ------------------------------------------------------------------


@dataclass(slots=True)
class _Placed:
    """What a playable list of placements did."""

    board: dict[CellId, int]
    cells: list[CellId]
    letters: list[int]
    light_parity: int
    outcome: Outcome | None


def _apply_placements(
    state: State, placements: Sequence[Placement], more: int = 0
) -> _Placed | str:
    """Play the placements in order on a copy of the board, or say why they are illegal.

    ``more`` placements are to follow these (a beginning tried by :func:`_canonical_order`):
    then none of these may decide the game, and the count and adjacency are not judged yet.
    """
    if state.outcome is not None:
        return "the game is over"
    count = quota(state)
    if count == 0:
        return "the tiles have run out: move a tile instead"
    if not placements:
        return "a move places at least one tile"
    if len(placements) + more > count:
        return f"too many placements: this turn places {_tiles(count)}"
    options = state.options
    mover = Seat.FIRST if state.turn % 2 else Seat.SECOND
    board = dict(state.board)
    lp = state.light_parity
    cells: list[CellId] = []
    letters: list[int] = []
    verdict = None
    for index, placement in enumerate(placements):
        if verdict is not None:
            return (
                f"the game was decided after placement {index}: "
                f"submit only the first {_tiles(index)}"
            )
        letter = _LETTER_CODES.get(placement.tile)
        if letter is None:
            return f"there is no tile {placement.tile!r} (tiles are a, b, c, d)"
        cell = _cell_of(placement)
        if cell is None:
            return f"({placement.x},{placement.y}) is off the plane"
        if lp < 0:
            if cell != plane.ORIGIN:
                return "the first tile goes at (0,0)"
            lp = _light_parity(((cell, letter),))
        elif cell in board:
            return f"({placement.x},{placement.y}) is occupied"
        elif not (
            cell - STRIDE in board
            or cell - 1 in board
            or cell + 1 in board
            or cell + STRIDE in board
        ):
            return f"({placement.x},{placement.y}) touches no tile"
        else:
            fits = _FITS[(cell & 1) ^ lp]
            if letter != fits[0] and letter != fits[1]:
                return _mismatch(letter, f"({placement.x},{placement.y})", fits)
        if options.adjacent and cells and not _touches_any(cell, cells):
            return (
                f"with -adjacent each tile of a turn touches an earlier one: "
                f"({placement.x},{placement.y}) touches none"
            )
        board[cell] = letter
        cells.append(cell)
        letters.append(letter)
        if options.group_rules or _could_close(board, cell):
            verdict = _verdict(board, lp, cell, options, mover)
    if verdict is not None and more:
        return f"the game was decided after placement {len(placements)}"
    if more:
        return _Placed(board, cells, letters, lp, None)
    if verdict is None and len(placements) < count:
        return f"too few placements: this turn places {_tiles(count)}"
    return _Placed(board, cells, letters, lp, verdict)


def _touches_any(cell: CellId, cells: Sequence[CellId]) -> bool:
    """Whether ``cell`` is orthogonally next to one of ``cells``."""
    return any(abs(cell - other) in (1, STRIDE) for other in cells)


def _cell_of(placement: Placement) -> CellId | None:
    """The cell a placement names, or None when its coordinates are not on the plane."""
    x, y = placement.x, placement.y
    if type(x) is not int or type(y) is not int or not (-LIMIT <= x <= LIMIT >= y >= -LIMIT):
        return None
    return y * STRIDE + x


def _mismatch(letter: int, where: str, fits: tuple[int, int]) -> str:
    return (
        f"edge mismatch: {LETTERS[letter]} does not fit {where}, "
        f"which takes {LETTERS[fits[0]]} or {LETTERS[fits[1]]}"
    )


def _after_placements(state: State, move: Move, placed: _Placed) -> State:
    options = state.options
    supply = state.supply
    if supply != UNLIMITED:
        supply -= len(placed.cells)
    first = len(state.tiles) + 1
    tiles = state.tiles + tuple(zip(placed.cells, placed.letters, strict=True))
    frontier_set = set(state.frontier).difference(placed.cells)
    board = placed.board
    for cell in placed.cells:
        for other in neighbours(cell):
            if other not in board:
                frontier_set.add(other)
    result = placed.outcome
    final_scores = None
    if result is None and supply == 0:
        result, final_scores = _pool_out(board, options)
    next_state = State(
        options,
        tiles,
        state.turn + 1,
        supply,
        tuple(range(first, len(tiles) + 1)),
        move_text(move),
        0,
        result,
        final_scores,
        board,
        tuple(sorted(frontier_set)),
        placed.light_parity,
    )
    return _stalemate_check(next_state)


def _pool_out(
    board: dict[CellId, int], options: Options
) -> tuple[Outcome | None, tuple[int, int] | None]:
    """The end-of-pool rule (§8), after a move that placed the last tile and decided nothing."""
    if options.tie is Tie.MOVE:
        return None, None
    light, dark = _largest(board)
    sizes = (light, dark)
    if options.tie is Tie.NONE:
        reason = f"the tiles ran out: a draw (largest regions {light} to {dark})"
        return Outcome(None, reason), sizes
    if light == dark:
        return Outcome(None, f"the tiles ran out with equal largest regions ({light})"), sizes
    larger = Seat.FIRST if light > dark else Seat.SECOND
    name = SEAT_NAMES[larger].title()
    if options.tie is Tie.LARGEST_WINS:
        reason = f"the tiles ran out: {name} has the largest region ({light} to {dark})"
        return Outcome(larger, reason), sizes
    reason = f"the tiles ran out: {name} has the largest region ({light} to {dark}) and loses"
    return Outcome(larger.other, reason), sizes


def _stalemate_check(state: State) -> State:
    """End the game as a draw when only tile moves are allowed and none is legal (§9)."""
    if state.outcome is not None or quota(state) > 0:
        return state
    if next(iter(_tile_moves(state)), None) is not None:
        return state
    mover = to_move(state)
    assert mover is not None
    reason = f"{SEAT_NAMES[mover].title()} cannot move a tile: a draw"
    return _replace_outcome(state, Outcome(None, reason))


def _replace_outcome(state: State, result: Outcome) -> State:
    return State(
        state.options,
        state.tiles,
        state.turn,
        state.supply,
        state.last,
        state.last_move,
        state.movement_turns,
        result,
        state.scores,
        state.board,
        state.frontier,
        state.light_parity,
    )


def _canonical_order(state: State, placements: Sequence[Placement]) -> tuple[Placement, ...]:
    """The first playable order of ``placements`` in reading order of their cells (§4.4).

    The caller knows that some order is playable; a depth-first search over the placements
    sorted by cell finds the first one, pruning orders whose beginning cannot be played.
    """
    found = _first_playable(state, [], sorted(placements, key=_placement_key))
    return tuple(placements) if found is None else tuple(found)


def _first_playable(
    state: State, prefix: list[Placement], rest: list[Placement]
) -> list[Placement] | None:
    for index, placement in enumerate(rest):
        trial = [*prefix, placement]
        remaining = rest[:index] + rest[index + 1 :]
        if isinstance(_apply_placements(state, trial, len(remaining)), str):
            continue
        if not remaining:
            return trial
        found = _first_playable(state, trial, remaining)
        if found is not None:
            return found
    return None


def _placement_key(placement: Placement) -> tuple[int, int, str]:
    return (placement.y, placement.x, placement.tile)


def _is_sorted(cells: Sequence[CellId]) -> bool:
    return all(a < b for a, b in zip(cells, cells[1:], strict=False))


def _is_connected(cells: Sequence[CellId]) -> bool:
    members = set(cells)
    return len(flood(cells[0], plane.NEIGHBOURS, members.__contains__)) == len(members)


def _tiles(count: int) -> str:
    return f"{count} tile{'s' if count != 1 else ''}"


# --- listing placements ------------------------------------------------------------------


def _placement(cell: CellId, letter: int) -> Placement:
    x, y = plane.xy(cell)
    return Placement(LETTERS[letter], x, y)


def _placements(cell: CellId, lp: int) -> tuple[Placement, Placement]:
    """The two tiles that fit ``cell``, Light-dominant first (shared values, see _SHARED)."""
    return _row(cell, lp).firsts


def _single_moves(state: State) -> list[Move]:
    """Quota 1: every letter that fits every candidate (any letter on the opening)."""
    if state.light_parity < 0:
        return [Move((_placement(plane.ORIGIN, letter),)) for letter in range(4)]
    lp = state.light_parity
    return [move for cell in state.frontier for move in _row(cell, lp).singles]


def _decisive_masks(state: State) -> list[int]:
    """Per candidate cell, bit 0: the Light-dominant tile there decides the game on its own;
    bit 1: the Dark-dominant one.  Kept on the state (``masks``): nobody may change them.
    """
    masks = state.masks
    if masks is None:
        masks = _find_decisive_masks(state)
        state.masks = masks
    return masks


def _find_decisive_masks(state: State) -> list[int]:
    """What :func:`_decisive_masks` keeps: they depend on the board and the options alone.

    Under the standard rules a tile can close a region only if it fills one of its corners,
    so only the corners whose three other cells hold tiles are searched, and a filled corner
    on the tile's band only when its other end is filled as well.
    """
    board = state.board
    options = state.options
    lp = state.light_parity
    trial = dict(board)
    masks = []
    if options.group_rules:
        for cell in state.frontier:
            mask = 0
            for bit, letter in enumerate(_fits(cell, lp)):
                trial[cell] = letter
                if any(_achieved(trial, lp, cell, options)):
                    mask |= 1 << bit
            del trial[cell]
            masks.append(mask)
        return masks
    south = STRIDE
    for cell in state.frontier:
        north = cell - south in board
        west = cell - 1 in board
        east = cell + 1 in board
        below = cell + south in board
        filled = []
        if north and west and cell - south - 1 in board:
            filled.append(cell)
        if north and east and cell - south + 1 in board:
            filled.append(cell + 1)
        if below and east and cell + south + 1 in board:
            filled.append(cell + south + 1)
        if below and west and cell + south - 1 in board:
            filled.append(cell + south)
        mask = 0
        if filled:
            for bit, letter in enumerate(_fits(cell, lp)):
                # A corner on the tile's band is in the region of the band's other end,
                # which must be filled too for the region to close.
                ends = (cell, cell + south + 1) if _LEFT[letter] else (cell + 1, cell + south)
                both = ends[0] in filled and ends[1] in filled
                trial[cell] = letter
                for vertex in filled:
                    if (both or vertex not in ends) and _closes(trial, vertex):
                        mask |= 1 << bit
                        break
            del trial[cell]
        masks.append(mask)
    return masks


def _pair_moves(state: State) -> list[Move]:
    """Quota 2: each playable pair once, plus the single tiles that decide (§4.4, §7.2).

    The pair {p, q} with p before q in reading order is playable as p, q unless p decides
    alone, and then as q, p unless q decides too; a second tile on a cell that touches only
    the first one (*joined*) must follow it.  The moves of p, q are the four in the row of p
    (:class:`_Row`), kept from earlier turns and games, so when no tile on the first cell
    decides, which is almost always, listing a pair is one lookup and one ``+=`` of a tuple
    (no iterator per block); see :func:`_decisive_pairs` otherwise.
    """
    lp = state.light_parity
    board = state.board
    frontier = state.frontier
    adjacent = state.options.adjacent
    masks = _decisive_masks(state)
    candidates = set(frontier)
    taken = board.keys() | candidates  # a cell next to a candidate but not taken is joined
    shared = _SHARED
    shared.turn_started()
    rows = shared.rows
    clock = shared.clock
    south = STRIDE
    mask_of = dict(zip(frontier, masks, strict=True)) if any(masks) else {}
    moves: list[Move] = []
    for index, cell in enumerate(frontier):
        row = rows.get(cell * 2 + lp)
        if row is None:
            row = shared.add_row(cell, lp)
        row.used = clock
        seconds: Iterable[CellId] = (
            filter(candidates.__contains__, (cell + 1, cell + south))
            if adjacent
            else frontier[index + 1 :]
        )
        mask = masks[index]
        if not mask:
            for second in seconds:
                moves += row[second]
            for second in row.around:
                if second not in taken:
                    moves += row[second]
        else:
            joined = [second for second in row.around if second not in taken]
            moves += _decisive_pairs(row, mask, seconds, joined, mask_of)
    return moves


def _decisive_pairs(
    row: _Row,
    mask: int,
    seconds: Iterable[CellId],
    joined: Iterable[CellId],
    masks: dict[CellId, int],
) -> list[Move]:
    """The moves whose first cell, in reading order, is ``row``'s cell when a tile there decides
    alone (bit 0 of ``mask``: the Light-dominant tile, bit 1 the Dark-dominant one).

    The moves are the values of the plain rows: the deciding tile alone, its pairs in the
    order second cell then this one, and the pairs of the other tile.
    """
    moves = [row.singles[bit] for bit in (0, 1) if mask >> bit & 1]
    kept = _KEPT[mask]
    reversed_picks = _REVERSED_PICKS[mask]
    lp, cell = row.lp, row.cell
    for second in seconds:
        if kept:
            moves += kept(row[second])
        picks = reversed_picks[masks[second]]
        if picks:
            moves += picks(_row(second, lp)[cell])
    if kept:
        for second in joined:
            moves += kept(row[second])
    return moves


def _picker(indices: tuple[int, ...]) -> Callable[[Sequence[Move]], Sequence[Move]] | None:
    """A function that takes the moves at ``indices`` from a block (None for no index)."""
    if not indices:
        return None
    if len(indices) == 1:
        return lambda block: block[indices[0] : indices[0] + 1]
    return itemgetter(*indices)


_KEPT = tuple(map(_picker, ((0, 1, 2, 3), (2, 3), (0, 1), ())))
"""By the decisive bits of a first cell: the moves of a block whose first tile does not
decide (blocks hold (Light, Light), (Light, Dark), (Dark, Light), (Dark, Dark))."""
_REVERSED_PICKS = tuple(
    tuple(
        _picker(
            tuple(
                2 * second_bit + bit
                for second_bit in (0, 1)
                if not second_mask >> second_bit & 1
                for bit in (0, 1)
                if mask >> bit & 1
            )
        )
        for second_mask in range(4)
    )
    for mask in range(4)
)
"""By the decisive bits of the first cell, then of the second: the moves of the block that
places the second cell first which put a deciding tile last after one that does not decide."""


def _row(cell: CellId, lp: int) -> _Row:
    row = _SHARED.rows.get(cell * 2 + lp)
    return _SHARED.add_row(cell, lp) if row is None else row


class _Row(dict[CellId, tuple["Move", "Move", "Move", "Move"]]):
    """The tiles that fit one cell, and the moves of the pairs that place a tile there first.

    Keyed by the second cell, a block holds the four moves of the two cells, first tile
    first, in the order (Light-dominant, Light-dominant), (Light, Dark), (Dark, Light),
    (Dark, Dark); a block is built when first asked for (``__missing__``).  Rows live in
    :data:`_SHARED`, under cell * 2 + Light parity, and are shared by every game.
    """

    __slots__ = ("cell", "lp", "around", "firsts", "singles", "used")

    def __init__(self, cell: CellId, lp: int) -> None:
        super().__init__()
        self.cell = cell
        self.lp = lp
        self.around = neighbours(cell)
        light, dark = _fits(cell, lp)
        self.firsts = (_placement(cell, light), _placement(cell, dark))
        """The two tiles that fit the cell, Light-dominant first."""
        self.singles = (Move((self.firsts[0],)), Move((self.firsts[1],)))
        """The moves that place one of them alone."""
        self.used = 0
        """The listing (:attr:`_Shared.clock`) that used the row last."""

    def __missing__(self, second: CellId) -> tuple[Move, Move, Move, Move]:
        first, other_first = self.firsts
        second_row = _row(second, self.lp)
        light, dark = second_row.firsts
        a = Move((first, light))
        b = Move((first, dark))
        c = Move((other_first, light))
        d = Move((other_first, dark))
        block = self[second_row.cell] = (a, b, c, d)  # a key that other rows share
        _SHARED.blocks += 1
        return block


class _Shared:
    """The rows of placements and pair moves that listing builds, kept for every later game.

    Move values are immutable and the same in every game with the same Light parity, so one
    table serves all games: listing builds only the pairs of cells it never met, and the
    garbage collector meets few new objects.  When the table reaches :data:`_BLOCK_LIMIT`
    blocks it drops the quarter used longest ago: the pairs near the first tile, which
    every game meets, stay.
    """

    __slots__ = ("rows", "blocks", "clock")

    def __init__(self) -> None:
        self.rows: dict[int, _Row] = {}
        self.blocks = 0
        """Blocks of pair moves in all rows, counting each row as one more."""
        self.clock = 0
        """Listings so far."""

    def add_row(self, cell: CellId, lp: int) -> _Row:
        row = self.rows[cell * 2 + lp] = _Row(cell, lp)
        row.used = self.clock
        self.blocks += 1
        return row

    def turn_started(self) -> None:
        """Count a listing; make room first when the table is full."""
        self.clock += 1
        if self.blocks >= _BLOCK_LIMIT:
            self.make_room()

    def make_room(self) -> None:
        """Drop the quarter of the blocks used longest ago, and the rows left empty and unused.

        A block is listed only when both its cells are candidates, or the second touches
        only the first, so the older of its two rows' last uses stands for its own.  Works
        on copies of the keys, so that a listing in another thread cannot break it.
        """
        rows = self.rows
        snapshot = [(key, row, list(row)) for key, row in list(rows.items())]
        row_uses = {key: row.used for key, row, _ in snapshot}
        uses = [
            [min(row.used, row_uses.get(second * 2 + row.lp, 0)) for second in seconds]
            for _, row, seconds in snapshot
        ]
        ordered = sorted(chain.from_iterable(uses))
        cut = ordered[len(ordered) // 4] if ordered else self.clock
        for (key, row, seconds), block_uses in zip(snapshot, uses, strict=True):
            for second, use in zip(seconds, block_uses, strict=True):
                if use <= cut and row.pop(second, None) is not None:
                    self.blocks -= 1
            if not row and row.used <= cut and rows.pop(key, None) is not None:
                self.blocks -= 1

    def clear(self) -> None:
        """Forget every row (a row in use keeps working)."""
        self.rows.clear()
        self.blocks = 0


_BLOCK_LIMIT = 50_000
"""Blocks the share holds before it makes room: about 19 MB (measured with tracemalloc)."""
_SHARED = _Shared()


def _placement_sets(state: State, count: int) -> Iterator[Move]:
    """Any quota: every playable set of placements once, in its canonical order.

    A depth-first search over cells in reading order meets the orders of a set in
    lexicographic order, so the first order met is the canonical one (with ``-adjacent`` it
    tries next only the cells that touch a tile of the turn, as play checks them).
    """
    lp = state.light_parity
    options = state.options
    board = dict(state.board)
    frontier = set(state.frontier)
    mover = to_move(state)
    assert mover is not None
    seen: set[frozenset[tuple[CellId, int]]] = set()
    path: list[tuple[CellId, int]] = []

    def search() -> Iterator[Move]:
        candidates = sorted(frontier)
        if options.adjacent and path:  # each tile after the first touches an earlier one
            placed = [c for c, _ in path]
            candidates = [c for c in candidates if _touches_any(c, placed)]
        for cell in candidates:
            for letter in _fits(cell, lp):
                board[cell] = letter
                path.append((cell, letter))
                decided = False
                if options.group_rules or _could_close(board, cell):
                    decided = _verdict(board, lp, cell, options, mover) is not None
                if decided or len(path) == count:
                    key = frozenset(path)
                    if key not in seen:
                        seen.add(key)
                        yield Move(tuple(_placement(c, t) for c, t in path))
                else:
                    added = [
                        other
                        for other in neighbours(cell)
                        if other not in board and other not in frontier
                    ]
                    frontier.discard(cell)
                    frontier.update(added)
                    yield from search()
                    frontier.difference_update(added)
                    frontier.add(cell)
                path.pop()
                del board[cell]

    return search()


# --- moving tiles (§9) -------------------------------------------------------------------


def _movable(state: State, number: int) -> str | None:
    """Why tile ``number`` may not be lifted this turn, or None (§9 conditions 1-5)."""
    if not 1 <= number <= len(state.tiles):
        return f"there is no tile {number}"
    if number in state.last:
        return f"tile {number} was placed or moved on the last turn"
    board = state.board
    cell = state.tiles[number - 1][0]
    free = sum(other not in board for other in neighbours(cell))
    if free < state.options.num_free:
        return (
            f"tile {number} has {free} free side{'s' if free != 1 else ''}; "
            f"it needs {state.options.num_free}"
        )
    if state.options.free_corner and not any(
        sum(around in board for around in cells_around(vertex)) == 1 for vertex in corners(cell)
    ):
        return f"tile {number} has no free corner"
    rest = [other for other in board if other != cell]
    if not rest:
        return f"tile {number} is the only tile"
    members = set(rest)
    if len(flood(rest[0], plane.NEIGHBOURS, members.__contains__)) != len(rest):
        return f"lifting tile {number} would split the group"
    return None


def _tile_moves(state: State) -> Iterator[Move]:
    """Every legal tile move: movable tiles, then destinations in reading order."""
    if state.outcome is not None or state.light_parity < 0:
        return
    lp = state.light_parity
    board = state.board
    for number, (origin, _) in enumerate(state.tiles, 1):
        if _movable(state, number) is not None:
            continue
        destinations = {
            other
            for cell in board
            if cell != origin
            for other in neighbours(cell)
            if other not in board
        }
        destinations.discard(origin)
        for cell in sorted(destinations):
            for placement in _placements(cell, lp):
                yield Move((placement,), number)


def _play_tile_move(state: State, move: Move) -> State:
    number = move.lifted
    assert number is not None
    options = state.options
    if quota(state) > 0 and not options.move_anytime:
        raise IllegalMoveError(
            "tiles may be moved only with -move_anytime, or with -tie_move once the tiles run out"
        )
    if len(move.placements) != 1:
        raise IllegalMoveError("a tile move puts one tile on one cell")
    reason = _movable(state, number)
    if reason is not None:
        raise IllegalMoveError(reason)
    placement = move.placements[0]
    letter = _LETTER_CODES.get(placement.tile)
    if letter is None:
        raise IllegalMoveError(f"there is no tile {placement.tile!r} (tiles are a, b, c, d)")
    cell = _cell_of(placement)
    where = f"({placement.x},{placement.y})"
    if cell is None:
        raise IllegalMoveError(f"{where} is off the plane")
    origin = state.tiles[number - 1][0]
    board = dict(state.board)
    del board[origin]
    if cell == origin:
        raise IllegalMoveError(f"tile {number} must go to another cell")
    if cell in board:
        raise IllegalMoveError(f"{where} is occupied")
    if not any(other in board for other in neighbours(cell)):
        raise IllegalMoveError(f"{where} touches no tile once tile {number} is lifted")
    lp = state.light_parity
    fits = _fits(cell, lp)
    if letter not in fits:
        raise IllegalMoveError(_mismatch(letter, where, fits))
    board[cell] = letter
    mover = to_move(state)
    assert mover is not None
    result = _verdict(board, lp, cell, options, mover)
    movement_turns = state.movement_turns + 1
    if result is None and movement_turns >= MOVEMENT_TURN_LIMIT:
        result = Outcome(None, f"{MOVEMENT_TURN_LIMIT} tile-move turns without a decision")
    tiles = list(state.tiles)
    tiles[number - 1] = (cell, letter)
    next_state = State(
        options,
        tuple(tiles),
        state.turn + 1,
        state.supply,
        (number,),
        move_text(move),
        movement_turns,
        result,
        None,
        board,
        _frontier(board),
        lp,
    )
    return _stalemate_check(next_state)


# --- notation, positions, drawing --------------------------------------------------------

_POSITION = r"(?:\d{1,9}|\(-?\d{1,9},-?\d{1,9}\))"
_PLACEMENT_RE = re.compile(rf"[a-d]{_POSITION}")
_PLACEMENTS_RE = re.compile(rf"[a-d]{_POSITION}(?:,[a-d]{_POSITION})*")
_TILE_MOVE_RE = re.compile(rf"(\d{{1,9}})-([a-d]{_POSITION})")
_COORDINATES_RE = re.compile(r"\((-?\d+),(-?\d+)\)")


def _parse_placement(state: State, text: str) -> Placement:
    letter, position = text[0], text[1:]
    coordinates = _COORDINATES_RE.fullmatch(position)
    if coordinates is not None:
        x, y = int(coordinates.group(1)), int(coordinates.group(2))
        try:
            plane.cell(x, y)
        except ValueError as error:
            raise InvalidMoveError(str(error)) from error
        return Placement(letter, x, y)
    number = int(position)
    if not 1 <= number <= len(state.frontier):
        raise InvalidMoveError(
            f"there is no position {number} (positions are 1..{len(state.frontier)})"
        )
    x, y = plane.xy(state.frontier[number - 1])
    return Placement(letter, x, y)


def _frontier(board: dict[CellId, int]) -> tuple[CellId, ...]:
    """The empty cells next to a tile, in reading order; only (0,0) on the empty plane."""
    if not board:
        return (plane.ORIGIN,)
    return tuple(sorted({other for cell in board for other in neighbours(cell)} - board.keys()))


def _state(
    options: Options,
    tiles: tuple[tuple[CellId, int], ...],
    turn: int,
    supply: int,
    last: tuple[int, ...],
    last_move: str | None,
    movement_turns: int,
    result: Outcome | None,
    final_scores: tuple[int, int] | None,
) -> State:
    board = dict(tiles)
    return State(
        options,
        tiles,
        turn,
        supply,
        last,
        last_move,
        movement_turns,
        result,
        final_scores,
        board,
        _frontier(board),
        _light_parity(tiles),
    )


def _check_position(state: State) -> None:
    """Raise ValueError unless the tiles make a position the rules can reach."""
    board = state.board
    if len(board) != len(state.tiles):
        raise ValueError("two tiles on one cell")
    lp = state.light_parity
    for cell, letter in state.tiles:
        if letter not in _fits(cell, lp):
            raise ValueError(f"tile {LETTERS[letter]} at {plane.xy(cell)} does not match")
    if board and not _is_connected(list(board)):
        raise ValueError("the tiles do not form one group")
    if state.turn < 1 or state.supply < UNLIMITED or state.movement_turns < 0:
        raise ValueError("bad turn, supply or movement count")
    if any(not 1 <= n <= len(state.tiles) for n in state.last):
        raise ValueError("bad last-turn tile numbers")


_PATTERNS = (
    ("    \\..", "_    \\_", ".\\     ", "..\\    "),
    ("../    ", "_/    _", "     /.", "    /.."),
    ("....\\  ", "_....\\_", " \\.....", "  \\...."),
    ("  /....", "_/...._", "...../ ", "..../  "),
)
"""The inside (7 x 4 characters) of each tile as the help page draws it; dots are Dark."""
_FILL = (" ", ".")
_CELL_WIDTH = 8
_CELL_HEIGHT = 5


def _drawing(state: State) -> list[str]:
    board = state.board
    lp = state.light_parity
    candidates = state.frontier if state.outcome is None else ()
    points = [plane.xy(cell) for cell in chain(board, candidates)]
    min_x = min(p[0] for p in points)
    max_x = max(p[0] for p in points)
    min_y = min(p[1] for p in points)
    max_y = max(p[1] for p in points)
    width = (max_x - min_x + 1) * _CELL_WIDTH + 1
    height = (max_y - min_y + 1) * _CELL_HEIGHT + 1
    grid = [[" "] * width for _ in range(height)]

    def put(row: int, col: int, text: str) -> None:
        grid[row][col : col + len(text)] = list(text)

    numbers = {cell: number for number, (cell, _) in enumerate(state.tiles, 1)}
    for cell, letter in board.items():
        x, y = plane.xy(cell)
        top = (y - min_y) * _CELL_HEIGHT
        left = (x - min_x) * _CELL_WIDTH
        for row, text in enumerate(_PATTERNS[letter], 1):
            put(top + row, left + 1, text)
        put(top + 3, left + 3, str(numbers[cell]))
        nw, ne, se, sw = (_FILL[_vertex_colour(v, lp)] for v in corners(cell))
        north, west, east, south = (other in board for other in neighbours(cell))
        put(top, left, "+---|---+" if not north else f"+{nw * 3}|{ne * 3}+")
        put(top + _CELL_HEIGHT, left, "+---|---+" if not south else f"+{sw * 3}|{se * 3}+")
        for col, shared, upper, lower in ((0, west, nw, sw), (_CELL_WIDTH, east, ne, se)):
            column = ("|", "_", "|", "|") if not shared else (upper, "_", lower, lower)
            for row, char in enumerate(column, 1):
                grid[top + row][left + col] = char
    for position, cell in enumerate(candidates, 1):
        x, y = plane.xy(cell)
        label = f"[{position}]"
        put(
            (y - min_y) * _CELL_HEIGHT + 2,
            (x - min_x) * _CELL_WIDTH + 4 - len(label) // 2,
            label,
        )
    lines = []
    header = "      " + "".join(f"{x:^{_CELL_WIDTH}}" for x in range(min_x, max_x + 1))
    lines.append(header.rstrip())
    for row, chars in enumerate(grid):
        y_label = f"{min_y + row // _CELL_HEIGHT:>4}  " if row % _CELL_HEIGHT == 2 else "      "
        lines.append((y_label + "".join(chars)).rstrip())
    return lines
