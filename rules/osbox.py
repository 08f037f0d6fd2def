"""Osbox: push knotwork dice onto an N x N board and close knots (spec ``docs/rules/osbox.md``).

Pure rules behind the common API of :mod:`rules.api`; imports only :mod:`rules.api` and
:mod:`rules.geometry.squares`.

Model (spec §2-§5).  Each die side may carry a *port*, a crossing of two strands, with two
*half-ends* on each die's side of it: ``T0 T1 R0 R1 B0 B1 L0 L1`` are numbered 0..7, so the
side of half-end ``h`` is ``h >> 1`` (T R B L = 0 1 2 3).  Inside a die, strands join
half-ends in pairs (the table :data:`DIE_TABLE`, §3.2, kept as data).  Two neighbouring
dice with ports on their shared side are linked through it, each strand switching half
(``A.R0 <-> B.L1``; in numbers ``h <-> h ^ 5``).  A *path* is a connected chain of half-ends;
it is closed when it has no open end, thick when its dice span two rows and two columns, and
new when one of its dice was placed or shifted by the move.  A path scores one point per
crossing link it passes through (a self-crossing is passed twice, so counts two).

A die on the board is one of 15 *kinds*: a face in one orientation, named ``face:PORTS`` with
the ports in T R B L order (``a:R``, ``e:TRB``, ``f:TRBL``).  The orientation follows from the
entry side: the face's drawn bottom edge leads (§3.2).  Move text is ``<face><position>``
(``f12``), position numbers 1..4N clockwise from the top-left corner (§3.1, see
:mod:`rules.geometry.squares`).

For the bots, the module supplies the optional evaluation hook (:class:`rules.api.Evaluation`):
:func:`evaluate` values a position by the lead, the knots each side could close with its
next push and the knots each side is building in a 2x2 square up to seven pushes from
closing, worth less where the other side's pushes would break them;
:func:`move_priors` ranks pushes by the points they score at once.

Decisions where the spec leaves a choice (all as in spec §0 and §15 unless said):

* Faces ``c`` and ``d`` are the same die, so one move: ``d5`` parses to the canonical ``c5``.
* A bad face letter (``g16``) is a syntax error (InvalidMoveError); a position number outside
  1..4N (``a0``, ``a17``) parses, and play() refuses it (IllegalMoveError), as spec O2 calls
  both "illegal".
* ``-size=n`` accepts 2..12 (the sources set only n >= 2; 12 keeps every legal move list under
  300 texts, so :func:`seat_moves` never needs blocks).
* No move limit (spec §15): a game ends only when the board is full after captures.
* :func:`render` follows the help page's drawing (§10.1): a line between two cells is drawn when a
  die touches it, a port is a ``#`` on the die's border (also on the board's edge), and the
  dice the last move captured are traced in dots, as in the help page's "gives" picture.

``to_data(state)`` is a dict:

* ``game`` ``"osbox"``; ``options`` the flag text; ``size`` N; ``ply`` moves played;
  ``to_move`` ``"horz"``/``"vert"`` or None; ``last_move`` text or None; ``gained`` the points
  of the last move; ``scores`` ``{"horz": h, "vert": v}``; ``outcome`` None or
  ``{"winner": "horz"|"vert"|None, "reason": str}``.
* ``cells``: one ``{"cell", "row", "col", "x", "y"}`` per cell; the cell is the unit square
  with top-left corner (x, y), y pointing down; the board spans 0..N.
* ``positions``: one ``{"position", "side", "x", "y", "cell", "seats"}`` per side position:
  the unit square outside the board where a pushed die starts, the entry cell, and the seats
  (``["horz"]``, ``["vert"]`` or both with ``-any_side``) that may push from there.
* ``dice``: one ``{"cell", "die", "face", "ports", "strands"}`` per die on the board:
  ``die`` ``"e:TRB"``, ``ports`` ``"TRB"``, ``strands`` pairs of half-end labels
  (``[["T0", "B0"], ...]``) to draw the knot.
* ``removed``: the dice the last move captured, same shape, for a fading trace.
* ``scored``: the cells of the knots the last move scored (their dice are gone with capture).
* ``entering``: per side (``"top"``...) and face, the die that face becomes when pushed in
  from that side (the shape of ``dice`` without ``cell``): a page previews a push with it.
  Each entry of ``positions`` also has ``line``, the cells of its row or column in the order
  a push moves along them.
* ``explanation`` (:func:`rules.api.explanation`) once the board is full: the knots the last
  push scored (their cells as ``cells``, the points as ``size``), if it scored.

:func:`seat_moves` gives a seat its pushes apart from this data, as texts: the legal ones to
the seat to move, and to the seat that waits those it could make if it were its turn.

:func:`from_data` reads ``options``, ``dice``, ``to_move``, ``scores``, ``ply``,
``last_move``, ``gained``, ``removed`` and ``scored``; the rest is derived.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

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
from rules.geometry.squares import NO_CELL, Side, SquareGrid, square_grid

NAME = "osbox"
SEAT_NAMES = ("horz", "vert")

MIN_SIZE = 2
MAX_SIZE = 12

FLAGS: Sequence[Flag] = (
    Flag("size", "size", None, MIN_SIZE, MAX_SIZE, help="N x N board (default 4)"),
    Flag("any_side", "any_side", True, help="both players may push from any side"),
    Flag("capture", "capture", True, help="dice of scoring paths are removed (default)"),
    Flag("no_capture", "capture", False, help="dice of scoring paths stay on the board"),
    Flag("thin_knots", "thin_knots", True, help="knots along one row or column score too"),
    Flag(
        "thick_knots",
        "thin_knots",
        False,
        help="only knots over two rows and two columns score (default)",
    ),
)

HALF_ENDS = ("T0", "T1", "R0", "R1", "B0", "B1", "L0", "L1")
"""Half-end labels by number: the side of half-end ``h`` is ``h >> 1`` in T R B L order."""

FACES = "abcef"
"""The canonical face letters; ``d`` is the same die as ``c`` (spec §2.2)."""

DIE_TABLE: dict[str, tuple[str, str, str, str]] = {
    "a": ("B0-B1", "L0-L1", "T0-T1", "R0-R1"),
    "b": ("T0-B0 T1-B1", "R0-L0 R1-L1", "T0-B0 T1-B1", "R0-L0 R1-L1"),
    "c": ("B0-L1 B1-L0", "T0-L0 T1-L1", "T0-R1 T1-R0", "R0-B0 R1-B1"),
    "e": (
        "R0-L0 R1-B1 B0-L1",
        "T0-L0 T1-B1 B0-L1",
        "T0-L0 T1-R0 R1-L1",
        "T0-B0 T1-R0 R1-B1",
    ),
    "f": ("T0-L0 T1-R0 R1-B1 B0-L1",) * 4,
}
"""Spec §3.2: the strands of each face as it enters from the top, right, bottom and left."""

_HOME_SIDES = {
    Seat.FIRST: frozenset((Side.LEFT, Side.RIGHT)),
    Seat.SECOND: frozenset((Side.TOP, Side.BOTTOM)),
}
_MOVE_RE = re.compile(r"([a-f])\s*([0-9]{1,6})")
_LEGAL_CACHE_LIMIT = 50_000


@dataclass(frozen=True, slots=True)
class Options:
    """Spec §7: board size, any-side pushes, capture, thin knots scoring."""

    size: int = 4
    any_side: bool = False
    capture: bool = True
    thin_knots: bool = False

    def __post_init__(self) -> None:
        check_options(self, FLAGS)


@dataclass(frozen=True, slots=True)
class Move:
    """Push a die showing ``face`` (canonical letter) from side position ``position``."""

    face: str
    position: int

    def __str__(self) -> str:
        return f"{self.face}{self.position}"


@dataclass(slots=True, unsafe_hash=True, init=False)
class State:
    """A position: ``board`` holds a die kind per cell (0 = empty, see :func:`die_name`).

    ``seat`` is the side to move (None once the board is full); ``last``, ``gained`` and
    ``removed`` (cell, kind) and ``scored`` (the cells of the knots it scored) describe the
    last move, for display.

    Its fields are Final (see "Values" in :mod:`rules.api`).
    """

    options: Final[Options]
    board: Final[tuple[int, ...]]
    seat: Final[Seat | None]
    scores: Final[tuple[int, int]]
    ply: Final[int]
    last: Final[Move | None]
    gained: Final[int]
    removed: Final[tuple[tuple[int, int], ...]]
    scored: Final[tuple[int, ...]]

    def __init__(
        self,
        options: Options,
        board: tuple[int, ...],
        seat: Seat | None = Seat.FIRST,
        scores: tuple[int, int] = (0, 0),
        ply: int = 0,
        last: Move | None = None,
        gained: int = 0,
        removed: tuple[tuple[int, int], ...] = (),
        scored: tuple[int, ...] = (),
    ) -> None:
        self.options = options
        self.board = board
        self.seat = seat
        self.scores = scores
        self.ply = ply
        self.last = last
        self.gained = gained
        self.removed = removed
        self.scored = scored


# --- the dice ---------------------------------------------------------------------------------


def _parse_strands(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((HALF_ENDS.index(pair[:2]), HALF_ENDS.index(pair[3:])) for pair in text.split())


def _ports_text(strands: tuple[tuple[int, int], ...]) -> str:
    sides = {end >> 1 for pair in strands for end in pair}
    return "".join("TRBL"[side] for side in sorted(sides))


_KIND_NAMES: list[str] = [""]
_KIND_STRANDS: list[tuple[tuple[int, int], ...]] = [()]
_ENTRY_KIND: dict[str, tuple[int, int, int, int]] = {}
for _face, _texts in DIE_TABLE.items():
    _kinds = []
    for _text in _texts:
        _strands = _parse_strands(_text)
        _name = f"{_face}:{_ports_text(_strands)}"
        if _name not in _KIND_NAMES:
            _KIND_NAMES.append(_name)
            _KIND_STRANDS.append(_strands)
        _kinds.append(_KIND_NAMES.index(_name))
    _ENTRY_KIND[_face] = (_kinds[0], _kinds[1], _kinds[2], _kinds[3])

KIND_NAMES: tuple[str, ...] = tuple(_KIND_NAMES)
"""Die kind id to ``face:PORTS`` name; kind 0 is the empty cell (name ``""``)."""
_KIND_COUNT = len(KIND_NAMES)


def _die_drawing(kind: int) -> dict[str, PlainData]:
    """What to_data says of a die of ``kind`` besides its cell."""
    name = KIND_NAMES[kind]
    return {
        "die": name,
        "face": name[0],
        "ports": name[2:],
        "strands": [[HALF_ENDS[a], HALF_ENDS[b]] for a, b in _KIND_STRANDS[kind]],
    }


_DIE_DATA: tuple[dict[str, PlainData], ...] = tuple(
    _die_drawing(kind) if kind else {} for kind in range(len(KIND_NAMES))
)


def _partners(strands: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    partner = [-1] * 8
    for one, other in strands:
        partner[one], partner[other] = other, one
    return tuple(partner)


_PARTNER: tuple[tuple[int, ...], ...] = tuple(_partners(s) for s in _KIND_STRANDS)
"""Per kind, the half-end joined to each half-end by a strand (-1: no such half-end)."""
_PORTS: tuple[int, ...] = tuple(
    sum(1 << side for side in {end >> 1 for pair in s for end in pair}) for s in _KIND_STRANDS
)
"""Per kind, a bit per side that has a port (bit 0 top, 1 right, 2 bottom, 3 left)."""
_ENDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(h for h in range(8) if p[h] >= 0) for p in _PARTNER
)

_ART: dict[str, tuple[str, str, str]] = {
    "a:B": ("     ", " ### ", " # # "),
    "a:L": ("###  ", "  #  ", "###  "),
    "a:T": (" # # ", " ### ", "     "),
    "a:R": ("  ###", "  #  ", "  ###"),
    "b:TB": (" # # ", " # # ", " # # "),
    "b:RL": ("#####", "     ", "#####"),
    "c:BL": ("#### ", "   # ", "## # "),
    "c:TL": ("## # ", "   # ", "#### "),
    "c:TR": (" # ##", " #   ", " ####"),
    "c:RB": (" ####", " #   ", " # ##"),
    "e:RBL": ("#####", "     ", "## ##"),
    "e:TBL": ("## # ", "   # ", "## # "),
    "e:TRL": ("## ##", "     ", "#####"),
    "e:TRB": (" # ##", " #   ", " # ##"),
    "f:TRBL": ("## ##", "     ", "## ##"),
}
"""The 5x3 interior of each die in pbmserv's ASCII style (the help page's faces figure)."""


def die_name(kind: int) -> str:
    """``face:PORTS`` of a die kind (``"a:R"``); raises ValueError for an unknown kind."""
    if not 0 < kind < len(KIND_NAMES):
        raise ValueError(f"no die kind {kind}")
    return KIND_NAMES[kind]


def die_kind(name: str) -> int:
    """The kind id of ``face:PORTS`` (``"c:TL"``; ``d`` is read as ``c``); raises ValueError."""
    text = name.strip()
    if text[:1].lower() == "d":
        text = "c" + text[1:]
    text = text[:1].lower() + text[1:].upper()
    if text not in KIND_NAMES[1:]:
        raise ValueError(f"{name!r} is not a die: dice look like a:R or e:TRB")
    return KIND_NAMES.index(text)


def entering_die(face: str, side: Side) -> int:
    """The kind of die that ``face`` becomes when pushed in from ``side`` (spec §3.2)."""
    return _ENTRY_KIND[face][side]


# --- the board ----------------------------------------------------------------------------------


class _Table:
    """Precomputed lookups for one board size: flat neighbours, lines, moves, legal-move cache."""

    __slots__ = ("grid", "sentinel", "across", "moves", "legal", "texts", "dice")

    def __init__(self, size: int) -> None:
        grid = square_grid(size)
        self.grid: SquareGrid = grid
        self.sentinel = grid.count
        """An always-empty cell index standing for every place off the board."""
        self.across: tuple[int, ...] = tuple(
            self.sentinel if other == NO_CELL else other
            for cell in range(grid.count)
            for other in grid.across[cell]
        )
        self.moves: tuple[tuple[Move, ...], ...] = tuple(
            tuple(Move(face, place.number) for face in FACES) for place in grid.positions
        )
        self.legal: dict[tuple[int, int], tuple[Move, ...]] = {}
        self.texts: dict[tuple[int, int], list[str]] = {}
        """The legal move texts by the key of ``legal`` (see :func:`_move_texts`)."""
        self.dice: list[dict[str, PlainData]] = [
            {"cell": cell, **_DIE_DATA[kind]} if kind else {}
            for cell in range(grid.count)
            for kind in range(_KIND_COUNT)
        ]
        """to_data's ``dice`` entry of each kind on each cell, at ``cell * kinds + kind``:
        built once and shared, so the data of consecutive positions holds the same entries."""


@cache
def _table(size: int) -> _Table:
    return _Table(size)


def _gap_mask(board: tuple[int, ...], size: int, rows: bool, columns: bool) -> int:
    """Bit r for each row, bit size + c for each column, that has an empty cell."""
    mask = 0
    if rows:
        for r in range(size):
            if 0 in board[r * size : r * size + size]:
                mask |= 1 << r
    if columns:
        for c in range(size):
            if 0 in board[c::size]:
                mask |= 1 << (size + c)
    return mask


def _line_bit(grid: SquareGrid, number: int) -> int:
    place = grid.positions[number - 1]
    return 1 << (place.line if place.is_row else grid.size + place.line)


def _shifted(board: tuple[int, ...], line: tuple[int, ...], gap: int) -> list[int]:
    """Spec §4.3: the board as a list, with the run of ``line`` before its first empty cell
    (``gap``) moved one step along it, and one extra empty cell at the end (the sentinel);
    the entry cell is left for the new die."""
    cells = list(board)
    cells.append(0)
    for i in range(gap, 0, -1):
        cells[line[i]] = cells[line[i - 1]]
    return cells


def _knot_points(
    cells: list[int], moved: tuple[int, ...], table: _Table, thin_knots: bool, captured: set[int]
) -> int:
    """Spec §5.3 steps 2-3: the points of the knots closed through ``moved`` (thick ones only,
    unless ``thin_knots``); adds their dice to ``captured``."""
    row, col = table.grid.row, table.grid.col
    points = 0
    for path in _closed_paths(cells, moved, table):
        dice = path[1:]
        thick = len({row[c] for c in dice}) > 1 and len({col[c] for c in dice}) > 1
        if thick or thin_knots:
            points += path[0]
            captured.update(dice)
    return points


def _closed_paths(cells: list[int], moved: tuple[int, ...], table: _Table) -> list[list[int]]:
    """Spec §5.1: every closed path through a die in ``moved``; each path as ``[links, *cells]``.

    ``cells`` is the board with one extra empty cell at the end (the sentinel).  Walking from a
    half-end, first along its strand and then across the crossing, either returns to the start
    (a cycle: closed) or meets an open end.  Half-ends already walked are skipped.
    """
    partner = _PARTNER
    across = table.across
    seen: set[int] = set()
    closed: list[list[int]] = []
    for start_cell in moved:
        for start_end in _ENDS[cells[start_cell]]:
            start = start_cell * 8 + start_end
            if start in seen:
                continue
            seen.add(start)
            cell, end = start_cell, start_end
            path = [0, start_cell]
            while True:
                out = partner[cells[cell]][end]
                seen.add(cell * 8 + out)
                cell = across[cell * 4 + (out >> 1)]
                end = out ^ 5
                if partner[cells[cell]][end] < 0:
                    break
                path[0] += 1
                node = cell * 8 + end
                if node == start:
                    closed.append(path)
                    break
                if node in seen:
                    break
                seen.add(node)
                path.append(cell)
    return closed


# --- the API ----------------------------------------------------------------------------------


def parse_options(text: str) -> Options:
    """``-size=5 -any_side -no_capture -thin_knots`` to Options; raises OptionsError."""
    return options_from_flags(Options, text, FLAGS)


@lru_cache(maxsize=256)  # to_data names the options at every move
def options_text(options: Options) -> str:
    """The flags that differ from the defaults (``""`` for the default game)."""
    return options_flags_text(options, FLAGS)


def new_game(options: Options) -> State:
    """An empty board, Horz to move (spec §1)."""
    return State(options, (0,) * (options.size * options.size))


def to_move(state: State) -> Seat | None:
    """The seat to move, or None once the board is full."""
    return state.seat


def legal_moves(state: State) -> Iterator[Move]:
    """Every push from a home side (any side with ``-any_side``) into a line with a gap."""
    return iter(_legal(state))


def play(state: State, move: object) -> State:
    """Push, score the new closed knots, remove them (spec §5.3); raises IllegalMoveError."""
    seat = state.seat
    if seat is None:
        raise IllegalMoveError("the game is over")
    if not isinstance(move, Move):
        raise IllegalMoveError(f"{move!r} is not an Osbox move")
    options = state.options
    table = _table(options.size)
    grid = table.grid
    kinds = _ENTRY_KIND.get(move.face)
    if kinds is None:
        raise IllegalMoveError(f"there is no face {move.face!r}: faces are a to f")
    number = move.position
    if not isinstance(number, int) or not 1 <= number <= 4 * grid.size:
        raise IllegalMoveError(f"there is no position {number}: positions are 1 to {4 * grid.size}")
    place = grid.positions[number - 1]
    if not options.any_side and place.side not in _HOME_SIDES[seat]:
        owner = Seat.FIRST if place.side in _HOME_SIDES[Seat.FIRST] else Seat.SECOND
        raise IllegalMoveError(
            f"position {number} is on the {place.side.label} side, which is "
            f"{SEAT_NAMES[owner].capitalize()}'s"
        )
    board = state.board
    line = place.cells
    gap = next((i for i, cell in enumerate(line) if board[cell] == 0), -1)
    if gap < 0:
        what = "row" if place.is_row else "column"
        raise IllegalMoveError(f"the {what} of position {number} is full: no die can enter it")

    cells = _shifted(board, line, gap)
    cells[line[0]] = kinds[place.side]
    moved = line[: gap + 1]

    captured: set[int] = set()
    gained = _knot_points(cells, moved, table, options.thin_knots, captured)
    removed: tuple[tuple[int, int], ...] = ()
    if options.capture and captured:
        removed = tuple((cell, cells[cell]) for cell in sorted(captured))
        for cell in captured:
            cells[cell] = 0
    cells.pop()
    after = tuple(cells)
    scores = state.scores
    if gained:
        scores = (scores[0] + gained, scores[1]) if seat == 0 else (scores[0], scores[1] + gained)
    return State(
        options,
        after,
        None if 0 not in after else seat.other,
        scores,
        state.ply + 1,
        move,
        gained,
        removed,
        tuple(sorted(captured)),
    )


def outcome(state: State) -> Outcome | None:
    """Once the board is full: the higher score wins, equal scores draw (spec §6)."""
    if state.seat is not None:
        return None
    horz, vert = state.scores
    score = f"Horz {horz}, Vert {vert}"
    if horz == vert:
        return Outcome(None, f"the board is full and the scores are equal: {score}")
    winner = Seat.FIRST if horz > vert else Seat.SECOND
    return Outcome(winner, f"the board is full: {score}")


def scores(state: State) -> tuple[int, int]:
    """Points of (Horz, Vert)."""
    return state.scores


LEAD_SCALE = 4.0
"""Points of lead at which :func:`evaluate` says 0.76 for the side ahead: a small knot."""
MOVER_THREAT = 0.8
"""Share of its best closing push that counts for the side to move: it may take it at once."""
WAITING_THREAT = 0.3
"""Share of the waiting side's best closing push: the mover may close or break it first."""


