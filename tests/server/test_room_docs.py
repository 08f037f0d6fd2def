"""Each commit's diff takes a client's copy of the room document to exactly the next one.

Every commit describes how the room's previous document became its next
(``rooms.room_changes``: the rules say what a move changed in their data where they can, and
the rest is compared), and clients replay only that diff.  Over seeded random games of every
game, mixing moves with the other commands (spectators, presence, draw and takeback offers,
takebacks, resigning, rematches and the rematch's room; timed and untimed), a client's copy
that replays each diff must be, byte for byte, the document the server holds, as must another
process's cached copy brought forward by the diff (and the room read from it), and the copy of
a process that read the room back from Redis; and no document may change after it was built
(the rules reuse parts of their data from call to call, so documents share them).
"""

from __future__ import annotations

import copy
import random

import msgpack
import pytest

from protocol.diff import apply, apply_copy
from protocol.errors import ClientError
from rules import GAMES
from rules.api import RulesError
from rules.pie import is_swap
from server.rooms import (
    DRAW_ACCEPT,
    DRAW_DECLINE,
    DRAW_OFFER,
    Command,
    Draw,
    Move,
    Presence,
    Rematch,
    Resign,
    Room,
    SeatHolder,
    SetSpectators,
    Takeback,
    decide,
    new_room,
    rematch_room,
    room_changes,
    room_doc,
    room_from_doc,
)

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")
STEPS = 120


def _packed(doc: object) -> bytes:
    packed: bytes = msgpack.packb(doc, use_bin_type=True)
    return packed


def _command(rng: random.Random, room: Room, now: float) -> Command:
    """A move most of the time (the swap half the times it is offered), else one of the
    other commands, by either player."""
    player = rng.choice((ANN, BOB)).id
    roll = rng.random()
    if roll < 0.06:
        return SetSpectators(rng.randrange(4))
    if roll < 0.10:
        return Presence(player, rng.random() < 0.5, now)
    if roll < 0.15:
        return Draw(player, room.version, rng.choice((DRAW_OFFER, DRAW_ACCEPT, DRAW_DECLINE)))
    if roll < 0.20:
        action = rng.choice((DRAW_OFFER, DRAW_ACCEPT, DRAW_DECLINE))
        return Takeback(player, room.version, action, now)
    if roll < 0.205:
        return Resign(player, room.version)
    if room.outcome is not None:
        return Rematch(player)
    rules = room.rules
    seat = rules.to_move(room.state)
    legal = list(rules.legal_moves(room.state))
    if seat is None or not legal:
        return Rematch(player)
    swaps = [move for move in legal if is_swap(move)]
    move = swaps[0] if swaps and rng.random() < 0.5 else rng.choice(legal)
    text = rules.move_text(move)
    return Move(room.seats[seat].id, room.version, text, now)


@pytest.mark.parametrize("control", [None, "5+3"])
@pytest.mark.parametrize("name", sorted(GAMES))
def test_replaying_each_diff_gives_the_servers_document(name: str, control: str | None) -> None:
    rng = random.Random(f"{name} {control}")
    now = 1_000_000.0
    room = new_room("r1", name, "", (ANN, BOB), control, now=now)
    doc = room_doc(room)
    client = copy.deepcopy(doc)
    built = [(doc, _packed(doc))]
    changes = 0
    for _ in range(STEPS):
        now += rng.random() * 3
        try:
            transition = decide(room, _command(rng, room, now))
        except (ClientError, RulesError):
            continue  # refused: nothing changed
        if not transition.events:
            continue
        new = transition.room
        new_doc, ops = room_changes(room, doc, new)
        assert _packed(new_doc) == _packed(room_doc(new))
        client = apply(client, ops)
        assert _packed(client) == _packed(new_doc)
        # Another process's cached copy, brought forward by the relayed diff.
        forward = apply_copy(doc, ops)
        assert _packed(forward) == _packed(new_doc)
        assert _packed(room_doc(room_from_doc(forward))) == _packed(new_doc)
        # A process that read the room back from Redis describes the same change.
        stored = msgpack.unpackb(_packed(doc))
        _, read_back_ops = room_changes(room_from_doc(stored), stored, new)
        assert _packed(apply(stored, read_back_ops)) == _packed(new_doc)
        built.append((new_doc, _packed(new_doc)))
        room, doc = new, new_doc
        changes += 1
        if room.rematch is not None:  # both asked: play on in the rematch's room
            room = rematch_room(room, now)
            doc = room_doc(room)
            client = copy.deepcopy(doc)
    assert changes > STEPS // 2
    for earlier, packed in built:
        assert _packed(earlier) == packed  # nothing built later changed it
