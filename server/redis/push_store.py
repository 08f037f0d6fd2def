"""Push subscriptions and the server's VAPID key in Redis.

* ``push:vapid``  the server's VAPID private key (PEM), made by the first process that needs
  one and shared by every process on this Redis, so subscriptions made through one process
  are answered by all (a browser's subscription is bound to the public key it was given)
* ``push:subs:{player}``  hash of push address to the subscription as JSON, at most
  ``PUSH_DEVICES`` per player

No decisions here; the Redis client is an argument.  Imports redis, cryptography and push.
"""

from __future__ import annotations

import json

import redis.asyncio as aioredis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from lobby.store.common import lua
from server.push import Subscription

VAPID_KEY = "push:vapid"

_ADD = lua("push_add", "server.redis")


def subscriptions_key(player_id: str) -> str:
    return f"push:subs:{player_id}"


async def vapid_private_key(client: aioredis.Redis) -> ec.EllipticCurvePrivateKey:
    """The server's VAPID key: the stored one, or a new one stored for every process."""
    fresh = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    await client.set(VAPID_KEY, fresh, nx=True)
    stored = await client.get(VAPID_KEY)
    assert stored is not None
    pem = stored if isinstance(stored, bytes) else str(stored).encode()
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{VAPID_KEY} holds a key that is not a P-256 key")
    return key


async def add(
    client: aioredis.Redis, player_id: str, subscription: Subscription, most: int
) -> bool:
    """Keeps ``subscription`` (replacing the same address's); False when the player already
    has ``most`` other devices."""
    added = await client.eval(
        _ADD,
        1,
        subscriptions_key(player_id),
        subscription.endpoint,
        json.dumps(subscription.to_data()),
        most,
    )
    return bool(added)


async def remove(client: aioredis.Redis, player_id: str, endpoint: str) -> bool:
    """Forgets one device; False if it was not subscribed."""
    return bool(await client.hdel(subscriptions_key(player_id), endpoint))


async def subscriptions(client: aioredis.Redis, player_id: str) -> list[Subscription]:
    """The player's devices."""
    stored = await client.hvals(subscriptions_key(player_id))
    found = []
    for raw in stored:
        data = json.loads(raw)
        found.append(Subscription(data["endpoint"], data["keys"]["p256dh"], data["keys"]["auth"]))
    return found