def evaluate(state: State) -> float:
    """Horz's prospects in [-1, 1]: the optional hook of :class:`rules.api.Evaluation`.

    Exact once the board is full (1, -1 or 0).  Before, the lead in points plus the knots each
    side could close with its next push (found by trying every push, as :func:`play` scores
    it): the mover's best counts :data:`MOVER_THREAT` of its points and the waiting side's
    :data:`WAITING_THREAT`, plus each side's best knot in the making (:func:`_building`), and
    tanh maps the sum, over :data:`LEAD_SCALE`, into (-1, 1).  Random play almost never closes
    a thick knot, so a search that plays random games to the end learns little here; this tells
    it which pushes close or leave open a knot, and which build one: a knot takes four dice
    and five or six pushes, more than a search looks ahead.
    """
    seat = state.seat
    horz, vert = state.scores
    if seat is None:
        return 0.0 if horz == vert else 1.0 if horz > vert else -1.0
    waiting = State(state.options, state.board, seat.other, state.scores)
    threat = MOVER_THREAT * _best_gain(state) - WAITING_THREAT * _best_gain(waiting)
    mover_build, waiting_build = _building(state)
    threat += BUILD_SHARE * (mover_build - waiting_build)
    lead = horz - vert + (threat if seat == Seat.FIRST else -threat)
    return math.tanh(lead / LEAD_SCALE)


