"""Session tokens and guest names: nobody can act as another account."""

from __future__ import annotations

import pytest

from lobby.identity import (
    BadTokenError,
    Player,
    is_valid_name,
    issue_token,
    new_guest,
    verify_token,
)

SECRET = b"test-secret"
ALICE = Player(id="u:alice", name="alice", guest=False)


def test_token_round_trips_until_it_expires() -> None:
    token = issue_token(SECRET, ALICE, now=1000.0, ttl=60)
    assert verify_token(SECRET, token, now=1059.0) == ALICE
    with pytest.raises(BadTokenError, match="expired"):
        verify_token(SECRET, token, now=1060.0)


def test_token_signed_with_another_secret_is_refused() -> None:
    token = issue_token(b"other-secret", ALICE, now=0.0)
    with pytest.raises(BadTokenError, match="signature"):
        verify_token(SECRET, token, now=1.0)


def test_tampered_payload_is_refused() -> None:
    token = issue_token(SECRET, ALICE, now=0.0)
    bob = issue_token(SECRET, Player(id="u:bob", name="bob", guest=False), now=0.0)
    forged = bob.split(".")[0] + "." + token.split(".")[1]
    with pytest.raises(BadTokenError, match="signature"):
        verify_token(SECRET, forged, now=1.0)


@pytest.mark.parametrize("token", ["", "abc", ".", "abc.", ".abc", "a.b.c", "%%%.***"])
def test_malformed_tokens_are_refused(token: str) -> None:
    with pytest.raises(BadTokenError):
        verify_token(SECRET, token, now=1.0)


def test_guests_get_distinct_readable_names() -> None:
    first, second = new_guest(bytes(8)), new_guest(bytes([1] * 8))
    assert first.guest and first.name.startswith("Guest-")
    assert first.id != second.id and first.name != second.name
    assert new_guest(bytes(8)) == first
    assert new_guest().id != new_guest().id


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("alice", True),
        ("Bob_42", True),
        ("ab", False),
        ("9lives", False),
        ("a b c", False),
        ("x" * 21, False),
        ("Guest-Cube", True),
    ],
)
def test_username_rules(name: str, valid: bool) -> None:
    assert is_valid_name(name) is valid
