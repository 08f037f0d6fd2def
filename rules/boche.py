"""Boche: the 3D connection game of cubed Truchet tiles (Cameron Browne, 2008).

Implements ``docs/rules/boche.md`` (§3; the board, §1-§2, is ``docs/rules/pyramid.md``) on
the shared pyramid of :mod:`rules.geometry.trigrid`; groups, enclosures and paths go through
:mod:`rules.geometry.graph`.  Imports :mod:`rules.api`, :mod:`rules.pie` and
:mod:`rules.geometry` only.

Rules in brief.  Light (Seat.FIRST) and Dark (Seat.SECOND) take turns placing one cube, any
rotation ``a``..``h``, on an empty hole or in a pit on three cubes.  The first cube fixes the
parity ``Z``: a level-``L`` cube must be Dark-top (``a``-``d``) iff ``L + Z`` is even (§3.2);
with it every lattice point has one colour and edges always match.  On move 2 Dark may
``swap``.  All connectivity is read from the visible surface (§3.4): each lattice point that
is a corner of a visible face is a *blob*; bands of visible faces join blobs into *groups*; a
group is *enclosed* when every blob is surrounded by visible faces (360°).  An enclosed group of
at least ``-kill`` blobs wins for the other colour; a move that encloses such groups of both
colours loses (§3.5).  On the complete pyramid the colour whose group touches sides U, V and W
wins (§3.6, §3.7); there are no passes and no draws.

Notation (§2): ``c:d3`` places rotation ``c`` on position ``d3`` (stacked positions carry a
level prefix: ``e:1b1``); ``swap``.  Input is case-insensitive, output lower-case.  A
well-formed position that is not on the board parses and is then illegal (spec reason
``no-such-position``).

Options: ``-size=n`` (1..26, default 6), ``-kill=n`` (>= 1, default 4), ``-fill_board``,
``-adjacent``, ``-join_face`` (default) / ``-join_any``, ``-immediate_win`` (our name, §3.1),
``-swap`` (default) / ``-no_swap`` (:data:`rules.pie.PIE_FLAGS`).

Decisions where the spec leaves room:

* ``-fill_board`` together with ``-kill=n`` is accepted and ``-fill_board`` wins (§3.7), so
  the pair is not an options error; ``-join_face`` with ``-join_any`` is.
* The join options only matter with ``-immediate_win`` (spec §3.6); they are accepted and kept
  in the options either way.
* The full-pyramid evaluation relies on the Y property (exactly one colour connects the
  sides, §3.6); the tests check it on random full pyramids of sizes 1 to 6.
* ``-kill`` has no upper bound on the help page; we cap it at 1000 (more blobs than any board has).
* With ``-no_swap`` a swap is refused with its own reason; pbmserv only has the default.
* :func:`render` stamps pbmserv's own eight cube pictures face by face, lowest level first,
  which reproduces the help page's full-board figure exactly; an empty hole is pbmserv's
  dotted hole with its label added, since the pbmserv coordinates are lost (spec §2.4).

``to_data`` shape (plain data; drawing units: hexagon circumradius 1, **y pointing up**, the
pbmserv orientation of spec §1.2)::

    {"game": "boche", "options": "-size=4", "size": 4,
     "to_move": "light" | "dark" | None, "ply": int, "swapped": bool, "z": 0 | 1 | None,
     "last_move": "c:d3" | "swap" | None,
     "outcome": {"winner": "light" | "dark" | None, "reason": str} | None, "scores": None,
     "positions": [{"position": "1b1", "level": 1, "row": 1, "index": 0, "x": float,
                    "y": float, "rotation": "e" | None}, ...],          # every position
     "faces": [{"position": "1b1", "face": "U" | "V" | "W",
                "corners": [[x, y] * 4],          # T, A, F, B: a rhombus in drawing order
                "colours": ["dark" | "light"] * 4, # colour of each corner (cap or band end)
                "band": "TF" | "AB"} | None, ...], # the diagonal the band joins
     "cubes": {"a": [{"face", "corners", "colours", "band"} * 3], ...},
     "frame": {"outline": [[x, y], ...], "sides": {"U": [[x, y], [x, y]], ...}},
     "explanation": None | {"groups": [...]}}      # once the game is over

``faces`` has one slot per position and face (U, V, W), lowest level first, so drawing the
visible ones in order paints the pyramid correctly; a hidden face's slot is None.  The slots
stay put from move to move, so a move changes only the few faces it shows or covers (a list
of just the visible faces would shift, and its diff would resend most of it).  Empty holes of
level 0 are the positions of level 0 with no rotation.

``cubes`` draws each rotation's three upper faces around the hexagon's centre, as ``faces``
would show a cube just placed (a rotation looks the same wherever it may go): a page
previews a move with it.  ``frame`` is the board's outline and the edge along each side
(:mod:`rules.geometry.trigrid`).  The ``explanation`` (:func:`rules.api.explanation`) shows
why the game ended: each enclosed group of at least ``-kill`` blobs, or the group that
connects the three sides, as its blobs (``points``), the bands that join them (``links``)
and the sides it touches.

:func:`seat_moves` gives a seat its moves apart from this data: to the seat to move, the
legal move texts when there are at most 300, else the placements as blocks of
:func:`rules.api.move_blocks` (rotation and position joined by ``:``); the placements do not
depend on the seat, so the seat that waits gets the same blocks (the swap is not queued).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final, TypeAlias

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
    options_flags_text,
    options_from_flags,
    outcome_data,
)
from rules.geometry import graph
from rules.geometry.trigrid import (
    MAX_SIZE,
    SIDES,
    Point,
    Pyramid,
    format_label,
    parse_label,
    point_xy,
    pyramid,
)
from rules.pie import PIE_FLAGS, SWAP, Swap, can_swap, is_swap_text

NAME = "boche"
SEAT_NAMES = ("light", "dark")
LIGHT = Seat.FIRST
DARK = Seat.SECOND

ROTATIONS = "abcdefgh"
POLES = (
    (0, 0, 0),
    (0, 1, 1),
    (1, 1, 0),
    (1, 0, 1),
    (1, 1, 1),
    (1, 0, 0),
    (0, 0, 1),
    (0, 1, 0),
)
"""Offset of the Dark pole from the top corner, per rotation a..h (§3.2)."""

EMPTY = -1
MAX_KILL = 1000
LEGAL_TEXT_LIMIT = 300
""":func:`seat_moves` lists the legal moves as texts only up to this many."""

FLAGS: Sequence[Flag] = (
    Flag("size", "size", minimum=1, maximum=MAX_SIZE, help="holes per side of the board"),
    Flag("kill", "kill", minimum=1, maximum=MAX_KILL, help="blobs in an enclosed group that wins"),
    Flag("fill_board", "fill_board", True, help="no enclosure wins: fill the whole pyramid"),
    Flag("adjacent", "adjacent", True, help="board cubes after the first touch an existing cube"),
    Flag("join_face", "join", "face", help="path pieces must touch face to face"),
    Flag("join_any", "join", "any", help="path pieces need not touch face to face"),
    Flag("immediate_win", "immediate_win", True, help="a three-side path wins at once"),
    *PIE_FLAGS,
)


@dataclass(frozen=True, slots=True)
class Options:
    """The options of one game (pbmserv defaults)."""

    size: int = 6
    kill: int = 4
    fill_board: bool = False
    adjacent: bool = False
    join: str = "face"
    immediate_win: bool = False
    pie: bool = True

    def __post_init__(self) -> None:
        check_options(self, FLAGS)


@dataclass(frozen=True, slots=True)
class Place:
    """Place a cube of ``rotation`` (``a``..``h``) on ``position`` (a canonical label)."""

    rotation: str
    position: str

    def __str__(self) -> str:
        return f"{self.rotation}:{self.position}"


Move: TypeAlias = Place | Swap


@dataclass(slots=True, unsafe_hash=True, init=False)
class State:
    """A position: the rotation index on each position id (``EMPTY`` where no cube).

    Its fields are Final (see "Values" in :mod:`rules.api`).
    """

    options: Final[Options]
    board: Final[tuple[int, ...]]
    placed: Final[int]
    z: Final[int | None]
    swapped: Final[bool]
    last: Final[str | None]
    outcome: Final[Outcome | None]

    def __init__(
        self,
        options: Options,
        board: tuple[int, ...],
        placed: int = 0,
        z: int | None = None,
        swapped: bool = False,
        last: str | None = None,
        outcome: Outcome | None = None,
    ) -> None:
        self.options = options
        self.board = board
        self.placed = placed
        self.z = z
        self.swapped = swapped
        self.last = last
        self.outcome = outcome


@dataclass(frozen=True, slots=True)
class Group:
    """A connected colour region of the visible surface (§3.4); points are lattice points."""

    colour: Seat
    points: frozenset[tuple[int, int, int]]
    enclosed: bool
    sides: str

    @property
    def size(self) -> int:
        """The number of blobs."""
        return len(self.points)


def parse_options(text: str) -> Options:
    """pbmserv flags to Options; raises OptionsError naming the bad flag."""
    return options_from_flags(Options, text, FLAGS)


@lru_cache(maxsize=256)  # to_data names the options at every move
def options_text(options: Options) -> str:
    """The flags that differ from the defaults."""
    return options_flags_text(options, FLAGS)


def new_game(options: Options) -> State:
    """The empty board."""
    return State(options, (EMPTY,) * pyramid(options.size).count)


def to_move(state: State) -> Seat | None:
    """Light when an even number of cubes is on the board, Dark when odd (§3.3)."""
    if state.outcome is not None:
        return None
    return DARK if state.placed & 1 else LIGHT


def outcome(state: State) -> Outcome | None:
    """How the game ended, or None."""
    return state.outcome


def scores(state: State) -> tuple[int, int] | None:
    """Boche does not score."""
    return None


def legal_moves(state: State) -> Iterator[Move]:
    """Every legal placement (and the swap on move 2)."""
    if state.outcome is not None:
        return
    tables = _tables(state.options.size)
    if can_swap(state.placed, state.options.pie) and not state.swapped:
        yield SWAP
    board = state.board
    supporters = tables.grid.supporters
    moves = tables.moves
    if state.z is None:
        for p in tables.grid.level_positions[0]:
            yield from moves[p]
        return
    adjacent = state.options.adjacent
    neighbours = tables.grid.adjacent
    for p, rotations in enumerate(tables.parity_moves[state.z]):
        if board[p] != EMPTY:
            continue
        below = supporters[p]
        if below:
            if board[below[0]] == EMPTY or board[below[1]] == EMPTY or board[below[2]] == EMPTY:
                continue
        elif adjacent and all(board[q] == EMPTY for q in neighbours[p]):
            continue
        yield from rotations


def play(state: State, move: Move) -> State:
    """The position after ``move``; raises IllegalMoveError with the reason."""
    if state.outcome is not None:
        raise IllegalMoveError("the game is over")
    if isinstance(move, Swap):
        if state.swapped or not can_swap(state.placed, state.options.pie):
            if not state.options.pie:
                raise IllegalMoveError("this game is played without the swap")
            raise IllegalMoveError("swap is only allowed as the second move")
        return State(state.options, state.board, state.placed, state.z, True, "swap")
    if not isinstance(move, Place):
        raise IllegalMoveError(f"{move!r} is not a Boche move")
    tables = _tables(state.options.size)
    r = ROTATIONS.find(move.rotation) if len(move.rotation) == 1 else -1
    if r < 0:
        raise IllegalMoveError(f"there is no rotation {move.rotation!r}: rotations are a to h")
    p = tables.position_ids.get(move.position)
    if p is None:
        raise IllegalMoveError(
            f"there is no position {move.position} on a size-{state.options.size} board"
        )
    board = state.board
    grid = tables.grid
    if board[p] != EMPTY:
        raise IllegalMoveError(f"{move.position} is occupied")
    if any(board[s] == EMPTY for s in grid.supporters[p]):
        raise IllegalMoveError(
            f"{move.position} is not supported: a cube there must rest on three cubes"
        )
    level = grid.level[p]
    z = state.z
    if z is None:
        z = 0 if r < 4 else 1
    elif (r < 4) != ((level + z) % 2 == 0):
        wanted = "a-d (Dark corner up)" if (level + z) % 2 == 0 else "e-h (Light corner up)"
        raise IllegalMoveError(f"level {level} takes rotations {wanted}")
    if (
        state.options.adjacent
        and level == 0
        and state.placed
        and all(board[q] == EMPTY for q in grid.adjacent[p])
    ):
        raise IllegalMoveError(
            f"{move.position} touches no cube: with -adjacent a board cube must touch another"
        )
    after = board[:p] + (r,) + board[p + 1 :]
    mover = DARK if state.placed & 1 else LIGHT
    placed = state.placed + 1
    result = _judge(tables, state.options, after, z, p, placed, mover)
    return State(state.options, after, placed, z, state.swapped, str(move), result)


def parse_move(state: State, text: str) -> Move:
    """``c:d3`` or ``swap`` to a Move; raises InvalidMoveError on bad syntax."""
    if not isinstance(text, str):
        raise InvalidMoveError("a move is text such as c:d3 or swap")
    if is_swap_text(text):
        return SWAP
    match = _MOVE_RE.fullmatch(text.strip().lower())
    if match is None:
        raise InvalidMoveError(
            f"{text!r} is not a Boche move: write rotation:position (c:d3, e:1b1) or swap"
        )
    rotation, position = match.groups()
    try:
        coords = parse_label(position)
    except ValueError as error:
        raise InvalidMoveError(str(error)) from None
    return Place(rotation, format_label(*coords))


def move_text(move: Move) -> str:
    """The canonical text: ``c:d3`` or ``swap``."""
    return str(move)


def groups(state: State) -> list[Group]:
    """Every group of the visible surface (join_any, §3.4), for display and tests."""
    if state.z is None:
        return []
    tables = _tables(state.options.size)
    surface = _Surface(tables, state.board, state.z)
    found = []
    for members in graph.groups(surface.points(), surface):
        point = next(iter(members))
        found.append(
            Group(
                surface.colour(point),
                frozenset(tables.points[k] for k in members),
                all(surface.is_closed(k) for k in members),
                _sides_text(graph.sides_touched(members, tables.rim_map)),
            )
        )
    return found


def to_data(state: State) -> PlainData:
    """Plain data for storage and drawing (shape in the module docstring).

    Each entry of ``positions`` and ``faces`` is built once per board size and look (see
    ``_Tables.position_entry`` and ``face_entry``) and shared by every call that shows it, so
    the room's diff finds unchanged entries by identity; nobody may change the returned data.
    """
    tables = _tables(state.options.size)
    entries = tables.position_entries
    positions = [
        entries[p].get(r) or tables.position_entry(p, r) for p, r in enumerate(state.board)
    ]
    return {
        "game": NAME,
        "options": options_text(state.options),
        "size": state.options.size,
        "to_move": _to_move_name(state),
        "ply": state.placed + state.swapped,
        "swapped": state.swapped,
        "z": state.z,
        "last_move": state.last,
        "outcome": outcome_data(state.outcome, SEAT_NAMES),
        "scores": None,
        "positions": positions,
        "faces": _faces_data(tables, state),
        "cubes": tables.cubes,
        "frame": tables.frame,
        "explanation": None if state.outcome is None else _explanation(tables, state),
    }


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The moves ``seat`` could make, as texts or blocks (see the module docstring): the hook
    of :meth:`rules.api.GameRules.seat_moves`."""
    mover = to_move(state)
    if mover is None:
        return []
    moves = list(legal_moves(state))
    if seat == mover and len(moves) <= LEGAL_TEXT_LIMIT:
        return [str(m) for m in moves]
    return _placement_blocks(moves)


