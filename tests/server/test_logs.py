"""Logs as words or, for a log collector, as one JSON object per line (``LOG_FORMAT``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from server.__main__ import uvicorn_config
from server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
LOG_SOME = """
import logging, sys
from server.__main__ import configure_logging
configure_logging(sys.argv[1])
log = logging.getLogger("server.example")
log.warning("a move took %d ms", 12)
try:
    1 / 0
except ZeroDivisionError:
    log.exception("it broke")
"""


def run(log_format: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", LOG_SOME, log_format],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    return done.stderr.splitlines()


def test_json_logs_are_one_object_per_line_with_the_traceback_inside() -> None:
    lines = run("json")
    records = [json.loads(line) for line in lines]  # every line is one object
    assert [(r["level"], r["logger"], r["message"]) for r in records] == [
        ("WARNING", "server.example", "a move took 12 ms"),
        ("ERROR", "server.example", "it broke"),
    ]
    assert "ZeroDivisionError" in records[1]["exc_info"] and records[0]["time"]


def test_text_logs_are_lines_of_words() -> None:
    lines = run("text")
    assert lines[0].endswith("server.example a move took 12 ms")
    assert any("ZeroDivisionError" in line for line in lines)


def test_uvicorn_logs_through_the_json_lines_too() -> None:
    assert uvicorn_config(None, Settings(log_format="json")).log_config is None
    assert uvicorn_config(None, Settings()).log_config is not None
