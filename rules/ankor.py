"""Ankor: the 3D connection game of placing and moving cubes on the pyramid (spec §4).

Implements ``docs/rules/ankor.md`` (§4; the board is ``docs/rules/pyramid.md``) behind the API
(:mod:`rules.api`).  The pyramid geometry (positions, labels, support, adjacency, sides,
columns, drawing coordinates) comes from :mod:`rules.geometry.trigrid`; the reach search that
judges one move goes through :mod:`rules.geometry.graph`, while the hot searches (groups of the
mover's cubes, winning paths) run as floods over bit sets built from trigrid's neighbour
tuples; the swap is :mod:`rules.pie`.  Imports nothing else of ours.

Rules in brief (spec §4.2-§4.4).  White moves first.  Each turn a player either **adds** a cube
from their supply to an empty board hole (``d3``) or **moves** one of their cubes (``d3-1c2``)
to an empty, supported position that is same-level adjacent to, or rests on, a cube of the
mover's colour reachable from the moving cube through connected (face contact) or adjacent
(same level) friendly cubes.  A cube carrying two or more cubes cannot move; a cube carrying
one takes the column above it along: the column drops one step into the gap, and the
destination may not rest on any cube that moves.  After every action both colours are
evaluated: a colour wins with a face-connected group touching sides U, V and W, where a cube
touches a side when it lies on that side's slope at a level ``<= win_height``.

Options (pbmserv flags): ``-size=n`` (1..26, default 6), ``-win_height=h`` (-1 for any level,
else 0..25; default 1, the official "tip" rule), ``-swap`` / ``-no_swap`` (pie rule, on).

Decisions where the sources leave room (all in the spec's §4.7; *ours* marks the engine's own):

* Supplies: ``ceil(T_n / 2)`` cubes each, 28 on the standard board.
* Both colours connected after one action: the mover loses.  A drop can hand the win to the
  opponent (spec A11).
* Passing: a player with no legal action passes automatically inside :func:`play`; the
  state records how many passes followed the last action (``passes``).  Two passes in a row
  (neither player can act) end the game in a draw.
* Repetition: the position (board, supplies, player to move) after an action occurring for
  the third time is a draw.  An add lowers a supply, so positions before it never recur; the
  history therefore restarts at every add (and at the swap).
* *Ours:* ``pass`` is never typed; :func:`parse_move` rejects it as text.
* *Ours:* a label that is well formed but names no position of this board size (``h1`` on a
  size-6 board) is a syntax error of this board, like any other text that names no move.
* *Ours:* ``-win_height`` at or above the apex level (``size - 1``) means every level, like
  ``-1``; it is accepted (so ``-size=1`` keeps the default ``-win_height=1``).  The one
  incompatible combination is ``-swap`` with ``-no_swap``.

``to_data`` shape (plain data; ``from_data`` reads the first group only)::

    {"game": "ankor", "options": "-size=4", "size": 4,
     "board": ".w..b...",          # owner per position id: "." empty, "w" White, "b" Blue
     "supply": [27, 28],           # cubes in hand of White, Blue
     "to_move": "white" | "blue" | None, "ply": 5,   # ply = actions played (passes excluded)
     "last": "d3-1c2" | None, "passes": 0,           # automatic passes after the last action
     "history": ["....w...0", ...],# repetition keys since the last add: board + seat digit
     "outcome": None | {"winner": "white" | "blue" | None, "reason": "..."},
     # derived, for drawing without the rules:
     "seats": ["white", "blue"], "scores": None, "radius": 1.0,
     "positions": [{"label": "1c2", "level": 1, "row": 2, "index": 1, "x": -1.5, "y": 0.87,
                    "owner": "white" | "blue" | None, "faces": "UW", "last": False}, ...],
     "frame": {"outline": [[x, y], ...], "sides": {"U": [[x, y], [x, y]], ...}},
     "explanation": None | {"groups": [...]}}

Position ids run level by level from the board up (as in trigrid).  ``x, y`` is the centre of
the position's hexagon in the pbmserv orientation (circumradius ``radius``, y pointing up; the
single-hole tip points right).  Draw the levels in order, lowest first, each cube as a hexagon
split into three rhombi: ``faces`` names its upper faces that are visible (nothing rests on
them): ``U`` the left rhombus, ``W`` the upper one, ``V`` the lower one.  Empty positions above
the board are not drawn; empty holes (level 0) are.  ``last`` marks the cube the last action
added or moved.  ``frame`` is the board's outline and the edge along each side
(:mod:`rules.geometry.trigrid`).  The ``explanation`` (:func:`rules.api.explanation`) of a
connection shows each winning group: its cubes (``cells``, labels), the face contacts that
join them (``links``, between hexagon centres) and the sides it touches; a draw shows none.

:func:`seat_moves` gives a seat its moves apart from this data: to the seat to move, the
legal move texts when there are at most 300, else its adds and cube moves as blocks of
:func:`rules.api.move_blocks` (a cube's moves share a block); to the seat that waits, its
adds and cube moves as blocks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import compress
from operator import ne
from typing import Final, TypeAlias

from rules import pie
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
from rules.geometry import graph, trigrid
from rules.pie import SWAP, Swap

NAME = "ankor"
SEAT_NAMES = ("white", "blue")

EMPTY, WHITE, BLUE = 0, 1, 2
"""Owner codes in the board bytes; a seat's colour is ``seat + 1``."""

LETTERS = ("", "o", "x")
"""pbmserv's letters for White (O) and Blue (X)."""

DATA_OWNERS = ".wb"
LEGAL_LIMIT = 300
""":func:`seat_moves` lists the legal moves as texts only up to this many."""

