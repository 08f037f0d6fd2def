"""Notifications over HTTP: the server's key, and turning them on or off for one device.

``GET /api/push/key`` is the key browsers subscribe to notifications with, and ``POST``/
``DELETE /api/push/subscriptions`` turns them on or off for one device of the signed-in
player (:mod:`server.push_service` sends them).  Imports Starlette and the push store.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.errors import BadRequestError, ClientError
from server import bodies
from server.push import BadSubscriptionError, subscription
from server.redis import push_store
from server.web import bearer, error_response, read_body, runtime_of


def routes() -> list[Route]:
    """The routes of this module, for the app."""
    return [
        Route("/api/push/key", push_key),
        Route("/api/push/subscriptions", push_subscriptions, methods=["POST", "DELETE"]),
    ]


async def push_key(request: Request) -> Response:
    runtime = runtime_of(request)
    return JSONResponse({"key": runtime.push.public_key})


async def push_subscriptions(request: Request) -> Response:
    """Turns notifications on (POST the browser's subscription) or off (DELETE its
    endpoint) for one device of the signed-in player."""
    runtime = runtime_of(request)
    push = runtime.push
    try:
        player = bearer(request, runtime.secret)
        if request.method == "DELETE":
            device = await read_body(request, bodies.PushDevice)
            removed = await push_store.remove(runtime.client, player.id, device.endpoint)
            return JSONResponse({"removed": removed})
        body = await read_body(request, bodies.PushSubscription)
        try:
            found = subscription(
                body.endpoint, body.keys.p256dh, body.keys.auth, push.settings.services
            )
        except BadSubscriptionError as error:
            raise BadRequestError(str(error)) from error
        if not await push_store.add(runtime.client, player.id, found, push.settings.devices):
            raise BadRequestError(
                f"notifications are on for {push.settings.devices} devices already: "
                "turn them off on one of them first"
            )
    except ClientError as error:
        return error_response(error)
    return JSONResponse({"subscribed": True})
