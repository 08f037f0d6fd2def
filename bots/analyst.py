"""``python -m bots.analyst``: a process that analyses finished games from the Redis queue.

It takes the oldest job of :mod:`lobby.store.analyses`, replays and searches the game with
:mod:`bots.analysis` (one core, at a low CPU priority like the bot workers), and stores the
result for the room; a record that does not replay (or any other failure) is stored as
failed, with the reason.  The bot pool (``python -m bots``) starts one beside its workers;
more may run on one Redis, each job going to one of them.  It stops when the process that
started it is gone (``--parent``).  Imports bots, the analyses' store and redis.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

import redis

from bots.analysis import PLAYOUTS, POSITION_SECONDS, analyse_record
from lobby.store import analyses
from lobby.store.common import connect_blocking

log = logging.getLogger("bots.analyst")

WAIT_SECONDS = 1.0
"""How long one wait for a job lasts before the analyst checks its parent again."""
NICENESS = 10


def analyse_job(job: analyses.AnalysisJob, playouts: int) -> dict[str, object]:
    """The entry to store for ``job``: the analysis, or the reason it failed."""
    try:
        plies = analyse_record(
            job.game, job.options, job.moves, job.room, playouts, seconds=POSITION_SECONDS
        )
    except ValueError as error:
        return {"status": "failed", "message": str(error), "plies": []}
    return {"status": "done", "plies": [p.to_data() for p in plies]}


def serve(client: redis.Redis, playouts: int, parent: int | None) -> None:
    """Take and analyse jobs until the parent process (if given) is gone."""
    while parent is None or os.getppid() == parent:
        raw = analyses.take(client, WAIT_SECONDS)
        if raw is None:
            continue
        try:
            job = analyses.AnalysisJob.from_json(raw)
        except ValueError:
            log.exception("dropped a job that is not one: %r", raw)
            continue
        started = time.monotonic()
        try:
            entry = analyse_job(job, playouts)
        except Exception:  # a bug must not leave the room queued until its entry expires
            log.exception("room %s: the analysis failed", job.room)
            entry = {"status": "failed", "message": "the analysis failed", "plies": []}
        analyses.store(client, job.room, entry)
        seconds = time.monotonic() - started
        log.info("room %s analysed (%s) in %.1f s", job.room, entry["status"], seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.analyst", description=__doc__)
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379"))
    parser.add_argument("--playouts", type=int, default=PLAYOUTS)
    parser.add_argument("--parent", type=int, default=None)
    parser.add_argument("--nice", type=int, default=NICENESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.nice:
        os.nice(args.nice)
    client = connect_blocking(args.redis)
    try:
        serve(client, args.playouts, args.parent)
    except KeyboardInterrupt:
        pass
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
