"""Computer opponents: one Monte Carlo tree search over the rules API, for every game.

What a bot worker calls, in its own process (the search blocks for up to its budget)::

    from bots import choose_move, time_budget

    seconds = time_budget(remaining, increment, plies_played)  # None without a clock
    move = choose_move(game, state, level, rng, seconds=seconds)  # level 1..4 or a Level
    text = game.move_text(move)  # sent through the client like a person's move

``choose_move`` raises ValueError when the game is over.  A ``swap`` it returns exchanges the
players' colours, as for a person.  :mod:`bots.levels` holds the levels and the clock policy,
:mod:`bots.mcts` the search (both import ``rules`` only).  The live side: :mod:`bots.accounts`
(``bot-1`` ... ``bot-4``), :mod:`bots.queue` (the games in a Redis stream),
:mod:`bots.worker` (a process that plays them over the websocket with the server's client)
and :mod:`bots.pool` (``python -m bots``: the workers and the acceptor of challenges).
Nothing imports ``bots``.
"""

from __future__ import annotations

from bots.levels import LEVELS, Level, find_level, time_budget
from bots.mcts import choose_move

__all__ = ["LEVELS", "Level", "choose_move", "find_level", "time_budget"]