FLAGS: Sequence[Flag] = (
    Flag("size", "size", minimum=1, maximum=trigrid.MAX_SIZE, help="holes per side (6)"),
    Flag(
        "win_height",
        "win_height",
        minimum=-1,
        maximum=trigrid.MAX_SIZE - 1,
        help="highest level that touches a side: 0 board, 1 tips (default), -1 any level",
    ),
    *pie.PIE_FLAGS,
)


@dataclass(frozen=True, slots=True)
class Options:
    """Board size, how high a cube may sit and still touch a side, and the swap offer."""

    size: int = 6
    win_height: int = 1
    pie: bool = True

    def __post_init__(self) -> None:
        check_options(self, FLAGS)


@dataclass(frozen=True, slots=True)
class Add:
    """Put a cube from the supply on an empty board hole: ``d3``."""

    to: str

    def __str__(self) -> str:
        return self.to


@dataclass(frozen=True, slots=True)
class Shift:
    """Move an own cube on the board to a valid destination: ``d3-1c2`` (spec "move")."""

    source: str
    to: str

    def __str__(self) -> str:
        return f"{self.source}-{self.to}"


Move: TypeAlias = Add | Shift | Swap

Targets: TypeAlias = dict[int, tuple[int, ...]]
"""Valid destinations by the id of the cube that moves (ids of :mod:`rules.geometry.trigrid`)."""


@dataclass(slots=True, unsafe_hash=True, init=False)
class State:
    """A position: the board, both supplies, whose turn, and what repetition needs.

    ``board`` holds one owner code per position id; ``turn`` is None once the game is over;
    ``history`` holds the repetition keys (board plus seat byte) since the last add or swap.
    ``memo`` caches derived data, the valid destinations of the mover's cubes by source id,
    once :func:`legal_moves` has computed them; ``texts`` caches ``history`` as to_data's
    texts once to_data has made them, and :func:`play` extends them for the next state (a
    long history would otherwise be turned into text again on every move; states that never
    reach to_data, like a search's playouts, make none); ``looks`` caches each position's
    entry key (see ``_position_keys``) once the page data has been made or described.  None of
    them is part of the value.

    A value all the same: its fields are Final (see "Values" in :mod:`rules.api`).
    """

    options: Final[Options]
    board: Final[bytes]
    supply: Final[tuple[int, int]]
    turn: Final[Seat | None]
    ply: Final[int]
    last: Final[str]
    passes: Final[int]
    history: Final[tuple[bytes, ...]]
    result: Final[Outcome | None]
    memo: Targets | None = field(default=None, compare=False, hash=False, repr=False)
    texts: tuple[str, ...] | None = field(default=None, compare=False, hash=False, repr=False)
    looks: list[int] | None = field(default=None, compare=False, hash=False, repr=False)

    def __init__(
        self,
        options: Options,
        board: bytes,
        supply: tuple[int, int],
        turn: Seat | None,
        ply: int = 0,
        last: str = "",
        passes: int = 0,
        history: tuple[bytes, ...] = (),
        result: Outcome | None = None,
        memo: Targets | None = None,
        texts: tuple[str, ...] | None = None,
        looks: list[int] | None = None,
    ) -> None:
        self.options = options
        self.board = board
        self.supply = supply
        self.turn = turn
        self.ply = ply
        self.last = last
        self.passes = passes
        self.history = history
        self.result = result
        self.memo = memo
        self.texts = texts
        self.looks = looks


# --- options -------------------------------------------------------------------------------


def parse_options(text: str) -> Options:
    """pbmserv flags (``-size=4 -win_height=0 -no_swap``) to Options; raises OptionsError."""
    return options_from_flags(Options, text, FLAGS)


@lru_cache(maxsize=256)  # to_data names the options at every move
def options_text(options: Options) -> str:
    """The flags that differ from the defaults."""
    return options_flags_text(options, FLAGS)


def supply_per_player(size: int) -> int:
    """Cubes each player starts with: 28 at size 6, ``ceil(T_n / 2)`` in general (DECISION)."""
    return (trigrid.tetrahedral(size) + 1) // 2


# --- the game ------------------------------------------------------------------------------


def new_game(options: Options) -> State:
    """The empty board, full supplies, White to move."""
    t = _tables(options.size)
    start = supply_per_player(options.size)
    board = bytes(t.g.count)
    return State(
        options=options,
        board=board,
        supply=(start, start),
        turn=Seat.FIRST,
        history=(_key(board, Seat.FIRST),),
    )


def set_up(
    options: Options,
    white: Sequence[str],
    blue: Sequence[str],
    to_move: Seat = Seat.FIRST,
    supply: tuple[int, int] | None = None,
    last: str = "",
) -> State:
    """A position set up by hand (the spec's test vectors, puzzles), judged as after a move.

    The player not to move counts as the one who just acted (for a double path); passes and
    the deadlock draw apply as in play.  Supplies default to what is left of the start
    supply (never below 0).  Raises ValueError for an unknown, doubled or unsupported
    position.
    """
    t = _tables(options.size)
    board = bytearray(t.g.count)
    for colour, labels in ((WHITE, white), (BLUE, blue)):
        for label in labels:
            p = t.g.parse(label)
            if p is None or board[p]:
                raise ValueError(f"cannot set up a cube on {label!r}")
            board[p] = colour
    for p in range(t.g.count):
        if board[p] and not all(board[s] for s in t.g.supporters[p]):
            raise ValueError(f"the cube on {t.g.labels[p]} is not supported")
    if supply is None:
        start = supply_per_player(options.size)
        supply = (max(0, start - board.count(WHITE)), max(0, start - board.count(BLUE)))
    ply = len(white) + len(blue)
    return _settle(t, options, bytes(board), supply, _OTHER[to_move], ply, last, (), None, t.ids)


def to_move(state: State) -> Seat | None:
    """The seat to act, or None once the game is over."""
    return state.turn


