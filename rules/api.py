"""The one rules API that every game module implements, and the values it speaks in.

A game module (``rules/<game>.py``) is a namespace of pure functions over immutable values;
:class:`GameRules` is the Protocol it satisfies, so the server, the command line, the bots and
the conformance test can drive any game without naming it.  Standard library only.

Values: options, moves and outcomes are frozen dataclasses.  A game's ``State``, made once
for every move played (in every playout of a search too), is a slotted, hashable dataclass
whose fields are ``Final`` and set by its own ``__init__``: mypy refuses any other write, and
compiled (mypyc) the fields cannot be written at all, while a frozen dataclass would set each
field through ``object.__setattr__``, which made building a state cost as much as the rest
of the move.  Fields that only cache derived data are not part of the value and stay
writable.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import IntEnum
from typing import Any, Protocol, TypeAlias, TypeVar, cast

PlainData: TypeAlias = Any
"""msgpack-safe plain data: dicts with string keys, lists, str, int, float, bool, None."""


class Seat(IntEnum):
    """The two sides of every game; FIRST moves first. Each game names them in its own words."""

    FIRST = 0
    SECOND = 1

    @property
    def other(self) -> Seat:
        return Seat(1 - self)


class RulesError(ValueError):
    """Base of every error the rules raise on bad input; the message is for a player to read."""


class OptionsError(RulesError):
    """Game options that are unknown, malformed, out of range or incompatible."""


class InvalidMoveError(RulesError):
    """Move text that does not parse: the notation is wrong, whatever the position."""


class IllegalMoveError(RulesError):
    """A well-formed move that the rules forbid in this position (the reason says why)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: ``winner`` is None for a draw; ``reason`` is a short phrase."""

    winner: Seat | None
    reason: str


def outcome_data(outcome: Outcome | None, seat_names: Sequence[str]) -> PlainData:
    """An outcome as every game's ``to_data`` writes it: the winner by colour name (None for a
    draw) and the reason; None while the game goes on."""
    if outcome is None:
        return None
    winner = outcome.winner
    return {"winner": None if winner is None else seat_names[winner], "reason": outcome.reason}


class GameRules(Protocol):
    """What a game module exposes (checked structurally by the conformance test).

    ``State`` and ``Move`` are slotted, hashable dataclasses of the module (a move frozen, a
    state with Final fields: see "Values" above); they are typed ``Any`` here because each
    game has its own.  Forced passes, where a game has them,
    happen inside :func:`play`: ``to_move`` always names a seat that has a legal move, or None
    once the game is over.  A swap (pie rule) is an ordinary move whose text is ``swap``
    (see :mod:`rules.pie`).

    A module may also supply the optional evaluation hook, :class:`Evaluation`: a value for
    the positions where a search stops looking, and priors to order moves by; and the
    describing hook, :class:`DataChanges`: what a move changed in ``to_data``.
    """

    NAME: str
    """Registry name, lower case: ``"marque"``."""
    SEAT_NAMES: tuple[str, str]
    """Lower-case colour names of Seat.FIRST and Seat.SECOND: ``("white", "black")``."""
    FLAGS: Sequence[Flag]
    """Every option flag the game accepts, for parsing and for option forms."""

    def parse_options(self, text: str) -> Any:
        """pbmserv-style flags (``-size=4 -kill=3``) to the game's Options; raises OptionsError."""

    def options_text(self, options: Any) -> str:
        """The canonical flags of ``options`` (only those that differ from the defaults)."""

    def new_game(self, options: Any) -> Any:
        """The start position for these options."""

    def to_move(self, state: Any) -> Seat | None:
        """The seat to move, or None when the game is over."""

    def legal_moves(self, state: Any) -> Iterator[Any]:
        """Every legal move in ``state`` (none when the game is over)."""

    def play(self, state: Any, move: Any) -> Any:
        """The position after ``move``; raises IllegalMoveError and leaves ``state`` as it was."""

    def outcome(self, state: Any) -> Outcome | None:
        """How the game ended, or None while it goes on."""

    def scores(self, state: Any) -> tuple[int, int] | None:
        """Points of (FIRST, SECOND) for games that score, else None."""

    def parse_move(self, state: Any, text: str) -> Any:
        """Move text in the spec's notation to a Move; raises InvalidMoveError.

        The state is given because some notations (Che's position numbers) name cells relative
        to the position; the Move returned is always the canonical one.
        """

    def move_text(self, move: Any) -> str:
        """The canonical text of ``move`` (the spec's notation)."""

    def to_data(self, state: Any) -> PlainData:
        """Plain data for storage and for drawing; ``from_data(to_data(s)) == s``.

        Besides each game's own fields, every game writes ``explanation`` (None while the game
        goes on, then what :func:`explanation` describes).  The moves a page offers are not
        part of it: they are :func:`seat_moves`'s, for the one player who may make them.
        """

    def seat_moves(self, state: Any, seat: Seat) -> list[PlainData]:
        """The moves ``seat`` could make on this board, as blocks (:func:`move_blocks`; a
        move text is a block of itself): its legal moves when it is to move, else the moves a
        page lets it queue as premoves (those it could make here if it were its turn, never a
        swap); none once the game is over.  Listed as plain texts while they are few, as
        shared blocks where they are many, and not at all where even blocks would be too
        many (Che's turns of more than two tiles: the player types the move).  Only the
        seat's own player asks for them, so the position's data, which every spectator and
        every diff carries, stays small.
        """

    def from_data(self, data: PlainData) -> Any:
        """The state that ``to_data`` described; raises ValueError on data it did not write."""

    def render(self, state: Any) -> str:
        """ASCII drawing of the position, close to pbmserv's."""


