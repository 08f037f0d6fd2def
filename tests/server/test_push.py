"""Who is told what by Web Push, and which push addresses the server will post to."""

from __future__ import annotations

import base64
import dataclasses
from types import ModuleType

import pytest

from server.push import (
    BadSubscriptionError,
    Notice,
    check_endpoint,
    notices_for,
    subscription,
)
from server.rooms import Move, Resign, Room, SeatHolder, SetSpectators, decide, new_room
from server.settings import BROWSER_PUSH_SERVICES

ANN = SeatHolder("p:ann", "Ann")
BOB = SeatHolder("p:bob", "Bob")
P256DH = base64.urlsafe_b64encode(b"\x04" + bytes(64)).rstrip(b"=").decode()
AUTH = base64.urlsafe_b64encode(bytes(16)).rstrip(b"=").decode()


@pytest.fixture
def room(ttt: ModuleType) -> Room:
    return new_room("r1", "tictactoe", "", (ANN, BOB))


def away(room: Room, first: bool, second: bool) -> Room:
    return dataclasses.replace(room, away=(1.0 if first else None, 2.0 if second else None))


def test_the_player_to_move_hears_it_only_when_away_from_the_page(room: Room) -> None:
    moved = decide(away(room, False, True), Move(ANN.id, 0, "b2"))
    assert notices_for(moved.room, moved.events) == [
        Notice(
            BOB.id,
            "Your move in Tictactoe against Ann",
            "Ann played b2 (move 1).",
            "/#/room/r1",
            "r1",
        )
    ]
    here = decide(away(room, True, False), Move(ANN.id, 0, "b2"))
    assert notices_for(here.room, here.events) == []  # Bob is on the page; Ann moved herself


def test_changes_that_are_not_moves_tell_nobody(room: Room) -> None:
    counted = decide(away(room, True, True), SetSpectators(3))
    assert counted.events and notices_for(counted.room, counted.events) == []


def test_the_end_is_told_to_each_player_away_with_their_result(room: Room) -> None:
    ended = decide(away(room, True, True), Resign(BOB.id, 0))
    notices = notices_for(ended.room, ended.events)
    assert [(n.player, n.title) for n in notices] == [
        (ANN.id, "Tictactoe against Bob: you won"),
        (BOB.id, "Tictactoe against Ann: you lost"),
    ]
    assert notices[0].body.endswith(".") and notices[0].body[0].isupper()
    only_ann = decide(away(room, True, False), Resign(BOB.id, 0))
    assert [n.player for n in notices_for(only_ann.room, only_ann.events)] == [ANN.id]


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/abc",
        "https://web.push.apple.com/QG9",
        "https://wns2-by3p.notify.windows.com/w/?token=abc",
    ],
)
def test_the_browsers_push_services_are_taken(endpoint: str) -> None:
    check_endpoint(endpoint, BROWSER_PUSH_SERVICES)


@pytest.mark.parametrize(
    ("endpoint", "reason"),
    [
        ("http://fcm.googleapis.com/fcm/send/abc", "push services"),  # not https
        ("https://fcm.googleapis.com.example.com/x", "push services"),
        ("https://push.apple.com.example.com/x", "push services"),
        ("https://10.0.0.7/internal", "push services"),
        ("https://127.0.0.1:6379/", "push services"),
        ("https://user:pw@fcm.googleapis.com/x", "user name"),
        ("https://fcm.googleapis.com:99999/x", "not a URL"),
        ("http://127.0.0.1:9000/push", "push services"),  # loopback only when listed
    ],
)
def test_any_other_address_is_refused_with_the_reason(endpoint: str, reason: str) -> None:
    with pytest.raises(BadSubscriptionError, match=reason):
        check_endpoint(endpoint, BROWSER_PUSH_SERVICES)


def test_a_listed_loopback_service_may_be_plain_http_on_its_port_only() -> None:
    services = ("127.0.0.1:9000",)
    check_endpoint("http://127.0.0.1:9000/push/1", services)
    with pytest.raises(BadSubscriptionError):
        check_endpoint("http://127.0.0.1:9001/push/1", services)


def test_keys_must_be_a_p256_point_and_a_16_byte_secret() -> None:
    endpoint = "https://fcm.googleapis.com/fcm/send/abc"
    found = subscription(endpoint, P256DH, AUTH, BROWSER_PUSH_SERVICES)
    assert found.to_data() == {"endpoint": endpoint, "keys": {"p256dh": P256DH, "auth": AUTH}}
    with pytest.raises(BadSubscriptionError, match="p256dh key must be 65 bytes"):
        subscription(endpoint, AUTH, AUTH, BROWSER_PUSH_SERVICES)
    with pytest.raises(BadSubscriptionError, match="auth key is not base64"):
        subscription(endpoint, P256DH, "#" * 22, BROWSER_PUSH_SERVICES)
