"""Sends Web Push notifications to players away from their games.

A committed change is handed over without waiting (``room_changed``); one task per process
encrypts each notice (RFC 8291, by pywebpush) and posts it, signed with the VAPID key (RFC
8292, by py-vapid), to each of the player's devices.  The queue is bounded
(``PUSH_QUEUE``): past it a notice is dropped and counted, never waited for, so a slow push
service never slows a move.  A device the push service no longer knows (404 or 410) is
forgotten.  The app's routes ``/api/push/...`` let browsers subscribe.  Imports aiohttp,
pywebpush, py-vapid, push and push_store.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
import redis.asyncio as aioredis
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02
from pywebpush import WebPusher

from server.push import BadSubscriptionError, Notice, Subscription, check_endpoint, notices_for
from server.redis import push_store
from server.rooms import Room

log = logging.getLogger(__name__)

PUSH_TTL = 24 * 3600
"""How long a push service keeps a notice for a device that is off (seconds)."""
SEND_TIMEOUT = 10.0
"""Longest wait for a push service's answer (seconds)."""
SIGNATURE_LIFETIME = 12 * 3600
"""How long a VAPID signature stays valid (push services accept up to 24 hours)."""


@dataclass(frozen=True)
class PushSettings:
    services: tuple[str, ...]
    """Hosts a subscription may point at (see :func:`server.push.check_endpoint`)."""
    contact: str
    """The operator's ``mailto:`` or ``https:`` address, sent to push services with each push."""
    devices: int
    """Devices per player that may receive notifications."""
    queue: int
    """Notices waiting to be sent, past which new ones are dropped."""


class PushService:
    """One per process: the sender task, its queue and the VAPID key."""

    def __init__(
        self, client: aioredis.Redis, settings: PushSettings, counts: Counter[str]
    ) -> None:
        self.client = client
        self.settings = settings
        self.counts = counts
        """What became of each notice (the process's ``browne_pushes_total``)."""
        self._queue: asyncio.Queue[Notice] = asyncio.Queue(settings.queue)
        self._vapid: Vapid02 | None = None
        self.public_key = ""
        """The VAPID public key, URL-safe base64 of the uncompressed point, as browsers take it."""
        self._session: aiohttp.ClientSession | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        key = await push_store.vapid_private_key(self.client)
        self._vapid = Vapid02(private_key=key)
        point = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public_key = base64.urlsafe_b64encode(point).rstrip(b"=").decode()
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=SEND_TIMEOUT))
        self._task = asyncio.create_task(self._run(), name="push-sender")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._session is not None:
            await self._session.close()

    def room_changed(self, room: Room, events: tuple[object, ...]) -> None:
        """Queues the notices a committed change calls for; never waits."""
        for notice in notices_for(room, events):
            try:
                self._queue.put_nowait(notice)
            except asyncio.QueueFull:
                self.counts["dropped"] += 1

    async def idle(self) -> None:
        """Returns once every queued notice has been sent (or failed)."""
        await self._queue.join()

    async def _run(self) -> None:
        while True:
            notice = await self._queue.get()
            try:
                for subscription in await push_store.subscriptions(self.client, notice.player):
                    try:
                        await self._send(notice, subscription)
                    except (aiohttp.ClientError, TimeoutError, OSError) as error:
                        self.counts["failed"] += 1
                        log.warning("push to %s failed: %r", notice.player, error)
            except Exception:
                self.counts["failed"] += 1
                log.exception("push to %s failed", notice.player)
            finally:
                self._queue.task_done()

    async def _send(self, notice: Notice, subscription: Subscription) -> None:
        assert self._vapid is not None and self._session is not None
        try:
            check_endpoint(subscription.endpoint, self.settings.services)
        except BadSubscriptionError:
            # The operator narrowed PUSH_SERVICES since the device subscribed.
            await push_store.remove(self.client, notice.player, subscription.endpoint)
            self.counts["forgotten"] += 1
            return
        parts = urlsplit(subscription.endpoint)
        claims = {
            "sub": self.settings.contact,
            "aud": f"{parts.scheme}://{parts.netloc}",
            "exp": int(time.time()) + SIGNATURE_LIFETIME,
        }
        pusher = WebPusher(subscription.to_data(), aiohttp_session=self._session)
        response = await pusher.send_async(
            json.dumps(notice.payload()).encode(),
            headers={**self._vapid.sign(claims), "Urgency": "high"},
            ttl=PUSH_TTL,
            timeout=aiohttp.ClientTimeout(total=SEND_TIMEOUT),
        )
        assert isinstance(response, aiohttp.ClientResponse)
        if response.status in (404, 410):
            await push_store.remove(self.client, notice.player, subscription.endpoint)
            self.counts["forgotten"] += 1
        elif response.status >= 400:
            self.counts["failed"] += 1
            log.warning("push service answered %s for %s", response.status, notice.player)
        else:
            self.counts["sent"] += 1
