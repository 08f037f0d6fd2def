"""A push service of the test's own on loopback, and the browser's half of a subscription.

No browser vendor's push service is reachable from here, so the tests run one on loopback
(the server is told to allow it by ``push_services``), hold the keys a browser would, and
decrypt what arrives as the browser would.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import http_ece
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


@dataclass
class Arrival:
    path: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes


@dataclass
class PushServiceOnLoopback:
    """Answers 201 to every push, except under ``/gone/`` where the device is unknown (410)."""

    port: int = 0
    arrivals: asyncio.Queue[Arrival] = field(default_factory=asyncio.Queue)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextlib.asynccontextmanager
async def loopback_push_service() -> AsyncIterator[PushServiceOnLoopback]:
    """A push service on a free loopback port while the block runs."""
    service = PushServiceOnLoopback()

    async def receive(http: web.Request) -> web.Response:
        body = await http.read()
        await service.arrivals.put(
            Arrival(http.path, {k.lower(): v for k, v in http.headers.items()}, body)
        )
        return web.Response(status=410 if http.path.startswith("/gone/") else 201)

    app = web.Application()
    app.router.add_post("/{tail:.*}", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    service.port = runner.addresses[0][1]
    yield service
    await runner.cleanup()


@dataclass
class Browser:
    """The browser's half of a subscription: its key pair and authentication secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, endpoint: str) -> dict[str, object]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(point), "auth": b64(self.auth)},
        }

    def read(self, body: bytes) -> dict[str, str]:
        clear = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        payload: dict[str, str] = json.loads(clear)
        return payload


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