def outcome(state: State) -> Outcome | None:
    """The result once the game is over: a connection, a deadlock or a repetition."""
    return state.result


def scores(state: State) -> tuple[int, int] | None:
    """Ankor has no scores."""
    return None


def legal_moves(state: State) -> Iterator[Move]:
    """Every legal action of the player to move: swap, adds, then cube moves."""
    if state.turn is None:
        return iter(())
    t = _tables(state.options.size)
    moves: list[Move] = [SWAP] if state.ply == 1 and state.options.pie else []
    board = state.board
    if state.supply[state.turn]:
        adds = t.adds
        moves.extend([adds[p] for p in t.holes if not board[p]])
    shifts = t.shifts
    for source, targets in _memo(t, state).items():
        moves.extend(map(shifts[source].__getitem__, targets))
    return iter(moves)


def _legal_texts(t: _Tables, state: State) -> list[str]:
    """The texts of :func:`legal_moves`, in its order, from texts made once per move."""
    if state.turn is None:
        return []
    texts = [pie.SWAP_TEXT] if state.ply == 1 and state.options.pie else []
    board = state.board
    if state.supply[state.turn]:
        labels = t.g.labels
        texts.extend([labels[p] for p in t.holes if not board[p]])
    shifts = t.shifts
    for source, targets in _memo(t, state).items():
        texts.extend(map(shifts[source].texts.__getitem__, targets))
    return texts


def play(state: State, move: object) -> State:
    """The position after ``move``, then any automatic passes; raises IllegalMoveError."""
    seat = state.turn
    if seat is None:
        raise IllegalMoveError("the game is over")
    options = state.options
    t = _tables(options.size)
    if isinstance(move, Swap):
        if not options.pie:
            raise IllegalMoveError("swap is off in this game (-no_swap)")
        if not pie.can_swap(state.ply, options.pie):
            raise IllegalMoveError("swap is only allowed as the second move of the game")
        return State(
            options=options,
            board=state.board,
            supply=state.supply,
            turn=Seat.SECOND,
            ply=state.ply + 1,
            last=pie.SWAP_TEXT,
            history=(_key(state.board, Seat.SECOND),),
        )
    colour = seat + 1
    board = state.board
    if isinstance(move, Add):
        p = t.index.get(move.to)
        if p is None:
            p = _position(t, move.to)
        if t.g.level[p] != 0:
            raise IllegalMoveError(f"cubes are added on board holes only, not on {move.to}")
        if board[p]:
            raise IllegalMoveError(f"{move.to} is occupied")
        if not state.supply[seat]:
            raise IllegalMoveError("you have no cubes left to add")
        after = bytearray(board)
        after[p] = colour
        supply = list(state.supply)
        supply[seat] -= 1
        return _settle(
            t,
            options,
            bytes(after),
            (supply[0], supply[1]),
            seat,
            state.ply + 1,
            str(move),
            (),
            None,
            (p,),
        )
    if isinstance(move, Shift):
        source, target = t.index.get(move.source), t.index.get(move.to)
        if source is None or target is None:
            source, target = _position(t, move.source), _position(t, move.to)
        memo = state.memo
        if memo is not None and target in memo.get(source, ()):
            column = _movable_column(t, board, source) or ()
        else:
            column = _check_shift(t, board, colour, source, target, move)
        after = bytearray(board)
        chain = (source, *column)
        for lower, upper in zip(chain, chain[1:], strict=False):
            after[lower] = board[upper]
        after[chain[-1]] = EMPTY
        after[target] = colour
        # A new path must run through a changed position: the target or a dropped cube.
        return _settle(
            t,
            options,
            bytes(after),
            state.supply,
            seat,
            state.ply + 1,
            str(move),
            state.history,
            state.texts,
            (target, *chain[:-1]),
        )
    raise IllegalMoveError(f"{move!r} is not an Ankor move")


def parse_move(state: State, text: str) -> Move:
    """``d3`` (add), ``d3-1c2`` (move) or ``swap``; raises InvalidMoveError."""
    if not isinstance(text, str):
        raise InvalidMoveError("a move is text such as d3, d3-1c2 or swap")
    word = text.strip().lower()
    if pie.is_swap_text(word):
        return SWAP
    if word == "pass":
        raise InvalidMoveError("nobody types pass: a player who cannot act passes automatically")
    t = _tables(state.options.size)
    parts = word.split("-")
    if len(parts) == 1:
        return t.adds_by_id(_parse_position(t, parts[0]))
    if len(parts) == 2:
        source = _parse_position(t, parts[0])
        return t.shifts[source][_parse_position(t, parts[1])]
    raise InvalidMoveError(f"{text!r} is not a move: use d3 (add), d3-1c2 (move) or swap")


def move_text(move: Move) -> str:
    """The canonical notation: ``d3``, ``d3-1c2`` or ``swap``."""
    return str(move)


# --- plain data and drawing ----------------------------------------------------------------


