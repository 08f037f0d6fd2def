"""Prometheus text of the process counters."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from server.metrics import Metrics


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text, read back by prometheus_client's own parser."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_render_lists_counters_and_a_cumulative_histogram() -> None:
    metrics = Metrics(connections=2, moves=5, gaps_filled=2)
    metrics.errors["stale_version"] += 3
    metrics.closes[1009] += 1
    metrics.pushes["dropped"] += 4
    for seconds in (0.0004, 0.003, 0.003, 2.0):
        metrics.observe_commit(seconds)
    found = samples(metrics.render())
    assert found[("browne_connections", ())] == 2
    assert found[("browne_moves_total", ())] == 5
    assert found[("browne_gaps_filled_total", ())] == 2
    assert found[("browne_errors_total", (("code", "stale_version"),))] == 3
    assert found[("browne_closes_total", (("code", "1009"),))] == 1
    assert found[("browne_pushes_total", (("result", "dropped"),))] == 4
    bucket = "browne_commit_seconds_bucket"
    assert found[(bucket, (("le", "0.0005"),))] == 1
    assert found[(bucket, (("le", "0.005"),))] == 3
    assert found[(bucket, (("le", "1.0"),))] == 3
    assert found[(bucket, (("le", "+Inf"),))] == 4
    assert found[("browne_commit_seconds_count", ())] == 4
    assert abs(found[("browne_commit_seconds_sum", ())] - 2.0064) < 1e-9