def move_priors(state: State, moves: Sequence[Move]) -> list[float]:
    """How promising each push is for the mover (:class:`rules.api.Evaluation`): by the points
    it scores at once, 0 for none and 0.5 for a small knot of 4."""
    gains = _push_gains(state)
    return [gains[move] / (gains[move] + 4.0) for move in moves]


EVALUATED_PLIES = 0
"""Plies a playout plays before :func:`evaluate` (``bots.mcts``): none, as for Che.  Random
pushes only blur the knots in the making that the evaluation sees: at level 1 against random
play over 200 games (with other discount shares), 146 wins with none against 89 with four."""
BUILD_SHARE = 1.0
"""Weight of the knots each side is building (:func:`_building`) in :func:`evaluate`."""
BUILD_DEPTH = 6
"""Pushes into one line that :func:`_line_reach` looks ahead (a knot needs two lines).  Alone,
a side needs six pushes for its first knot (a corner comes in at each end of its lines and
must be pushed along to meet the other), so a shorter look leaves the opening blind."""
BUILD_DISCOUNT = (0.0, 0.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12)
"""Share of a knot's points that counts when it is this many pushes away (the waiting side's
a push further); one push away is what the threat terms already see exactly, so it counts
nothing here.  The shares reach seven pushes, the whole of a side's first knot, so that the
first pushes already go towards one.  Level 1 against random play over the same 100 games
won 78 with these, 75 with the flatter (0.75, 0.6, 0.48, 0.38, 0.3, 0.24, 0.19), 73 with
(0.6, 0.4, 0.25, 0.15, 0.1) looking five pushes ahead, 64 with these but without the
exposure of :func:`_build_value`, and 62 with the former (0.6, 0.3, 0.1) three ahead."""
_ANY = 16
"""A template's die that may be anything (the cell is off the knot)."""
_FAR = 99


