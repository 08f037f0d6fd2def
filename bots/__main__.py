"""``python -m bots``: start the bot pool (see :mod:`bots.pool`)."""

from __future__ import annotations

import sys

from bots.pool import main

sys.exit(main())
