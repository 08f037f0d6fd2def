"""Searches of finished games: parameters to a query, and the cursor between pages."""

from __future__ import annotations

import calendar
import time

import pytest

from lobby.archive import MAX_PAGE_SIZE, PAGE_SIZE, BadQueryError, Cursor, Query, parse_query


def day(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%d")))


def test_an_empty_search_asks_the_newest_page_of_every_game() -> None:
    assert parse_query({}) == Query(limit=PAGE_SIZE)


def test_days_cover_from_the_first_to_the_end_of_the_last() -> None:
    query = parse_query({"from": "2026-11-02", "to": "2026-11-03", "game": " Osbox "})
    assert query.since == day("2026-11-02")
    assert query.until == day("2026-11-04")
    assert query.game == "osbox"


def test_a_cursor_reads_back_and_orders_ties_by_room() -> None:
    cursor = Cursor(1_000_000.25, "b-room")
    assert Cursor.parse(cursor.text()) == cursor
    assert cursor.comes_after(1_000_000.0, "z")
    assert cursor.comes_after(1_000_000.25, "a-room")
    assert not cursor.comes_after(1_000_000.25, "b-room")
    assert not cursor.comes_after(1_000_001.0, "a")


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"game": "chess"}, "game='chess'"),
        ({"from": "2026-13-01"}, "from="),
        ({"to": "yesterday"}, "to="),
        ({"from": "2026-11-05", "to": "2026-11-04"}, "comes after"),
        ({"limit": "0"}, "limit"),
        ({"limit": str(MAX_PAGE_SIZE + 1)}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"before": "soon"}, "before="),
        ({"before": "nan/room"}, "before="),
        ({"page": "2"}, "unknown parameter 'page'"),
        ({"player": "x" * 65}, "player"),
    ],
)
def test_a_parameter_that_means_nothing_is_named(params: dict[str, str], named: str) -> None:
    with pytest.raises(BadQueryError, match=named):
        parse_query(params)