def _templates() -> tuple[tuple[int, int, int, int, int], ...]:
    """The knots that close inside a 2x2 square: dice (top-left, top-right, bottom-left,
    bottom-right; :data:`_ANY` off the knot) and points, found by closing them on a 2x2 board.

    A knot closed there uses no port on the square's border, so it closes in any square.
    """
    table = _table(2)
    # The port bit (T R B L = 1 2 4 8) of a cell of the square towards a neighbouring cell.
    toward = {
        (0, 1): 2,
        (0, 2): 4,
        (1, 0): 8,
        (1, 3): 4,
        (2, 0): 1,
        (2, 3): 2,
        (3, 1): 1,
        (3, 2): 8,
    }
    kinds = range(1, len(KIND_NAMES))
    found: list[tuple[int, int, int, int, int]] = []
    for off in (-1, 0, 1, 2, 3):
        choices: list[list[int]] = []
        for cell in range(4):
            if cell == off:
                choices.append([0])
                continue
            # A die needs its ports towards the other dice of the knot.
            ports = sum(bit for (one, other), bit in toward.items() if one == cell and other != off)
            choices.append([k for k in kinds if _PORTS[k] & ports == ports])
        for a in choices[0]:
            for b in choices[1]:
                for c in choices[2]:
                    for d in choices[3]:
                        cells = [a, b, c, d, 0]
                        on = tuple(i for i in range(4) if cells[i])
                        captured: set[int] = set()
                        points = _knot_points(cells, on, table, False, captured)
                        if points and len(captured) == len(on):
                            dice = [_ANY if i == off else cells[i] for i in range(4)]
                            found.append((dice[0], dice[1], dice[2], dice[3], points))
    return tuple(found)


