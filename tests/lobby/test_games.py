"""Live and finished games as values, move records as text, and replay through the rules."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from lobby import games
from lobby.errors import BadRecordError, UnknownGameError
from lobby.games import FinishedGame, LiveGame
from lobby.identity import Player
from rules import GAMES, find_game
from rules.api import Seat

ALICE = Player(id="u:alice", name="alice", guest=False)
BOB = Player(id="g:bob", name="Guest-BoldDie-0002", guest=True)


def playout(game: str, seed: int, plies: int = 40) -> tuple[list[str], object]:
    """A seeded random game of at most ``plies`` moves: its move texts and final state."""
    rules = find_game(game)
    rng = random.Random(seed)
    state = rules.new_game(rules.parse_options(""))
    moves: list[str] = []
    for _ in range(plies):
        legal = list(rules.legal_moves(state))
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(rules.move_text(move))
        state = rules.play(state, move)
    return moves, state


def live() -> LiveGame:
    return LiveGame(
        room_id="r1",
        game=sorted(GAMES)[0],
        options="",
        players=(ALICE, BOB),
        rated=False,
        started=5.0,
    )


def test_record_text_is_one_move_per_line_and_parses_back() -> None:
    moves = ["a:c2", "swap", "b:c1"]
    text = games.record_text(moves)
    assert text == "a:c2\nswap\nb:c1\n"
    assert games.parse_record_text(text) == moves
    assert games.record_text([]) == ""


def test_parse_record_text_skips_blank_lines_comments_and_spaces() -> None:
    text = "# osbox game\n\n  f12 \r\n# a note\na3\n"
    assert games.parse_record_text(text) == ["f12", "a3"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_replays_to_the_same_final_state(game: str) -> None:
    moves, final = playout(game, seed=11)
    rules = find_game(game)
    text = games.record_text(moves)
    replayed = games.replay(game, "", games.parse_record_text(text))
    assert rules.to_data(replayed) == rules.to_data(final)
    states = list(games.replay_states(game, "", moves))
    assert len(states) == len(moves) + 1
    assert rules.to_data(states[0]) == rules.to_data(rules.new_game(rules.parse_options("")))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_with_a_bad_move_names_it(game: str) -> None:
    moves, _ = playout(game, seed=3, plies=2)
    with pytest.raises(BadRecordError, match=r"move 3 \('zz99zz'\)"):
        games.replay(game, "", [*moves, "zz99zz"])


def test_replay_refuses_an_unknown_game_and_bad_options() -> None:
    with pytest.raises(UnknownGameError):
        games.replay("chess", "", [])
    with pytest.raises(BadRecordError, match="options"):
        games.replay(sorted(GAMES)[0], "-nonsense", [])


def test_seat_holders_exchange_on_each_swap() -> None:
    assert games.seat_holders((ALICE, BOB), ["a", "b"]) == (ALICE, BOB)
    assert games.seat_holders((ALICE, BOB), ["a", "SWAP", "b"]) == (BOB, ALICE)
    assert games.seat_holders((ALICE, BOB), ["a", "swap", "swap"]) == (ALICE, BOB)


def test_finish_works_back_the_starting_seats_from_the_swaps() -> None:
    after_swap = replace(live(), move_number=3, players=(BOB, ALICE))
    done = games.finish(after_swap, ["a", "swap", "b"], Seat.FIRST, "connected", now=9.0)
    assert done.players == (ALICE, BOB)
    assert done.winner_player == BOB
    assert done.finished == 9.0 and done.started == 5.0
    no_swap = games.finish(live(), ["a", "b"], Seat.FIRST, "connected", now=9.0)
    assert no_swap.winner_player == ALICE


def test_an_aborted_or_drawn_game_has_no_winner() -> None:
    done = games.finish(live(), [], None, "aborted", now=6.0)
    assert done.winner is None and done.winner_player is None


def test_game_values_round_trip_through_plain_data() -> None:
    value = live()
    assert LiveGame.from_data(value.to_data()) == value
    done = games.finish(value, ["a", "swap"], Seat.SECOND, "resigned", now=7.0)
    assert FinishedGame.from_data(done.to_data()) == done
    assert done.to_data()["record"] == ["a", "swap"]
    with pytest.raises(ValueError):
        FinishedGame.from_data({"room_id": "r"})
    with pytest.raises(ValueError):
        LiveGame.from_data({"players": []})
