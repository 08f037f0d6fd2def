"""``python -m tests.e2e.serve``: ``python -m server`` with the test-only game registered."""

from __future__ import annotations

import sys

from server.__main__ import main
from tests.server import tictactoe

with tictactoe.registered():
    sys.exit(main())
