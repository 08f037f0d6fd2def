"""Compiles the rules engines, the diff and the rooms to C extensions with mypyc, where it can.

They are the hot path of every move on the server and of every bot playout, and compiled
they run up to twice as fast (``./dev bench rules``) from the very same source, which stays
importable as plain Python: without a C compiler and the Python headers (or with
``BROWNE_PURE_PYTHON=1``) the package installs as pure Python and only runs slower.  The
rest of the package's metadata is in pyproject.toml.
"""

import os
import shutil
import sys
import sysconfig
from pathlib import Path

COMPILED = (
    "rules/pie.py",
    "rules/geometry/graph.py",
    "rules/geometry/plane.py",
    "rules/geometry/trigrid.py",
    "rules/geometry/squares.py",
    "rules/geometry/marque_tiling.py",
    "rules/ankor.py",
    "rules/boche.py",
    "rules/che.py",
    "rules/marque.py",
    "rules/osbox.py",
    "protocol/diff.py",
    "server/rooms.py",
)
"""The modules built as extensions (the others gain little: they mostly wait on sockets).
A module here must pass mypy's strict check, and so must what it imports: the build runs it."""


def can_compile() -> bool:
    """A C compiler and the Python headers are there, and nobody asked for pure Python."""
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return (
        not os.environ.get("BROWNE_PURE_PYTHON")
        and shutil.which(os.environ.get("CC", "cc")) is not None
        and headers.exists()
    )


def extensions() -> list[object]:
    if not can_compile():
        print("no C compiler or Python headers: installing pure Python", file=sys.stderr)
        return []
    from mypyc.build import mypycify

    return mypycify(list(COMPILED))


if __name__ == "__main__":  # run by the build; the tests import COMPILED
    from setuptools import setup

    setup(ext_modules=extensions())
