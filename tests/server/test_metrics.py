"""Prometheus text of the process counters."""

from __future__ import annotations

from server.metrics import Metrics


def test_render_lists_counters_and_a_cumulative_histogram() -> None:
    metrics = Metrics(connections=2, moves=5, gaps_filled=2)
    metrics.errors["stale_version"] += 3
    metrics.closes[1009] += 1
    for seconds in (0.0004, 0.003, 0.003, 2.0):
        metrics.observe_commit(seconds)
    lines = metrics.render().splitlines()
    assert "browne_connections 2" in lines
    assert "browne_moves_total 5" in lines
    assert "browne_gaps_filled_total 2" in lines
    assert 'browne_errors_total{code="stale_version"} 3' in lines
    assert 'browne_closes_total{code="1009"} 1' in lines
    assert 'browne_commit_seconds_bucket{le="0.0005"} 1' in lines
    assert 'browne_commit_seconds_bucket{le="0.005"} 3' in lines
    assert 'browne_commit_seconds_bucket{le="1.0"} 3' in lines
    assert 'browne_commit_seconds_bucket{le="+Inf"} 4' in lines
    assert "browne_commit_seconds_count 4" in lines
