"""The lobby in Redis: one module per store, each holding the keys its docstring lists.

:mod:`~lobby.store.accounts` (accounts, logins, finding a player),
:mod:`~lobby.store.attempts` (attempt limits: failed logins, registrations, guests),
:mod:`~lobby.store.challenges` (challenges and their indexes),
:mod:`~lobby.store.creations` (the limits on challenges and games made lately),
:mod:`~lobby.store.connections` (connections, hence presence),
:mod:`~lobby.store.games` (live and finished games, the archive and its search),
:mod:`~lobby.store.analyses` (the queue of computer analyses and their results, the only
keys under ``{analysis}:``),
:mod:`~lobby.store.pools` (quick-pairing pools), :mod:`~lobby.store.ratings` (ratings, their
history and leaderboards), :mod:`~lobby.store.tournaments` (tournaments and their index) and
:mod:`~lobby.store.secrets` (the session secret the processes share).  What they share (the
event channel, JSON, optimistic transactions, keys two stores write, the loader of every Lua
script, the server's included) is in :mod:`~lobby.store.common`.

Thin adapters: every decision is made by the pure modules (:mod:`lobby.accounts`,
:mod:`lobby.challenges`, :mod:`lobby.presence`, :mod:`lobby.games`); the stores load their
values, store the results atomically and publish what changed.  Every function receives the
Redis client and the current time as arguments.  Values are stored as JSON text, so they read
well in ``redis-cli``; each module's docstring lists its keys.  The lobby's keys are under
``{lobby}:``, a hash tag that keeps them on one slot of a Redis Cluster, so any script or
transaction may touch several (see deploy/README.md).  Their Lua scripts are files of their
own in ``lua/``, read once at import.  Imports redis and the pure lobby modules; never
:mod:`server`.
"""
