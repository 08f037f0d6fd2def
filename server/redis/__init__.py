"""The server's Redis adapters: where rooms, clocks, presence and chat live between processes.

:mod:`~server.redis.store` (rooms and their diffs), :mod:`~server.redis.batcher` (the
commit batcher, below redis-py's public API where a move's commit spends its time),
:mod:`~server.redis.clock_store` (deadlines of clocks and idle games),
:mod:`~server.redis.room_presence` (seated players' leases), :mod:`~server.redis.chat_store`
(chat lines and reports), :mod:`~server.redis.push_store` (push subscriptions and the VAPID
key), :mod:`~server.redis.embedded_redis` (the Redis of ``./dev serve``),
:mod:`~server.redis.cluster` (the cluster client, slots, waiting for replicas),
:mod:`~server.redis.sharded_pubsub` (pub/sub that follows a cluster's failovers) and
:mod:`~server.redis.renames` (key names of earlier releases, renamed at start).  They hold
no decisions: those are in :mod:`server.rooms` and the lobby.  Their Lua scripts are files
of their own in ``lua/``, read once at import.
"""
