"""The chat's rules: who reads and writes which chat, and what a line may hold."""

from __future__ import annotations

import pytest

from protocol.errors import BadRequestError, ChatClosedError, NotAPlayerError
from protocol.messages import MAX_CHAT_LENGTH, ChatChannel, Role
from server.chat import ChatLine, check_access, clean_text, readers


def test_a_spectator_never_reads_or_writes_the_players_chat() -> None:
    for over in (False, True):
        with pytest.raises(NotAPlayerError):
            check_access(Role.SPECTATOR, over, ChatChannel.PLAYERS)


def test_players_join_the_spectators_chat_only_once_the_game_is_over() -> None:
    with pytest.raises(ChatClosedError):
        check_access(Role.PLAYER, False, ChatChannel.SPECTATORS)
    check_access(Role.PLAYER, True, ChatChannel.SPECTATORS)
    check_access(Role.PLAYER, False, ChatChannel.PLAYERS)
    check_access(Role.SPECTATOR, False, ChatChannel.SPECTATORS)


def test_readers_of_each_chat() -> None:
    assert readers(ChatChannel.PLAYERS, over=False) == (True, False)
    assert readers(ChatChannel.PLAYERS, over=True) == (True, False)
    assert readers(ChatChannel.SPECTATORS, over=False) == (False, True)
    assert readers(ChatChannel.SPECTATORS, over=True) == (True, True)


def test_clean_text_drops_control_characters_and_surrounding_spaces() -> None:
    assert clean_text("  good\x00 game\u200b \n") == "good game"


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "x" * (MAX_CHAT_LENGTH + 1)])
def test_clean_text_refuses_empty_or_long_lines(text: str) -> None:
    with pytest.raises(BadRequestError):
        clean_text(text)


def test_a_line_of_the_longest_length_is_kept() -> None:
    assert clean_text("é" * MAX_CHAT_LENGTH) == "é" * MAX_CHAT_LENGTH


def test_a_line_round_trips_through_plain_data() -> None:
    line = ChatLine("ab12", "g:1", "Ann", "hello", 1795000000.5)
    assert ChatLine.from_data(line.to_data()) == line
