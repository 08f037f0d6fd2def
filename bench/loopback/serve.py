"""``python -m bench.loopback.serve``: ``python -m server`` with the test-only game registered."""

from __future__ import annotations

import sys

from bench.loopback import tictactoe
from server.__main__ import main

with tictactoe.registered():
    sys.exit(main())
