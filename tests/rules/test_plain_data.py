"""Every game's ``to_data`` keeps writing the same plain data, byte for byte on the wire.

The digests below were taken of msgpack frames of ``to_data`` at every ply of seeded random
playouts; a change that makes ``to_data`` cheaper (reusing unchanged parts, caching texts)
must not change what clients receive.  The same holds for ``seat_moves``: its digests were
first taken of the lists that ``to_data`` itself used to carry (``legal``, else
``legal_blocks``, for the seat to move; ``premoves`` for the other), so a player is offered
the very moves it was offered when the data carried them.

``to_data`` may share unchanged parts between calls, so nobody may mutate its output: a test
checks that applying diffs to a client's copy leaves every earlier output as it was.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Iterable
from typing import Any

import msgpack
import pytest

from protocol.diff import apply, diff
from rules import GAMES, find_game
from rules.api import Seat

PLIES = 120
DIGESTS = {
    "ankor": "557f13d2b9bf238a294b64886748ada6fb71ddd645aa33c9c4ee76dc30a80e28",
    "boche": "19a7e73009414266109ff032dfd8e9c5e2d94ece18df4825a72aa913248d7593",
    "che": "d33597030c3fa592f9926a441048703626e84e23ec0a884e41934f4565897e76",
    "marque": "00461776a4b181a4a968b0bc1b2221044ae67f1f680dfe5501f76319587c741b",
    "osbox": "bfdbdcc8e51cd666604d3fba6e83706ecb8e8afca2aee510876c7cc3164bf878",
}
SEAT_MOVES_DIGESTS = {
    "ankor": "ffa845c07e8de243252a066c8030a443e8110d5788a2308db6c4625ac0a082ca",
    "boche": "85282e15326efd7e74ab8660100979134c343c62f6a15328161493ede026a822",
    "che": "09e46fe4bae426039f7df83c57f34c48f8d5cf01ac1449add6b66f2dbf9fc9ce",
    "marque": "258d43c87dcf6eabe4d0d6eeaffb9b62c5ad33a9f15280b75cdb9d6bc42b02f0",
    "osbox": "c5afd89a04d96bced571a96cf39d59930d209f04789b56cf6f1ca6d28c33b147",
}


def _states(name: str, seed: int) -> list[Any]:
    game = find_game(name)
    rng = random.Random(seed)
    state = game.new_game(game.parse_options(""))
    states = [state]
    for _ in range(PLIES):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
        states.append(state)
    return states


def _datas(name: str, seed: int) -> list[object]:
    game = find_game(name)
    return [game.to_data(state) for state in _states(name, seed)]


def _digest(frames: Iterable[object]) -> str:
    digest = hashlib.sha256()
    for frame in frames:
        digest.update(msgpack.packb(frame, use_bin_type=True))
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_to_data_writes_what_it_always_wrote(name: str) -> None:
    assert _digest(data for seed in range(2) for data in _datas(name, seed)) == DIGESTS[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_seat_moves_lists_what_the_data_used_to_list(name: str) -> None:
    game = find_game(name)
    frames = (
        [game.seat_moves(state, seat) for seat in Seat]
        for seed in range(2)
        for state in _states(name, seed)
    )
    assert _digest(frames) == SEAT_MOVES_DIGESTS[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_applying_diffs_leaves_earlier_outputs_alone(name: str) -> None:
    datas = _datas(name, 7)
    kept = copy.deepcopy(datas)
    mirror = copy.deepcopy(datas[0])
    for old, new in zip(datas, datas[1:], strict=False):
        mirror = apply(mirror, diff(old, new))
        assert mirror == new
    assert datas == kept
