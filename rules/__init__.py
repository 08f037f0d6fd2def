"""Pure rules engines for Boche, Che, Osbox, Ankor and Marque, behind one API (:mod:`rules.api`).

``GAMES`` maps each registered game's name to its module; :func:`find_game` looks one up.
Nothing here imports the server or the lobby, nor performs I/O (the command line in
:mod:`rules.cli` is the one exception, and nothing imports it).
"""

from __future__ import annotations

from rules.api import GameRules

GAMES: dict[str, GameRules] = {}


def find_game(name: str) -> GameRules:
    """The rules module registered under ``name`` (case-insensitive); raises ValueError."""
    game = GAMES.get(name.strip().lower())
    if game is None:
        known = ", ".join(sorted(GAMES)) or "none"
        raise ValueError(f"unknown game {name!r} (known games: {known})")
    return game


def _register(game: GameRules) -> None:
    GAMES[game.NAME] = game


# The games, in the order the lobby lists them.  Imported last: each module imports rules.api.
from rules import ankor, boche, che, marque, osbox  # noqa: E402

for _game in (boche, che, osbox, ankor, marque):
    _register(_game)
