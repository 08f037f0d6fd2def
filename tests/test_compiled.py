"""The rules engines, the diff and the rooms run compiled (setup.py) wherever a C compiler is."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from rules import GAMES, find_game
from rules.api import Seat
from server.rooms import Move, MovePlayed, SeatHolder, Transition, new_room
from tests.conftest import package_setup


def test_the_hot_modules_are_compiled_where_a_compiler_is() -> None:
    setup = package_setup()
    if not setup.can_compile():
        pytest.skip("no C compiler here, so the package was installed as pure Python")
    for path in setup.COMPILED:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert module.__file__ is not None and module.__file__.endswith(".so"), (
            f"{path} runs as pure Python: reinstall the package (./dev test does)"
        )


def test_compiled_states_and_rooms_cannot_be_changed() -> None:
    """A game's state, a room and the values made with every move are values whose fields
    are Final, not frozen dataclasses (see "Values" in rules.api): compiled, writing one
    fails as writing a frozen field would; the fields that only cache derived data stay
    writable."""
    setup = package_setup()
    if not setup.can_compile():
        pytest.skip("no C compiler here: Final is checked by mypy alone")
    values: list[object] = []
    for game in sorted(GAMES):
        rules = find_game(game)
        state = rules.new_game(rules.parse_options(""))
        values.append(state)
        room = new_room("r1", game, "", (SeatHolder("a", "A"), SeatHolder("b", "B")))
        values.append(room)
    move = Move("a", 0, "a1", 1.0, 0.1)
    values += [move, MovePlayed(Seat.FIRST, "a1"), Transition(room, ()), SeatHolder("a", "A")]
    assert dataclasses.replace(move, now=2.0) == Move("a", 0, "a1", 2.0, 0.1)
    for value in values:
        for field in dataclasses.fields(value):  # type: ignore[arg-type]
            current = getattr(value, field.name)
            if field.compare:
                with pytest.raises(AttributeError, match="not writable"):
                    setattr(value, field.name, current)
            else:
                setattr(value, field.name, current)
