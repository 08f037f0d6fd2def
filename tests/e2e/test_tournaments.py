"""Tournaments end to end, over real HTTP, websockets and the real Redis: events created,
joined, started by the scheduler step, every round's games played in ordinary rooms by
scripted clients, results recorded from the rooms, rounds paired, final standings; two
processes racing to start an event; every refusal coded. The scheduler's clock is injected
(no waiting for real time)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis

from client import Client
from lobby.identity import Player, new_guest
from lobby.store import ratings as rating_store
from protocol.errors import ErrorCode, TournamentError, error_code
from server.redis import store
from server.redis.embedded_redis import free_port
from server.tournament_service import TournamentService
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, ServerProcess, start_server, token_for

START = 60.0
"""Seconds after creation that the test events start."""


@dataclass
class Field:
    """The server's scheduler under a test clock, and the players with their sockets."""

    server: RunningServer
    service: TournamentService
    now: list[float]
    players: dict[str, tuple[Player, Client, str]] = field(default_factory=dict)
    """Player id to (player, connected client, token)."""

    def advance(self, seconds: float) -> None:
        self.now[0] += seconds


def scheduler(server: RunningServer, now: list[float]) -> TournamentService:
    app: Any = server.server.config.app
    service: TournamentService = app.state.runtime.tournaments
    service.clock = lambda: now[0]
    return service


@pytest.fixture
async def field_of(app_server: RunningServer) -> AsyncIterator[Field]:
    now = [time.time()]
    result = Field(app_server, scheduler(app_server, now), now)
    yield result
    for _, client, _ in result.players.values():
        await client.close()


