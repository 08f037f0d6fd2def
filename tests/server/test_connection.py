"""The per-connection rate limit, a token bucket driven by the clock it is given."""

from __future__ import annotations

from server.connection import TokenBucket


def test_a_burst_is_allowed_then_requests_wait_for_the_rate() -> None:
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.05) is False  # half a token back
    assert bucket.take(0.1) is True
    assert bucket.take(0.1) is False


def test_an_idle_connection_saves_no_more_than_one_burst() -> None:
    bucket = TokenBucket(rate=10, burst=2, now=0.0)
    assert bucket.take(1000.0) and bucket.take(1000.0)
    assert bucket.take(1000.0) is False