class Evaluation(Protocol):
    """The optional evaluation hook: functions a game module may add to :class:`GameRules`,
    either or both, so that a search over it need not play every line to the end.

    A search (``bots.mcts``) stays one generic algorithm: for a game without the hook it plays
    random games to the end, which tells it little where random play almost never scores
    (nearly every random game of Osbox ends 0-0).  With ``evaluate`` it stops its playouts early
    and asks for the value of the position reached; with ``move_priors`` it tries the moves
    ranked high first.  Both are pure, deterministic functions of their arguments (no
    randomness, no clock) that leave the position as it was.  A module may also set
    ``EVALUATED_PLIES``, the plies a playout plays before it asks ``evaluate``, where a few
    random plies blur what its evaluation sees (see :func:`evaluated_plies`).
    """

    def evaluate(self, state: Any) -> float:
        """How good ``state`` is for ``Seat.FIRST``, in [-1, 1]: 1 a win, -1 a loss, 0 even.

        Always from FIRST's side, not the mover's, so that a swap (which changes who holds
        which colour, not the board) leaves the value alone.  On a finished game it is exactly
        1, -1 or 0 as :meth:`GameRules.outcome` says; before that it estimates how the game
        ends.  The conformance test checks the range, finished games, determinism and purity.
        """

    def move_priors(self, state: Any, moves: Sequence[Any]) -> Sequence[float]:
        """For each of ``moves`` (legal in ``state``), how promising it is for the seat to move,
        in [0, 1]: a search expands the higher ones first and favours them while it knows
        little about them.
        """


class MoveSampling(Protocol):
    """The optional sampling hook: a game whose move lists can grow too long to build at every
    ply of a search (Che with three or more tiles a turn: 56,000 moves in mid-game) may draw
    legal moves at random without listing them, so that a search never needs the whole list.
    """

    def random_move(self, state: Any, rng: random.Random) -> Any | None:
        """A legal move of ``state`` drawn at random with ``rng``, not necessarily uniformly
        over the list; None where listing the moves is cheap (or the game is over), and the
        search lists them as for any game.  The conformance test checks that every move
        drawn is one of :meth:`GameRules.legal_moves`."""


class EndingMoves(Protocol):
    """The optional ending hook: a cheap test that no move of a position ends the game, so
    that a search need not play every move (and every reply) to look for one that wins or
    loses at once where none can (Marque: no formation within a move's reach).
    """

    def may_end_at_once(self, state: Any) -> bool:
        """False promises that no legal move of ``state`` ends the game (a win, a loss or a
        draw at once); True promises nothing.  Pure and deterministic, and false once the
        game is over.  The conformance test plays every move of random positions where it
        says False."""


