"""Bad input on real sockets: each gets its error or close code, and nothing changes."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from client import ServerReplyError
from lobby.identity import issue_token, new_guest
from protocol.messages import MAX_FRAME_BYTES
from rules import find_game
from server.redis import store
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, make_room, start_server, token_for


async def raw(server: RunningServer, token: str | None = "guest") -> ClientConnection:
    """A bare websocket (no client library), past the welcome frame."""
    if token == "guest":
        token = token_for(new_guest())
    url = server.ws_url if token is None else f"{server.ws_url}?token={token}"
    socket = await ws_connect(url, compression=None, max_size=None)
    return socket


async def closed_with(socket: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed):
        while True:
            await socket.recv()
    assert socket.close_code is not None
    return socket.close_code


async def reply(socket: ClientConnection, body: Any) -> dict[str, Any]:
    await socket.send(msgpack.packb(body))
    while True:
        answer = msgpack.unpackb(await socket.recv())
        if answer["t"] not in ("welcome", "snapshot", "diff"):
            return answer  # type: ignore[no-any-return]


@pytest.mark.parametrize("token", [None, "", "garbage", "a.b"])
async def test_missing_or_bad_credentials_close_with_1008(
    app_server: RunningServer, token: str | None
) -> None:
    socket = await raw(app_server, token)
    assert await closed_with(socket) == 1008


async def test_a_forged_token_closes_with_1008(app_server: RunningServer) -> None:
    forged = issue_token(b"another secret", new_guest(), 0, ttl=10**10)
    assert await closed_with(await raw(app_server, forged)) == 1008


@pytest.mark.parametrize("frame", [b"\xc1\xc1", b"", msgpack.packb([1, 2]), msgpack.packb(7)])
async def test_an_undecodable_frame_closes_with_1003(
    app_server: RunningServer, frame: bytes
) -> None:
    socket = await raw(app_server)
    await socket.send(frame)
    assert await closed_with(socket) == 1003


async def test_a_text_frame_closes_with_1003(app_server: RunningServer) -> None:
    socket = await raw(app_server)
    await socket.send('{"t": "join"}')
    assert await closed_with(socket) == 1003


async def test_an_oversized_frame_closes_with_1009(app_server: RunningServer) -> None:
    socket = await raw(app_server)
    await socket.send(msgpack.packb({"t": "join", "id": 1, "room": "x" * MAX_FRAME_BYTES}))
    assert await closed_with(socket) == 1009


@pytest.mark.parametrize(
    "body, code",
    [
        ({"t": "warp", "id": 1}, "unknown_type"),
        ({"t": "move", "id": 2, "room": "r1", "version": 0}, "bad_request"),
        ({"t": "move", "id": 3, "room": "r1", "version": "0", "move": "a1"}, "bad_request"),
        ({"t": "join", "id": 4, "room": "nowhere"}, "unknown_room"),
        ({"t": "move", "id": 5, "room": "r1", "version": 0, "move": "a1"}, "not_joined"),
        ({"t": "sync", "id": 6, "room": "r1", "version": 0}, "not_joined"),
    ],
)
async def test_bad_requests_get_a_coded_error_echoing_the_id(
    app_server: RunningServer, redis_client: aioredis.Redis, body: dict[str, Any], code: str
) -> None:
    await make_room(redis_client, new_guest(), new_guest())
    socket = await raw(app_server)
    answer = await reply(socket, body)
    assert (answer["t"], answer["code"], answer["ref"]) == ("error", code, body["id"])
    again = await reply(socket, {"t": "join", "id": 99, "room": "r1"})  # the socket lives on
    assert again["t"] == "joined"
    await socket.close()
    doc = await store.load_doc(redis_client, "r1")
    assert doc is not None and doc["record"] == [] and doc["position_version"] == 0


async def test_refused_moves_change_nothing(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    a, b = new_guest(), new_guest()
    room = await make_room(redis_client, a, b)
    c, d = new_guest(), new_guest()
    await make_room(redis_client, c, d, room_id="elsewhere")
    ca, cb, spectator, other_player = (
        await connect(app_server, a),
        await connect(app_server, b),
        await connect(app_server),
        await connect(app_server, c),
    )
    for client in (ca, cb, spectator, other_player):
        await client.join(room)
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["spectators"] == 2)
    before = await store.load_doc(redis_client, room)
    cases = [
        (cb, "a1", None, "not_your_turn"),
        (spectator, "a1", None, "not_a_player"),
        (other_player, "a1", None, "not_a_player"),  # seated, but in another room
        (ca, "zz9", None, "invalid_move"),
        (ca, "a1", 99, "stale_version"),  # a version the room never had
    ]
    for client, text, version, code in cases:
        with pytest.raises(ServerReplyError) as refused:
            await client.move(room, text, version=version)
        assert refused.value.code == code
    with pytest.raises(ServerReplyError) as refused:
        await spectator.resign(room)
    assert refused.value.code == "not_a_player"
    assert await store.load_doc(redis_client, room) == before
    # An illegal move in a real position, then moves after the end.
    version = await ca.move(room, "a1")
    await cb.wait_version(room, version)
    with pytest.raises(ServerReplyError) as refused:
        await cb.move(room, "a1")
    assert refused.value.code == "illegal_move"
    with pytest.raises(ServerReplyError) as refused:
        await cb.move(room, "b1", version=version - 1)  # made before a1 was played
    assert refused.value.code == "stale_version"
    await cb.resign(room)
    await ca.wait_for(room, lambda v: v.doc is not None and v.doc["outcome"] is not None)
    ended = await store.load_doc(redis_client, room)
    for client in (ca, cb):
        with pytest.raises(ServerReplyError) as refused:
            await client.move(room, "c3")
        assert refused.value.code == "game_over"
    assert await store.load_doc(redis_client, room) == ended
    for client in (ca, cb, spectator, other_player):
        await client.close()


async def test_a_connection_over_its_rate_gets_rate_limited(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: object
) -> None:
    server = await start_server(redis_server.url, rate_per_second=0.001, rate_burst=3)
    await make_room(redis_client, new_guest(), new_guest())
    socket = await raw(server)
    codes = []
    for i in range(5):
        answer = await reply(socket, {"t": "join", "id": i, "room": "r1"})
        codes.append(answer.get("code", answer["t"]))
    assert codes == ["joined", "joined", "joined", "rate_limited", "rate_limited"]
    await socket.close()
    await server.stop()


async def test_malformed_requests_count_against_the_rate_too(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: object
) -> None:
    """A flood of requests that do not decode into a message is slowed down like any other:
    past the burst, even a malformed request is answered rate-limited, and so is the next
    good one."""
    server = await start_server(redis_server.url, rate_per_second=0.001, rate_burst=3)
    await make_room(redis_client, new_guest(), new_guest())
    socket = await raw(server)
    codes = []
    for i in range(4):
        answer = await reply(socket, {"t": "warp", "id": i})
        codes.append(answer["code"])
    answer = await reply(socket, {"t": "join", "id": 9, "room": "r1"})
    codes.append(answer.get("code", answer["t"]))
    assert codes == ["unknown_type"] * 3 + ["rate_limited", "rate_limited"]
    await socket.close()
    await server.stop()


async def test_random_frames_leave_every_room_replayable_from_its_record(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    """Fuzz: garbage, half-valid and valid requests from many sockets, then a replay check."""
    rng = random.Random(2026)
    players = [new_guest() for _ in range(4)]
    rooms = [
        await make_room(redis_client, players[0], players[1], room_id="f1", options="-size=4"),
        await make_room(redis_client, players[2], players[3], room_id="f2", options="-swap"),
    ]
    closes: list[int] = []
    for round_ in range(60):
        socket = await raw(app_server, token_for(rng.choice(players)))
        for _ in range(rng.randrange(1, 12)):
            frame = random_frame(rng, rooms)
            try:
                await socket.send(frame)
            except ConnectionClosed:
                break
        await socket.send(msgpack.packb({"t": "leave", "id": "end", "room": "f1"}))
        try:
            while True:
                answer = msgpack.unpackb(await socket.recv())
                if answer.get("ref") == "end":
                    break
        except ConnectionClosed:
            closes.append(socket.close_code or 0)
        await socket.close()
        assert round_ < 60
    assert set(closes) <= {1003, 1009}
    for room in rooms:
        doc = await store.load_doc(redis_client, room)
        assert doc is not None
        rules = find_game(doc["game"])
        state = rules.new_game(rules.parse_options(doc["options"]))
        for text in doc["record"]:
            state = rules.play(state, rules.parse_move(state, text))
        assert rules.from_data(doc["data"]) == state
        assert msgpack.unpackb(msgpack.packb(rules.to_data(state))) == doc["data"]
    # Somebody moved: the fuzz reached the rules, not only the decoder.
    records = [(await store.load_doc(redis_client, r) or {})["record"] for r in rooms]
    assert any(records)


def random_frame(rng: random.Random, rooms: list[str]) -> bytes:
    kind = rng.random()
    if kind < 0.08:
        return rng.randbytes(rng.randrange(0, 40))
    if kind < 0.1:
        return msgpack.packb({"t": "join", "id": 1, "room": "x" * (MAX_FRAME_BYTES + 1)})
    fields: dict[str, Any] = {
        "t": rng.choice(["join", "move", "move", "move", "resign", "sync", "leave", "zap"]),
        "id": rng.choice([1, 2, "a", None, -4, True, "x" * 70]),
        "room": rng.choice([*rooms, "nowhere", 7, None]),
        "version": rng.choice([0, 1, 2, 3, 4, None, "1", -1, 10**6]),
        "move": rng.choice(["a1", "b2", "c3", "d4", "swap", "zz", "", 5, None]),
    }
    if kind > 0.5:  # mostly well-formed moves so games advance
        fields.update(t="join" if rng.random() < 0.3 else "move", id=rng.randrange(10**6))
        fields["room"] = rng.choice(rooms)
        # Small versions: a room's version grows by its moves and, a second apart at most,
        # by its spectator count and presence, so most moves name one it has.
        fields["version"] = rng.randrange(0, 4)
    return msgpack.packb({k: v for k, v in fields.items() if v is not None or rng.random() < 0.5})
