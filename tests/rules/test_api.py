"""Option flags, the swap rule and the registry: the shared parts of the rules API."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from rules import find_game, pie
from rules.api import (
    Flag,
    OptionsError,
    describe_flags,
    options_flags_text,
    options_from_flags,
    parse_flags,
)

FLAGS = (
    Flag("size", "size", minimum=2, maximum=10),
    Flag("capture", "capture", True),
    Flag("no_capture", "capture", False),
    Flag("num_tiles", "tiles", minimum=1, maximum=500, special=(-1, 999)),
    *pie.PIE_FLAGS,
)


@dataclass(frozen=True)
class Options:
    size: int = 6
    capture: bool = True
    tiles: int = 48
    pie: bool = True


def test_parse_flags_reads_switches_and_numbers() -> None:
    assert parse_flags("-size=4 -no_capture", FLAGS) == {"size": 4, "capture": False}
    assert parse_flags("  ", FLAGS) == {}
    assert parse_flags("-NUM_TILES=-1", FLAGS) == {"tiles": -1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-kill=3", "unknown option -kill"),
        ("-size=x", "-size needs a whole number"),
        ("-size", "-size needs a whole number"),
        ("-size=11", r"-size=11 is out of range \(2..10\)"),
        ("-capture=1", "-capture takes no value"),
        ("size=4", "malformed option 'size=4'"),
        ("-capture -no_capture", "incompatible options -capture and -no_capture"),
        ("-num_tiles=0", "out of range"),
    ],
)
def test_parse_flags_names_the_bad_flag(text: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        parse_flags(text, FLAGS)


def test_repeating_a_flag_with_the_same_value_is_accepted() -> None:
    assert parse_flags("-size=4 -size=4", FLAGS) == {"size": 4}


def test_options_round_trip_through_their_canonical_flags() -> None:
    options = options_from_flags(Options, "-no_swap -size=8 -num_tiles=999", FLAGS)
    assert options == Options(size=8, pie=False, tiles=999)
    text = options_flags_text(options, FLAGS)
    assert text == "-size=8 -num_tiles=999 -no_swap"
    assert options_from_flags(Options, text, FLAGS) == options
    assert options_flags_text(Options(), FLAGS) == ""


def test_a_text_read_again_gives_the_same_options_and_a_bad_one_is_refused_each_time() -> None:
    first = options_from_flags(Options, "-size=7 -no_capture", FLAGS)
    assert options_from_flags(Options, "-size=7 -no_capture", FLAGS) is first
    assert first == Options(size=7, capture=False)
    assert options_from_flags(Options, "-size=7", FLAGS) == Options(size=7)
    for _ in range(2):
        with pytest.raises(OptionsError, match="size"):
            options_from_flags(Options, "-size=11", FLAGS)


def test_describe_flags_is_plain_data() -> None:
    described = describe_flags(FLAGS)
    assert described[0]["name"] == "size" and described[0]["takes_number"] is True
    assert described[1] == {
        "name": "capture",
        "field": "capture",
        "value": True,
        "takes_number": False,
        "minimum": None,
        "maximum": None,
        "special": [],
        "help": "",
        "names": [],
    }


def test_swap_is_legal_only_as_the_second_move_when_enabled() -> None:
    assert pie.can_swap(1, pie=True)
    assert not pie.can_swap(0, pie=True)
    assert not pie.can_swap(2, pie=True)
    assert not pie.can_swap(1, pie=False)
    assert pie.is_swap_text(" SWAP ")
    assert pie.is_swap(pie.SWAP) and not pie.is_swap("swap")
    assert str(pie.SWAP) == "swap"


def test_find_game_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        find_game("chess")


def test_describe_flags_gives_the_words_for_special_numbers() -> None:
    (tiles,) = [f for f in describe_flags(find_game("che").FLAGS) if f["name"] == "num_tiles"]
    assert tiles["names"] == [[-1, "unlimited"]] and -1 in tiles["special"]


@pytest.mark.parametrize("name", ["ankor", "boche", "che", "marque", "osbox"])
def test_options_built_directly_are_checked_as_their_flags_are(name: str) -> None:
    """A bot, a test or a stored record may build Options without flag text: every number
    outside its flag's range and every unknown choice is refused all the same."""
    game = find_game(name)
    defaults = game.Options()
    tried = 0
    for flag in game.FLAGS:
        if flag.takes_number and flag.maximum is not None:
            too_big = flag.maximum + 1
            while too_big in flag.special:  # Che's -num_tiles=999 means unlimited
                too_big += 1
            with pytest.raises(OptionsError, match=f"-{flag.name}={too_big} is out"):
                game.Options(**{flag.field: too_big})
            tried += 1
        elif type(flag.value) is str:  # an enum field refuses a string by its type
            with pytest.raises(OptionsError, match="is unknown"):
                game.Options(**{flag.field: "no such choice"})
            tried += 1
        if not isinstance(flag.value, bool):
            # each flag's own value is accepted as its text would be
            value = flag.maximum if flag.takes_number else flag.value
            if value is not None and value != getattr(defaults, flag.field):
                try:
                    built = game.Options(**{flag.field: value})
                except OptionsError as error:  # another rule: -num_free needs tile movement
                    assert "out of range" not in str(error) and "unknown" not in str(error)
                else:
                    assert getattr(built, flag.field) == value
    assert tried > 0