def data_changes(before: State, after: State, before_data: PlainData) -> list[PlainData]:
    """The operations that turn ``before_data`` (``to_data(before)``) into ``to_data(after)``:
    the optional hook of :class:`rules.api.DataChanges`.

    The fields are compared as the states hold them and only the parts that differ are
    built: the positions whose cube changed, and the faces those cubes show or cover.
    """
    if before.options != after.options:
        return [["s", [], to_data(after)]]
    tables = _tables(after.options.size)
    ops: list[PlainData] = []
    if to_move(before) != to_move(after):
        ops.append(["s", ["to_move"], _to_move_name(after)])
    if before.placed + before.swapped != after.placed + after.swapped:
        ops.append(["s", ["ply"], after.placed + after.swapped])
    if before.swapped != after.swapped:
        ops.append(["s", ["swapped"], after.swapped])
    if before.z != after.z:
        ops.append(["s", ["z"], after.z])
    if before.last != after.last:
        ops.append(["s", ["last_move"], after.last])
    if before.outcome != after.outcome:
        ops.append(["s", ["outcome"], outcome_data(after.outcome, SEAT_NAMES)])
    was, now = before.board, after.board
    changed = [p for p in range(len(now)) if was[p] != now[p]]
    for p in changed:
        rotation = now[p]
        ops.append(
            ["s", ["positions", p, "rotation"], None if rotation == EMPTY else ROTATIONS[rotation]]
        )
    if before.z != after.z:
        ops.append(["s", ["faces"], _faces_data(tables, after)])
    elif changed and after.z is not None:
        _face_changes(tables, before, after, changed, ops)
    if before.outcome != after.outcome or (after.outcome is not None and changed):
        explained = None if after.outcome is None else _explanation(tables, after)
        ops.append(["s", ["explanation"], explained])
    return ops


