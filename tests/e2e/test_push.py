"""Web Push end to end: a browser's subscription is taken, and when its player is away from
the game the server posts an encrypted, VAPID-signed notice to the push service.  The push
service and the browser's keys are the test's own (:mod:`tests.e2e.push_service`).
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from bench.loopback.http import request
from lobby.identity import new_guest
from server.redis import push_store
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, make_room, start_server, token_for
from tests.e2e.push_service import Browser, PushServiceOnLoopback


@pytest.fixture
async def push_server(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    ttt: object,
    push_service: PushServiceOnLoopback,
) -> AsyncIterator[RunningServer]:
    running = await start_server(
        redis_server.url,
        push_services=(f"127.0.0.1:{push_service.port}",),
        push_devices=2,
        count_commit_seconds=0.01,
    )
    yield running
    await running.stop()


async def test_a_player_away_from_the_game_is_pushed_their_move(
    push_server: RunningServer, push_service: PushServiceOnLoopback, redis_client: aioredis.Redis
) -> None:
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second)
    browser = Browser()
    url = f"{push_server.base_url}/api/push/subscriptions"
    bearer = {"Authorization": f"Bearer {token_for(second)}"}
    taken = await request(url, browser.subscription(push_service.url("/push/bob")), bearer)
    assert taken.status == 200, taken.text
    key = (await request(f"{push_server.base_url}/api/push/key")).json["key"]

    ann, bob = await connect(push_server, first), await connect(push_server, second)
    try:
        view = await ann.join(room)
        await bob.join(room)
        await bob.close()  # Bob leaves the page
        while view.doc is None or view.doc["away"][1] is None:
            await ann.wait_version(room, view.version + 1)
        await ann.move(room, "b2")
        async with asyncio.timeout(10):
            arrival = await push_service.arrivals.get()
    finally:
        await ann.close()
        await bob.close()

    assert arrival.path == "/push/bob"
    assert browser.read(arrival.body) == {
        "title": f"Your move in Tictactoe against {first.name}",
        "body": f"{first.name} played b2 (move 1).",
        "url": f"/#/room/{room}",
        "tag": room,
    }
    assert arrival.headers["content-encoding"] == "aes128gcm"
    assert int(arrival.headers["ttl"]) > 0
    claims = _verified_vapid(arrival.headers["authorization"], key)
    assert claims["aud"] == f"http://127.0.0.1:{push_service.port}"
    assert str(claims["sub"]).startswith("mailto:")
    assert push_service.arrivals.empty()  # Ann, on the page, was told nothing
    sent = 'browne_pushes_total{result="sent"} 1.0'
    for _ in range(100):  # counted once the push service has answered
        metrics = (await request(f"{push_server.base_url}/metrics")).text
        if sent in metrics:
            break
        await asyncio.sleep(0.02)
    assert sent in metrics


async def test_a_device_the_push_service_no_longer_knows_is_forgotten(
    push_server: RunningServer, push_service: PushServiceOnLoopback, redis_client: aioredis.Redis
) -> None:
    first, second = new_guest(), new_guest()
    room = await make_room(redis_client, first, second)
    bearer = {"Authorization": f"Bearer {token_for(first)}"}
    gone = Browser().subscription(push_service.url("/gone/ann"))
    kept = Browser().subscription(push_service.url("/push/ann"))
    url = f"{push_server.base_url}/api/push/subscriptions"
    for device in (gone, kept):
        assert (await request(url, device, bearer)).status == 200
    ann, bob = await connect(push_server, first), await connect(push_server, second)
    try:
        await ann.join(room)
        view = await bob.join(room)
        await ann.close()  # Ann leaves: both her devices hear the end
        while view.doc is None or view.doc["away"][0] is None:
            await bob.wait_version(room, view.version + 1)
        await bob.resign(room)
        async with asyncio.timeout(10):
            arrivals = {(await push_service.arrivals.get()).path for _ in range(2)}
    finally:
        await ann.close()
        await bob.close()
    assert arrivals == {"/gone/ann", "/push/ann"}
    for _ in range(100):
        devices = await push_store.subscriptions(redis_client, first.id)
        if len(devices) == 1:
            break
        await asyncio.sleep(0.02)
    assert [device.endpoint for device in devices] == [kept["endpoint"]]


async def test_subscriptions_are_checked_and_bounded(
    push_server: RunningServer, push_service: PushServiceOnLoopback, redis_client: aioredis.Redis
) -> None:
    player = new_guest()
    url = f"{push_server.base_url}/api/push/subscriptions"
    bearer = {"Authorization": f"Bearer {token_for(player)}"}
    device = Browser().subscription(push_service.url("/push/1"))

    assert (await request(url, device)).status == 401
    elsewhere = Browser().subscription("http://10.1.2.3:80/steal")
    refused = await request(url, elsewhere, bearer)
    assert refused.status == 400 and "push services" in refused.json["message"]
    broken = {**device, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}
    refused = await request(url, broken, bearer)
    assert refused.status == 400 and "p256dh" in refused.json["message"]
    assert (await request(url, {"endpoint": 7}, bearer)).status == 400
    assert await push_store.subscriptions(redis_client, player.id) == []

    for path in ("/push/1", "/push/2", "/push/1"):  # the same device again replaces itself
        again = Browser().subscription(push_service.url(path))
        assert (await request(url, again, bearer)).status == 200
    third = await request(url, Browser().subscription(push_service.url("/push/3")), bearer)
    assert third.status == 400 and "2 devices" in third.json["message"]

    off = await request(url, {"endpoint": push_service.url("/push/1")}, bearer, method="DELETE")
    assert off.status == 200 and off.json == {"removed": True}
    remaining = await push_store.subscriptions(redis_client, player.id)
    assert [d.endpoint for d in remaining] == [push_service.url("/push/2")]


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _verified_vapid(header: str, public_key: str) -> dict[str, object]:
    """The claims of a ``vapid t=<JWT>,k=<key>`` header, once its ES256 signature checks out
    against the server's published key."""
    scheme, _, rest = header.partition(" ")
    assert scheme == "vapid"
    fields = dict(part.split("=", 1) for part in rest.split(","))
    assert fields["k"] == public_key
    head, claims, signature = fields["t"].split(".")
    raw = _unb64(signature)
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(public_key))
    der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
    try:
        verifier.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        pytest.fail("the VAPID signature does not match the server's key")
    decoded: dict[str, object] = json.loads(_unb64(claims))
    return decoded
