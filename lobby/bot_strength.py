"""How strong each bot level plays each game, as the match bench measured it.

``./dev bench bots`` (``bench/bot_matches.py``) rates every level from its matches and writes
``bots/strength.json``; the lobby reads it once at start so that the page can say "level 3,
about 1,600" where a player picks the computer.  The figures are Glicko-2 ratings on the
site's scale, measured on each game's default options.  Standard library only.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

STRENGTH_FILE = Path(__file__).resolve().parent.parent / "bots" / "strength.json"
"""The ratings file the bench writes (next to the bots it measures)."""

log = logging.getLogger(__name__)


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
