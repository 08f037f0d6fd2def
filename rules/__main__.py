"""``python -m rules``: replay and show games from the command line (see :mod:`rules.cli`)."""

import sys

from rules.cli import main

sys.exit(main())