def _face_changes(
    tables: _Tables, before: State, after: State, changed: list[int], ops: list[PlainData]
) -> None:
    """The operations on ``faces`` for the positions in ``changed`` (their cubes changed),
    under the same parity: their own faces and the faces below them that they cover."""
    assert after.z is not None
    above = tables.grid.above
    supporters = tables.grid.supporters
    slots: set[int] = set()
    for q in changed:
        slots.update((q * 3, q * 3 + 1, q * 3 + 2))
        for p in supporters[q]:
            for x, over in enumerate(above[p]):
                if over == q:
                    slots.add(p * 3 + x)
    for slot in sorted(slots):
        face = _face_entry(tables, after.board, after.z, slot)
        if face is not _face_entry(tables, before.board, after.z, slot):
            ops.append(["s", ["faces", slot], face])


def _face_entry(tables: _Tables, board: tuple[int, ...], z: int, slot: int) -> PlainData:
    """The ``faces`` slot ``slot`` (face ``slot % 3`` of position ``slot // 3``), None if hidden."""
    p, x = divmod(slot, 3)
    r = board[p]
    if r == EMPTY:
        return None
    q = tables.grid.above[p][x]
    if q is not None and board[q] != EMPTY:
        return None
    key = slot * 2 + tables.band_tf[r][x]
    return tables.face_entries(z).get(key) or tables.face_entry(z, key)


