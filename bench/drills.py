"""``python -m bench.drills [--games N] [--servers P] [--quiet S] [--cluster] [DRILL...]``: the
deployment drills' report.

Runs each drill of bench/loopback/drills.py on its own loopback deployment (redis-server with
deploy/redis.conf, P ``python -m server`` processes each reaching Redis through a TCP proxy of
the drill's, HAProxy with deploy/haproxy.cfg) and prints, per drill: games played (all made
through the lobby), moves acknowledged, acknowledged moves lost (must be 0), moves applied
twice (doubled, must be 0), client views stuck behind Redis more than 2 s after a fault (must
be 0), games missing from the lobby (must be 0), reconnections and seconds; then the errors
clients were told to resend after, and the drill's notes.  Exits 1 if any drill found a
problem.  Needs redis-server and haproxy on PATH.

``--cluster`` runs the failover drill on a Redis Cluster instead
(:mod:`bench.loopback.cluster_drill`: K games, a master SIGKILLed mid-run, later a server,
the dead master restarted as a replica), with the same columns and the longest wait for an
acknowledgement among its notes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import traceback
from pathlib import Path

from bench.loopback import cluster_drill, drills
from bench.loopback.drills import DrillReport

COLUMNS = (
    ("drill", 26),
    ("games", 6),
    ("acked", 7),
    ("lost", 5),
    ("doubled", 8),
    ("stuck", 6),
    ("lobby missing", 14),
    ("reconnects", 11),
    ("seconds", 8),
)


async def run_drill(name: str, games: int, servers: int, quiet: float) -> DrillReport:
    with tempfile.TemporaryDirectory() as directory:
        try:
            async with drills.deployment(Path(directory), servers) as deployed:
                if name == "slow_spectator":
                    return await drills.slow_spectator_drill(deployed, games=min(games, 32))
                if name == "faults":
                    return await drills.faults_drill(deployed, games=games, quiet=quiet)
                return await drills.DRILLS[name](deployed, games=games)
        except Exception as error:
            report = DrillReport(name)
            report.problems.append("".join(traceback.format_exception_only(error)).strip())
            return report


def row(values: list[object]) -> str:
    return " ".join(
        f"{value!s:<{width}}" if index == 0 else f"{value!s:>{width}}"
        for index, (value, (_, width)) in enumerate(zip(values, COLUMNS, strict=True))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.drills", description=__doc__)
    parser.add_argument("drills", nargs="*", help=f"some of {', '.join(drills.DRILLS)}")
    parser.add_argument("--games", type=int, default=24, help="games (or pairs) at once")
    parser.add_argument("--servers", type=int, default=2, help="server processes")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds after each fault")
    parser.add_argument(
        "--cluster", action="store_true", help="the failover drill on a Redis Cluster"
    )
    args = parser.parse_args(argv)
    if args.cluster:
        names = ["cluster_failover"]
    else:
        names = args.drills or list(drills.DRILLS)
        unknown = [name for name in names if name not in drills.DRILLS]
        if unknown:
            parser.error(f"unknown drills {unknown}; known: {', '.join(drills.DRILLS)}")
    reports = []
    print(row([title for title, _ in COLUMNS]), flush=True)
    for name in names:
        if args.cluster:
            report = asyncio.run(run_cluster_drill(args.games, args.servers))
        else:
            report = asyncio.run(run_drill(name, args.games, args.servers, args.quiet))
        reports.append(report)
        print(
            row(
                [
                    report.drill,
                    report.games,
                    report.moves_acked,
                    report.moves_lost,
                    report.moves_applied_twice,
                    report.views_stuck,
                    report.lobby_missing,
                    report.reconnects,
                    f"{report.seconds:.1f}",
                ]
            ),
            flush=True,
        )
    for report in reports:
        print(f"\n{report.drill}:")
        if report.errors:
            print(f"  resent after: {dict(sorted(report.errors.items()))}")
        for key, value in report.notes.items():
            print(f"  {key}: {value}")
        for problem in report.problems:
            print(f"  PROBLEM: {problem}")
    return 1 if any(r.problems for r in reports) else 0


async def run_cluster_drill(games: int, servers: int) -> DrillReport:
    with tempfile.TemporaryDirectory() as directory:
        try:
            return await cluster_drill.cluster_drill(Path(directory), games, servers)
        except Exception as error:
            report = DrillReport("cluster_failover")
            report.problems.append("".join(traceback.format_exception_only(error)).strip())
            return report


if __name__ == "__main__":
    sys.exit(main())
