"""The ``python -m rules`` command line: replay a move list and report or draw the position.

``play`` prints one JSON object (a stable interface that tests and tools rely on); ``show``
prints the ASCII board and ``draw`` an SVG picture.  Errors are JSON objects on stdout with
exit status 1.  ``figures`` writes the pictures of the rules pages (``docs/rules/*.svg``).
This is the only module of ``rules`` that does I/O.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rules import GAMES, drawing, find_game
from rules.api import GameRules, IllegalMoveError, InvalidMoveError, OptionsError
from rules.record import RecordError, parse_record_text

FIGURES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"
"""Where ``figures`` writes: the rules pages next to the package's source."""


class _Failure(Exception):
    """A report to print as JSON before exiting with status 1."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report)
        self.report = report


COMMANDS = {
    "play": "apply MOVEs from the start and print the position as one JSON object",
    "show": "apply MOVEs from the start and draw the position in ASCII",
    "draw": "apply MOVEs from the start and draw the position as an SVG picture",
    "figures": "write the pictures of the rules pages (--check: only say whether they are stale)",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in COMMANDS:
        usage = "usage: python -m rules {play,show,draw} GAME [--options FLAGS] [MOVE ...]"
        lines = [usage, "", "Replay and show games of the registered rules."]
        lines += [f"  {name:5} {summary}" for name, summary in COMMANDS.items()]
        print("\n".join(lines), file=sys.stderr)
        return 0 if words[:1] in (["-h"], ["--help"]) else 2
    command = words[0]
    if command == "figures":
        return _figures(words[1:])
    # Intermixed parsing lets flags stand anywhere: `play marque --legal d4 e5`.
    args = _parser(command).parse_intermixed_args(_join_option_values(words[1:]))
    try:
        game = _game(args.game)
        options = _options(game, args.options)
        moves = list(args.moves)
        if args.record:
            moves = _read_record(args.record) + moves
        state = _replay(game, game.new_game(options), moves)
    except _Failure as failure:
        print(json.dumps(failure.report))
        return 1
    if command == "show":
        print(game.render(state))
    elif command == "draw":
        print(drawing.position_svg(game, state, labels=args.labels), end="")
    else:
        print(json.dumps(_report(game, state, len(moves), args.legal)))
    return 0


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m rules {command}", description=COMMANDS[command]
    )
    parser.add_argument("game", help="one of: " + (", ".join(sorted(GAMES)) or "none yet"))
    parser.add_argument("--options", default="", help='pbmserv-style flags, e.g. "-size=4 -kill=3"')
    parser.add_argument("--record", help="a file of moves, one per line, played before any MOVE")
    parser.add_argument(
        "--legal",
        action="store_true",
        help="list every legal move of the final position (play only)",
    )
    parser.add_argument(
        "--labels", action="store_true", help="name every hole, cell or position (draw only)"
    )
    parser.add_argument("moves", nargs="*", metavar="MOVE", help="moves in the game's notation")
    return parser


def _figures(argv: Sequence[str]) -> int:
    """Write every figure of the rules pages, or with ``--check`` report the stale ones."""
    parser = argparse.ArgumentParser(
        prog="python -m rules figures", description=COMMANDS["figures"]
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help="the folder to write to")
    args = parser.parse_args(argv)
    stale = []
    for name, text in drawing.figures().items():
        path = args.out / name
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{path} is stale" if args.check else f"wrote {path}", file=sys.stderr)
    return 1 if args.check and stale else 0


def _join_option_values(argv: Sequence[str]) -> list[str]:
    """Turn ``--options -size=4`` into ``--options=-size=4``: argparse would take a value that
    starts with a dash for another flag."""
    joined: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--options":
            joined.append(f"--options={next(words, '')}")
        else:
            joined.append(word)
    return joined


def _game(name: str) -> GameRules:
    try:
        return find_game(name)
    except ValueError as error:
        raise _Failure({"error": "game", "reason": str(error)}) from error


def _options(game: GameRules, text: str) -> Any:
    try:
        return game.parse_options(text)
    except OptionsError as error:
        raise _Failure({"error": "options", "reason": str(error)}) from error


def _read_record(path: str) -> list[str]:
    """The moves of a record file (its tags, if any, are skipped: the command line names the
    game and its options)."""
    try:
        with open(path, encoding="utf-8") as record:
            return list(parse_record_text(record.read()).moves)
    except (OSError, RecordError) as error:
        raise _Failure({"error": "record", "reason": str(error)}) from error


def _replay(game: GameRules, state: Any, moves: Sequence[str]) -> Any:
    for index, text in enumerate(moves):
        try:
            move = game.parse_move(state, text)
        except InvalidMoveError as error:
            raise _Failure(
                {"error": "syntax", "index": index, "move": text, "reason": str(error)}
            ) from error
        try:
            state = game.play(state, move)
        except IllegalMoveError as error:
            raise _Failure(
                {"error": "illegal", "index": index, "move": text, "reason": str(error)}
            ) from error
    return state


def _report(game: GameRules, state: Any, ply: int, with_legal: bool) -> dict[str, Any]:
    outcome = game.outcome(state)
    seat = game.to_move(state)
    scores = game.scores(state)
    report: dict[str, Any] = {
        "game": game.NAME,
        "ply": ply,
        "over": outcome is not None,
        "winner": None,
        "to_move": None if seat is None else game.SEAT_NAMES[seat],
        "scores": None if scores is None else dict(zip(game.SEAT_NAMES, scores, strict=True)),
    }
    if outcome is not None:
        report["winner"] = "draw" if outcome.winner is None else game.SEAT_NAMES[outcome.winner]
        report["reason"] = outcome.reason
    if with_legal:
        report["legal"] = sorted(game.move_text(move) for move in game.legal_moves(state))
    return report


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