class DataChanges(Protocol):
    """The optional describing hook: what a change of position changed in ``to_data``, found
    from what changed instead of by building the whole data again and comparing it with the
    last (the server describes every move to every watcher this way).

    The operations are those of ``protocol/diff.py``, as plain lists: ``["s", path, value]``
    sets the value at ``path`` (a list of map keys and list indexes; in a list, the index equal
    to its length appends) and ``["d", path]`` deletes a map key or cuts a list at an index.
    """

    def data_changes(self, before: Any, after: Any, before_data: PlainData) -> list[list[Any]]:
        """Operations that turn ``before_data``, which is ``to_data(before)`` (or an equal copy
        read back from storage), into data equal to ``to_data(after)``; none when they are
        equal.  ``before`` and ``after`` are any two states of the same options, not only a
        position and the next.  Values in the operations may be parts the module shares from
        call to call: nobody may change them.  The conformance test replays the operations over
        whole random games and takebacks."""


def data_differ(game: object) -> Callable[[Any, Any, PlainData], list[list[Any]]] | None:
    """The game module's ``data_changes`` (see :class:`DataChanges`), or None if it has none."""
    function = getattr(game, "data_changes", None)
    return function if callable(function) else None


def move_sampler(game: object) -> Callable[[Any, random.Random], Any | None] | None:
    """The game module's ``random_move`` (see :class:`MoveSampling`), or None if it has none."""
    function = getattr(game, "random_move", None)
    return function if callable(function) else None


def ending_test(game: object) -> Callable[[Any], bool] | None:
    """The game module's ``may_end_at_once`` (see :class:`EndingMoves`), or None if it has
    none."""
    function = getattr(game, "may_end_at_once", None)
    return function if callable(function) else None


def evaluator(game: object) -> Callable[[Any], float] | None:
    """The game module's ``evaluate`` (see :class:`Evaluation`), or None if it has none."""
    function = getattr(game, "evaluate", None)
    return function if callable(function) else None


def evaluated_plies(game: object, default: int) -> int:
    """The plies a playout plays before it asks the game's ``evaluate``: the module's own
    ``EVALUATED_PLIES`` where it sets one (see :class:`Evaluation`), else ``default``."""
    plies = getattr(game, "EVALUATED_PLIES", None)
    return plies if isinstance(plies, int) and plies >= 0 else default


def move_prioritiser(game: object) -> Callable[[Any, Sequence[Any]], Sequence[float]] | None:
    """The game module's ``move_priors`` (see :class:`Evaluation`), or None if it has none."""
    function = getattr(game, "move_priors", None)
    return function if callable(function) else None


def move_blocks(moves: Iterable[Sequence[str]], join: str) -> list[PlainData]:
    """Moves given as their parts (``("c", "d3")``) as a short list of *blocks*.

    A block is a move text (a move of one part), or ``{"parts": [firsts, seconds],
    "join": join}``, which stands for every ``first + join + second``; moves whose first
    parts share the same seconds share a block.  A page expands the blocks into the texts;
    the list stays short where the moves are many.  Raises ValueError for a move of more
    than two parts.
    """
    singles: list[PlainData] = []
    seconds: dict[str, list[str]] = {}
    for parts in moves:
        if len(parts) == 1:
            singles.append(parts[0])
        elif len(parts) == 2:
            seconds.setdefault(parts[0], []).append(parts[1])
        else:
            raise ValueError(f"a move of {len(parts)} parts: {parts!r}")
    firsts: dict[tuple[str, ...], list[str]] = {}
    for first, following in seconds.items():
        firsts.setdefault(tuple(following), []).append(first)
    blocks = [
        {"parts": [group, list(following)], "join": join} for following, group in firsts.items()
    ]
    return singles + blocks


def expand_blocks(blocks: Iterable[PlainData]) -> Iterator[str]:
    """The move texts that :func:`move_blocks` (or a game's own blocks) stand for, in order.

    A block of more than one part never puts the same part twice in a move.
    """
    for block in blocks:
        if isinstance(block, str):
            yield block
            continue
        join = block["join"]
        combinations: list[list[str]] = [[]]
        for choices in block["parts"]:
            combinations = [[*done, c] for done in combinations for c in choices if c not in done]
        for parts in combinations:
            yield join.join(parts)


