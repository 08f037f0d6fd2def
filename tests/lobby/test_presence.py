"""Who is online and where, decided from connections and their heartbeat deadlines."""

from __future__ import annotations

import pytest

from lobby import presence
from lobby.identity import Player
from lobby.presence import LOBBY, Connection

ALICE = Player(id="u:alice", name="alice", guest=False)
BOB = Player(id="u:bob", name="Bob", guest=False)
GUEST = Player(id="g:1", name="Guest-KeenRing-0001", guest=True)


def test_a_player_with_several_tabs_is_one_presence_with_every_place() -> None:
    tabs = [
        presence.connect("c1", ALICE, now=0.0),
        presence.connect("c2", ALICE, now=0.0, where="room9"),
        presence.connect("c3", ALICE, now=0.0, where="room2"),
    ]
    [alice] = presence.who_is_online(tabs, now=1.0)
    assert alice.player == ALICE
    assert alice.connections == 3
    assert alice.places == (LOBBY, "room2", "room9")
    assert alice.rooms == ("room2", "room9")


def test_a_connection_lapses_at_its_deadline_unless_a_heartbeat_renews_it() -> None:
    tab = presence.connect("c1", ALICE, now=0.0, ttl=60)
    assert tab.is_alive(59.9) and not tab.is_alive(60.0)
    assert presence.who_is_online([tab], now=60.0) == []
    renewed = presence.heartbeat(tab, now=50.0, ttl=60)
    assert renewed.deadline == 110.0 and renewed.where == LOBBY
    assert [p.player for p in presence.who_is_online([renewed], now=100.0)] == [ALICE]


def test_a_crashed_tab_stops_counting_while_the_others_go_on() -> None:
    live_tab = presence.connect("c1", ALICE, now=100.0, where="room1")
    dead_tab = presence.connect("c2", ALICE, now=0.0)
    found = presence.presence_of(ALICE.id, [live_tab, dead_tab], now=120.0)
    assert found is not None
    assert (found.connections, found.places) == (1, ("room1",))
    assert presence.presence_of(BOB.id, [live_tab, dead_tab], now=120.0) is None


def test_moving_a_connection_changes_where_it_is_and_renews_it() -> None:
    tab = presence.move(presence.connect("c1", GUEST, now=0.0), "room5", now=30.0)
    assert (tab.where, tab.deadline) == ("room5", 30.0 + presence.HEARTBEAT_TTL)


def test_everyone_online_is_listed_by_name_whatever_the_case() -> None:
    tabs = [
        presence.connect("c1", GUEST, now=0.0),
        presence.connect("c2", BOB, now=0.0),
        presence.connect("c3", ALICE, now=0.0),
    ]
    names = [p.player.name for p in presence.who_is_online(tabs, now=1.0)]
    assert names == ["alice", "Bob", "Guest-KeenRing-0001"]


def test_spectators_count_people_in_the_room_who_are_not_players() -> None:
    tabs = [
        presence.connect("c1", ALICE, now=0.0, where="r"),
        presence.connect("c2", BOB, now=0.0, where="r"),
        presence.connect("c3", GUEST, now=0.0, where="r"),
        presence.connect("c4", GUEST, now=0.0, where="r"),
        presence.connect("c5", BOB, now=0.0, where="other"),
        presence.connect("c6", Player("u:z", "zed", False), now=-100.0, where="r"),
    ]
    assert presence.spectators(tabs, "r", now=1.0, players=[ALICE.id]) == 2
    assert presence.spectators(tabs, "r", now=1.0, players=[ALICE.id, BOB.id]) == 1
    assert presence.spectators(tabs, "nowhere", now=1.0) == 0


def test_connection_data_round_trips() -> None:
    tab = presence.connect("c1", GUEST, now=3.0, where="room1")
    assert Connection.from_data(tab.to_data()) == tab
    with pytest.raises(ValueError):
        Connection.from_data({"id": "c1"})
