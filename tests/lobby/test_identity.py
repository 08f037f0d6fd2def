"""Session tokens and guest names: nobody can act as another account."""

from __future__ import annotations

import pytest

from lobby.identity import (
    BadTokenError,
    KnownDevice,
    Player,
    is_valid_name,
    issue_device_token,
    issue_token,
    new_guest,
    verify_device_token,
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


def test_a_device_token_names_its_account_and_device_until_it_expires() -> None:
    device = KnownDevice(name_key="alice", id="d1")
    token = issue_device_token(SECRET, device, now=1000.0, ttl=60)
    assert verify_device_token(SECRET, token, now=1059.0) == device
    with pytest.raises(BadTokenError, match="expired"):
        verify_device_token(SECRET, token, now=1060.0)
    with pytest.raises(BadTokenError, match="signature"):
        verify_device_token(b"other-secret", token, now=1000.0)


def test_session_and_device_tokens_never_pass_for_each_other() -> None:
    """Both are signed with the one secret, over different purposes."""
    session = issue_token(SECRET, ALICE, now=0.0)
    device = issue_device_token(SECRET, KnownDevice(name_key="alice", id="d1"), now=0.0)
    with pytest.raises(BadTokenError, match="signature"):
        verify_device_token(SECRET, session, now=1.0)
    with pytest.raises(BadTokenError, match="signature"):
        verify_token(SECRET, device, now=1.0)


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