def explanation(groups: Sequence[PlainData]) -> PlainData:
    """What ``to_data`` says of why a finished game ended: ``{"groups": [...]}``.

    Each group (see :func:`explained_group`) is something to draw on the board: the group
    that won, the one that was enclosed, the regions compared.  A game that ended with no
    such thing to show (a draw by repetition) has no groups.
    """
    return {"groups": list(groups)}


def explained_group(
    colour: str,
    *,
    cells: Iterable[object] = (),
    links: Iterable[tuple[tuple[float, float], tuple[float, float]]] = (),
    points: Iterable[tuple[float, float]] = (),
    sides: Iterable[str] = (),
    size: int | None = None,
) -> PlainData:
    """One group of an :func:`explanation`, in the game's own drawing coordinates.

    ``colour`` is the colour (seat name) of the group; ``cells`` the cells or positions it
    holds, as the game names them in ``to_data``; ``links`` segments ``[[x, y], [x, y]]``
    that join its parts (bands, contacts); ``points`` spots to mark (blobs); ``sides`` the
    board sides or bases it joins; ``size`` the count the rules judged (blobs, bands,
    points), or None.
    """
    return {
        "colour": colour,
        "cells": list(cells),
        "links": [[[float(round(x, 4)), float(round(y, 4))] for x, y in link] for link in links],
        "points": [[float(round(x, 4)), float(round(y, 4))] for x, y in points],
        "sides": list(sides),
        "size": size,
    }


@dataclass(frozen=True, slots=True)
class Flag:
    """One option flag: a switch ``-name`` that sets ``field`` to ``value``, or ``-name=n``.

    A flag whose ``value`` is None takes an integer between ``minimum`` and ``maximum``
    (inclusive, where given); ``special`` lists extra integers accepted outside that range
    (Che's ``-num_tiles=-1`` for an unlimited supply).  ``names`` gives words for numbers
    that mean something else than a count (``(-1, "unlimited")``, or a default ``(0, "off")``
    that switches a rule off), so that an options form can offer them as words.
    """

    name: str
    field: str
    value: object = None
    minimum: int | None = None
    maximum: int | None = None
    special: tuple[int, ...] = ()
    help: str = ""
    names: tuple[tuple[int, str], ...] = ()

    @property
    def takes_number(self) -> bool:
        return self.value is None


_FLAG_RE = re.compile(r"-([a-z][a-z0-9_]*)(?:=(-?\d+|\S*))?$", re.IGNORECASE)


def parse_flags(text: str, flags: Sequence[Flag]) -> dict[str, object]:
    """Parse ``-size=4 -kill=3`` against ``flags`` into {field: value}.

    Raises OptionsError naming the flag when it is unknown, malformed or out of range, or when
    two flags give one field different values (``-capture -no_capture``).
    """
    by_name = {flag.name: flag for flag in flags}
    chosen: dict[str, tuple[str, object]] = {}
    for word in text.split():
        match = _FLAG_RE.match(word)
        if match is None:
            raise OptionsError(f"malformed option {word!r}: options look like -name or -name=n")
        name, raw = match.group(1).lower(), match.group(2)
        flag = by_name.get(name)
        if flag is None:
            known = " ".join(f"-{f.name}" for f in flags) or "none"
            raise OptionsError(f"unknown option -{name} (this game knows: {known})")
        value = _flag_value(flag, raw)
        previous = chosen.get(flag.field)
        if previous is not None and previous[1] != value:
            raise OptionsError(
                f"incompatible options -{previous[0]} and {word}: both set {flag.field}"
            )
        chosen[flag.field] = (word.lstrip("-"), value)
    return {field: value for field, (_, value) in chosen.items()}


def flags_text(changed: Mapping[str, object], flags: Sequence[Flag]) -> str:
    """The shortest flag text that sets each field of ``changed`` to its value."""
    words = []
    for field, value in changed.items():
        switch = next(
            (f for f in flags if f.field == field and not f.takes_number and f.value == value),
            None,
        )
        if switch is not None:
            words.append(f"-{switch.name}")
            continue
        number = next((f for f in flags if f.field == field and f.takes_number), None)
        if number is None or not isinstance(value, int):
            raise ValueError(f"no flag sets {field} to {value!r}")
        words.append(f"-{number.name}={value}")
    return " ".join(words)


