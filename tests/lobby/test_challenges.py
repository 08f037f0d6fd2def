"""Challenge transitions and every refusal, as pure functions (no Redis, no clock)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from lobby import challenges
from lobby.challenges import Challenge, ChallengeLimits, Colour, Status
from lobby.games import FinishedGame
from lobby.identity import Player
from protocol.errors import (
    AlreadyAcceptedError,
    BadOptionsError,
    BadRequestError,
    ChallengeClosedError,
    ChallengeExpiredError,
    ClientError,
    GuestRatedError,
    LimitReachedError,
    MessageError,
    NotAPlayerError,
    NotAuthenticatedError,
    NotChallengerError,
    NotTargetError,
    OwnChallengeError,
    TournamentError,
    UnknownGameError,
)
from rules import GAMES, find_game
from rules.api import Seat

ALICE = Player(id="u:alice", name="alice", guest=False)
BOB = Player(id="u:bob", name="bob", guest=False)
CAROL = Player(id="u:carol", name="carol", guest=False)
GUEST = Player(id="g:0001", name="Guest-CalmCube-0001", guest=True)
LIMITS = ChallengeLimits(max_open=3, lifetime=600)


def some_game() -> str:
    """The first registered game (any game will do for what the lobby decides)."""
    assert GAMES, "no game is registered in rules.GAMES"
    return sorted(GAMES)[0]


def ranged_flag(game: str) -> tuple[str, int]:
    """A numeric flag of ``game`` with an upper bound, and that bound."""
    for flag in find_game(game).FLAGS:
        if flag.takes_number and flag.maximum is not None:
            return flag.name, flag.maximum
    pytest.skip(f"{game} has no bounded numeric option")


def make(
    target: Player | None = BOB,
    challenger: Player = ALICE,
    colour: Colour = Colour.MINE,
    rated: bool = False,
    options: str = "",
    open_count: int = 0,
    now: float = 1000.0,
) -> Challenge:
    return challenges.create(
        "c1", challenger, target, some_game(), options, colour, rated, now, open_count, LIMITS
    )


def test_create_makes_an_open_challenge_that_expires_after_the_lifetime() -> None:
    challenge = make(target=None)
    assert challenge.status is Status.OPEN
    assert challenge.is_open and challenge.seats is None
    assert challenge.expires == 1000.0 + LIMITS.lifetime
    assert challenge.time_control is None


def test_create_stores_options_in_canonical_form() -> None:
    game = some_game()
    flag, maximum = ranged_flag(game)
    rules = find_game(game)
    text = f"  -{flag.upper()}={maximum}  "
    challenge = make(options=text)
    assert challenge.options == rules.options_text(rules.parse_options(f"-{flag}={maximum}"))
    assert challenge.options != text
    assert rules.parse_options(challenge.options) == rules.parse_options(f"-{flag}={maximum}")


def test_create_refuses_options_out_of_range_naming_the_flag() -> None:
    flag, maximum = ranged_flag(some_game())
    with pytest.raises(BadOptionsError, match=f"-{flag}") as caught:
        make(options=f"-{flag}={maximum + 1}")
    assert caught.value.code == "bad_options"


def test_create_refuses_an_unknown_flag_and_an_unknown_game() -> None:
    with pytest.raises(BadOptionsError, match="-nonsense"):
        make(options="-nonsense")
    with pytest.raises(UnknownGameError):
        challenges.create("c1", ALICE, None, "chess", "", Colour.MINE, False, 0.0, 0, LIMITS)


def test_create_finds_the_game_whatever_its_case() -> None:
    game = some_game()
    challenge = challenges.create(
        "c1", ALICE, None, f" {game.upper()} ", "", Colour.MINE, False, 0.0, 0, LIMITS
    )
    assert challenge.game == game


def test_create_refuses_a_challenge_to_oneself() -> None:
    with pytest.raises(OwnChallengeError):
        make(target=ALICE)


def test_guests_may_not_make_or_receive_rated_challenges() -> None:
    with pytest.raises(GuestRatedError):
        make(challenger=GUEST, target=None, rated=True)
    with pytest.raises(GuestRatedError):
        make(target=GUEST, rated=True)
    assert make(challenger=GUEST, target=BOB, rated=False).challenger == GUEST


def test_create_refuses_beyond_the_open_challenge_limit() -> None:
    assert make(open_count=LIMITS.max_open - 1).status is Status.OPEN
    with pytest.raises(LimitReachedError, match="3"):
        make(open_count=LIMITS.max_open)


@pytest.mark.parametrize(
    ("colour", "first"),
    [(Colour.MINE, ALICE), (Colour.THEIRS, BOB)],
)
def test_accept_gives_the_first_seat_as_the_colour_choice_says(
    colour: Colour, first: Player
) -> None:
    accepted = challenges.accept(make(colour=colour), BOB, now=1001.0, seed=7)
    assert accepted.status is Status.ACCEPTED
    assert accepted.accepter == BOB and accepted.closed == 1001.0
    assert accepted.player_at(Seat.FIRST) == first
    assert {p.id for p in accepted.seats or ()} == {ALICE.id, BOB.id}


def test_random_colour_is_decided_by_the_seed_and_both_ways_happen() -> None:
    challenge = make(colour=Colour.RANDOM, target=None)
    firsts = {
        challenges.accept(challenge, BOB, 1001.0, seed).player_at(Seat.FIRST).id
        for seed in range(40)
    }
    assert firsts == {ALICE.id, BOB.id}
    again = [challenges.accept(challenge, BOB, 1001.0, 5).seats for _ in range(3)]
    assert again[0] == again[1] == again[2]


def test_anyone_but_the_challenger_may_accept_an_open_challenge() -> None:
    challenge = make(target=None)
    assert challenges.accept(challenge, CAROL, 1001.0, 0).accepter == CAROL
    assert challenges.accept(challenge, GUEST, 1001.0, 0).accepter == GUEST


def test_accepting_ones_own_challenge_is_refused() -> None:
    with pytest.raises(OwnChallengeError) as caught:
        challenges.accept(make(target=None), ALICE, 1001.0, 0)
    assert caught.value.code == "own_challenge"


def test_a_direct_challenge_is_accepted_only_by_its_target() -> None:
    with pytest.raises(NotTargetError, match="bob"):
        challenges.accept(make(target=BOB), CAROL, 1001.0, 0)


def test_a_guest_cannot_accept_a_rated_open_challenge() -> None:
    with pytest.raises(GuestRatedError):
        challenges.accept(make(target=None, rated=True), GUEST, 1001.0, 0)


def test_accepting_twice_is_refused() -> None:
    accepted = challenges.accept(make(target=None), BOB, 1001.0, 0)
    with pytest.raises(AlreadyAcceptedError):
        challenges.accept(accepted, CAROL, 1002.0, 0)
    with pytest.raises(AlreadyAcceptedError):
        challenges.decline(accepted, BOB, 1002.0)
    with pytest.raises(AlreadyAcceptedError):
        challenges.cancel(accepted, ALICE, 1002.0)


def test_an_expired_challenge_cannot_be_accepted_declined_or_cancelled() -> None:
    challenge = make()
    late = challenge.expires
    assert not challenges.is_expired(challenge, late - 0.001)
    assert challenges.is_expired(challenge, late)
    actions: list[Callable[[], Challenge]] = [
        lambda: challenges.accept(challenge, BOB, late, 0),
        lambda: challenges.decline(challenge, BOB, late),
        lambda: challenges.cancel(challenge, ALICE, late),
    ]
    for action in actions:
        with pytest.raises(ChallengeExpiredError):
            action()


def test_decline_is_for_the_target_of_a_direct_challenge_only() -> None:
    declined = challenges.decline(make(), BOB, 1001.0)
    assert declined.status is Status.DECLINED
    with pytest.raises(NotTargetError):
        challenges.decline(make(), CAROL, 1001.0)
    with pytest.raises(NotTargetError):
        challenges.decline(make(target=None), BOB, 1001.0)
    with pytest.raises(ChallengeClosedError, match="declined"):
        challenges.accept(declined, BOB, 1002.0, 0)


def test_cancel_is_for_the_challenger_only() -> None:
    with pytest.raises(NotChallengerError):
        challenges.cancel(make(), BOB, 1001.0)
    cancelled = challenges.cancel(make(), ALICE, 1001.0)
    assert cancelled.status is Status.CANCELLED
    with pytest.raises(ChallengeClosedError, match="cancelled"):
        challenges.accept(cancelled, BOB, 1002.0, 0)
    with pytest.raises(ChallengeClosedError):
        challenges.cancel(cancelled, ALICE, 1002.0)


def test_expire_closes_only_an_overdue_open_challenge() -> None:
    challenge = make()
    with pytest.raises(ValueError, match="not due"):
        challenges.expire(challenge, challenge.expires - 1)
    expired = challenges.expire(challenge, challenge.expires)
    assert expired.status is Status.EXPIRED and expired.closed == challenge.expires
    with pytest.raises(ValueError):
        challenges.expire(expired, challenge.expires + 1)
    with pytest.raises(ChallengeExpiredError):
        challenges.accept(expired, BOB, challenge.expires - 1, 0)


def test_every_refusal_is_a_coded_value_error() -> None:
    with pytest.raises(ClientError) as caught:
        challenges.accept(make(target=None), ALICE, 1001.0, 0)
    assert isinstance(caught.value, ValueError)
    assert caught.value.code and caught.value.code != ClientError.code


def test_challenge_data_round_trips_open_and_accepted() -> None:
    challenge = make(colour=Colour.RANDOM, rated=True)
    accepted = challenges.accept(challenge, BOB, 1001.0, 3)
    for value in (challenge, accepted, make(target=None)):
        assert Challenge.from_data(value.to_data()) == value
    with pytest.raises(ValueError):
        Challenge.from_data({"id": "x"})


def finished(record: tuple[str, ...] = ("a", "b"), options: str = "") -> FinishedGame:
    return FinishedGame(
        room_id="room1",
        game=some_game(),
        options=options,
        players=(ALICE, BOB),
        rated=True,
        started=10.0,
        finished=20.0,
        record=record,
        winner=Seat.SECOND,
        reason="resigned",
    )


@pytest.mark.parametrize("by", [ALICE, BOB])
def test_rematch_swaps_who_moves_first_and_keeps_game_and_options(by: Player) -> None:
    old = finished(options="-no_swap")
    again = challenges.rematch(old, by, "room1-r", now=30.0)
    assert again.status is Status.ACCEPTED
    assert again.seats == (BOB, ALICE)
    assert again.challenger == by and again.accepter != by
    assert (again.game, again.options, again.rated) == (old.game, "-no_swap", True)
    assert again.rematch_of == "room1"
    assert again.id == "room1-r"


def test_rematch_after_a_swap_still_gives_the_first_move_to_the_other_player() -> None:
    again = challenges.rematch(finished(record=("a", "swap", "b")), ALICE, "r", 30.0)
    assert again.seats == (BOB, ALICE)


def test_rematch_is_refused_to_someone_who_did_not_play() -> None:
    with pytest.raises(NotAPlayerError):
        challenges.rematch(finished(), CAROL, "r", 30.0)


def test_a_rematch_cannot_be_accepted_again() -> None:
    again = challenges.rematch(finished(), ALICE, "r", 30.0)
    with pytest.raises(AlreadyAcceptedError):
        challenges.accept(again, BOB, 31.0, 0)


def test_rematch_ids_are_shared_short_and_plain() -> None:
    first = challenges.rematch_id("room1")
    assert first == challenges.rematch_id("room1") != challenges.rematch_id("room2")
    chain = "abcdefghijkl"
    for _ in range(10):
        chain = challenges.rematch_id(chain)
        assert re.fullmatch(r"[a-z0-9-]{1,32}", chain)


def test_every_kind_of_refusal_has_its_own_code() -> None:
    """Save the refusals that share the code of another by design: a malformed frame or body
    (bad_request), a bad session token (bad_credentials) and a tournament's (its own)."""
    shared = (MessageError, BadRequestError, NotAuthenticatedError, TournamentError)
    kinds = [kind for kind in ClientError.__subclasses__() if kind not in shared]
    codes = [kind.code for kind in kinds]
    assert len(kinds) >= 9 and len(set(codes)) == len(codes)
    assert ClientError.code not in codes
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", code) for code in codes)


PIE_GAMES = sorted(
    name for name, rules in GAMES.items() if any(f.name == "no_swap" for f in rules.FLAGS)
)


@pytest.mark.parametrize("game", PIE_GAMES)
def test_the_swap_offer_travels_in_the_options_into_the_rematch(game: str) -> None:
    rules = find_game(game)
    off = challenges.create("c", ALICE, BOB, game, "-no_swap", Colour.MINE, False, 0.0, 0)
    on = challenges.create("d", ALICE, BOB, game, "-swap", Colour.MINE, False, 0.0, 0)
    assert rules.parse_options(off.options) != rules.parse_options(on.options)
    accepted = challenges.accept(off, BOB, 1.0, 0)
    old = FinishedGame(
        room_id=accepted.id,
        game=game,
        options=accepted.options,
        players=accepted.seats or (ALICE, BOB),
        rated=False,
        started=1.0,
        finished=2.0,
        record=(),
        winner=None,
        reason="aborted",
    )
    again = challenges.rematch(old, BOB, "r", 3.0)
    assert again.options == off.options
    assert rules.parse_options(again.options) == rules.parse_options("-no_swap")
