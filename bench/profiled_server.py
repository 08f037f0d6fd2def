"""``python -m bench.profiled_server OUT [MODULE]``: a server process (``python -m server``, or
MODULE) whose cProfile runs only between SIGUSR1 and SIGUSR2, and is written to OUT at SIGUSR2.

The server bench sends the two signals around its timed window, so the profile counts the
moves the figures count, not the connecting and joining before them.  Bench-only: the
server itself knows nothing of it.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
from types import FrameType


def main(out: str, module: str = "server") -> None:
    profiler = cProfile.Profile()

    def start(signum: int, frame: FrameType | None) -> None:
        profiler.enable()

    def stop(signum: int, frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    sys.argv = [module]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
