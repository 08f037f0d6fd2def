"""The realtime game server: Starlette app, rooms in Redis, msgpack diffs over websockets.

Imports ``rules`` and ``lobby``; nothing imports it.  Names no game.
"""
