"""The lobby in Redis: one module per store, each holding the keys its docstring lists.

:mod:`~lobby.store.accounts` (accounts, logins, finding a player),
:mod:`~lobby.store.challenges` (challenges and their indexes),
:mod:`~lobby.store.creations` (the limits on challenges and games made lately),
:mod:`~lobby.store.connections` (connections, hence presence) and
:mod:`~lobby.store.games` (live and finished games, the archive and its search), and
:mod:`~lobby.store.analyses` (the queue of computer analyses and their results, the only
keys under ``{analysis}:``); what they share (the event channel, JSON, optimistic
transactions, keys two stores write) is in :mod:`~lobby.store.common`.  Quick-pairing pools,
ratings, tournaments and attempt limits keep their own stores (:mod:`lobby.pool_store`,
:mod:`lobby.rating_store`, :mod:`lobby.tournament_store`, :mod:`lobby.attempt_store`).

Thin adapters: every decision is made by the pure modules (:mod:`lobby.accounts`,
:mod:`lobby.challenges`, :mod:`lobby.presence`, :mod:`lobby.games`); the stores load their
values, store the results atomically and publish what changed.  Every function receives the
Redis client and the current time as arguments.  Values are stored as JSON text, so they read
well in ``redis-cli``; every key is under ``{lobby}:``, a hash tag that keeps them on one
slot of a Redis Cluster, so any script or transaction may touch several (see
deploy/README.md).  Their Lua scripts are files of their own in ``lua/``, read once at
import.  Imports redis, the pure lobby modules, the attempt
store and the hash pool; never :mod:`server`.
"""
