"""``python -m protocol``: write client_js/protocol.js (``--check``: exit 1 if it is stale)."""

from __future__ import annotations

import sys

from protocol.javascript import JS_PATH, javascript


def main(argv: list[str]) -> int:
    text = javascript()
    if "--check" in argv:
        current = JS_PATH.read_text() if JS_PATH.exists() else ""
        if current != text:
            print(f"{JS_PATH} is stale: run python -m protocol", file=sys.stderr)
            return 1
        return 0
    JS_PATH.write_text(text)
    print(f"wrote {JS_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
