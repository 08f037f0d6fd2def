"""The cluster failover drill of ``./dev bench drills --cluster`` finds nothing wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.loopback.cluster_drill import cluster_drill

pytestmark = pytest.mark.cluster


async def test_the_failover_drill_loses_doubles_and_strands_nothing(tmp_path: Path) -> None:
    report = await cluster_drill(tmp_path, games=6, servers=2)
    assert report.problems == []
    assert report.games == report.games_finished == 6
    assert report.moves_acked > 0 and report.moves_lost == report.moves_applied_twice == 0
    assert report.views_stuck == 0
    assert report.notes["dead master back as replica"] is True
