"""Live and finished games as values, move records as text, and replay through the rules."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from lobby import games
from lobby.games import FinishedGame, LiveGame, LiveLine
from lobby.identity import Player
from protocol.errors import BadRecordError, UnknownGameError
from rules import GAMES, find_game
from rules.api import Seat
from rules.record import Record, parse_record_text, record_text

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


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_replays_to_the_same_final_state(game: str) -> None:
    moves, final = playout(game, seed=11)
    rules = find_game(game)
    text = record_text(Record(moves=tuple(moves)))
    replayed = games.replay(game, "", parse_record_text(text).moves)
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


def test_a_live_line_reads_what_its_store_needs_off_the_data_or_refuses_it() -> None:
    value = replace(live(), version=4, waiting_for=BOB.id)
    line = LiveLine.of(value)
    assert line.data == value.to_data()
    assert (line.room_id, line.version, line.started) == ("r1", 4, 5.0)
    assert line.player_ids == (ALICE.id, BOB.id)
    # A line stored before clocks has no version, waiting player or deadline.
    older = {k: v for k, v in value.to_data().items() if k not in ("version", "deadline")}
    assert LiveLine.from_data(older).version == 0
    for broken in (
        {k: v for k, v in value.to_data().items() if k != "players"},
        {**value.to_data(), "players": [value.to_data()["players"][0]]},
        {**value.to_data(), "players": [{"name": "x"}, {"name": "y"}]},
        {**value.to_data(), "started": "soon"},
        {"room_id": "r1"},
    ):
        with pytest.raises(ValueError):
            LiveLine.from_data(broken)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_imported_record_shows_any_position_and_its_end(game: str) -> None:
    moves, final = playout(game, seed=5)
    rules = find_game(game)
    text = record_text(Record((("Game", game), ("Options", "")), tuple(moves)))
    view = games.view_record(text)
    assert view["game"] == game and view["ply"] == len(moves) and view["moves"] == moves
    assert view["data"] == rules.to_data(final)
    outcome = rules.outcome(final)
    assert (view["outcome"] is None) == (outcome is None)
    second = games.view_record(text, ply=2)
    assert second["data"] == rules.to_data(games.replay(game, "", moves[:2]))
    assert second["to_move"] == int(rules.to_move(games.replay(game, "", moves[:2])))


def test_an_imported_record_names_its_game_or_is_told_it() -> None:
    moves, _ = playout("osbox", seed=5)
    bare = record_text(Record(moves=tuple(moves)))
    with pytest.raises(BadRecordError, match="names no game"):
        games.view_record(bare)
    assert games.view_record(bare, game="Osbox")["game"] == "osbox"
    with pytest.raises(BadRecordError, match=f"has {len(moves)} moves"):
        games.view_record(bare, game="osbox", ply=len(moves) + 1)
    broken = record_text(Record((("Game", "osbox"),), (moves[0], moves[0])))
    with pytest.raises(BadRecordError, match=r"move 2 \("):
        games.view_record(broken)
    with pytest.raises(UnknownGameError):
        games.view_record(bare, game="chess")


def ended(
    players: tuple[Player, Player], winner: Seat | None, reason: str, room: str
) -> FinishedGame:
    return FinishedGame(room, "che", "", players, False, 0.0, 1.0, (), winner, reason)


def test_scores_by_opponent_count_wins_draws_and_losses_of_played_games() -> None:
    carol = Player(id="u:carol", name="carol", guest=False)
    history = [
        ended((ALICE, BOB), Seat.FIRST, "resignation", "1"),
        ended((BOB, ALICE), Seat.FIRST, "time", "2"),
        ended((ALICE, BOB), None, "agreement", "3"),
        ended((BOB, ALICE), Seat.SECOND, "resignation", "4"),
        ended((ALICE, BOB), None, "aborted", "5"),
        ended((carol, ALICE), None, "idle", "6"),
        ended((carol, ALICE), Seat.FIRST, "connected the sides", "7"),
        ended((carol, BOB), Seat.FIRST, "resignation", "8"),
    ]
    scores = games.scores_by_opponent(history, ALICE.id)
    assert [(s.opponent, s.won, s.drawn, s.lost) for s in scores] == [
        (BOB, 2, 1, 1),
        (carol, 0, 0, 1),
    ]
    assert scores[1].to_data() == {
        "opponent": {"id": "u:carol", "name": "carol", "guest": False},
        "won": 0,
        "drawn": 0,
        "lost": 1,
    }