def to_data(state: State) -> PlainData:
    """Plain data for storage and drawing (shape in the module docstring).

    Each entry of ``positions`` is built once per board size and look (see
    ``_Tables.entry``) and shared by every call that shows it, so the room's diff finds
    unchanged entries by identity; nobody may change the returned data.
    """
    t = _tables(state.options.size)
    board = state.board
    result = state.result
    keys = _position_keys(t, state)
    positions = list(map(dict.get, t.entries, keys))
    if not all(positions):  # an entry not built yet (entries are never empty)
        positions = [found or t.entry(p, keys[p]) for p, found in enumerate(positions)]
    return {
        "game": NAME,
        "options": options_text(state.options),
        "size": state.options.size,
        "board": board.translate(_DATA_OWNERS).decode(),
        "supply": list(state.supply),
        "to_move": _turn_name(state),
        "ply": state.ply,
        "last": state.last or None,
        "passes": state.passes,
        "history": list(_history_texts(state)),
        "outcome": outcome_data(state.result, SEAT_NAMES),
        "seats": list(SEAT_NAMES),
        "scores": None,
        "radius": 1.0,
        "positions": positions,
        "frame": t.frame,
        "explanation": None if result is None else _explanation(t, state),
    }


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The moves ``seat`` could make, as texts or blocks (see the module docstring): the hook
    of :meth:`rules.api.GameRules.seat_moves`."""
    mover = state.turn
    if mover is None:
        return []
    t = _tables(state.options.size)
    if seat != mover:
        return _blocks(t, state, seat)
    legal = _legal_texts(t, state)
    return legal if len(legal) <= LEGAL_LIMIT else _blocks(t, state, mover)


def data_changes(before: State, after: State, before_data: PlainData) -> list[PlainData]:
    """The operations that turn ``before_data`` (``to_data(before)``) into ``to_data(after)``:
    the optional hook of :class:`rules.api.DataChanges`.

    The fields and the positions' looks are compared as the states hold them, not as two
    documents, and only the parts that differ are built.
    """
    if before.options != after.options:
        return [["s", [], to_data(after)]]
    t = _tables(after.options.size)
    ops: list[PlainData] = []
    if before.board != after.board:
        ops.append(["s", ["board"], after.board.translate(_DATA_OWNERS).decode()])
    if before.supply != after.supply:
        ops.append(["s", ["supply"], list(after.supply)])
    if before.turn != after.turn:
        ops.append(["s", ["to_move"], _turn_name(after)])
    if before.ply != after.ply:
        ops.append(["s", ["ply"], after.ply])
    if before.last != after.last:
        ops.append(["s", ["last"], after.last or None])
    if before.passes != after.passes:
        ops.append(["s", ["passes"], after.passes])
    if before.history != after.history:
        old: list[str] = before_data["history"]
        new = _history_texts(after)
        kept = len(old)
        if len(new) > kept and list(new[:kept]) == old:  # the usual move: one key more
            ops.extend(["s", ["history", i], new[i]] for i in range(kept, len(new)))
        else:
            ops.append(["s", ["history"], list(new)])
    if before.result != after.result:
        ops.append(["s", ["outcome"], outcome_data(after.result, SEAT_NAMES)])
        explained = None if after.result is None else _explanation(t, after)
        ops.append(["s", ["explanation"], explained])
    old_keys = _position_keys(t, before)
    new_keys = _position_keys(t, after)
    for p in compress(range(len(new_keys)), map(ne, old_keys, new_keys)):
        was, now = t.entry(p, old_keys[p]), t.entry(p, new_keys[p])
        for name in _ENTRY_LOOKS:
            if was[name] != now[name]:
                ops.append(["s", ["positions", p, name], now[name]])
    return ops


_ENTRY_LOOKS = ("owner", "faces", "last")
"""The parts of a ``positions`` entry that a move can change (see ``_Tables.entry``)."""


def _position_keys(t: _Tables, state: State) -> list[int]:
    """Each position's entry key (see ``_Tables.entry``): owner code, the faces nothing rests
    on (bit mask) and the last-cube flag.  Index len(board) of ``padded`` is the empty "above"
    of the top level; the terms come from bytes.translate: owner << 4, and 2, 4, 8 for a free
    face."""
    keys = state.looks
    if keys is not None:
        return keys
    board = state.board
    padded = board + b"\0"
    free_a = padded.translate(_FREE_FACE[0])
    free_b = padded.translate(_FREE_FACE[1])
    free_c = padded.translate(_FREE_FACE[2])
    keys = [
        owner + free_a[a] + free_b[b] + free_c[c] if owner else 0
        for owner, (a, b, c) in zip(board.translate(_OWNER_KEY), t.tops, strict=True)
    ]
    last = _last_target(t, state.last)
    if last is not None:
        keys[last] |= 1
    state.looks = keys
    return keys


def _turn_name(state: State) -> str | None:
    return None if state.turn is None else SEAT_NAMES[state.turn]


def _blocks(t: _Tables, state: State, seat: Seat) -> list[PlainData]:
    """The adds and cube moves of ``seat`` on this board, as blocks (the swap left out): what
    :func:`rules.api.move_blocks` makes of them, grouped here from the destinations by cube
    without a tuple per move (the server asks for both seats' moves at every move)."""
    board = state.board
    labels = t.g.labels
    blocks: list[PlainData] = []
    if state.supply[seat]:
        blocks = [labels[p] for p in t.holes if not board[p]]
    targets = _memo(t, state) if seat == state.turn else _destinations(t, board, seat + 1)
    sources: dict[tuple[int, ...], list[str]] = {}
    for source, destinations in targets.items():
        if destinations:
            group = sources.get(destinations)
            if group is None:
                sources[destinations] = [labels[source]]
            else:
                group.append(labels[source])
    for destinations, group in sources.items():
        blocks.append({"parts": [group, [labels[d] for d in destinations]], "join": "-"})
    return blocks


def _explanation(t: _Tables, state: State) -> PlainData:
    """The winning groups of a connection (none for a draw): each face-connected group that
    touches the three sides under ``-win_height``."""
    board = state.board
    sides = t.side_bits(state.options.win_height)
    touched_by = t.side_map(state.options.win_height)
    groups = []
    for colour in (WHITE, BLUE):
        remaining = _bits(board, colour)
        while remaining:
            group = frontier = remaining & -remaining
            while frontier:
                grow = 0
                while frontier:
                    low = frontier & -frontier
                    grow |= t.contact_bits[low.bit_length() - 1]
                    frontier ^= low
                frontier = grow & remaining & ~group
                group |= frontier
            remaining &= ~group
            if all(group & side for side in sides):
                cubes = [p for p in range(t.g.count) if group >> p & 1]
                groups.append(
                    explained_group(
                        SEAT_NAMES[colour - 1],
                        cells=[t.g.labels[p] for p in cubes],
                        links=[
                            (t.g.xy[p], t.g.xy[q])
                            for p in cubes
                            for q in t.g.contacts[p]
                            if p < q and group >> q & 1
                        ],
                        sides=sorted(set().union(*(touched_by.get(p, ()) for p in cubes))),
                        size=len(cubes),
                    )
                )
    return explanation(groups)


_FACES = tuple(
    "".join(trigrid.SIDES[axis] for axis in trigrid.AXES if mask >> axis & 1) for mask in range(8)
)
"""Visible upper faces by bit mask (bit ``axis`` set when nothing rests on that face)."""
_OWNER_KEY = bytes.maketrans(bytes((EMPTY, WHITE, BLUE)), bytes((0, WHITE << 4, BLUE << 4)))
_FREE_FACE = tuple(
    bytes.maketrans(bytes((EMPTY, WHITE, BLUE)), bytes((2 << axis, 0, 0))) for axis in (0, 1, 2)
)
"""``bytes.translate`` tables for to_data's entry keys: an owner code to its part of the
key, and, for each axis above a position, the code of what rests there to that face's bit
(2, 4, 8) when it is free."""
_DATA_OWNERS = bytes.maketrans(bytes((EMPTY, WHITE, BLUE)), DATA_OWNERS.encode())
"""``bytes.translate`` table: owner code to its letter in ``to_data``'s board text."""
_NOT_AN_OWNER = b"\xff"
_OWNERS_OF_TEXT = bytes(
    DATA_OWNERS.find(chr(code)) if chr(code) in DATA_OWNERS else _NOT_AN_OWNER[0]
    for code in range(256)
)
"""The inverse of ``_DATA_OWNERS``: each owner's character to its code, any other byte to
``_NOT_AN_OWNER``."""


def from_data(data: PlainData) -> State:
    """The state ``to_data`` described; raises ValueError on data it did not write."""
    try:
        if data["game"] != NAME:
            raise ValueError(f"not an {NAME} position: {data['game']!r}")
        options = parse_options(data["options"])
        board = _board_from_text(data["board"], options.size)
        white, blue = data["supply"]
        outcome_data = data["outcome"]
        result = None
        if outcome_data is not None:
            winner = outcome_data["winner"]
            result = Outcome(
                None if winner is None else Seat(SEAT_NAMES.index(winner)),
                str(outcome_data["reason"]),
            )
        turn = data["to_move"]
        return State(
            options=options,
            board=board,
            supply=(int(white), int(blue)),
            turn=None if turn is None else Seat(SEAT_NAMES.index(turn)),
            ply=int(data["ply"]),
            last=data["last"] or "",
            passes=int(data["passes"]),
            history=tuple(_key_from_text(text, options.size) for text in data["history"]),
            result=result,
            texts=tuple(data["history"]),  # the one text of each key, checked just above
        )
    except (KeyError, TypeError, IndexError) as error:
        raise ValueError(f"not {NAME} position data: {error!r}") from error


def render(state: State) -> str:
    """The pyramid as pbmserv drew it (O White, X Blue, the last cube moved in capitals),
    then the supplies and whose turn it is or how the game ended."""
    t = _tables(state.options.size)
    g = t.g
    board = state.board
    last = _last_target(t, state.last)
    n = state.options.size
    # Half-scale pbmserv cells: circumradius 4 columns, sqrt3/2 of it = 2 rows.
    height, width = 4 * n + 1, 6 * (n - 1) + 13
    canvas = [[" "] * width for _ in range(height)]

    def centre(p: int) -> tuple[int, int]:
        x, y = g.xy[p]
        return round(-y * 4 / 3**0.5) + 2 * n, round(4 * x) + 2 * (n - 1) + 8

    def put(row: int, col: int, text: str) -> None:
        canvas[row][col : col + len(text)] = text

    for level in range(n):
        for p in g.level_positions[level]:
            owner = board[p]
            if not owner and level:
                continue
            r, c = centre(p)
            put(r - 2, c - 2, "+---+")
            put(r + 2, c - 2, "+---+")
            if not owner:
                put(r - 1, c - 3, "/   . \\")
                put(r, c - 4, "+ . .   +")
                put(r + 1, c - 3, "\\   . /")
                continue
            a = LETTERS[owner].upper() if p == last else LETTERS[owner]
            put(r - 1, c - 3, f"/{a}\\{a * 3}\\")
            put(r, c - 4, f"+{a * 3}+---+")
            put(r + 1, c - 3, f"\\{a}/{a * 3}/")
    lines = ["".join(row).rstrip() for row in canvas]
    last_row = chr(ord("a") + n - 1)
    lines.append("")
    lines.append(
        f"Holes: rows a (the tip, right) to {last_row} (the left side), numbered from the top;"
        " stacked positions carry their level: 1c2."
    )
    white, blue = state.supply
    lines.append(f"White (O) {white} in hand, Blue (X) {blue} in hand.")
    result = state.result
    if result is not None:
        lines.append(f"Game over: {result.reason}.")
    elif state.turn is not None:
        passed = f"{SEAT_NAMES[state.turn.other].title()} passed. " if state.passes else ""
        lines.append(f"{passed}{SEAT_NAMES[state.turn].title()} to move.")
    return "\n".join(lines)


# --- private helpers -----------------------------------------------------------------------


class _Shifts(dict[int, Shift]):
    """One source's moves by target id, made on first use (a board has T_n squared)."""

    __slots__ = ("source", "labels", "texts")

    def __init__(self, source: str, labels: tuple[str, ...]) -> None:
        super().__init__()
        self.source = source
        self.labels = labels
        self.texts = _ShiftTexts(source, labels)
        """The same moves' texts, for the legal move texts of :func:`seat_moves`."""

    def __missing__(self, target: int) -> Shift:
        move = self[target] = Shift(self.source, self.labels[target])
        return move


class _ShiftTexts(dict[int, str]):
    """One source's move texts by target id, made on first use."""

    __slots__ = ("source", "labels")

    def __init__(self, source: str, labels: tuple[str, ...]) -> None:
        super().__init__()
        self.source = source
        self.labels = labels

    def __missing__(self, target: int) -> str:
        text = self[target] = f"{self.source}-{self.labels[target]}"
        return text


class _Tables:
    """Ankor's precomputed view of one board size: search steps, landing entries, moves."""

    __slots__ = (
        "g",
        "ids",
        "holes",
        "steps",
        "bit",
        "below_bits",
        "above_bits",
        "entry_bits",
        "levels",
        "step_bits",
        "contact_bits",
        "cones",
        "index",
        "adds",
        "shifts",
        "drawing",
        "tops",
        "entries",
        "frame",
        "_win",
        "_side_bits",
    )

    def __init__(self, size: int) -> None:
        g = trigrid.pyramid(size)
        self.g = g
        self.ids = range(g.count)
        self.holes: tuple[int, ...] = g.level_positions[0]
        # Steps of the reach search: connected (face contact) or adjacent (same level).
        self.steps: tuple[tuple[int, ...], ...] = tuple(
            g.adjacent[p] + g.contacts[p] for p in range(g.count)
        )
        # Position sets as ints with bit p for position p (see _destinations).
        self.bit: tuple[int, ...] = tuple(1 << p for p in range(g.count))

        def bits(positions: tuple[int, ...]) -> int:
            return sum(self.bit[q] for q in positions)

        self.step_bits = tuple(bits(self.steps[p]) for p in range(g.count))
        self.contact_bits = tuple(bits(g.contacts[p]) for p in range(g.count))
        self.below_bits = tuple(bits(g.supporters[p]) for p in range(g.count))
        self.above_bits = tuple(bits(g.carried[p]) for p in range(g.count))
        self.levels = tuple(bits(level) for level in g.level_positions)
        # Everything that could rest on a column above p: only there can a column block.
        self.cones = tuple(
            bits(tuple({r for x in trigrid.AXES for q in g.up_line(p, x) for r in g.carried[q]}))
            for p in range(g.count)
        )
        # The cubes that let a moving cube land on a position: beside it or under it.
        self.entry_bits = tuple(bits(g.adjacent[p] + g.supporters[p]) for p in range(g.count))
        self.index: dict[str, int] = {label: p for p, label in enumerate(g.labels)}
        self.adds: tuple[Add, ...] = tuple(Add(g.labels[p]) for p in self.holes)
        self.shifts: tuple[_Shifts, ...] = tuple(_Shifts(label, g.labels) for label in g.labels)
        # The static part of each entry of to_data's "positions", shared by every call.
        self.drawing: tuple[dict[str, PlainData], ...] = tuple(
            {
                "label": g.labels[p],
                "level": g.coords[p][0],
                "row": g.coords[p][1],
                "index": g.coords[p][2],
                "x": g.xy[p][0],
                "y": g.xy[p][1],
            }
            for p in range(g.count)
        )
        # What rests on each face of each position (len(ids): nothing can), and to_data's
        # entries of each position by key (see entry), shared by every call.
        self.tops: tuple[tuple[int, int, int], ...] = tuple(
            (
                g.count if a is None else a,
                g.count if b is None else b,
                g.count if c is None else c,
            )
            for a, b, c in g.above
        )
        self.entries: tuple[dict[int, dict[str, PlainData]], ...] = tuple(
            {} for _ in range(g.count)
        )
        self._win: dict[int, dict[int, frozenset[str]]] = {}
        self.frame: dict[str, PlainData] = {
            "outline": [list(point) for point in g.outline],
            "sides": {side: [list(a), list(b)] for side, (a, b) in g.side_edges.items()},
        }
        self._side_bits: dict[int, tuple[int, int, int]] = {}

    def entry(self, p: int, key: int) -> dict[str, PlainData]:
        """The ``positions`` entry of ``p`` under ``key`` (owner code << 4, the mask of faces
        nothing rests on << 1, the last-cube flag); built once, then shared (never mutate)."""
        found = self.entries[p].get(key)
        if found is None:
            owner, faces = key >> 4, key >> 1 & 7
            found = self.entries[p][key] = {
                **self.drawing[p],
                "owner": SEAT_NAMES[owner - 1] if owner else None,
                "faces": _FACES[faces] if owner else "",
                "last": bool(key & 1),
            }
        return found

    def adds_by_id(self, p: int) -> Add:
        return self.adds[p] if p < len(self.adds) else Add(self.g.labels[p])

    def side_map(self, win_height: int) -> dict[int, frozenset[str]]:
        """The sides each position touches under ``-win_height`` (positions touching none
        are absent)."""
        found = self._win.get(win_height)
        if found is None:
            found = self._win[win_height] = self.g.side_map(win_height)
        return found

    def side_bits(self, win_height: int) -> tuple[int, int, int]:
        """The positions touching sides U, V and W under ``-win_height``, as bit sets."""
        found = self._side_bits.get(win_height)
        if found is None:
            sides = self.side_map(win_height)
            found = self._side_bits[win_height] = (
                sum(self.bit[p] for p, touched in sides.items() if "U" in touched),
                sum(self.bit[p] for p, touched in sides.items() if "V" in touched),
                sum(self.bit[p] for p, touched in sides.items() if "W" in touched),
            )
        return found


@cache
def _tables(size: int) -> _Tables:
    return _Tables(size)


def _key(board: bytes, seat: Seat) -> bytes:
    return board + bytes((seat,))


def _key_text(key: bytes) -> str:
    """A repetition key as text."""
    return key[:-1].translate(_DATA_OWNERS).decode() + str(key[-1])


def _history_texts(state: State) -> tuple[str, ...]:
    """The state's history as texts, made once per state (see ``State.texts``)."""
    texts = state.texts
    if texts is None:
        texts = tuple(map(_key_text, state.history))
        state.texts = texts
    return texts


def _key_from_text(text: str, size: int) -> bytes:
    if not text or text[-1] not in "01":
        raise ValueError(f"bad history entry {text!r}")
    return _board_from_text(text[:-1], size) + bytes((int(text[-1]),))


def _board_from_text(text: str, size: int) -> bytes:
    # By bytes.translate, not a character at a time: a room read back from its document
    # parses every repetition key since the last add, a board each.
    try:
        board = text.encode("ascii").translate(_OWNERS_OF_TEXT)
    except UnicodeEncodeError:
        board = _NOT_AN_OWNER
    if len(board) != trigrid.tetrahedral(size) or _NOT_AN_OWNER in board:
        raise ValueError(f"bad board text {text!r}")
    return board


def _position(t: _Tables, label: str) -> int:
    try:
        p = t.g.parse(label)
    except (ValueError, AttributeError):
        p = None
    if p is None:
        raise IllegalMoveError(f"there is no position {label!r} on a size-{t.g.n} board")
    return p


def _parse_position(t: _Tables, text: str) -> int:
    try:
        p = t.g.parse(text.strip())
    except ValueError as error:
        raise InvalidMoveError(str(error)) from error
    if p is None:
        raise InvalidMoveError(f"there is no position {text.strip()!r} on a size-{t.g.n} board")
    return p


def _last_target(t: _Tables, last: str) -> int | None:
    """The position of the cube that the last action added or moved."""
    if not last or last == pie.SWAP_TEXT:
        return None
    return t.g.parse(last.rpartition("-")[2])


def _movable_column(t: _Tables, board: bytes, p: int) -> tuple[int, ...] | None:
    """The column that drops when ``p`` is lifted, or None when ``p`` carries two or more."""
    above = t.g.above[p]
    axis = -1
    for x in (0, 1, 2):
        q = above[x]
        if q is not None and board[q]:
            if axis >= 0:
                return None
            axis = x
    if axis < 0:
        return ()
    column = []
    q = above[axis]
    while q is not None and board[q]:
        column.append(q)
        q = t.g.above[q][axis]
    return tuple(column)


def _reach(t: _Tables, board: bytes, source: int, colour: int) -> set[int]:
    """Own cubes reachable from ``source`` by connected or adjacent steps (spec §4.3 R(c))."""
    return graph.flood(source, t.steps, lambda q: board[q] == colour)


def _memo(t: _Tables, state: State) -> Targets:
    """The valid destinations of the mover's cubes, computed once per state."""
    memo = state.memo
    if memo is None:
        assert state.turn is not None
        memo = _destinations(t, state.board, state.turn + 1)
        state.memo = memo
    return memo


def _destinations(t: _Tables, board: bytes, colour: int) -> Targets:
    """Each movable cube of ``colour`` that can move, with its set of valid destinations.

    Every cube of one connected-or-adjacent group has the same reach set (the group), so
    the open positions a group can reach (conditions 1, 2 and 4 of §4.3) are found once per
    group; each cube then drops those resting on a cube that moves with it (condition 3).
    Sets of positions are also kept as ints with one bit per position (``t.bit``),
    so that the tests inside the loops run in C.  The result holds only ints and tuples,
    which the garbage collector stops tracking: states keep it (``memo``) at little cost.
    Sources come in position order, each with its destinations in position order.
    """
    found: Targets = {}
    remaining = _bits(board, colour)
    if not remaining:
        return found
    occupied = int(board.translate(_OCCUPIED)[::-1], 2)
    below_bits, entry_bits, above_bits, bit = t.below_bits, t.entry_bits, t.above_bits, t.bit
    above, cones = t.g.above, t.cones
    # Open positions: empty board holes, and empty stacked positions on three cubes (a level
    # with fewer than three cubes carries none above it).
    open_spots = [d for d in t.holes if not board[d]]
    for level in range(1, len(t.levels)):
        if (occupied & t.levels[level - 1]).bit_count() < 3:
            break
        open_spots += [
            d
            for d in t.g.level_positions[level]
            if not board[d] and occupied & below_bits[d] == below_bits[d]
        ]
    step_bits = t.step_bits
    while remaining:
        # One connected-or-adjacent group of own cubes, grown from its lowest position.
        reach = frontier = remaining & -remaining
        group = []
        while frontier:
            remaining ^= frontier
            grow = 0
            while frontier:
                low = frontier & -frontier
                p = low.bit_length() - 1
                group.append(p)
                grow |= step_bits[p]
                frontier ^= low
            frontier = grow & remaining
            reach |= frontier
        spots = tuple([d for d in open_spots if entry_bits[d] & reach])
        if not spots:
            continue
        spot_bits = 0
        for d in spots:
            spot_bits |= bit[d]
        for source in group:
            blocked = above_bits[source]
            load = occupied & blocked
            if load:
                if load & (load - 1):
                    continue  # two or more cubes rest on it
                if cones[source] & spot_bits:
                    # The column: the one cube on it, and up that axis while occupied.
                    q: int | None = load.bit_length() - 1
                    axis = above[source].index(q)
                    while q is not None and occupied >> q & 1:
                        blocked |= above_bits[q]
                        q = above[q][axis]
            cut = blocked & spot_bits
            if not cut:
                found[source] = spots
            elif not cut & (cut - 1):  # one spot rests on a moving cube
                i = spots.index(cut.bit_length() - 1)
                if len(spots) > 1:
                    found[source] = spots[:i] + spots[i + 1 :]
            else:
                targets = tuple([d for d in spots if not bit[d] & cut])
                if targets:
                    found[source] = targets
    return dict(sorted(found.items()))


_OCCUPIED = b"011" + bytes(253)
"""A ``bytes.translate`` table: owner code to the digit 1 if occupied, else 0 (read in base 2,
most significant position first, it gives the occupied positions as bits)."""


def _check_shift(
    t: _Tables, board: bytes, colour: int, source: int, target: int, move: Shift
) -> tuple[int, ...]:
    """Validate ``move`` (spec §4.3) and return the column that drops; raises
    IllegalMoveError with the first condition that fails."""
    g = t.g
    if not board[source]:
        raise IllegalMoveError(f"there is no cube on {move.source}")
    if board[source] != colour:
        raise IllegalMoveError(f"the cube on {move.source} is your opponent's")
    column = _movable_column(t, board, source)
    if column is None:
        raise IllegalMoveError(f"{move.source} supports more than one column and cannot move")
    if board[target]:
        raise IllegalMoveError(f"{move.to} is occupied")
    if not all(board[s] for s in g.supporters[target]):
        raise IllegalMoveError(f"{move.to} is not supported")
    moving = {source, *column}
    resting = [s for s in g.supporters[target] if s in moving]
    if resting:
        which = g.labels[resting[0]]
        how = "the moving cube" if resting[0] == source else f"{which}, which drops during the move"
        raise IllegalMoveError(f"{move.to} rests on {how}")
    reach = _reach(t, board, source, colour)
    if not any(r in reach for r in g.adjacent[target]) and not any(
        s in reach for s in g.supporters[target]
    ):
        raise IllegalMoveError(
            f"{move.to} cannot be reached from {move.source} through friendly cubes"
        )
    return column


def _has_path(t: _Tables, start: int, own: int, sides: tuple[int, int, int]) -> bool:
    """Whether the cube on ``start`` belongs to a face-connected group of its colour (the
    positions ``own``) that touches sides U, V and W (the bit sets ``sides``, §4.4)."""
    contact_bits = t.contact_bits
    group = frontier = t.bit[start]
    while frontier:
        grow = 0
        while frontier:
            low = frontier & -frontier
            grow |= contact_bits[low.bit_length() - 1]
            frontier ^= low
        frontier = grow & own & ~group
        group |= frontier
    u, v, w = sides
    return bool(group & u and group & v and group & w)


def _paths(t: _Tables, board: bytes, starts: Sequence[int], win_height: int) -> set[int]:
    """The colours among the cubes on ``starts`` that have a winning path through them."""
    found: set[int] = set()
    sides = t.side_bits(win_height)
    for p in starts:
        colour = board[p]
        if colour and colour not in found and _has_path(t, p, _bits(board, colour), sides):
            found.add(colour)
    return found


def _bits(board: bytes, colour: int) -> int:
    """The positions holding ``colour`` as a bit set (bit p for position p)."""
    return int(board.translate(_OWNED[colour])[::-1], 2)


_OWNED = (b"", b"010" + bytes(253), b"001" + bytes(253))
"""``bytes.translate`` tables by colour: owner code to the digit 1 for that colour, else 0."""


def _can_add(t: _Tables, board: bytes, seat: Seat, supply: tuple[int, int]) -> bool:
    """Whether ``seat`` has a cube in hand and the board an empty hole (ids 0.. are holes)."""
    return bool(supply[seat]) and EMPTY in board[: len(t.holes)]


def _settle(
    t: _Tables,
    options: Options,
    board: bytes,
    supply: tuple[int, int],
    mover: Seat,
    ply: int,
    last: str,
    history: tuple[bytes, ...],
    texts: tuple[str, ...] | None,
    changed: Sequence[int],
) -> State:
    """The state after ``mover`` acted: a win, else automatic passes, deadlock, repetition.

    ``texts`` is ``history`` as text when known (else None).  ``changed`` are the positions
    whose cube is new; since nobody had a path before the action, a new path runs through
    one of them.
    """
    other = _OTHER[mover]
    colours = _paths(t, board, changed, options.win_height)
    mine, theirs = mover + 1 in colours, other + 1 in colours
    result = None
    if mine and theirs:
        result = Outcome(
            other,
            f"both colours connect the three sides on {SEAT_NAMES[mover].title()}'s move, "
            "so the mover loses",
        )
    elif mine or theirs:
        winner = mover if mine else other
        result = Outcome(winner, "connected the three sides")
    if result is not None:
        return State(options, board, supply, None, ply, last, 0, history, result, None, texts)
    # Whoever is to move must have an action: else they pass, and if the mover cannot act
    # either, the game is deadlocked.  Destinations found here serve legal_moves later.
    turn, passes, memo = other, 0, None
    if not pie.can_swap(ply, options.pie) and not _can_add(t, board, other, supply):
        memo = _destinations(t, board, other + 1)
        if not memo:
            turn, passes, memo = mover, 1, None
            if not _can_add(t, board, mover, supply):
                memo = _destinations(t, board, mover + 1)
                if not memo:
                    result = Outcome(None, "deadlock: neither player can act")
                    return State(
                        options, board, supply, None, ply, last, 2, history, result, None, texts
                    )
    key = board + _SEAT_BYTES[turn]
    if texts is not None:
        texts += (_key_text(key),)
    if history.count(key) >= 2:
        result = Outcome(None, "the same position occurred for the third time")
        return State(
            options, board, supply, None, ply, last, passes, history + (key,), result, None, texts
        )
    return State(
        options, board, supply, turn, ply, last, passes, history + (key,), None, memo, texts
    )


_OTHER = (Seat.SECOND, Seat.FIRST)
_SEAT_BYTES = (b"\x00", b"\x01")