_TEMPLATES = _templates()


_NEW_AT_FRONT = -1
"""In the lines :func:`_line_reach` explores, a die pushed in at index 0 (any kind entering)."""
_NEW_AT_BACK = -2
"""A die pushed in at the end of the line: any kind entering there."""


@lru_cache(maxsize=1 << 16)
def _line_reach(
    line: tuple[int, ...], front: tuple[int, ...], back: tuple[int, ...]
) -> dict[int, int]:
    """The fewest pushes into ``line`` that bring each pair of neighbouring dice into it.

    ``front`` are the dice that enter at index 0 and push the run ahead of them towards the end,
    ``back`` those that enter at the end and push towards index 0 (spec §4.3).  Keys are
    ``(i * 17 + a) * 17 + b`` for dice ``a`` at index i and ``b`` at i + 1, and the same with
    either replaced by :data:`_ANY`; pairs not reached within :data:`BUILD_DEPTH` pushes (or
    before the line is full) are absent.

    Where a push moves the dice does not depend on the die pushed, so the search follows only
    the end pushed from (two ways a push, not ten: six pushes cost 127 lines, not a million),
    a new die standing for every kind that enters at its end; a pair of cells is spelled out
    in kinds once, at the fewest pushes that bring it.
    """
    reach: dict[int, int] = {}
    spelled: set[tuple[int, int, int]] = set()
    n = len(line)
    frontier = [line]
    seen = {line}
    depth = 0
    while True:
        for row in frontier:
            for i in range(n - 1):
                a, b = row[i], row[i + 1]
                if (i, a, b) in spelled:
                    continue
                spelled.add((i, a, b))
                firsts = (a,) if a >= 0 else front if a == _NEW_AT_FRONT else back
                seconds = (b,) if b >= 0 else front if b == _NEW_AT_FRONT else back
                keys = [(i * 17 + _ANY) * 17 + y for y in seconds]
                for x in firsts:
                    keys.append((i * 17 + x) * 17 + _ANY)
                    keys.extend((i * 17 + x) * 17 + y for y in seconds)
                for key in keys:
                    if key not in reach:
                        reach[key] = depth
        if depth >= BUILD_DEPTH:
            return reach
        depth += 1
        following: list[tuple[int, ...]] = []
        for row in frontier:
            if 0 not in row:
                continue
            gap = row.index(0)
            last = n - 1 - row[::-1].index(0)
            for pushed in (
                (_NEW_AT_FRONT, *row[:gap], *row[gap + 1 :]),
                (*row[:last], *row[last + 1 :], _NEW_AT_BACK),
            ):
                if pushed not in seen:
                    seen.add(pushed)
                    following.append(pushed)
        if not following:
            return reach
        frontier = following


def _side_kinds(side: Side) -> tuple[int, ...]:
    return tuple(sorted({_ENTRY_KIND[face][side] for face in FACES}))


