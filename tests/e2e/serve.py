"""``python -m tests.e2e.serve``: ``python -m server`` with the test-only game registered."""

from __future__ import annotations

import sys

from rules import GAMES
from server.__main__ import main
from tests.server import tictactoe

GAMES.setdefault(tictactoe.NAME, tictactoe)  # type: ignore[arg-type]
sys.exit(main())
