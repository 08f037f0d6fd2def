"""The ``python -m rules`` command line: its JSON reports and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import GAMES, find_game
from rules.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    status = main(list(argv))
    return status, json.loads(capsys.readouterr().out)


def test_unknown_game_is_a_game_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, report = run_cli(capsys, "play", "chess")
    assert status == 1
    assert report["error"] == "game" and "chess" in str(report["reason"])


def test_module_runs_as_a_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rules", "play", "chess"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"] == "game"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_start_position_report(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    game = find_game(name)
    status, report = run_cli(capsys, "play", name, "--legal")
    assert status == 0
    assert report["game"] == name and report["ply"] == 0 and report["over"] is False
    assert report["winner"] is None
    assert report["to_move"] == game.SEAT_NAMES[0]
    state = game.new_game(game.parse_options(""))
    assert report["legal"] == sorted(game.move_text(m) for m in game.legal_moves(state))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bad_options_and_bad_moves_are_reported(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report = run_cli(capsys, "play", name, "--options", "-bogus=1")
    assert status == 1 and report["error"] == "options" and "-bogus" in str(report["reason"])
    status, report = run_cli(capsys, "play", name, "%%%")
    assert status == 1 and report == {
        "error": "syntax",
        "index": 0,
        "move": "%%%",
        "reason": report["reason"],
    }


@pytest.mark.parametrize("name", sorted(GAMES))
def test_record_file_replays_like_arguments(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = find_game(name)
    state = game.new_game(game.parse_options(""))
    texts = []
    for _ in range(4):
        move = min(game.legal_moves(state), key=game.move_text)
        texts.append(game.move_text(move))
        state = game.play(state, move)
    record = tmp_path / "game.txt"
    record.write_text("\n".join(texts) + "\n")
    assert run_cli(capsys, "play", name, "--record", str(record)) == run_cli(
        capsys, "play", name, *texts
    )
    tagged = tmp_path / "tagged.txt"  # as the site exports it: tags first
    tagged.write_text(f'[Game "{name}"]\n[Result "*"]\n\n' + "\n".join(texts) + "\n")
    assert run_cli(capsys, "play", name, "--record", str(tagged)) == run_cli(
        capsys, "play", name, *texts
    )
    tagged.write_text(texts[0] + '\n[Game "late"]\n')
    status, report = run_cli(capsys, "play", name, "--record", str(tagged))
    assert status == 1 and report == {"error": "record", "reason": report["reason"]}
    assert "line 2: tags come before the moves" in report["reason"]
    assert main(["show", name, *texts]) == 0
    assert capsys.readouterr().out.strip() == game.render(state).strip()


def test_options_value_may_start_with_a_dash(capsys: pytest.CaptureFixture[str]) -> None:
    """``--options -x`` is read as the value of --options, not as another flag."""
    status, report = run_cli(capsys, "play", "chess", "--options", "-size=4")
    assert status == 1 and report["error"] == "game"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_flags_may_stand_between_game_and_moves(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game = find_game(name)
    state = game.new_game(game.parse_options(""))
    first = min(game.move_text(m) for m in game.legal_moves(state))
    status, report = run_cli(capsys, "play", name, "--legal", first)
    assert status == 0 and report["ply"] == 1 and "legal" in report