OptionsT = TypeVar("OptionsT")


def options_from_flags(options_class: type[OptionsT], text: str, flags: Sequence[Flag]) -> OptionsT:
    """Build a game's frozen Options dataclass from flag text.

    Raises OptionsError as :func:`parse_flags` does; an Options class checks combinations of
    fields in its ``__post_init__`` and raises OptionsError there too.  The same text gives
    the same (immutable) Options, kept for :data:`OPTIONS_KEPT` texts: ``from_data`` reads a
    position's options each time a room is rebuilt from its document, as a process following
    another's moves does on every move.  (A game's Options class is read with its own flags
    only, so the class and the text say which Options they make.)
    """
    key = (options_class, text)
    kept = _PARSED_OPTIONS.get(key)
    if kept is not None:
        return cast(OptionsT, kept)
    options = options_class(**parse_flags(text, flags))
    if len(_PARSED_OPTIONS) < OPTIONS_KEPT:
        _PARSED_OPTIONS[key] = options
    return options


OPTIONS_KEPT = 512
"""Option texts whose Options :func:`options_from_flags` keeps (a few per game in practice)."""
_PARSED_OPTIONS: dict[tuple[type, str], object] = {}


def check_options(options: object, flags: Sequence[Flag]) -> None:
    """Check every field of a game's Options against its flags, as parsing them does: a
    number within its flag's range, a choice among its flags' values.  Each Options class
    calls it first in ``__post_init__``, so an Options built directly (by a bot, a test, a
    stored record) is refused as flag text would be; raises OptionsError naming the flag."""
    for f in fields(options):  # type: ignore[arg-type]
        value = getattr(options, f.name)
        if value == f.default:
            continue  # the default may be a word outside the range, as Che's 0 for "off"
        naming = [flag for flag in flags if flag.field == f.name]
        ranged = [flag for flag in naming if flag.takes_number]
        if ranged:
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionsError(f"option -{ranged[0].name} needs a whole number, not {value!r}")
            if any(flag.value == value for flag in naming if not flag.takes_number):
                continue  # a switch that sets this number (Che's -single)
            _check_number(ranged[0], value)
        elif naming and not any(isinstance(flag.value, bool) for flag in naming):
            if all(flag.value != value for flag in naming):
                known = " or ".join(f"-{flag.name}" for flag in naming)
                raise OptionsError(f"option {f.name}={value!r} is unknown ({known})")


def options_flags_text(options: object, flags: Sequence[Flag]) -> str:
    """The flags that turn the default Options into ``options`` (empty for the defaults)."""
    defaults = type(options)()
    changed = {
        f.name: getattr(options, f.name)
        for f in fields(options)  # type: ignore[arg-type]
        if getattr(options, f.name) != getattr(defaults, f.name)
    }
    return flags_text(changed, flags)


def describe_flags(flags: Sequence[Flag]) -> list[dict[str, object]]:
    """The flags as plain data, so a client can build an options form without the rules."""
    return [
        {
            "name": f.name,
            "field": f.field,
            "value": f.value,
            "takes_number": f.takes_number,
            "minimum": f.minimum,
            "maximum": f.maximum,
            "special": list(f.special),
            "help": f.help,
            "names": [[value, word] for value, word in f.names],
        }
        for f in flags
    ]


def _flag_value(flag: Flag, raw: str | None) -> object:
    if not flag.takes_number:
        if raw is not None:
            raise OptionsError(f"option -{flag.name} takes no value")
        return flag.value
    if raw is None or not re.fullmatch(r"-?\d+", raw):
        raise OptionsError(f"option -{flag.name} needs a whole number: -{flag.name}=n")
    number = int(raw)
    _check_number(flag, number)
    return number


def _check_number(flag: Flag, number: int) -> None:
    if number in flag.special:
        return
    if (flag.minimum is not None and number < flag.minimum) or (
        flag.maximum is not None and number > flag.maximum
    ):
        low = "" if flag.minimum is None else str(flag.minimum)
        high = "" if flag.maximum is None else str(flag.maximum)
        raise OptionsError(f"option -{flag.name}={number} is out of range ({low}..{high})")
