"""How strong each bot level plays each game, as the match bench measured it, and the level
that matches a player.

``./dev bench bots`` (``bench/bot_matches.py``) rates every level from its matches and writes
``bots/strength.json``; the lobby reads it once at start so that the page can say "level 3,
about 1,600" where a player picks the computer, and so that a challenge to
:data:`MATCHING_BOT` goes to the level nearest the player's rating.  The figures are Glicko-2
ratings on the site's scale, measured on each game's default options.  Imports
:mod:`lobby.ratings` only.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from pathlib import Path

from lobby.ratings import DEFAULT_DEVIATION, Rating

STRENGTH_FILE = Path(__file__).resolve().parent.parent / "bots" / "strength.json"
"""The ratings file the bench writes (next to the bots it measures)."""

log = logging.getLogger(__name__)

MATCHING_BOT = "bot-match"
"""The target of a challenge to the computer at the player's own level ("match my level")."""
DEFAULT_LEVEL = 2
"""The level a matching challenge goes to in a game the bench has not measured."""


def parse_strength(data: object) -> dict[str, dict[str, int]]:
    """``{game: {level: rating}}`` from the file's content (see ``bench.bot_matches``).

    Raises ValueError for content the bench did not write.
    """
    try:
        games = data["games"]  # type: ignore[index]
        return {
            str(game): {
                str(level): int(entry["rating"]) for level, entry in measured["levels"].items()
            }
            for game, measured in games.items()
        }
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ValueError(f"not a bot strength file: {error!r}") from error


def read_strength(path: Path = STRENGTH_FILE) -> dict[str, dict[str, int]]:
    """The measured ratings in ``path``; none (and a warning) if it is missing or unreadable,
    so that a server without the file still starts and offers the levels without figures."""
    try:
        return parse_strength(json.loads(path.read_text()))
    except (OSError, ValueError) as error:
        log.warning("no bot strength figures from %s: %s", path, error)
        return {}


@functools.cache
def measured() -> dict[str, dict[str, int]]:
    """The measured ratings of :data:`STRENGTH_FILE`, read once per process."""
    return read_strength()


def matching_level(levels: Mapping[str, int], rating: float) -> int:
    """The level whose measured rating (``levels``: level number to rating) is nearest
    ``rating``, the lower of two as near; :data:`DEFAULT_LEVEL` when there are no figures."""
    if not levels:
        return DEFAULT_LEVEL
    return min((abs(measured - rating), int(level)) for level, measured in levels.items())[1]


def strength_to_match(in_game: Rating, against_computer: Rating) -> float:
    """The rating a matching level is chosen for: the player's against the computer where
    they have played it rated (it measures them on the bots' own scale), else in the game (a
    newcomer's 1500 when they have neither)."""
    played_computer = against_computer.deviation < DEFAULT_DEVIATION
    return against_computer.rating if played_computer else in_game.rating