def _placement_blocks(moves: list[Move]) -> list[PlainData]:
    """What :func:`rules.api.move_blocks` makes of the placements among ``moves`` (rotation
    and position joined by ``:``), the very same blocks, grouped here without a tuple per
    move (the server asks for them at every move)."""
    seconds: dict[str, list[str]] = {}
    for move in moves:
        if isinstance(move, Place):
            positions = seconds.get(move.rotation)
            if positions is None:
                seconds[move.rotation] = [move.position]
            else:
                positions.append(move.position)
    firsts: dict[tuple[str, ...], list[str]] = {}
    for rotation, positions in seconds.items():
        key = tuple(positions)
        rotations = firsts.get(key)
        if rotations is None:
            firsts[key] = [rotation]
        else:
            rotations.append(rotation)
    return [
        {"parts": [rotations, list(positions)], "join": ":"}
        for positions, rotations in firsts.items()
    ]


def _to_move_name(state: State) -> str | None:
    seat = to_move(state)
    return None if seat is None else SEAT_NAMES[seat]


def from_data(data: PlainData) -> State:
    """The state ``to_data`` described; raises ValueError on anything else."""
    try:
        if data["game"] != NAME:
            raise ValueError(f"not a {NAME} position: {data['game']!r}")
        options = parse_options(data["options"])
        grid = pyramid(options.size)
        board = [EMPTY] * grid.count
        for entry in data["positions"]:
            rotation = entry["rotation"]
            if rotation is None:
                continue
            p = grid.parse(entry["position"])
            if p is None or len(rotation) != 1 or rotation not in ROTATIONS:
                raise ValueError(f"bad cube {entry!r}")
            board[p] = ROTATIONS.index(rotation)
        ending = data["outcome"]
        result = None
        if ending is not None:
            winner = ending["winner"]
            result = Outcome(
                None if winner is None else Seat(SEAT_NAMES.index(winner)), str(ending["reason"])
            )
        z = data["z"]
        placed = sum(r != EMPTY for r in board)
        if z not in (None, 0, 1) or (z is None) != (placed == 0):
            raise ValueError(f"bad parity {z!r}")
        for p, r in enumerate(board):
            if r == EMPTY:
                continue
            if any(board[s] == EMPTY for s in grid.supporters[p]):
                raise ValueError(f"the cube on {grid.labels[p]} is not supported")
            if (r < 4) != ((grid.level[p] + z) % 2 == 0):
                raise ValueError(f"the cube on {grid.labels[p]} breaks the parity")
        swapped = data["swapped"]
        if not isinstance(swapped, bool) or (swapped and placed == 0):
            raise ValueError(f"bad swap flag {swapped!r}")
        last = data["last_move"]
        return State(
            options,
            tuple(board),
            placed,
            z,
            swapped,
            None if last is None else str(last),
            result,
        )
    except (KeyError, TypeError, AttributeError, OptionsError) as error:
        raise ValueError(f"not a {NAME} position: {error}") from error


