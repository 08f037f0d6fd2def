"""Every game's ``to_data`` keeps writing the same plain data, byte for byte on the wire.

The digests below were taken of msgpack frames of ``to_data`` at every ply of seeded random
playouts; a change that makes ``to_data`` cheaper (reusing unchanged parts, caching texts)
must not change what clients receive.  ``to_data`` may share unchanged parts between calls,
so nobody may mutate its output: a test checks that applying diffs to a client's copy leaves
every earlier output as it was.
"""

from __future__ import annotations

import copy
import hashlib
import random

import msgpack
import pytest

from protocol.diff import apply, diff
from rules import GAMES, find_game

PLIES = 120
DIGESTS = {
    "ankor": "8d5147a8c1aeeee3f364837c141172c91004c0a2212e1115105b3cccf60ee483",
    "boche": "7a818ce380cf43a5d4ed95ca0a313aa3283dbf1cf61d98bc32975e074fa82ac3",
    "che": "d83be7bf7c30c1bd19e5059dd949fecb49fd1f1b91688561f3f66f2f344ff55a",
    "marque": "124f6629185a9e5a8e65f50be8af986b5f892a8b3c7a01640e63466fd3b834ea",
    "osbox": "fa49578b99a6c7fb7f42b563832ff20fbaf8204fe5f34698b57619629a24be8b",
}


def _datas(name: str, seed: int) -> list[object]:
    game = find_game(name)
    rng = random.Random(seed)
    state = game.new_game(game.parse_options(""))
    datas = [game.to_data(state)]
    for _ in range(PLIES):
        legal = list(game.legal_moves(state))
        if not legal:
            break
        state = game.play(state, rng.choice(legal))
        datas.append(game.to_data(state))
    return datas


def _digest(name: str) -> str:
    digest = hashlib.sha256()
    for seed in range(2):
        for data in _datas(name, seed):
            digest.update(msgpack.packb(data, use_bin_type=True))
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_to_data_writes_what_it_always_wrote(name: str) -> None:
    assert _digest(name) == DIGESTS[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_applying_diffs_leaves_earlier_outputs_alone(name: str) -> None:
    datas = _datas(name, 7)
    kept = copy.deepcopy(datas)
    mirror = copy.deepcopy(datas[0])
    for old, new in zip(datas, datas[1:], strict=False):
        mirror = apply(mirror, diff(old, new))
        assert mirror == new
    assert datas == kept