def http(url: str, body: dict[str, Any] | None, token: str) -> tuple[int, Any]:
    """GET (or POST ``body`` as JSON, as the bearer of ``token``): the status and the JSON."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, raw = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read().decode()
    return status, json.loads(raw)


async def api(
    server: RunningServer, path: str, body: dict[str, Any] | None = None, token: str = ""
) -> tuple[int, Any]:
    return await asyncio.to_thread(http, f"{server.base_url}{path}", body, token)


async def enrol(f: Field, count: int, prefix: str) -> list[str]:
    """Register ``count`` players and connect each; their ids in registration order."""
    ids = []
    for n in range(count):
        body = {"name": f"{prefix}{n}", "password": "correct horse"}
        status, data = await api(f.server, "/api/register", body)
        assert status == 200, data
        player = Player(data["player"]["id"], data["player"]["name"], data["player"]["guest"])
        client = await Client.connect(f.server.ws_url, data["token"])
        f.players[player.id] = (player, client, data["token"])
        ids.append(player.id)
    return ids


async def create(f: Field, token: str, **settings: Any) -> dict[str, Any]:
    body = {"game": "tictactoe", "starts_at": f.now[0] + START, **settings}
    status, data = await api(f.server, "/api/tournaments", body, token)
    assert status == 200, data
    return data


async def join_all(f: Field, tournament_id: str, ids: list[str]) -> None:
    for player_id in ids:
        status, data = await api(
            f.server, f"/api/tournaments/{tournament_id}/join", {}, f.players[player_id][2]
        )
        assert status == 200, data


async def details(f: Field, tournament_id: str) -> dict[str, Any]:
    status, data = await api(f.server, f"/api/tournaments/{tournament_id}")
    assert status == 200, data
    return data


async def play_round(f: Field, data: dict[str, Any], loser: Any) -> dict[str, float]:
    """Play every open game of the current round: ``loser(game)`` is "first", "second" or
    "draw"; returns the points each player made. Waits for the results to be recorded."""
    points: Counter[str] = Counter()
    for game in data["games"]:
        if game["round"] != data["round"] or game["score"] is not None or game["room"] is None:
            continue
        first, second = game["first"], game["second"]
        how = loser(game)
        a, b = f.players[first][1], f.players[second][1]
        await a.join(game["room"])
        await b.join(game["room"])
        if how == "draw":
            version = await a.draw(game["room"], "offer")
            await b.wait_version(game["room"], version)
            await b.draw(game["room"], "accept")
            points[first] += 0.5
            points[second] += 0.5
        else:
            resigner = a if how == "first" else b
            await resigner.resign(game["room"])
            points[second if how == "first" else first] += 1
        await a.leave(game["room"])
        await b.leave(game["room"])
    await f.service.wait_idle()
    return dict(points)


async def test_swiss_of_seven_players_three_rounds_to_final_standings(
    field_of: Field, redis_client: aioredis.Redis
) -> None:
    f = field_of
    ids = await enrol(f, 7, "swiss")
    token = f.players[ids[0]][2]
    created = await create(
        f, token, format="swiss", rounds=3, max_players=8, rated=True, name="Seven"
    )
    tid = created["id"]
    assert created["status"] == "created"
    await join_all(f, tid, ids)
    _, listing = await api(f.server, "/api/tournaments")
    assert [t["id"] for t in listing["created"]] == [tid]

    await f.service.step()  # before its time: nothing happens
    assert (await details(f, tid))["status"] == "created"
    f.advance(START)
    await f.service.step()
    data = await details(f, tid)
    assert data["status"] == "running" and data["round"] == 1

    expected: Counter[str] = Counter()
    for round_number in (1, 2, 3):
        assert data["round"] == round_number
        games = [g for g in data["games"] if g["round"] == round_number]
        assert len(games) == 4  # three boards and a bye
        byes = [g for g in games if g["room"] is None]
        assert len(byes) == 1
        expected[byes[0]["first"]] += 1
        for game in games:
            if game["room"] is not None:
                room = await store.load_room(redis_client, game["room"])
                assert room is not None
                assert [s.id for s in room.room.seats] == [game["first"], game["second"]]
        # The first player loses on odd boards, the second on even ones.
        made = await play_round(f, data, lambda g: "first" if g["board"] % 2 else "second")
        expected.update(made)
        data = await details(f, tid)  # paired by the last result, no step needed

    assert data["status"] == "finished"
    played = [g for g in data["games"] if g["room"] is not None]
    pairs = [frozenset((g["first"], g["second"])) for g in played]
    assert len(pairs) == len(set(pairs)) == 9  # no rematch
    bye_players = [g["first"] for g in data["games"] if g["room"] is None]
    assert len(bye_players) == len(set(bye_players)) == 3  # a bye at most once each
    standings = data["standings"]
    assert {row["id"]: row["score"] for row in standings} == {p: expected[p] for p in ids}
    scores = [row["score"] for row in standings]
    assert scores == sorted(scores, reverse=True)
    assert [row["rank"] for row in standings] == list(range(1, 8))
    assert all("buchholz" in " ".join(row["tiebreaks"]).lower() for row in standings)
    crosstable = {row["id"]: row for row in data["crosstable"]["players"]}
    assert all(len(crosstable[p]["games"]) == 3 for p in ids)
    # Rated: a player who won every game played is above 1500 now, a player who lost all
    # their boards below (once the lobby's outbox has followed the last rooms).
    app: Any = f.server.server.config.app
    await asyncio.wait_for(app.state.runtime.lobby.wait_drained(), 10)
    winners, losers = [], []
    for player_id in ids:
        results = [
            g["score"] if g["first"] == player_id else 1 - g["score"]
            for g in played
            if player_id in (g["first"], g["second"])
        ]
        rating = (await rating_store.get_rating(redis_client, "tictactoe", player_id)).rating
        if all(r == 1 for r in results):
            assert rating > 1500
            winners.append(player_id)
        elif all(r == 0 for r in results):
            assert rating < 1500
            losers.append(player_id)
    assert winners and losers
    _, listing = await api(f.server, "/api/tournaments")
    assert [t["id"] for t in listing["finished"]] == [tid]
    assert listing["running"] == []


async def test_knockout_of_five_with_a_drawn_game_replayed(
    field_of: Field, redis_client: aioredis.Redis
) -> None:
    f = field_of
    ids = await enrol(f, 5, "ko")
    created = await create(f, f.players[ids[0]][2], format="knockout", max_players=8, rated=False)
    tid = created["id"]
    await join_all(f, tid, ids)
    f.advance(START)
    await f.service.step()
    data = await details(f, tid)
    assert data["rounds"] == 3
    first_round = [g for g in data["games"] if g["round"] == 1]
    assert sum(g["room"] is None for g in first_round) == 3  # byes to the top three seeds
    (match,) = [g for g in first_round if g["room"] is not None]
    await play_round(f, data, lambda g: "draw")
    data = await details(f, tid)
    assert data["round"] == 1
    (replay,) = [g for g in data["games"] if g["replay"] == 1]
    assert (replay["first"], replay["second"]) == (match["second"], match["first"])
    await play_round(f, data, lambda g: "second")  # the replay's first seat wins
    winners = {replay["first"]}
    data = await details(f, tid)
    while data["status"] == "running":
        current = [g for g in data["games"] if g["round"] == data["round"]]
        assert len(current) == 2 ** (3 - data["round"])
        for g in current:
            winners.add(g["first"])
        await play_round(f, data, lambda g: "second")
        data = await details(f, tid)
    assert data["status"] == "finished" and data["round"] == 3
    (final,) = [g for g in data["games"] if g["round"] == 3]
    champion = final["first"]
    assert data["standings"][0]["id"] == champion
    assert replay["first"] in winners
    assert {row["id"] for row in data["standings"]} == set(ids)
    for player_id in ids:  # a casual event changes no rating
        rating = await rating_store.get_rating(redis_client, "tictactoe", player_id)
        assert rating.rating == 1500


async def test_two_processes_racing_start_one_set_of_games(
    redis_server: RedisServer, redis_client: aioredis.Redis, field_of: Field
) -> None:
    f = field_of
    other = await start_server(redis_server.url)
    try:
        other_service = scheduler(other, f.now)
        ids = await enrol(f, 6, "race")
        created = await create(f, f.players[ids[0]][2], format="swiss", rounds=2, max_players=6)
        tid = created["id"]
        await join_all(f, tid, ids)
        f.advance(START)
        await asyncio.gather(f.service.step(), other_service.step(), f.service.step())
        data = await details(f, tid)
        assert data["round"] == 1
        rooms = {k.decode() async for k in redis_client.scan_iter(f"room:{{{tid}.*}}:room")}
        assert len(rooms) == 3 == len(data["games"])
        # The round's results arrive on both processes; round 2 is paired once.
        made = await play_round(f, data, lambda g: "first")
        assert sum(made.values()) == 3
        await asyncio.gather(f.service.step(), other_service.step())
        await other_service.wait_idle()
        data = await details(f, tid)
        assert data["round"] == 2 and len(data["games"]) == 6
        rooms = {k.decode() async for k in redis_client.scan_iter(f"room:{{{tid}.*}}:room")}
        assert len(rooms) == 6
    finally:
        await other.stop()


async def test_refusals_are_coded_and_change_nothing(field_of: Field) -> None:
    f = field_of
    ids = await enrol(f, 4, "bad")
    token = f.players[ids[0]][2]
    guest_token = token_for(new_guest())

    async def refused(path: str, body: dict[str, Any], token: str, code: str) -> None:
        status, data = await api(f.server, path, body, token)
        assert status >= 400 and data["code"] == code, data

    base = {"game": "tictactoe", "starts_at": f.now[0] + START}
    impossible = [
        {**base, "format": "swiss", "rounds": 9, "max_players": 4},
        {**base, "format": "knockout", "max_players": 1},
        {**base, "format": "arena", "max_players": 6},
        {**base, "format": "round-robin", "max_players": 4, "rounds": 3},
        {**base, "game": "nosuchgame", "format": "knockout", "max_players": 4},
        {**base, "format": "knockout", "max_players": 4, "starts_at": f.now[0] - 10},
    ]
    for body in impossible:
        await refused("/api/tournaments", body, token, "impossible_settings")
    malformed = [
        {**base, "format": "ladder", "max_players": 4},
        {**base, "format": "swiss", "rounds": "three", "max_players": 4},
    ]
    for body in malformed:
        await refused("/api/tournaments", body, token, "bad_request")
    await refused(
        "/api/tournaments",
        {**base, "format": "knockout", "max_players": 4},
        guest_token,
        "guest_creator",
    )
    await refused(
        "/api/tournaments", {**base, "format": "knockout", "max_players": 4}, "", "bad_credentials"
    )
    _, listing = await api(f.server, "/api/tournaments")
    assert listing == {"created": [], "running": [], "finished": []}

    rated = await create(f, token, format="knockout", max_players=2, rated=True)
    tid = rated["id"]
    join = f"/api/tournaments/{tid}/join"
    await join_all(f, tid, ids[:1])
    await refused(join, {}, f.players[ids[0]][2], "already_joined")
    await refused(join, {}, guest_token, "guest_in_rated")
    await refused(f"/api/tournaments/{tid}/withdraw", {}, f.players[ids[1]][2], "not_joined")
    await join_all(f, tid, ids[1:2])
    await refused(join, {}, f.players[ids[2]][2], "full")
    await refused("/api/tournaments/tnothing/join", {}, token, "unknown_tournament")
    before = await details(f, tid)
    assert [e["id"] for e in before["entrants"]] == ids[:2]

    casual = await create(f, token, format="swiss", rounds=1, max_players=4, rated=False)
    cid = casual["id"]
    await join_all(f, cid, ids[:2])
    status, _ = await api(f.server, f"/api/tournaments/{cid}/join", {}, guest_token)
    assert status == 200  # a guest may join a casual event
    status, left = await api(f.server, f"/api/tournaments/{cid}/withdraw", {}, guest_token)
    assert status == 200 and len(left["entrants"]) == 2
    f.advance(START)
    await f.service.step()
    assert (await details(f, cid))["status"] == "running"
    await refused(f"/api/tournaments/{cid}/join", {}, f.players[ids[3]][2], "started")
    assert len((await details(f, cid))["entrants"]) == 2


def test_every_tournament_refusal_has_a_wire_code() -> None:
    for code in ErrorCode:
        assert error_code(TournamentError(code, "refused")) is code


def arena_points_by_hand(results: list[float]) -> int:
    """Win 2, draw 1, loss 0, doubled after two wins in a row until a game that is no win."""
    points, streak = 0, 0
    for r in results:
        points += (2 if r == 1 else 1 if r == 0.5 else 0) * (2 if streak >= 2 else 1)
        streak = streak + 1 if r == 1 else 0
    return points


async def test_arena_of_six_for_a_short_window(field_of: Field) -> None:
    f = field_of
    ids = await enrol(f, 6, "arena")
    created = await create(
        f, f.players[ids[0]][2], format="arena", duration=600.0, max_players=6, rated=False
    )
    tid = created["id"]
    await join_all(f, tid, ids)
    f.advance(START)
    await f.service.step()
    data = await details(f, tid)
    assert data["status"] == "running" and len(data["games"]) == 3
    for _ in range(3):  # three waves inside the window; the lower seed's opponent wins
        await play_round(f, data, lambda g: "first" if g["board"] % 3 else "second")
        data = await details(f, tid)
        busy = {p for g in data["games"] if g["score"] is None for p in (g["first"], g["second"])}
        waiting = set(ids) - busy
        # Paired again at once, unless the only one waiting with you is your last opponent.
        assert len(waiting) in (0, 2)
        if waiting:
            last = [g for g in data["games"] if g["score"] is not None][-1]
            assert waiting == {last["first"], last["second"]}
    f.advance(600)  # the window closes with games running: they still count
    await play_round(f, data, lambda g: "draw")
    await f.service.step()
    data = await details(f, tid)
    assert data["status"] == "finished"
    games = data["games"]
    assert len(games) >= 9 and all(g["score"] is not None for g in games)
    for player in ids:
        mine = [g for g in games if player in (g["first"], g["second"])]
        assert len(mine) >= 2  # three waves add at least two games each
        opponents = [g["second"] if g["first"] == player else g["first"] for g in mine]
        assert all(a != b for a, b in zip(opponents, opponents[1:], strict=False))
    results = {
        p: [
            g["score"] if g["first"] == p else 1 - g["score"]
            for g in games
            if p in (g["first"], g["second"])
        ]
        for p in ids
    }
    standings = data["standings"]
    assert {row["id"]: row["score"] for row in standings} == {
        p: arena_points_by_hand(results[p]) for p in ids
    }
    points = [row["score"] for row in standings]
    assert points == sorted(points, reverse=True)


async def test_a_server_killed_mid_round_and_the_event_finishing_on_another(
    field_of: Field, redis_server: RedisServer, subprocess_env: dict[str, str]
) -> None:
    f = field_of
    doomed = ServerProcess(
        {**subprocess_env, "REDIS_URL": redis_server.url, "TOURNAMENT_STEP_SECONDS": "3600"},
        free_port(),
    )
    await doomed.start()
    try:
        ids = await enrol(f, 4, "kill")
        created = await create(f, f.players[ids[0]][2], format="swiss", rounds=2, max_players=4)
        tid = created["id"]
        await join_all(f, tid, ids)
        f.advance(START)
        await f.service.step()
        data = await details(f, tid)
        first_game, second_game = [g for g in data["games"] if g["round"] == 1]
        on_doomed = {p: await Client.connect(doomed.ws_url, f.players[p][2]) for p in ids}
        a, b = on_doomed[first_game["first"]], on_doomed[first_game["second"]]
        await a.join(first_game["room"])
        await b.join(first_game["room"])
        await a.resign(first_game["room"])  # committed on the doomed process
        await on_doomed[second_game["first"]].join(second_game["room"])
        doomed.kill()  # mid-round: one game over, one being played
        for client in on_doomed.values():
            await client.close()

        await f.service.step()  # any result the dead process did not record is read here
        data = await details(f, tid)
        assert next(g for g in data["games"] if g["id"] == first_game["id"])["score"] == 0.0
        assert data["round"] == 1
        await play_round(f, data, lambda g: "second")
        data = await details(f, tid)
        assert data["round"] == 2
        await play_round(f, data, lambda g: "second")
        data = await details(f, tid)
        assert data["status"] == "finished"
        assert [g["score"] for g in data["games"]] == [0.0, 1.0, 1.0, 1.0]
        assert sorted(row["score"] for row in data["standings"]) == [0, 1, 1, 2]
    finally:
        doomed.kill()


async def test_a_result_missed_by_its_process_is_recorded_by_the_next_step(
    field_of: Field,
) -> None:
    f = field_of
    ids = await enrol(f, 2, "miss")
    created = await create(f, f.players[ids[0]][2], format="knockout", max_players=2)
    tid = created["id"]
    await join_all(f, tid, ids)
    f.advance(START)
    await f.service.step()
    app: Any = f.server.server.config.app
    rooms = app.state.runtime.service
    hook = rooms.on_commit
    rooms.on_commit = app.state.runtime.lobby.room_changed  # as if it died after the commit
    try:
        data = await details(f, tid)
        await play_round(f, data, lambda g: "first")
    finally:
        rooms.on_commit = hook
    data = await details(f, tid)
    assert data["status"] == "running" and data["games"][0]["score"] is None
    await f.service.step()
    data = await details(f, tid)
    assert data["status"] == "finished" and data["games"][0]["score"] == 0.0
    assert data["standings"][0]["id"] == data["games"][0]["second"]


async def test_withdrawing_mid_event_forfeits_and_the_event_goes_on(field_of: Field) -> None:
    """The game in progress is lost (its room ended as a resignation), later rounds go on
    without the player."""
    f = field_of
    ids = await enrol(f, 4, "quit")
    created = await create(f, f.players[ids[0]][2], format="swiss", rounds=2, max_players=4)
    tid = created["id"]
    await join_all(f, tid, ids)
    f.advance(START)
    await f.service.step()
    data = await details(f, tid)
    game, other = [g for g in data["games"] if g["round"] == 1]
    quitter = game["first"]
    status, data = await api(
        f.server, f"/api/tournaments/{tid}/withdraw", {}, f.players[quitter][2]
    )
    assert status == 200, data
    forfeited = next(g for g in data["games"] if g["id"] == game["id"])
    assert forfeited["score"] == 0.0 and forfeited["forfeit"]
    room = await f.players[game["second"]][1].join(game["room"])  # nobody plays on in it
    assert room.doc is not None and room.doc["outcome"] is not None
    await play_round(f, data, lambda g: "second")
    data = await details(f, tid)
    assert data["round"] == 2
    second_round = [g for g in data["games"] if g["round"] == 2]
    assert all(quitter not in (g["first"], g["second"]) for g in second_round)
    assert sum(g["room"] is None for g in second_round) == 1  # three left: one bye
    await play_round(f, data, lambda g: "second")
    data = await details(f, tid)
    assert data["status"] == "finished"
    row = next(r for r in data["standings"] if r["id"] == quitter)
    assert row["withdrawn"] and row["score"] == 0
    await refused_withdraw(f, tid, quitter)


async def refused_withdraw(f: Field, tid: str, player: str) -> None:
    status, data = await api(f.server, f"/api/tournaments/{tid}/withdraw", {}, f.players[player][2])
    assert status == 409 and data["code"] == "finished", data
