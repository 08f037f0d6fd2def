"""``python -m bench NAME [ARGS]``: run one benchmark and print its figures.

NAME is one of: rules (playouts/s and play() per game), server (moves/s and round trips
against one server process and a real Redis), drills (the scale-out drills' report), swiss
(a 1,000-player Swiss through the pairing code), bots (the bot's strength matches),
botload (people's move round trips with and without 50 bot games).
``python -m bench NAME --help`` shows a benchmark's own options.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from bench import rules_speed

DELEGATED = {
    "server": "bench.server_load",
    "drills": "bench.drills",
    "swiss": "bench.swiss_simulation",
    "bots": "bench.bot_matches",
    "botload": "bench.bot_load",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name in DELEGATED:
        module = importlib.import_module(DELEGATED[name])
        return int(module.main(rest) or 0)
    if name != "rules":
        print(f"unknown benchmark {name!r}; choose one of: rules, {', '.join(DELEGATED)}")
        return 2
    parser = argparse.ArgumentParser(prog="python -m bench rules", description=rules_speed.__doc__)
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per game")
    args = parser.parse_args(rest)
    rules_speed.run(args.games, args.seconds)
    return 0


sys.exit(main(sys.argv[1:]))
