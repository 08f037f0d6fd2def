"""``python -m bench [rules [GAME...]]``: run the benchmarks and print their figures."""

from __future__ import annotations

import argparse
import sys

from bench import rules_speed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    commands = parser.add_subparsers(dest="command")
    rules_parser = commands.add_parser("rules", help="random playouts/s and play() median per game")
    rules_parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    rules_parser.add_argument("--seconds", type=float, default=5.0, help="time per game")
    args = parser.parse_args(argv)
    if args.command in (None, "rules"):
        rules_speed.run(getattr(args, "games", []), getattr(args, "seconds", 5.0))
    return 0


sys.exit(main())
