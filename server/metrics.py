"""Counters of one server process and their Prometheus text form (``GET /metrics``).

Plain values, no I/O: the app increments them and renders them on request.  Standard
library only.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field

COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Upper bounds in seconds of the commit latency histogram."""


@dataclass
class Metrics:
    connections: int = 0
    rooms: int = 0
    moves: int = 0
    gaps_filled: int = 0
    """Diffs held while a socket's missed versions were read from Redis (commits overtaking
    each other on their way here)."""
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    commit_counts: list[int] = field(default_factory=lambda: [0] * (len(COMMIT_BUCKETS) + 1))
    commit_sum: float = 0.0
    pushes: Counter[str] = field(default_factory=Counter)
    """Web Push notices by what became of them: sent, dropped (queue full), failed, forgotten
    (the push service no longer knows the device)."""

    def observe_commit(self, seconds: float) -> None:
        self.commit_counts[bisect.bisect_left(COMMIT_BUCKETS, seconds)] += 1
        self.commit_sum += seconds

    def render(self) -> str:
        """The Prometheus text exposition of every counter."""
        lines = [
            "# HELP browne_connections Open websocket connections.",
            "# TYPE browne_connections gauge",
            f"browne_connections {self.connections}",
            "# HELP browne_rooms Rooms with local subscribers.",
            "# TYPE browne_rooms gauge",
            f"browne_rooms {self.rooms}",
            "# HELP browne_moves_total Moves committed (rate() gives moves/s).",
            "# TYPE browne_moves_total counter",
            f"browne_moves_total {self.moves}",
            "# HELP browne_gaps_filled_total Diffs that overtook earlier ones; the socket was "
            "sent the missed ones from Redis first.",
            "# TYPE browne_gaps_filled_total counter",
            f"browne_gaps_filled_total {self.gaps_filled}",
            "# HELP browne_errors_total Error replies by code.",
            "# TYPE browne_errors_total counter",
        ]
        lines += [f'browne_errors_total{{code="{c}"}} {n}' for c, n in sorted(self.errors.items())]
        lines += [
            "# HELP browne_closes_total Connections closed by the server, by close code.",
            "# TYPE browne_closes_total counter",
        ]
        lines += [f'browne_closes_total{{code="{c}"}} {n}' for c, n in sorted(self.closes.items())]
        lines += [
            "# HELP browne_pushes_total Web Push notices by what became of them.",
            "# TYPE browne_pushes_total counter",
        ]
        pushes = sorted(self.pushes.items())
        lines += [f'browne_pushes_total{{result="{r}"}} {n}' for r, n in pushes]
        lines += [
            "# HELP browne_commit_seconds Latency of the commit script.",
            "# TYPE browne_commit_seconds histogram",
        ]
        total = 0
        for bound, count in zip(COMMIT_BUCKETS, self.commit_counts, strict=False):
            total += count
            lines.append(f'browne_commit_seconds_bucket{{le="{bound}"}} {total}')
        total += self.commit_counts[-1]
        lines.append(f'browne_commit_seconds_bucket{{le="+Inf"}} {total}')
        lines.append(f"browne_commit_seconds_sum {self.commit_sum}")
        lines.append(f"browne_commit_seconds_count {total}")
        return "\n".join(lines) + "\n"
