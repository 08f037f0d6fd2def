"""Computer opponents: one Monte Carlo tree search over the rules API, for every game.

The search (:mod:`bots.mcts`) knows no game; workers play through the server's Python client
like any person.  Imports ``rules`` (and the server's client, for the workers); nothing
imports ``bots``.
"""
