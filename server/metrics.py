"""Counters of one server process and their Prometheus text form (``GET /metrics``).

Plain values, no I/O: the app increments them and renders them on request, through
prometheus_client's exposition (a collector reads the values when scraped).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

COMMIT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Upper bounds in seconds of the commit latency histogram."""


@dataclass
class Metrics:
    connections: int = 0
    rooms: int = 0
    moves: int = 0
    relayed: int = 0
    """Diffs that came from another process through pub/sub and went to local sockets."""
    relayed_bytes: int = 0
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
        """The Prometheus text exposition of every counter (written by prometheus_client)."""
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Collector(self))
        return generate_latest(registry).decode()


class _Collector(Collector):
    """The counters as Prometheus metric families, read when scraped: the hot path only adds
    to plain integers."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        yield GaugeMetricFamily("browne_connections", "Open websocket connections.", m.connections)
        yield GaugeMetricFamily("browne_rooms", "Rooms with local subscribers.", m.rooms)
        yield CounterMetricFamily(
            "browne_moves", "Moves committed (rate() gives moves/s).", m.moves
        )
        yield CounterMetricFamily(
            "browne_relayed_diffs",
            "Diffs committed by another process, relayed to local sockets through pub/sub.",
            m.relayed,
        )
        yield CounterMetricFamily(
            "browne_relayed_bytes", "Bytes of the diffs relayed through pub/sub.", m.relayed_bytes
        )
        yield CounterMetricFamily(
            "browne_gaps_filled",
            "Diffs that overtook earlier ones; the socket was sent the missed ones from Redis "
            "first.",
            m.gaps_filled,
        )
        yield _labelled("browne_errors", "Error replies by code.", "code", m.errors)
        yield _labelled(
            "browne_closes", "Connections closed by the server, by close code.", "code", m.closes
        )
        yield _labelled(
            "browne_pushes", "Web Push notices by what became of them.", "result", m.pushes
        )
        buckets, total = [], 0
        for bound, count in zip((*COMMIT_BUCKETS, math.inf), m.commit_counts, strict=True):
            total += count
            buckets.append(("+Inf" if math.isinf(bound) else str(bound), total))
        yield HistogramMetricFamily(
            "browne_commit_seconds",
            "Latency of the commit script.",
            buckets=buckets,
            sum_value=m.commit_sum,
        )


def _labelled(name: str, help_text: str, label: str, counts: Counter[Any]) -> Metric:
    family = CounterMetricFamily(name, help_text, labels=[label])
    for key, count in sorted(counts.items()):
        family.add_metric([str(key)], count)
    return family