def _build_value(
    reaches: list[dict[int, int]],
    across: bool,
    mover: bool,
    crossing: list[tuple[int, int]] | None,
) -> float:
    """The best knot in the making over every 2x2 square, by its points and its distance.

    ``reaches`` are the side's lines (rows for Horz, columns for Vert); ``across`` says the
    lines are columns, so a template's pairs are read down its columns.  ``crossing`` are the
    gaps (:func:`_line_gaps`) of the lines the other side pushes into, which cross these (None
    where both sides push everywhere): a push of the other side into one of the square's two
    crossing lines, from an end whose run reaches the square, shifts or fills a cell of it.
    The knot counts as much as the square is likely to stay untouched by the other side's
    pushes before it closes, as if each were any of its open ends alike: a plan in lines the
    other side cannot disturb is worth more than one it breaks with one push in four.
    """
    best = 0.0
    shift = 0 if mover else 1
    last = len(BUILD_DISCOUNT) - 1
    count = len(reaches)
    open_ends = 0 if crossing is None else 2 * sum(gap >= 0 for gap, _ in crossing)
    for index in range(count - 1):
        first, second = reaches[index], reaches[index + 1]
        for i in range(count - 1):
            base = i * 289
            untouched = 1.0
            if crossing is not None and open_ends:
                exposed = 0
                for first_gap, last_gap in (crossing[i], crossing[i + 1]):
                    if first_gap >= 0:
                        exposed += (first_gap >= index) + (last_gap <= index + 1)
                untouched = 1.0 - exposed / open_ends
            for tl, tr, bl, br, points in _TEMPLATES:
                if across:
                    near = first.get(base + tl * 17 + bl, _FAR)
                    far = second.get(base + tr * 17 + br, _FAR)
                else:
                    near = first.get(base + tl * 17 + tr, _FAR)
                    far = second.get(base + bl * 17 + br, _FAR)
                distance = near + far + shift
                if distance <= last:
                    # The other side moves distance - 1 times before the closing push.
                    value = points * BUILD_DISCOUNT[distance] * untouched ** (distance - 1)
                    if value > best:
                        best = value
    return best


def _line_gaps(line: tuple[int, ...]) -> tuple[int, int]:
    """The first and the last empty index of ``line``, (-1, -1) when it is full: a push from
    the front moves the dice before the first, one from the back those after the last."""
    if 0 not in line:
        return -1, -1
    return line.index(0), len(line) - 1 - line[::-1].index(0)


def _building(state: State) -> tuple[float, float]:
    """How far along the mover and the waiting side are with a knot of their own (values in
    points): each side pushes only into its own lines (rows for Horz, columns for Vert), so
    the pushes a knot in a 2x2 square needs are those of its two lines, looked up apart, and
    the other side's pushes into the crossing lines are what may break it.
    With ``-any_side`` both sides push into every line, and each may build either way."""
    board, mover = state.board, state.seat
    grid = _table(state.options.size).grid
    row_lines = [tuple(board[cell] for cell in cells) for cells in grid.rows]
    column_lines = [tuple(board[cell] for cell in cells) for cells in grid.columns]
    rows = [_line_reach(line, _LEFT_KINDS, _RIGHT_KINDS) for line in row_lines]
    columns = [_line_reach(line, _TOP_KINDS, _BOTTOM_KINDS) for line in column_lines]
    if state.options.any_side:
        return (
            max(_build_value(rows, False, True, None), _build_value(columns, True, True, None)),
            max(_build_value(rows, False, False, None), _build_value(columns, True, False, None)),
        )
    row_gaps = [_line_gaps(line) for line in row_lines]
    column_gaps = [_line_gaps(line) for line in column_lines]
    horz = _build_value(rows, False, mover == Seat.FIRST, column_gaps)
    vert = _build_value(columns, True, mover == Seat.SECOND, row_gaps)
    return (horz, vert) if mover == Seat.FIRST else (vert, horz)


_LEFT_KINDS = _side_kinds(Side.LEFT)
_RIGHT_KINDS = _side_kinds(Side.RIGHT)
_TOP_KINDS = _side_kinds(Side.TOP)
_BOTTOM_KINDS = _side_kinds(Side.BOTTOM)


def parse_move(state: State, text: str) -> Move:
    """``f12`` (face a-f, any case; ``d`` = ``c``) to a Move; raises InvalidMoveError."""
    match = _MOVE_RE.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if match is None:
        raise InvalidMoveError(
            f"{text!r} is not an Osbox move: a move is a face a-f and a position, like f12"
        )
    face = match.group(1)
    return Move("c" if face == "d" else face, int(match.group(2)))


def move_text(move: Move) -> str:
    """The canonical text: ``c5`` (never ``d5``)."""
    return f"{move.face}{move.position}"


