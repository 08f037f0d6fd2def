"""What every game's ``seat_moves`` gives a page to build moves from, without the rules.

A page offers the player to move exactly the moves that ``seat_moves`` lists for its seat
(texts, or blocks when the list would be long) and lets the other player queue a premove
from what it lists for theirs; these tests check that the blocks stand for the legal moves,
that every move they give can be played as written, that the waiting seat's are the moves it
could make on its turn, and that the position's data, which every spectator receives, no
longer carries them.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from rules import GAMES, find_game
from rules.api import GameRules, Seat, expand_blocks, move_blocks

OPTIONS = {
    "ankor": ["", "-size=4", "-size=5 -no_swap"],
    "boche": ["", "-size=8", "-size=3 -adjacent"],
    "che": [
        "",
        "-num_tiles=20",
        "-adjacent",
        "-move_anytime",
        "-num_tiles=12 -tie_move",
        "-group_area=5",
        "-single",
    ],
    "marque": ["", "-any_2"],
    "osbox": ["", "-any_side -size=3"],
}
PLIES = 80


def positions(game: GameRules, options: str, seed: int) -> list[Any]:
    rng = random.Random(seed)
    state = game.new_game(game.parse_options(options))
    found = [state]
    for _ in range(PLIES):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
        found.append(state)
    return found


def move_key(game: GameRules, state: Any, text: str) -> frozenset[str] | str:
    """A move as the set of its parts where the parts may come in any order (Che's tiles)."""
    if game.NAME == "che" and not re.match(r"\d+-", text):
        return frozenset(text.replace("),", ");").split(";"))
    return text


def offered(game: GameRules, state: Any, blocks: list[Any]) -> set[frozenset[str] | str]:
    """The moves a page offers: the blocks' moves minus those on one cell twice."""
    moves = set()
    for text in expand_blocks(blocks):
        key = move_key(game, state, text)
        if isinstance(key, frozenset) and len({part[1:] for part in key}) < len(key):
            continue  # two tiles on one cell: the blocks' note says to drop them
        moves.add(key)
    return moves


@pytest.mark.parametrize(
    ("name", "options"), [(name, text) for name in sorted(GAMES) for text in OPTIONS[name]]
)
def test_the_offered_moves_are_the_legal_moves_and_play_as_written(name: str, options: str) -> None:
    game = find_game(name)
    rng = random.Random(name + options)
    blocks_seen = 0
    for state in positions(game, options, seed=len(options)):
        mover = game.to_move(state)
        if mover is None:
            assert all(game.seat_moves(state, seat) == [] for seat in Seat)
            continue
        blocks = game.seat_moves(state, mover)
        legal = {move_key(game, state, game.move_text(m)) for m in game.legal_moves(state)}
        assert offered(game, state, blocks) == legal
        if not all(isinstance(block, str) for block in blocks):
            blocks_seen += 1
            texts = list(expand_blocks(blocks))
            for text in rng.sample(texts, min(len(texts), 12)):
                if isinstance(move_key(game, state, text), frozenset) and text.count("(") == 2:
                    cells = text.replace("),", ");").split(";")
                    if cells[0][1:] == cells[1][1:]:
                        continue
                game.play(state, game.parse_move(state, text))  # playable as written
    if name == "che" and options in ("", "-num_tiles=20", "-move_anytime"):
        assert blocks_seen, "the long lists were meant to come as blocks"


WAITING: dict[str, Callable[[dict[str, Any]], None]] = {
    "ankor": lambda d: d.update(to_move={"white": "blue", "blue": "white"}[d["to_move"]]),
    "boche": lambda d: None,  # placements do not depend on the seat
    "che": lambda d: d.update(turn=d["turn"] + 1, last=[]),
    "marque": lambda d: d.update(turn={"white": "black", "black": "white"}[d["turn"]]),
    "osbox": lambda d: d.update(to_move={"horz": "vert", "vert": "horz"}[d["to_move"]]),
}
"""How to turn a position's data into the same board with the waiting seat to move."""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_premoves_are_the_moves_of_the_seat_that_waits(name: str) -> None:
    game = find_game(name)
    for state in positions(game, "", seed=7)[2:]:
        mover = game.to_move(state)
        if mover is None:
            assert all(game.seat_moves(state, seat) == [] for seat in Seat)
            continue
        flipped = copy.deepcopy(game.to_data(state))
        WAITING[name](flipped)
        waiting = game.from_data(flipped)
        expected = {
            move_key(game, waiting, game.move_text(m))
            for m in game.legal_moves(waiting)
            if game.move_text(m) != "swap"
        }
        blocks = game.seat_moves(state, mover.other)
        premoves = {move_key(game, waiting, t) for t in expand_blocks(blocks)}
        premoves = {
            k
            for k in premoves
            if not isinstance(k, frozenset)
            or len(k) == 1
            or len({part[1:] for part in k}) == len(k)
        }
        assert premoves == expected


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_data_carries_no_move_lists(name: str) -> None:
    """The moves go only to their seat's player, never with the position to every watcher."""
    game = find_game(name)
    for state in positions(game, "", seed=3):
        data = game.to_data(state)
        assert not {"legal", "legal_blocks", "premoves"} & data.keys()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_data_stored_with_move_lists_still_reads(name: str) -> None:
    """Rooms stored when the data carried the move lists read back as the same position."""
    game = find_game(name)
    for state in positions(game, "", seed=5)[::10]:
        mover = game.to_move(state)
        data = copy.deepcopy(game.to_data(state))
        legal = [game.move_text(m) for m in game.legal_moves(state)]
        data["legal"] = legal
        data["legal_blocks"] = None if mover is None else game.seat_moves(state, mover)
        data["premoves"] = [] if mover is None else game.seat_moves(state, mover.other)
        assert game.from_data(data) == state
        assert game.to_data(game.from_data(data)) == game.to_data(state)


def test_move_blocks_share_a_block_between_parts_with_the_same_followers() -> None:
    moves = [("a",), ("x", "1"), ("x", "2"), ("y", "1"), ("y", "2"), ("z", "3")]
    blocks = move_blocks(moves, "-")
    assert blocks == [
        "a",
        {"parts": [["x", "y"], ["1", "2"]], "join": "-"},
        {"parts": [["z"], ["3"]], "join": "-"},
    ]
    assert list(expand_blocks(blocks)) == ["a", "x-1", "x-2", "y-1", "y-2", "z-3"]
    with pytest.raises(ValueError, match="3 parts"):
        move_blocks([("a", "b", "c")], "-")
