"""A test-only game behind the rules API: tic-tac-toe with an optional swap after move one.

The server is game-agnostic; this small game lets its tests run before, and independently
of, the real engines.  Cells are named a1..c3; ``-size=n`` changes the board (n in a row
wins); ``-swap`` enables the pie rule.  Registered only by the tests (the ``ttt`` fixture),
``python -m bench.loopback.serve`` and ``python -m bench.server_load --game tictactoe``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rules.api import (
    Flag,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    PlainData,
    Seat,
    options_flags_text,
    options_from_flags,
)
from rules.pie import PIE_FLAGS, SWAP, Swap, can_swap, is_swap_text

NAME = "tictactoe"
SEAT_NAMES = ("cross", "nought")
FLAGS = (Flag("size", "size", minimum=3, maximum=9, help="board side"), *PIE_FLAGS)


@dataclass(frozen=True, slots=True)
class Options:
    size: int = 3
    pie: bool = False


@dataclass(frozen=True, slots=True)
class Place:
    cell: int
    size: int


Move = Place | Swap


@dataclass(frozen=True, slots=True)
class State:
    size: int
    pie: bool
    cells: tuple[int, ...]  # -1 empty, else the seat of the mark
    to_move: Seat
    plies: int


def parse_options(text: str) -> Options:
    return options_from_flags(Options, text, FLAGS)


def options_text(options: Options) -> str:
    return options_flags_text(options, FLAGS)


def new_game(options: Options) -> State:
    return State(options.size, options.pie, (-1,) * options.size**2, Seat.FIRST, 0)


def to_move(state: State) -> Seat | None:
    return None if outcome(state) is not None else state.to_move


def legal_moves(state: State) -> Iterator[Move]:
    if to_move(state) is None:
        return
    if can_swap(state.plies, state.pie):
        yield SWAP
    for cell, mark in enumerate(state.cells):
        if mark < 0:
            yield Place(cell, state.size)


def play(state: State, move: Move) -> State:
    if to_move(state) is None:
        raise IllegalMoveError("the game is over")
    if isinstance(move, Swap):
        if not can_swap(state.plies, state.pie):
            raise IllegalMoveError("swap is only allowed as the second move")
        return State(state.size, state.pie, state.cells, state.to_move, state.plies + 1)
    if not 0 <= move.cell < len(state.cells) or state.cells[move.cell] >= 0:
        raise IllegalMoveError(f"cell {cell_text(state.size, move.cell)} is not empty")
    cells = list(state.cells)
    cells[move.cell] = int(state.to_move)
    return State(state.size, state.pie, tuple(cells), state.to_move.other, state.plies + 1)


def outcome(state: State) -> Outcome | None:
    n = state.size
    lines = [[r * n + c for c in range(n)] for r in range(n)]
    lines += [[r * n + c for r in range(n)] for c in range(n)]
    lines += [[i * n + i for i in range(n)], [i * n + n - 1 - i for i in range(n)]]
    for line in lines:
        first = state.cells[line[0]]
        if first >= 0 and all(state.cells[i] == first for i in line):
            return Outcome(Seat(first), "line")
    if all(mark >= 0 for mark in state.cells):
        return Outcome(None, "full board")
    return None


def scores(state: State) -> tuple[int, int] | None:
    return None


def parse_move(state: State, text: str) -> Move:
    if is_swap_text(text):
        return SWAP
    word = text.strip().lower()
    if len(word) < 2 or not word[0].isalpha() or not word[1:].isdigit():
        raise InvalidMoveError(f"{text!r} is not a cell such as b2")
    col, row = ord(word[0]) - ord("a"), int(word[1:]) - 1
    if not (0 <= col < state.size and 0 <= row < state.size):
        raise InvalidMoveError(f"{text!r} is off the board")
    return Place(row * state.size + col, state.size)


def move_text(move: Move) -> str:
    if isinstance(move, Swap):
        return "swap"
    return cell_text(move.size, move.cell)


def cell_text(size: int, cell: int) -> str:
    return f"{chr(ord('a') + cell % size)}{cell // size + 1}"


def to_data(state: State) -> dict[str, Any]:
    return {
        "size": state.size,
        "pie": state.pie,
        "cells": list(state.cells),
        "to_move": int(state.to_move),
        "plies": state.plies,
    }


def seat_moves(state: State, seat: Seat) -> list[PlainData]:
    """The seat to move gets its legal moves; the other seat, the empty cells it could
    queue (never a swap)."""
    if to_move(state) is None:
        return []
    if seat == state.to_move:
        return [move_text(m) for m in legal_moves(state)]
    return [cell_text(state.size, cell) for cell, mark in enumerate(state.cells) if mark < 0]


def from_data(data: dict[str, Any]) -> State:
    try:
        return State(
            int(data["size"]),
            bool(data["pie"]),
            tuple(int(c) for c in data["cells"]),
            Seat(data["to_move"]),
            int(data["plies"]),
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"not tic-tac-toe data: {error}") from error


def render(state: State) -> str:
    marks = ".XO"
    n = state.size
    return "\n".join(
        "".join(marks[state.cells[r * n + c] + 1] for c in range(n)) for r in reversed(range(n))
    )


@contextlib.contextmanager
def registered() -> Iterator[None]:
    """This game in ``rules.GAMES`` for the duration (tests only)."""
    import sys  # noqa: PLC0415

    from rules import GAMES  # noqa: PLC0415

    GAMES[NAME] = sys.modules[__name__]  # type: ignore[assignment]
    try:
        yield
    finally:
        GAMES.pop(NAME, None)