def to_data(state: State) -> PlainData:
    """Plain data for storage and drawing (shape in the module docstring).

    The entries of ``dice`` are built once and shared by every call that shows them (see
    ``_Table``): nobody may change the returned data.
    """
    options = state.options
    grid = square_grid(options.size)
    result = outcome(state)
    cells, positions = _drawing(options.size, options.any_side)
    data: dict[str, PlainData] = {
        "game": NAME,
        "options": options_text(options),
        "size": grid.size,
        "ply": state.ply,
        "to_move": None if state.seat is None else SEAT_NAMES[state.seat],
        "last_move": None if state.last is None else move_text(state.last),
        "gained": state.gained,
        "scores": _scores_data(state),
        "outcome": outcome_data(result, SEAT_NAMES),
        "cells": cells,
        "positions": positions,
        "dice": _dice_data(state),
        "removed": _removed_data(state),
        "scored": list(state.scored),
    }
    data["entering"] = _ENTERING
    data["explanation"] = None if result is None else _explanation(state)
    return data


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The texts of the pushes ``seat`` could make (see the module docstring): the hook of
    :meth:`rules.api.GameRules.seat_moves`.  The list is shared by every call for the same
    open rows and columns (see :func:`_move_texts`): nobody may change it."""
    if state.seat is None:
        return []
    return _move_texts(state.options, state.board, seat)


def data_changes(before: State, after: State, before_data: PlainData) -> list[PlainData]:
    """The operations that turn ``before_data`` (``to_data(before)``) into ``to_data(after)``:
    the optional hook of :class:`rules.api.DataChanges`.

    The fields are compared as the states hold them and only the parts that differ are
    built; the dice are compared cell by cell.
    """
    options = after.options
    if before.options != options:
        return [["s", [], to_data(after)]]
    ops: list[PlainData] = []
    if before.ply != after.ply:
        ops.append(["s", ["ply"], after.ply])
    if before.seat != after.seat:
        ops.append(["s", ["to_move"], None if after.seat is None else SEAT_NAMES[after.seat]])
    if before.last != after.last:
        ops.append(["s", ["last_move"], None if after.last is None else move_text(after.last)])
    if before.gained != after.gained:
        ops.append(["s", ["gained"], after.gained])
    if before.scores != after.scores:
        ops.append(["s", ["scores"], _scores_data(after)])
    result = outcome(after)
    if outcome(before) != result:
        ops.append(["s", ["outcome"], outcome_data(result, SEAT_NAMES)])
    if before.board != after.board:
        _dice_changes(before, after, ops)
    if before.removed != after.removed:
        ops.append(["s", ["removed"], _removed_data(after)])
    if before.scored != after.scored:
        ops.append(["s", ["scored"], list(after.scored)])
    explained = None if result is None else _explanation(after)
    if explained != (None if outcome(before) is None else _explanation(before)):
        ops.append(["s", ["explanation"], explained])
    return ops


def _dice_changes(before: State, after: State, ops: list[PlainData]) -> None:
    """The operations on ``dice`` from ``before``'s board to ``after``'s: one per entry that
    changed, as the diff of the two lists would make them (the whole list when most of it
    changed)."""
    was = [cell * _KIND_COUNT + kind for cell, kind in enumerate(before.board) if kind]
    now = [cell * _KIND_COUNT + kind for cell, kind in enumerate(after.board) if kind]
    kept = min(len(was), len(now))
    changed = [i for i in range(kept) if was[i] != now[i]]
    entries = _table(after.options.size).dice
    if len(changed) + max(0, len(now) - len(was)) > max(1, len(now) // 2):
        ops.append(["s", ["dice"], [entries[key] for key in now]])
        return
    ops.extend(["s", ["dice", i], entries[now[i]]] for i in changed)
    if len(now) < len(was):
        ops.append(["d", ["dice", len(now)]])
    ops.extend(["s", ["dice", i], entries[now[i]]] for i in range(len(was), len(now)))


def _dice_data(state: State) -> list[PlainData]:
    entries = _table(state.options.size).dice
    return [entries[cell * _KIND_COUNT + kind] for cell, kind in enumerate(state.board) if kind]


def _removed_data(state: State) -> list[PlainData]:
    return [{"cell": cell, **_DIE_DATA[kind]} for cell, kind in state.removed]


def _scores_data(state: State) -> dict[str, int]:
    return dict(zip(SEAT_NAMES, state.scores, strict=True))


@cache
def _drawing(size: int, any_side: bool) -> tuple[list[PlainData], list[PlainData]]:
    """to_data's ``cells`` and ``positions``, which depend only on the options: built once
    and shared by every call (plain data that nobody mutates)."""
    grid = square_grid(size)
    sides_of = {
        side: [SEAT_NAMES[s] for s in Seat if any_side or side in _HOME_SIDES[s]] for side in Side
    }
    cells: list[PlainData] = [
        {"cell": cell, "row": grid.row[cell], "col": grid.col[cell], "x": x, "y": y}
        for cell, (x, y) in enumerate(grid.xy)
    ]
    positions: list[PlainData] = [
        {
            "position": place.number,
            "side": place.side.label,
            "x": grid.position_xy(place.number)[0],
            "y": grid.position_xy(place.number)[1],
            "cell": place.cells[0],
            "seats": sides_of[place.side],
            "line": list(place.cells),
        }
        for place in grid.positions
    ]
    return cells, positions


def from_data(data: PlainData) -> State:
    """The state :func:`to_data` described; raises ValueError on anything else."""
    try:
        if data["game"] != NAME:
            raise ValueError(f"not an {NAME} position: {data['game']!r}")
        options = parse_options(data["options"])
        size = options.size
        board = [0] * (size * size)
        for die in data["dice"]:
            board[_cell_index(die["cell"], size)] = die_kind(die["die"])
        removed = tuple(
            (_cell_index(die["cell"], size), die_kind(die["die"])) for die in data["removed"]
        )
        to_move_name = data["to_move"]
        seat = None if to_move_name is None else Seat(SEAT_NAMES.index(to_move_name))
        score_map = data["scores"]
        scores_ = (int(score_map[SEAT_NAMES[0]]), int(score_map[SEAT_NAMES[1]]))
        last_text = data["last_move"]
        last = None if last_text is None else parse_move(new_game(options), last_text)
        return State(
            options,
            tuple(board),
            seat,
            scores_,
            int(data["ply"]),
            last,
            int(data["gained"]),
            removed,
            # Rooms stored before "scored" was written have none.
            tuple(_cell_index(cell, size) for cell in data.get("scored", ())),
        )
    except (KeyError, TypeError, IndexError, AttributeError) as error:
        raise ValueError(f"not an {NAME} position: {error!r}") from error


def render(state: State) -> str:
    """The board in pbmserv's ASCII style, position numbers around it, dots for captured dice."""
    options = state.options
    grid = square_grid(options.size)
    n = grid.size
    board = state.board
    ghosts = dict(state.removed)
    width, height = 6 * n + 1, 4 * n + 1
    canvas = [[" "] * width for _ in range(height)]

    def mark(cell: int, side: Side) -> str:
        """The mark of a port of ``cell`` on ``side``: ``#``, ``.`` (a captured die) or none."""
        if cell == NO_CELL:
            return ""
        if board[cell]:
            return "#" if _PORTS[board[cell]] >> side & 1 else ""
        kind = ghosts.get(cell, 0)
        return "." if kind and _PORTS[kind] >> side & 1 else ""

    for r in range(n + 1):
        for c in range(n + 1):
            canvas[4 * r][6 * c] = "+"
    for r in range(n + 1):
        for c in range(n):
            above = grid.cell(r - 1, c) if r > 0 else NO_CELL
            below = grid.cell(r, c) if r < n else NO_CELL
            drawn = r in (0, n) or any(cell != NO_CELL and board[cell] for cell in (above, below))
            port = max(mark(above, Side.BOTTOM), mark(below, Side.TOP), key=_mark_rank)
            for i in range(5):
                canvas[4 * r][6 * c + 1 + i] = "-" if drawn else " "
            if port:
                canvas[4 * r][6 * c + 3] = port
    for r in range(n):
        for c in range(n + 1):
            left = grid.cell(r, c - 1) if c > 0 else NO_CELL
            right = grid.cell(r, c) if c < n else NO_CELL
            drawn = c in (0, n) or any(cell != NO_CELL and board[cell] for cell in (left, right))
            port = max(mark(left, Side.RIGHT), mark(right, Side.LEFT), key=_mark_rank)
            for i in range(3):
                canvas[4 * r + 1 + i][6 * c] = "|" if drawn else " "
            if port:
                canvas[4 * r + 2][6 * c] = port
    for cell in range(grid.count):
        kind = board[cell] or ghosts.get(cell, 0)
        if not kind:
            continue
        art = _ART[KIND_NAMES[kind]]
        if not board[cell]:
            art = (art[0].replace("#", "."), art[1].replace("#", "."), art[2].replace("#", "."))
        r, c = grid.row[cell], grid.col[cell]
        for i, text in enumerate(art):
            canvas[4 * r + 1 + i][6 * c + 1 : 6 * c + 6] = list(text)

    margin = " " * 6
    lines = [_heading(state), ""]
    lines.append(margin + "".join(f"{number:^6}" for number in range(1, n + 1)))
    for y, chars in enumerate(canvas):
        text = "".join(chars)
        if y % 4 == 2:
            r = y // 4
            lines.append(f"{4 * n - r:>4}  {text}  {n + 1 + r}")
        else:
            lines.append(margin + text)
    lines.append(margin + "".join(f"{3 * n - c:^6}" for c in range(n)))
    return "\n".join(line.rstrip() for line in lines)