def render(state: State) -> str:
    """The visible surface in pbmserv's ASCII style (Dark is ``o``), then a status line."""
    tables = _tables(state.options.size)
    grid = tables.grid
    canvas: dict[tuple[int, int], str] = {}
    for p in grid.level_positions[0]:
        if state.board[p] == EMPTY:
            _draw_hole(canvas, grid, p)
    if state.z is not None:
        _draw_faces(canvas, tables, state)
    rows = [key[1] for key in canvas]
    cols = [key[0] for key in canvas]
    lines = []
    for row in range(min(rows), max(rows) + 1):
        line = "".join(canvas.get((col, row), " ") for col in range(min(cols), max(cols) + 1))
        lines.append(line.rstrip())
    cubes = " ".join(
        f"{ROTATIONS[r]}:{grid.labels[p]}" for p, r in enumerate(state.board) if r != EMPTY
    )
    seat = to_move(state)
    if state.outcome is not None:
        winner = state.outcome.winner
        status = (
            "drawn" if winner is None else f"{SEAT_NAMES[winner].capitalize()} wins"
        ) + f" ({state.outcome.reason})"
    else:
        assert seat is not None
        status = f"{SEAT_NAMES[seat].capitalize()} to move"
    lines.append("")
    lines.append(f"Dark o, Light blank. Cubes: {cubes or 'none'}")
    lines.append(f"Last move: {state.last or 'none'}. {status}.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Precomputed tables per size.

_MOVE_RE = re.compile(r"([a-h])\s*:\s*(\S+)")


class _Tables:
    """Everything about a size that does not depend on the position.

    Lattice points that are corners of upper faces get small ids.  For each point, ``around``
    lists the upper faces having it as a corner: ``(p, x, angle, tf_partner, ab_partner)``,
    where the partner is the other end of the band if the band of face ``F_x`` of ``p`` runs
    along that diagonal and the point is one of its ends (else -1).
    """

    def __init__(self, n: int) -> None:
        grid = pyramid(n)
        self.grid: Pyramid = grid
        self.position_ids = {label: p for p, label in enumerate(grid.labels)}
        self.moves: tuple[tuple[Place, ...], ...] = tuple(
            tuple(Place(rotation, label) for rotation in ROTATIONS) for label in grid.labels
        )
        # parity_moves[z][p]: the placements allowed on p when the parity is z.
        self.parity_moves: tuple[tuple[tuple[Place, ...], ...], ...] = tuple(
            tuple(
                self.moves[p][:4] if (grid.level[p] + z) % 2 == 0 else self.moves[p][4:]
                for p in range(grid.count)
            )
            for z in (0, 1)
        )
        # band_tf[r][x]: the band of face F_x of a rotation-r cube joins T and F (§3.4).
        self.band_tf: tuple[tuple[bool, ...], ...] = tuple(
            tuple((POLES[r][x] == 0) == (r < 4) for x in range(3)) for r in range(8)
        )
        ids: dict[Point, int] = {}
        corners: list[tuple[int, int, int, int]] = []  # per face p*3+x: T, A, F, B
        for faces in grid.face_corners:
            for rhombus in faces:
                t, a, f, b = (ids.setdefault(k, len(ids)) for k in rhombus)
                corners.append((t, a, f, b))
        self.points: tuple[Point, ...] = tuple(sorted(ids, key=ids.__getitem__))
        self.face_corners: tuple[tuple[int, int, int, int], ...] = tuple(corners)
        around: list[list[tuple[int, int, int, int, int]]] = [[] for _ in self.points]
        for face, (kt, ka, kf, kb) in enumerate(corners):
            p, x = divmod(face, 3)
            around[kt].append((p, x, 120, kf, -1))
            around[kf].append((p, x, 120, kt, -1))
            around[ka].append((p, x, 60, -1, kb))
            around[kb].append((p, x, 60, -1, ka))
        self.around: tuple[tuple[tuple[int, int, int, int, int], ...], ...] = tuple(
            tuple(entry) for entry in around
        )
        self.parity: tuple[int, ...] = tuple((sum(k) - (n - 1)) & 1 for k in self.points)
        rims = tuple(grid.point_rim(k) for k in self.points)
        self.rim_map: dict[int, str] = {k: rim for k, rim in enumerate(rims) if rim}
        self.rim_mask: tuple[int, ...] = tuple(
            sum(1 << i for i, side in enumerate(SIDES) if side in rim) for rim in rims
        )
        # The static part of each entry of to_data's "positions".
        self.drawing: tuple[dict[str, PlainData], ...] = tuple(
            {
                "position": grid.labels[p],
                "level": grid.coords[p][0],
                "row": grid.coords[p][1],
                "index": grid.coords[p][2],
                "x": grid.xy[p][0],
                "y": grid.xy[p][1],
            }
            for p in range(grid.count)
        )
        self._faces_drawing: dict[int, tuple[dict[str, PlainData], ...]] = {}
        # to_data's entries, by rotation (positions) or face and band (faces, per parity),
        # built on first use and then shared by every call that shows them.
        self.position_entries: tuple[dict[int, dict[str, PlainData]], ...] = tuple(
            {} for _ in range(grid.count)
        )
        self._face_entries: dict[int, dict[int, dict[str, PlainData]]] = {}
        self.cubes: dict[str, list[PlainData]] = {
            ROTATIONS[r]: self._cube_drawing(r) for r in range(len(ROTATIONS))
        }
        self.frame: dict[str, PlainData] = {
            "outline": [list(point) for point in grid.outline],
            "sides": {side: [list(a), list(b)] for side, (a, b) in grid.side_edges.items()},
        }

    def _cube_drawing(self, r: int) -> list[PlainData]:
        """to_data's ``cubes`` entry of rotation ``r``: its faces around its hexagon's centre,
        drawn on the tip hole (a rotation looks the same wherever it may go: the parity that
        lets it go there gives its corners the same colours)."""
        top = self.grid.level_positions[0][0]
        cx, cy = self.grid.xy[top]
        z = 0 if r < 4 else 1
        faces = []
        for x in range(3):
            corners = self.face_corners[top * 3 + x]
            faces.append(
                {
                    "face": SIDES[x],
                    "corners": [
                        [round(px - cx, 6), round(py - cy, 6)]
                        for px, py in (point_xy(self.points[k]) for k in corners)
                    ],
                    "colours": [
                        SEAT_NAMES[DARK if (self.parity[k] + z) % 2 == 0 else LIGHT]
                        for k in corners
                    ],
                    "band": "TF" if self.band_tf[r][x] else "AB",
                }
            )
        return faces

    def position_entry(self, p: int, r: int) -> dict[str, PlainData]:
        """The ``positions`` entry of ``p`` holding rotation ``r`` (or EMPTY); never mutate."""
        found = self.position_entries[p][r] = {
            **self.drawing[p],
            "rotation": None if r == EMPTY else ROTATIONS[r],
        }
        return found

    def face_entries(self, z: int) -> dict[int, dict[str, PlainData]]:
        """The ``faces`` entries made so far under parity ``z``, by :meth:`face_entry` key."""
        return self._face_entries.setdefault(z, {})

    def face_entry(self, z: int, key: int) -> dict[str, PlainData]:
        """The ``faces`` entry of face ``key // 2`` (``p * 3 + x``) with the TF band when
        ``key`` is odd, under parity ``z``; built once, then shared (never mutate)."""
        found = self.face_entries(z)[key] = {
            **self.faces_drawing(z)[key // 2],
            "band": "TF" if key & 1 else "AB",
        }
        return found

    def faces_drawing(self, z: int) -> tuple[dict[str, PlainData], ...]:
        """The static part of to_data's entry for each face ``p * 3 + x`` under parity ``z``:
        its corners and their colours (a corner's colour depends on its point and ``z``)."""
        found = self._faces_drawing.get(z)
        if found is None:
            colours = [SEAT_NAMES[DARK if (k + z) % 2 == 0 else LIGHT] for k in self.parity]
            found = self._faces_drawing[z] = tuple(
                {
                    "position": self.grid.labels[face // 3],
                    "face": SIDES[face % 3],
                    "corners": [list(point_xy(self.points[k])) for k in corners],
                    "colours": [colours[k] for k in corners],
                }
                for face, corners in enumerate(self.face_corners)
            )
        return found


@cache
def _tables(n: int) -> _Tables:
    return _Tables(n)


class _Surface:
    """The visible surface of one board, computed lazily per lattice point.

    Works as an adjacency for :mod:`rules.geometry.graph`: ``surface[k]`` are the blobs joined
    to blob ``k`` by a band of a visible face.
    """

    __slots__ = ("tables", "board", "z", "_angle", "_links")

    def __init__(self, tables: _Tables, board: tuple[int, ...], z: int) -> None:
        self.tables = tables
        self.board = board
        self.z = z
        self._angle: dict[int, int] = {}
        self._links: dict[int, tuple[int, ...]] = {}

    def __getitem__(self, k: int) -> tuple[int, ...]:
        links = self._links.get(k)
        if links is None:
            self._visit(k)
            links = self._links[k]
        return links

    def is_closed(self, k: int) -> bool:
        """Whether visible faces surround blob ``k`` completely (360°)."""
        angle = self._angle.get(k)
        if angle is None:
            self._visit(k)
            angle = self._angle[k]
        return angle == 360

    def colour(self, k: int) -> Seat:
        return DARK if (self.tables.parity[k] + self.z) % 2 == 0 else LIGHT

    def points(self) -> set[int]:
        """Every blob: each corner of a visible face."""
        board = self.board
        above = self.tables.grid.above
        corners = self.tables.face_corners
        found: set[int] = set()
        for p, r in enumerate(board):
            if r == EMPTY:
                continue
            for x, q in enumerate(above[p]):
                if q is None or board[q] == EMPTY:
                    found.update(corners[p * 3 + x])
        return found

    def visible_faces(self) -> Iterator[tuple[int, int]]:
        """(position, axis) of every visible face, lowest level first."""
        board = self.board
        above = self.tables.grid.above
        for p, r in enumerate(board):
            if r == EMPTY:
                continue
            for x, q in enumerate(above[p]):
                if q is None or board[q] == EMPTY:
                    yield p, x

    def _visit(self, k: int) -> None:
        board = self.board
        above = self.tables.grid.above
        band_tf = self.tables.band_tf
        angle = 0
        links = []
        for p, x, a, tf, ab in self.tables.around[k]:
            r = board[p]
            if r == EMPTY:
                continue
            q = above[p][x]
            if q is not None and board[q] != EMPTY:
                continue
            angle += a
            if band_tf[r][x]:
                if tf >= 0:
                    links.append(tf)
            elif ab >= 0:
                links.append(ab)
        self._angle[k] = angle
        self._links[k] = tuple(links)


# ---------------------------------------------------------------------------------------------
# Judging a placement (§3.5-§3.7).


def _judge(
    tables: _Tables,
    options: Options,
    board: tuple[int, ...],
    z: int,
    p: int,
    placed: int,
    mover: Seat,
) -> Outcome | None:
    surface = _Surface(tables, board, z)
    if not options.fill_board:
        enclosed = _enclosed_colours(tables, surface, p, options.kill)
        if len(enclosed) == 2:
            return Outcome(mover.other, "the mover enclosed groups of both colours")
        if enclosed:
            ((colour, size),) = enclosed.items()
            return Outcome(
                colour.other, f"enclosed a {SEAT_NAMES[colour].title()} group of {size} blobs"
            )
    if options.immediate_win:
        paths = _path_colours(tables, surface, options.join)
        if len(paths) == 2:
            return Outcome(mover.other, "the mover completed paths of both colours")
        if paths:
            (colour,) = paths
            return Outcome(colour, "connected the three sides")
    if placed == tables.grid.count:
        # The Y property (§3.6): exactly one colour connects the sides of a full pyramid.
        (winner,) = _path_colours(tables, surface, "any")
        return Outcome(winner, "connected the three sides on the full pyramid")
    return None


def _enclosed_colours(tables: _Tables, surface: _Surface, p: int, kill: int) -> dict[Seat, int]:
    """The colours with an enclosed group of at least ``kill`` blobs through the new cube,
    with the size of the largest such group.

    Only groups with a blob on the new cube's hexagon can have changed (§3.5), so only they are
    searched; a group is enclosed when its closed blobs have no open neighbour.
    """
    found: dict[Seat, int] = {}
    seen: set[int] = set()
    hexagon = {k for x in range(3) for k in tables.face_corners[p * 3 + x]}
    for start in hexagon:
        if start in seen or not surface.is_closed(start):
            continue
        region = graph.flood(start, surface, surface.is_closed)
        seen |= region
        if len(region) >= kill and not graph.boundary(region, surface):
            colour = surface.colour(start)
            found[colour] = max(found.get(colour, 0), len(region))
    return found


def _explanation(tables: _Tables, state: State) -> PlainData:
    """Why the finished game ended (the module docstring says what is drawn).

    The last cube decided the game, so the enclosed groups of at least ``-kill`` blobs on the
    final surface are the ones it closed (without ``-fill_board``); else the game ended on a
    path, and the groups shown are those of the colours that connect the three sides.
    """
    assert state.z is not None
    options = state.options
    surface = _Surface(tables, state.board, state.z)
    found = graph.groups(surface.points(), surface)
    shown = []
    if not options.fill_board:
        shown = [
            g for g in found if len(g) >= options.kill and all(surface.is_closed(k) for k in g)
        ]
    if not shown:
        join = options.join if options.immediate_win else "any"
        colours = _path_colours(tables, surface, join)
        shown = [
            g
            for g in found
            if surface.colour(next(iter(g))) in colours and graph.connects(g, tables.rim_map, SIDES)
        ]
    points = tables.points
    return explanation(
        [
            explained_group(
                SEAT_NAMES[surface.colour(next(iter(group)))],
                links=[
                    (point_xy(points[k]), point_xy(points[j]))
                    for k in sorted(group)
                    for j in surface[k]
                    if k < j and j in group
                ],
                points=[point_xy(points[k]) for k in sorted(group)],
                sides=_sides_text(graph.sides_touched(group, tables.rim_map)),
                size=len(group),
            )
            for group in shown
        ]
    )


def _path_colours(tables: _Tables, surface: _Surface, join: str) -> set[Seat]:
    """The colours with a connected region touching sides U, V and W (§3.6)."""
    found: set[Seat] = set()
    if join == "any":
        for members in graph.groups(surface.points(), surface):
            if graph.connects(members, tables.rim_map, SIDES):
                found.add(surface.colour(next(iter(members))))
        return found
    # join_face: one node per (visible face, corner); faces meet at a point only when they
    # belong to one cube or to two cubes that share a face.
    contacts = tables.grid.contacts
    faces = list(surface.visible_faces())
    at_point: dict[int, list[tuple[int, int]]] = {}
    links: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for p, x in faces:
        face = p * 3 + x
        t, a, f, b = tables.face_corners[face]
        tf = tables.band_tf[surface.board[p]][x]
        ends = (t, f) if tf else (a, b)
        for k in (t, a, f, b):
            at_point.setdefault(k, []).append((face, k))
            links[(face, k)] = []
        links[(face, ends[0])].append((face, ends[1]))
        links[(face, ends[1])].append((face, ends[0]))
    for meeting in at_point.values():
        for i, one in enumerate(meeting):
            for other in meeting[i + 1 :]:
                p, q = one[0] // 3, other[0] // 3
                if p == q or q in contacts[p]:
                    links[one].append(other)
                    links[other].append(one)
    rim = {sector: tables.rim_map.get(sector[1], "") for sector in links}
    for region in graph.groups(links, links):
        if graph.connects(region, rim, SIDES):
            found.add(surface.colour(next(iter(region))[1]))
    return found


def _sides_text(sides: set[str]) -> str:
    return "".join(side for side in SIDES if side in sides)


# ---------------------------------------------------------------------------------------------
# Drawing.


def _faces_data(tables: _Tables, state: State) -> list[PlainData]:
    """The ``faces`` slots: face ``x`` of position ``p`` at ``p * 3 + x``, None if hidden."""
    board = state.board
    faces: list[PlainData] = [None] * (3 * len(board))
    z = state.z
    if z is None:
        return faces
    above = tables.grid.above
    band_tf = tables.band_tf
    entries = tables.face_entries(z)
    for p, r in enumerate(board):
        if r == EMPTY:
            continue
        for x, q in enumerate(above[p]):
            if q is None or board[q] == EMPTY:
                key = (p * 3 + x) * 2 + band_tf[r][x]
                faces[p * 3 + x] = entries.get(key) or tables.face_entry(z, key)
    return faces


_PICTURES = r"""
    +---oo+        +---oo+        +---oo+        +---oo+
   / \ ooooo      / \   ooo      / \ ooooo      / \   ooo
  ooooooooo \    ooooooo   \    o   oooo  \    o   ooo   \
 +ooooo+oo---+  +ooooo+oo---+  +oo oo+oo---+  +oo oo+oo---+
  ooooooooo /    ooooooo   /    o   ooo   /    o   oooo  /
   \ / ooooo      \ /   ooo      \ /   ooo      \ / ooooo
    +---oo+        +---oo+        +---oo+        +---oo+
    +ooo--+        +ooo--+        +ooo--+        +ooo--+
   oooo    \      ooooooo \      oooo    \      ooooooo \
  /   \    oo    /   \  oooo    /ooo\    oo    /ooo\  oooo
 +     +--ooo+  +     +--ooo+  +  oo +--ooo+  +  oo +--ooo+
  \   /    oo    \   /  oooo    \ooo/  oooo    \ooo/    oo
   oooo    /      ooooooo /      ooooooo /      oooo    /
    +ooo--+        +ooo--+        +ooo--+        +ooo--+
"""
"""The eight rotations as pbmserv draws them (help page [S1]), a-d above e-h; Dark is ``o``."""

_HOLE = r"""
   +-----+
  /     . \
 /     .   \
+ . . .     +
 \     .   /
  \     . /
   +-----+
"""
"""An empty hole: its outline and the dotted Y to its far corners; the label goes right of it."""

_ROWS_PER_UNIT = 3 / (math.sqrt(3) / 2)
"""pbmserv's scale: a hexagon is 13 characters wide (radius 6 columns) and 7 rows high."""


def _art(text: str, first: int, count: int) -> tuple[dict[tuple[int, int], str], ...]:
    """Cut ``count`` hexagon pictures out of 7-row blocks of four pictures 15 columns apart,
    the first one's left vertex in column ``first``.

    Each picture maps (column, row) offsets from the hexagon's centre to its character.
    """
    lines = text.strip("\n").split("\n")
    pictures = []
    for k in range(count):
        top = 7 * (k // 4)
        left = first + 15 * (k % 4)
        picture = {}
        for row in range(7):
            line = lines[top + row].ljust(left + 13)
            for col in range(13):
                picture[(col - 6, row - 3)] = line[left + col]
        pictures.append(picture)
    return tuple(pictures)


_CUBE_ART = _art(_PICTURES, 1, 8)
_HOLE_ART = _art(_HOLE, 0, 1)[0]


def _rhombus(axis: int) -> tuple[tuple[int, int], ...]:
    """The character cells of upper face ``F_axis`` (edges included) around a hexagon centre:
    ``F_U`` is the left rhombus, ``F_W`` the upper one, ``F_V`` the lower one (§1.4)."""
    if axis == 0:
        return tuple((c, r) for r in range(-3, 4) for c in range(-6 + abs(r), 1 - abs(r)))
    if axis == 2:
        return tuple((c, r) for r in range(-3, 1) for c in range(r, 7 + r))
    return tuple((c, r) for r in range(0, 4) for c in range(-r, 7 - r))


_RHOMBI = (_rhombus(0), _rhombus(1), _rhombus(2))


def _centre_cell(xy: tuple[float, float]) -> tuple[int, int]:
    return round(xy[0] * 6), round(-xy[1] * _ROWS_PER_UNIT)


def _draw_hole(canvas: dict[tuple[int, int], str], grid: Pyramid, p: int) -> None:
    col, row = _centre_cell(grid.xy[p])
    for (dc, dr), char in _HOLE_ART.items():
        if char != " " or (col + dc, row + dr) not in canvas:
            canvas[(col + dc, row + dr)] = char
    for i, char in enumerate(grid.labels[p]):
        canvas[(col + 2 + i, row)] = char


def _draw_faces(canvas: dict[tuple[int, int], str], tables: _Tables, state: State) -> None:
    """Stamp each visible face from its cube's picture, lowest level first, as pbmserv does."""
    assert state.z is not None
    surface = _Surface(tables, state.board, state.z)
    for p, x in surface.visible_faces():
        col, row = _centre_cell(tables.grid.xy[p])
        picture = _CUBE_ART[state.board[p]]
        for dc, dr in _RHOMBI[x]:
            canvas[(col + dc, row + dr)] = picture[(dc, dr)]
