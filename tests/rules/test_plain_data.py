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

from rules import GAMES, find_game
from server.diff import apply, diff

PLIES = 120
DIGESTS = {
    "ankor": "3097df7aa9b63bb9aa326f569d6efca2e25f66670b0f44f457fb49dce434a029",
    "boche": "dfb28663e0f89e1faa064841d1d92655ef6a7617cc5785fb6d7cef3336468a40",
    "che": "e503a2a4adfec3dbae54b4d392861531a79b32d05223f30242d31fce07bbcd34",
    "marque": "37e7794b66ec1ad1f4d2fa4c3d36df701144053894af51120d5105875ad898e0",
    "osbox": "52dbd5323c84156e8ed61715e90f5e68272ea5c3b47c3cfb56930637f644c5c8",
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
