"""Usernames, password hashes and the login delays, decided without Redis."""

from __future__ import annotations

import pytest

from lobby import accounts
from lobby.accounts import Account, LoginLimits, ScryptParams
from lobby.identity import is_guest_id, new_guest
from protocol.errors import BadNameError, WeakPasswordError

CHEAP = ScryptParams(n=2**8, r=8, p=1)
"""Fast parameters for tests that hash many times; one test checks the real default."""


def test_the_default_hash_is_scrypt_with_the_documented_parameters() -> None:
    encoded = accounts.hash_password("correct horse")
    assert encoded.startswith("scrypt$16384$8$5$")
    assert accounts.verify_password("correct horse", encoded)
    assert not accounts.verify_password("correct horsf", encoded)
    assert not accounts.needs_rehash(encoded)


def test_each_hash_has_its_own_salt_and_never_holds_the_password() -> None:
    first = accounts.hash_password("hunter2hunter2", CHEAP)
    second = accounts.hash_password("hunter2hunter2", CHEAP)
    assert first != second
    assert "hunter2" not in first
    assert accounts.verify_password("hunter2hunter2", first)
    assert accounts.verify_password("hunter2hunter2", second)


def test_a_hash_made_with_other_parameters_still_verifies_and_asks_for_a_rehash() -> None:
    encoded = accounts.hash_password("pass-word-1", CHEAP)
    assert accounts.verify_password("pass-word-1", encoded)
    assert accounts.needs_rehash(encoded)
    assert not accounts.needs_rehash(encoded, CHEAP)


def test_an_overlong_password_does_not_verify() -> None:
    encoded = accounts.hash_password("", CHEAP)
    assert not accounts.verify_password("x" * (accounts.MAX_PASSWORD_LENGTH + 1), encoded)


@pytest.mark.parametrize(
    "encoded", ["", "plain", "scrypt$1$2$3$4", "bcrypt$1$2$3$AA$AA", "scrypt$x$8$1$AA$AA"]
)
def test_a_stored_value_that_is_not_a_hash_is_an_error(encoded: str) -> None:
    with pytest.raises(ValueError):
        accounts.verify_password("whatever1", encoded)


@pytest.mark.parametrize(
    "name",
    [
        "ab",
        "1alice",
        "al ice",
        "alice!",
        "x" * 21,
        "Guest-SwiftCube-0001",
        "guest-me",
        "bot-easy",
        "BOT-x",
    ],
)
def test_bad_and_reserved_names_are_refused(name: str) -> None:
    with pytest.raises(BadNameError) as caught:
        accounts.check_new_account(name, "long enough password")
    assert caught.value.code == "bad_name"


def test_names_that_only_look_reserved_are_allowed() -> None:
    accounts.check_new_account("Guesthouse", "long enough")
    accounts.check_new_account("bottle", "long enough")


def test_passwords_must_be_long_enough_and_not_absurdly_long() -> None:
    short = "x" * (accounts.MIN_PASSWORD_LENGTH - 1)
    with pytest.raises(WeakPasswordError, match=str(accounts.MIN_PASSWORD_LENGTH)):
        accounts.check_new_account("alice", short)
    with pytest.raises(WeakPasswordError):
        accounts.check_new_account("alice", "x" * (accounts.MAX_PASSWORD_LENGTH + 1))
    accounts.check_new_account("alice", "x" * accounts.MIN_PASSWORD_LENGTH)


def test_a_new_account_is_a_registered_player_whose_password_verifies() -> None:
    account = accounts.new_account(
        "Alice", "s3cret-pass", now=12.0, params=CHEAP, id_bytes=bytes(8)
    )
    assert account.player.id == "u:0000000000000000"
    assert (account.player.name, account.player.guest, account.created) == ("Alice", False, 12.0)
    assert accounts.verify_password("s3cret-pass", account.password_hash)
    assert Account.from_data(account.to_data()) == account


def test_usernames_are_unique_whatever_their_case() -> None:
    assert accounts.name_key("Alice") == accounts.name_key("aLICE") == "alice"


def test_a_name_is_tried_freely_a_few_times_then_waits_longer_each_time() -> None:
    limits = LoginLimits(free_attempts=3, first_delay=10.0, max_delay=100.0)
    assert accounts.delay_schedule(limits) == (0.0, 0.0, 10.0, 20.0, 40.0, 80.0, 100.0)


def test_the_delay_never_passes_its_cap() -> None:
    limits = LoginLimits(free_attempts=1, first_delay=60.0, max_delay=60.0)
    assert accounts.delay_schedule(limits) == (60.0,)


def test_a_login_policy_without_a_free_attempt_is_refused() -> None:
    with pytest.raises(ValueError):
        accounts.delay_schedule(LoginLimits(free_attempts=0))


def test_account_and_guest_ids_tell_themselves_apart() -> None:
    account = accounts.new_account("alice", "long enough", now=0.0, params=CHEAP)
    assert not is_guest_id(account.player.id)
    assert is_guest_id(new_guest().id)