# --- private helpers ----------------------------------------------------------------------------


def _explanation(state: State) -> PlainData:
    """The knots that the last push scored, if it scored (to_data's docstring)."""
    if not state.gained:
        return explanation([])
    mover = Seat.FIRST if state.ply % 2 else Seat.SECOND
    cells = list(state.scored)
    return explanation([explained_group(SEAT_NAMES[mover], cells=cells, size=state.gained)])


def _legal(state: State) -> tuple[Move, ...]:
    seat = state.seat
    if seat is None:
        return ()
    return _legal_of(state.options, state.board, seat)


def _legal_of(options: Options, board: tuple[int, ...], seat: Seat) -> tuple[Move, ...]:
    """The pushes ``seat`` could make on ``board``, cached by the rows and columns open to it."""
    table = _table(options.size)
    key = _legal_key(options, board, seat)
    cached = table.legal.get(key)
    if cached is None:
        grid = table.grid
        mask = key[1]
        sides = frozenset(Side) if options.any_side else _HOME_SIDES[seat]
        cached = tuple(
            move
            for place in grid.positions
            if place.side in sides and mask & _line_bit(grid, place.number)
            for move in table.moves[place.number - 1]
        )
        if len(table.legal) >= _LEGAL_CACHE_LIMIT:
            table.legal.clear()
        table.legal[key] = cached
    return cached


def _legal_key(options: Options, board: tuple[int, ...], seat: Seat) -> tuple[int, int]:
    """What ``seat``'s pushes on ``board`` depend on: the sides it pushes from (2 for any)
    and the rows and columns there that have a gap (see :func:`_gap_mask`)."""
    key_side = 2 if options.any_side else int(seat)
    return key_side, _gap_mask(board, options.size, key_side != 1, key_side != 0)


def _move_texts(options: Options, board: tuple[int, ...], seat: Seat) -> list[str]:
    """The texts of ``seat``'s pushes on ``board``, one list per key of :func:`_legal_key`
    shared by every call, so the server lists them without building them again while the
    open rows and columns stay the same."""
    table = _table(options.size)
    key = _legal_key(options, board, seat)
    texts = table.texts.get(key)
    if texts is None:
        texts = [move_text(move) for move in _legal_of(options, board, seat)]
        if len(table.texts) >= _LEGAL_CACHE_LIMIT:
            table.texts.clear()
        table.texts[key] = texts
    return texts


def _best_gain(state: State) -> int:
    """The most points the side to move in ``state`` could score with one push."""
    return max([gain for _, gain in _gains(state)], default=0)


def _push_gains(state: State) -> dict[Move, int]:
    """The points each legal push would score, by move."""
    return dict(_gains(state))


def _gains(state: State) -> list[tuple[Move, int]]:
    """Each legal push and the points it would score, as :func:`play` scores them.

    The hook asks this of every position it values, so it does only what the points need:
    each line is shifted once for all the faces that may enter it, no State is built, and
    the moves are not hashed (a dict of them cost a fifth of the evaluation).
    """
    seat = state.seat
    if seat is None:
        return []
    options = state.options
    table = _table(options.size)
    board = state.board
    sides = frozenset(Side) if options.any_side else _HOME_SIDES[seat]
    thin_knots = options.thin_knots
    captured: set[int] = set()
    gains: list[tuple[Move, int]] = []
    for place in table.grid.positions:
        if place.side not in sides:
            continue
        line = place.cells
        gap = next((i for i, cell in enumerate(line) if board[cell] == 0), -1)
        if gap < 0:
            continue
        cells = _shifted(board, line, gap)
        moved = line[: gap + 1]
        for move in table.moves[place.number - 1]:
            cells[line[0]] = _ENTRY_KIND[move.face][place.side]
            gains.append((move, _knot_points(cells, moved, table, thin_knots, captured)))
    return gains


_ENTERING: dict[str, dict[str, PlainData]] = {
    side.label: {face: _DIE_DATA[entering_die(face, side)] for face in FACES} for side in Side
}
"""to_data's ``entering``: the die each face becomes when pushed in from each side."""


def _cell_index(value: object, size: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size * size:
        raise ValueError(f"no cell {value!r} on a {size}x{size} board")
    return value


def _mark_rank(mark: str) -> int:
    return {"": 0, ".": 1, "#": 2}[mark]


def _heading(state: State) -> str:
    horz, vert = state.scores
    text = f"Osbox {options_text(state.options)}".rstrip()
    text += f"   Horz {horz}  Vert {vert}"
    result = outcome(state)
    if result is not None:
        text += f"   Game over: {result.reason}"
    elif state.seat is not None:
        text += f"   {SEAT_NAMES[state.seat].capitalize()} to move"
    if state.last is not None:
        text += f"\nLast move: {move_text(state.last)}"
        if state.gained:
            text += f", +{state.gained}"
        if state.removed:
            text += f", {len(state.removed)} dice removed"
    return text
