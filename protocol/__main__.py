"""``python -m protocol``: write client_js/protocol.js and docs/protocol.schema.json
(``--check``: exit 1 if either is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

from protocol import schema
from protocol.javascript import JS_PATH, javascript


def main(argv: list[str]) -> int:
    generated: dict[Path, str] = {JS_PATH: javascript(), schema.SCHEMA_PATH: schema.text()}
    if "--check" in argv:
        stale = [path for path, text in generated.items() if _read(path) != text]
        for path in stale:
            print(f"{path} is stale: run python -m protocol", file=sys.stderr)
        return 1 if stale else 0
    for path, text in generated.items():
        path.write_text(text)
        print(f"wrote {path}")
    return 0


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
