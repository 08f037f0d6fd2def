"""Static checks run as tests, so the README's one test command covers them: ruff, mypy
(strict, on every package: rules, protocol, client, server, lobby, bots), and the
import-linter contracts that keep the layers apart."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "ruff", "check", "."],
        [
            "-m",
            "ruff",
            "format",
            "--check",
            "rules",
            "protocol",
            "client",
            "lobby",
            "server",
            "bots",
            "bench",
            "tests",
        ],
        ["-m", "mypy"],
        ["-m", "importlinter.cli", "--no-cache"],
    ],
    ids=["ruff", "ruff-format", "mypy-strict", "import-layers"],
)
def test_static_check_passes(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
