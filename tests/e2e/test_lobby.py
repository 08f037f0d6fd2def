"""The lobby end to end, over real websockets and the real Redis: accounts, challenges to rooms,
the live lists, watching, in-game actions, rematch, history and records, and every refusal."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
import redis.asyncio as aioredis

from bots.accounts import ensure_accounts as ensure_bot_accounts
from client import Client, ServerReplyError
from lobby import bot_strength
from lobby.bot_strength import read_strength
from lobby.games import replay
from lobby.identity import Player, new_guest
from lobby.store import challenges as challenge_store
from lobby.store import ratings as rating_store
from rules import find_game
from rules.record import parse_record_text
from server.redis.embedded_redis import free_port
from tests.conftest import RedisServer
from tests.e2e.conftest import (
    RunningServer,
    ServerProcess,
    connect,
    start_server,
    token_for,
)


def http(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """GET (or POST ``body`` as JSON); the status and the decoded answer (text if not JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, raw = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read().decode()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


async def register(server: RunningServer, name: str) -> tuple[Player, Client]:
    status, body = await asyncio.to_thread(
        http, f"{server.base_url}/api/register", {"name": name, "password": "correct horse"}
    )
    assert status == 200, body
    player = body["player"]
    client = await Client.connect(server.ws_url, body["token"])
    return Player(player["id"], player["name"], player["guest"]), client


async def in_lobby(server: RunningServer, player: Player | None = None) -> Client:
    client = await connect(server, player or new_guest())
    await client.follow_lobby()
    return client


async def refused(code: str, request: Any) -> ServerReplyError:
    with pytest.raises(ServerReplyError) as caught:
        await request
    assert caught.value.code == code, caught.value
    return caught.value


def ids(challenges: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for c in challenges]


def live(lobby: dict[str, Any], room: str) -> dict[str, Any] | None:
    return next((g for g in lobby["live"] if g["room_id"] == room), None)


@pytest.fixture
async def closing() -> AsyncIterator[list[Client]]:
    clients: list[Client] = []
    yield clients
    for client in clients:
        await client.close()


async def start_game(
    server: RunningServer, closing: list[Client], game: str = "tictactoe", options: str = ""
) -> tuple[str, Client, Client]:
    """A direct challenge made and accepted between two guests; both joined; (room, 1st, 2nd)."""
    ann, bob = await in_lobby(server), await in_lobby(server)
    closing += [ann, bob]
    assert bob.player is not None
    made = await ann.challenge(game, options, colour="mine", target=bob.player["name"])
    room = await bob.accept(made["id"])
    await ann.join(room)
    await bob.join(room)
    return room, ann, bob


# --- challenges to rooms ---------------------------------------------------------------------


async def test_a_direct_challenge_from_an_account_to_a_guest_becomes_a_room(
    app_server: RunningServer, closing: list[Client]
) -> None:
    guest = await in_lobby(app_server)
    alice, alice_client = await register(app_server, "alice")
    closing += [guest, alice_client]
    await alice_client.follow_lobby()
    assert guest.player is not None
    made = await alice_client.challenge(
        "tictactoe", "-size=4", colour="mine", target=guest.player["name"]
    )
    assert made["options"] == "-size=4" and made["target"]["id"] == guest.player["id"]
    await guest.wait_lobby(lambda lobby: ids(lobby["incoming"]) == [made["id"]])
    assert made["id"] not in ids(guest.lobby["open"] if guest.lobby else [])
    room = await guest.accept(made["id"])
    assert room == made["id"]
    # The challenger learns from the lobby that its challenge became a room.
    await alice_client.wait_lobby(lambda lobby: not lobby["outgoing"])
    accepted = [
        e["challenge"]
        for e in alice_client.lobby_events
        if e["t"] == "challenge" and e["challenge"]["status"] == "accepted"
    ]
    assert [c["id"] for c in accepted] == [room]
    view = await alice_client.join(room)
    assert view.role == "player" and view.doc is not None
    assert [s["id"] for s in view.doc["seats"]] == [alice.id, guest.player["id"]]
    await guest.join(room)
    await alice_client.move(room, "b2")
    await guest.wait_for(room, lambda v: v.doc is not None and v.doc["record"] == ["b2"])
    mine = await guest.wait_lobby(lambda lobby: [g["move_number"] for g in lobby["mine"]] == [1])
    assert mine["mine"][0]["room_id"] == room


async def test_an_open_challenge_is_seen_by_everyone_and_accepted_by_one(
    app_server: RunningServer, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    bob, bob_client = await register(app_server, "bobby")
    watcher = await in_lobby(app_server)
    closing += [ann, bob_client, watcher]
    await bob_client.follow_lobby()
    made = await ann.challenge("tictactoe", colour="theirs")
    for client in (bob_client, watcher, ann):
        await client.wait_lobby(lambda lobby: ids(lobby["open"]) == [made["id"]])
    room = await bob_client.accept(made["id"])
    for client in (bob_client, watcher, ann):
        await client.wait_lobby(lambda lobby: not lobby["open"] and live(lobby, room) is not None)
    view = await bob_client.join(room)
    assert view.doc is not None and view.doc["seats"][0]["id"] == bob.id  # "theirs": bob first


async def test_two_simultaneous_accepts_create_one_game(
    app_server: RunningServer, redis_server: RedisServer, closing: list[Client]
) -> None:
    other = await start_server(redis_server.url)
    try:
        ann = await in_lobby(app_server)
        bob, cat = await connect(app_server), await connect(other)
        closing += [ann, bob, cat]
        made = await ann.challenge("tictactoe")
        results = await asyncio.gather(
            bob.accept(made["id"]), cat.accept(made["id"]), return_exceptions=True
        )
        rooms = [r for r in results if isinstance(r, str)]
        errors = [r for r in results if isinstance(r, ServerReplyError)]
        assert rooms == [made["id"]] and [e.code for e in errors] == ["already_accepted"]
        view = await ann.join(made["id"])
        assert view.doc is not None and view.doc["version"] == 0
        winner = bob if isinstance(results[0], str) else cat
        assert winner.player is not None
        assert winner.player["id"] in [s["id"] for s in view.doc["seats"]]
        lobby = await ann.wait_lobby(lambda lobby: live(lobby, made["id"]) is not None)
        assert [g["room_id"] for g in lobby["live"]] == [made["id"]]
    finally:
        await other.stop()


async def test_a_room_lost_between_accept_and_creation_is_made_on_join(
    app_server: RunningServer, redis_client: aioredis.Redis, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    bob = await connect(app_server)
    closing += [ann, bob]
    made = await ann.challenge("tictactoe", colour="mine")
    assert bob.player is not None
    player = Player(bob.player["id"], bob.player["name"], True)
    # The accept is stored, as if the accepter's process died before creating the room.
    await challenge_store.accept_challenge(redis_client, made["id"], player, time.time())
    view = await ann.join(made["id"])
    assert view.doc is not None and view.doc["seats"][1]["id"] == player.id


# --- the swap offer --------------------------------------------------------------------------


def first_legal(doc: dict[str, Any]) -> str:
    rules = find_game(doc["game"])
    state = rules.from_data(doc["data"])
    return next(
        rules.move_text(m) for m in rules.legal_moves(state) if rules.move_text(m) != "swap"
    )


@pytest.mark.parametrize("taken", [True, False])
async def test_the_swap_offer_in_boche(
    app_server: RunningServer, closing: list[Client], taken: bool
) -> None:
    room, ann, bob = await start_game(app_server, closing, game="boche")
    spectator = await connect(app_server)
    closing.append(spectator)
    await spectator.join(room)
    view = ann.rooms[room]
    assert view.doc is not None
    opening = first_legal(view.doc)
    await ann.move(room, opening)
    view = await bob.wait_for(room, lambda v: v.doc is not None and len(v.doc["record"]) == 1)
    assert view.doc is not None
    position, legal = await bob.seat_moves(room, 1)
    assert position == view.doc["position_version"] and "swap" in legal
    reply = first_legal(view.doc) if not taken else "swap"
    version = await bob.move(room, reply)
    seen = await spectator.wait_version(room, version)
    assert seen.doc is not None and ann.player is not None and bob.player is not None
    seats = [s["id"] for s in seen.doc["seats"]]
    if taken:
        assert seen.doc["record"] == [opening, "swap"]
        assert seats == [bob.player["id"], ann.player["id"]]
        assert seen.doc["to_move"] == 1  # the second colour, now ann's, moves
    else:
        assert seen.doc["record"] == [opening, reply]
        assert seats == [ann.player["id"], bob.player["id"]]
    status, record = await asyncio.to_thread(
        http, f"{app_server.base_url}/api/rooms/{room}/record.json"
    )
    assert status == 200
    assert [s["id"] for s in record["seats"]] == [ann.player["id"], bob.player["id"]]
    assert [s["id"] for s in record["seats_now"]] == seats
    assert record["moves"] == seen.doc["record"]


# --- watching --------------------------------------------------------------------------------


async def test_a_spectator_sees_the_live_list_change_and_watches(
    app_server: RunningServer, closing: list[Client]
) -> None:
    spectator = await in_lobby(app_server)
    closing.append(spectator)
    room, ann, bob = await start_game(app_server, closing)
    await spectator.wait_lobby(lambda lobby: live(lobby, room) is not None)
    await ann.move(room, "a1")
    await spectator.wait_lobby(lambda lobby: (live(lobby, room) or {}).get("move_number") == 1)
    view = await spectator.join(room)
    assert view.role == "spectator" and view.doc is not None and view.doc["record"] == ["a1"]
    await spectator.wait_lobby(lambda lobby: (live(lobby, room) or {}).get("spectators") == 1)
    await bob.wait_version(room, view.version)
    await bob.resign(room)
    await spectator.wait_for(room, lambda v: v.doc is not None and v.doc["outcome"] is not None)
    await spectator.wait_lobby(lambda lobby: live(lobby, room) is None)
    assert any(
        e["t"] == "finished" and e["game"]["room_id"] == room for e in spectator.lobby_events
    )


async def test_who_is_online_follows_connections(
    app_server: RunningServer, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    closing.append(ann)
    bob = await in_lobby(app_server)
    assert bob.player is not None
    bob_id = bob.player["id"]
    await ann.wait_lobby(lambda lobby: bob_id in [p["player"]["id"] for p in lobby["online"]])
    await bob.close()
    await ann.wait_lobby(lambda lobby: bob_id not in [p["player"]["id"] for p in lobby["online"]])


# --- in-game actions -------------------------------------------------------------------------


async def test_resign_ends_the_game_and_rates_a_rated_one_once(
    app_server: RunningServer, redis_client: aioredis.Redis, closing: list[Client]
) -> None:
    alice, ac = await register(app_server, "alice")
    bob, bc = await register(app_server, "bobby")
    closing += [ac, bc]
    await ac.follow_lobby()
    await bc.follow_lobby()
    made = await ac.challenge("tictactoe", colour="mine", rated=True, target="bobby")
    room = await bc.accept(made["id"])
    await ac.wait_lobby(lambda lobby: live(lobby, room) is not None)  # listed
    await ac.join(room)
    await bc.join(room)
    await ac.move(room, "a1")
    await bc.wait_version(room, 1)
    await bc.resign(room)
    await ac.wait_lobby(lambda lobby: not lobby["mine"] and live(lobby, room) is None)
    status, history = await asyncio.to_thread(
        http, f"{app_server.base_url}/api/players/{alice.id}/games"
    )
    assert status == 200
    [game] = history["games"]
    assert game["room_id"] == room and game["reason"] == "resignation"
    assert game["winner"] == 0 and game["moves"] == 1
    rating = await rating_store.get_rating(redis_client, "tictactoe", alice.id)
    loser = await rating_store.get_rating(redis_client, "tictactoe", bob.id)
    assert rating.rating > 1500 > loser.rating
    entries = await rating_store.history(redis_client, "tictactoe", alice.id)
    assert len(entries) == 1
    base = app_server.base_url
    status, mine = await asyncio.to_thread(http, f"{base}/api/players/{alice.id}/ratings/tictactoe")
    assert status == 200 and len(mine["history"]) == 1 and mine["provisional"] is True
    assert mine["rating"]["rating"] == rating.rating and mine["rating"]["text"].endswith("?")
    status, board = await asyncio.to_thread(http, f"{base}/api/ratings/tictactoe")
    assert status == 200 and board["leaderboard"] == []  # one game leaves both provisional
    status, board = await asyncio.to_thread(http, f"{base}/api/ratings/tictactoe?provisional=1")
    assert status == 200 and [row["id"] for row in board["leaderboard"]] == [alice.id, bob.id]
    assert board["leaderboard"][0]["text"] == mine["rating"]["text"]
    status, computer = await asyncio.to_thread(
        http, f"{base}/api/players/{alice.id}/ratings/tictactoe?pool=computer"
    )
    assert status == 200 and computer["history"] == [] and computer["rating"]["rating"] == 1500
    status, unknown = await asyncio.to_thread(http, f"{base}/api/ratings/chess")
    assert status == 404 and unknown["code"] == "unknown_game"


async def test_abort_before_both_players_moved_and_not_after(
    app_server: RunningServer, closing: list[Client]
) -> None:
    room, ann, bob = await start_game(app_server, closing)
    await ann.move(room, "a1")
    await bob.wait_version(room, 1)
    version = await bob.abort(room)
    view = await ann.wait_version(room, version)
    assert view.doc is not None and view.doc["outcome"] == {"winner": None, "reason": "aborted"}
    later, c, d = await start_game(app_server, closing)
    await c.move(later, "a1")
    await d.wait_version(later, 1)
    await d.move(later, "b1")
    await c.wait_version(later, 2)
    await refused("cannot_abort", c.abort(later))
    assert c.rooms[later].doc is not None and c.rooms[later].doc["outcome"] is None


async def test_a_draw_offer_lapses_when_the_opponent_moves_and_can_be_accepted(
    app_server: RunningServer, closing: list[Client]
) -> None:
    room, ann, bob = await start_game(app_server, closing)
    assert ann.player is not None
    await refused("no_offer", bob.draw(room, "accept"))
    version = await ann.draw(room, "offer")
    view = await bob.wait_version(room, version)
    assert view.doc is not None and view.doc["draw_offer"] == ann.player["id"]
    await ann.move(room, "a1")  # the offerer may still move: the offer stands
    view = await bob.wait_version(room, version + 1)
    assert view.doc is not None and view.doc["draw_offer"] == ann.player["id"]
    version = await bob.move(room, "b1")  # the opponent moves instead: the offer lapses
    view = await ann.wait_version(room, version)
    assert view.doc is not None and view.doc["draw_offer"] is None
    version = await ann.draw(room, "offer")
    await bob.wait_version(room, version)
    version = await bob.draw(room, "decline")
    await ann.wait_version(room, version)
    version = await ann.draw(room, "offer")
    await bob.wait_version(room, version)
    version = await bob.draw(room, "accept")
    view = await ann.wait_version(room, version)
    assert view.doc is not None
    assert view.doc["outcome"] == {"winner": None, "reason": "agreement"}


async def test_a_rematch_needs_both_players_and_swaps_the_first_move(
    app_server: RunningServer, closing: list[Client]
) -> None:
    room, ann, bob = await start_game(app_server, closing)
    assert ann.player is not None and bob.player is not None
    await refused("game_not_over", ann.rematch(room))
    await ann.move(room, "a1")
    await bob.wait_version(room, 1)
    version = await bob.resign(room)
    await ann.wait_version(room, version)
    version = await ann.rematch(room)
    view = await bob.wait_version(room, version)
    assert view.doc is not None and view.doc["rematch"] == {
        "offers": [ann.player["id"]],
        "room": None,
    }
    version = await bob.rematch(room)
    view = await ann.wait_version(room, version)
    assert view.doc is not None
    rematch = view.doc["rematch"]["room"]
    assert rematch is not None
    again = await bob.rematch(room)  # asking again changes nothing
    assert again == version
    new = await bob.join(rematch)
    assert new.doc is not None and new.doc["game"] == "tictactoe"
    assert [s["id"] for s in new.doc["seats"]] == [bob.player["id"], ann.player["id"]]
    await ann.wait_lobby(lambda lobby: [g["room_id"] for g in lobby["mine"]] == [rematch])


# --- history ---------------------------------------------------------------------------------


async def test_a_finished_games_record_downloads_and_replays_to_its_final_state(
    app_server: RunningServer, closing: list[Client]
) -> None:
    room, ann, bob = await start_game(app_server, closing, options="-size=3")
    for mover, cell in ((ann, "a1"), (bob, "b1"), (ann, "a2"), (bob, "b2"), (ann, "a3")):
        version = await mover.move(room, cell)
        await ann.wait_version(room, version)
        await bob.wait_version(room, version)
    doc = ann.rooms[room].doc
    assert doc is not None and doc["outcome"] is not None
    status, record = await asyncio.to_thread(
        http, f"{app_server.base_url}/api/rooms/{room}/record.json"
    )
    assert status == 200 and record["moves"] == ["a1", "b1", "a2", "b2", "a3"]
    assert record["outcome"] == doc["outcome"]
    rules = find_game(record["game"])
    assert rules.to_data(replay(record["game"], record["options"], record["moves"])) == doc["data"]
    status, text = await asyncio.to_thread(
        http, f"{app_server.base_url}/api/rooms/{room}/record.txt"
    )
    written = parse_record_text(text)
    assert status == 200 and list(written.moves) == record["moves"]
    assert written.tag("Game") == "tictactoe" and written.tag("Options") == record["options"]
    assert written.tag("Result") == "1-0" and written.tag("Termination") == doc["outcome"]["reason"]
    assert written.tag("Rated") == "no" and written.tag("Date") is not None
    names = [seat["name"] for seat in doc["seats"]]
    assert [written.tag(colour.title()) for colour in doc["colours"]] == names
    # Imported again, the record shows the same end, and any position on the way.
    url = f"{app_server.base_url}/api/records"
    status, imported = await asyncio.to_thread(http, url, {"text": text})
    assert status == 200, imported
    assert imported["data"] == doc["data"] and imported["outcome"] == doc["outcome"]
    status, early = await asyncio.to_thread(http, url, {"text": text, "ply": 2})
    assert early["data"] == rules.to_data(replay("tictactoe", record["options"], ["a1", "b1"]))
    tampered = str(text).replace("\na3\n", "\nb1\n")
    status, refused = await asyncio.to_thread(http, url, {"text": tampered})
    assert status == 400 and refused["code"] == "bad_record"
    assert "move 5 ('b1')" in refused["message"]
    status, huge = await asyncio.to_thread(http, url, {"text": "a1\n" * 40_000})
    assert status == 400 and "larger than" in huge["message"]
    status, missing = await asyncio.to_thread(
        http, f"{app_server.base_url}/api/rooms/nothing-here/record.json"
    )
    assert status == 404 and missing["code"] == "unknown_room"


# --- accounts over HTTP ----------------------------------------------------------------------


async def test_accounts_register_log_in_and_are_refused_with_codes(
    app_server: RunningServer,
) -> None:
    base = app_server.base_url
    creds = {"name": "carol", "password": "long enough"}
    status, body = await asyncio.to_thread(http, f"{base}/api/register", creds)
    assert status == 200 and body["player"]["guest"] is False
    status, body = await asyncio.to_thread(http, f"{base}/api/register", creds)
    assert (status, body["code"]) == (409, "name_taken")
    status, body = await asyncio.to_thread(
        http, f"{base}/api/register", {"name": "x", "password": "long enough"}
    )
    assert (status, body["code"]) == (400, "bad_name")
    status, body = await asyncio.to_thread(http, f"{base}/api/login", creds)
    assert status == 200 and body["player"]["name"] == "carol"
    client = await Client.connect(app_server.ws_url, body["token"])
    assert client.player == body["player"]
    await client.close()
    wrong = {"name": "carol", "password": "not the one"}
    codes = [(await asyncio.to_thread(http, f"{base}/api/login", wrong)) for _ in range(6)]
    assert [c[0] for c in codes[:5]] == [401] * 5
    assert codes[5][0] == 429 and codes[5][1]["code"] == "rate_limited"
    status, body = await asyncio.to_thread(http, f"{base}/api/login", creds)
    assert status == 429  # even the right password waits while the name is locked
    status, body = await asyncio.to_thread(http, f"{base}/api/login", {"name": 3})
    assert (status, body["code"]) == (400, "bad_request")


async def test_the_games_list_carries_seats_and_option_flags(app_server: RunningServer) -> None:
    status, body = await asyncio.to_thread(http, f"{app_server.base_url}/api/games")
    assert status == 200
    games = {g["name"]: g for g in body["games"]}
    assert games["boche"]["seats"] == ["light", "dark"]
    size = next(f for f in games["boche"]["flags"] if f["name"] == "size")
    assert size["takes_number"] is True and size["maximum"] >= size["minimum"] >= 1
    strength = read_strength()
    assert {name: g["computer"] for name, g in games.items() if g["computer"]} == strength


# --- refusals --------------------------------------------------------------------------------


async def test_every_refusal_is_coded_and_changes_nothing(
    app_server: RunningServer, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    bob = await in_lobby(app_server)
    closing += [ann, bob]
    made = await ann.challenge("tictactoe")
    await bob.wait_lobby(lambda lobby: ids(lobby["open"]) == [made["id"]])
    await refused("own_challenge", ann.accept(made["id"]))
    await refused("unknown_player", ann.challenge("tictactoe", target="nobody-at-all"))
    error = await refused("bad_options", ann.challenge("boche", "-size=99"))
    assert "-size" in error.message
    await refused("unknown_game", ann.challenge("chess"))
    await refused("guest_rated", ann.challenge("tictactoe", rated=True))
    await refused("not_challenger", bob.cancel(made["id"]))
    await refused("not_target", bob.decline(made["id"]))
    await refused("unknown_challenge", bob.accept("no-such-challenge"))
    await refused("bad_request", ann.request({"t": "challenge", "game": "boche", "colour": "blue"}))
    lobby = await bob.follow_lobby()
    assert ids(lobby["open"]) == [made["id"]]  # nothing changed
    room = await bob.accept(made["id"])
    await refused("already_accepted", bob.accept(made["id"]))
    await refused("already_accepted", ann.cancel(made["id"]))
    # Actions in someone else's game.
    eve = await connect(app_server)
    closing.append(eve)
    view = await eve.join(room)
    assert view.role == "spectator"
    await refused("not_a_player", eve.abort(room))
    await refused("not_a_player", eve.draw(room, "offer"))
    await refused("not_a_player", eve.resign(room))
    await refused("not_a_player", eve.rematch(room))
    assert view.doc is not None and view.doc["outcome"] is None
    # A declined direct challenge; a cancelled one.
    assert bob.player is not None
    direct = await ann.challenge("tictactoe", target=bob.player["id"])
    assert (await bob.decline(direct["id"]))["status"] == "declined"
    await refused("challenge_closed", bob.accept(direct["id"]))
    mine = await ann.challenge("tictactoe")
    assert (await ann.cancel(mine["id"]))["status"] == "cancelled"


async def test_a_flood_of_challenges_stops_at_the_limit(
    app_server: RunningServer, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    closing.append(ann)
    for _ in range(10):
        await ann.challenge("tictactoe")
    await refused("limit_reached", ann.challenge("tictactoe"))
    lobby = await ann.follow_lobby()
    assert len(lobby["outgoing"]) == 10


async def test_a_pair_challenging_and_accepting_in_a_loop_stops_at_the_hourly_limit(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    """Two guests making and accepting challenge after challenge (2,000 rooms at 100/s, once):
    past GAMES_PER_HOUR the accept is refused and no room is made; one address meets its
    own limit on what it makes, whatever the accounts."""
    server = await start_server(redis_server.url, games_per_hour=3, made_per_address_per_hour=9)
    ann, bob = await in_lobby(server), await in_lobby(server)
    for _ in range(3):
        made = await ann.challenge("tictactoe")
        await bob.accept(made["id"])
    made = await ann.challenge("tictactoe")
    error = await refused("limit_reached", bob.accept(made["id"]))
    assert "started 3 games" in str(error)
    assert await redis_client.exists(f"room:{{{made['id']}}}:room") == 0
    others = [await in_lobby(server) for _ in range(2)]
    await others[0].challenge("tictactoe")  # the address's 8th and 9th
    await others[1].challenge("tictactoe")
    error = await refused("limit_reached", others[1].challenge("tictactoe"))
    assert "network address" in str(error)
    for client in (ann, bob, *others):
        await client.close()
    await server.stop()


async def test_a_direct_challenge_stays_between_its_two_players(
    app_server: RunningServer, closing: list[Client]
) -> None:
    ann = await in_lobby(app_server)
    bob = await in_lobby(app_server)
    eve = await in_lobby(app_server)
    closing += [ann, bob, eve]
    assert bob.player is not None
    direct = await ann.challenge("tictactoe", target=bob.player["name"])
    public = await ann.challenge("tictactoe")
    await eve.wait_lobby(lambda lobby: ids(lobby["open"]) == [public["id"]])
    seen = {e["challenge"]["id"] for e in eve.lobby_events if e["t"] == "challenge"}
    assert direct["id"] not in seen
    await bob.wait_lobby(lambda lobby: ids(lobby["incoming"]) == [direct["id"]])


async def test_an_unanswered_challenge_expires_in_the_periodic_sweep(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    ttt: ModuleType,
    closing: list[Client],
) -> None:
    quick = await start_server(redis_server.url, lobby_sweep_seconds=0.05, challenge_lifetime=0.3)
    try:
        ann = await in_lobby(quick)
        bob = await in_lobby(quick)
        closing += [ann, bob]
        made = await ann.challenge("tictactoe")
        await bob.wait_lobby(lambda lobby: ids(lobby["open"]) == [made["id"]])
        await bob.wait_lobby(lambda lobby: not lobby["open"])
        statuses = [
            e["challenge"]["status"]
            for e in bob.lobby_events
            if e["t"] == "challenge" and e["challenge"]["id"] == made["id"]
        ]
        assert statuses[-1] == "expired"
        await refused("challenge_expired", bob.accept(made["id"]))
    finally:
        await quick.stop()


async def test_simultaneous_accepts_on_two_server_programs_create_one_game(
    redis_server: RedisServer,
    redis_client: aioredis.Redis,
    subprocess_env: dict[str, str],
    ttt: ModuleType,
    closing: list[Client],
) -> None:
    """Two ``python -m server`` processes on one Redis; one accept wins, one room, one entry."""
    env = {**subprocess_env, "REDIS_URL": redis_server.url}
    processes = [ServerProcess(env, free_port()), ServerProcess(env, free_port())]
    for process in processes:
        await process.start()
    try:
        ann = await Client.connect(processes[0].ws_url, token_for(new_guest()))
        closing.append(ann)
        await ann.follow_lobby()
        rivals = [await Client.connect(p.ws_url, token_for(new_guest())) for p in processes]
        closing.extend(rivals)
        for round_number in range(5):
            made = await ann.challenge("tictactoe")
            results = await asyncio.gather(
                *(rival.accept(made["id"]) for rival in rivals), return_exceptions=True
            )
            assert sorted(type(r).__name__ for r in results) == ["ServerReplyError", "str"]
            assert made["id"] in results
            lobby = await ann.wait_lobby(
                lambda lobby: len(lobby["live"]) == round_number + 1  # noqa: B023
            )
            assert sorted(g["room_id"] for g in lobby["live"]).count(made["id"]) == 1
            view = await ann.join(made["id"])
            assert view.doc is not None and view.doc["version"] == 0
    finally:
        for process in processes:
            process.terminate()


async def test_a_crashed_process_leaves_no_one_online_after_the_heartbeat_lapses(
    redis_server: RedisServer,
    subprocess_env: dict[str, str],
    closing: list[Client],
) -> None:
    """Bob's process is killed (no disconnect runs); the other process's sweep drops him."""
    env = {
        **subprocess_env,
        "REDIS_URL": redis_server.url,
        "PRESENCE_TTL": "1",
        "LOBBY_SWEEP_SECONDS": "0.1",
    }
    survivor, doomed = ServerProcess(env, free_port()), ServerProcess(env, free_port())
    await survivor.start()
    await doomed.start()
    try:
        ann = await Client.connect(survivor.ws_url, token_for(new_guest()))
        closing.append(ann)
        await ann.follow_lobby()
        bob = await Client.connect(doomed.ws_url, token_for(new_guest()))
        await bob.follow_lobby()
        assert bob.player is not None
        bob_id = bob.player["id"]
        online = await ann.wait_lobby(
            lambda lobby: bob_id in [p["player"]["id"] for p in lobby["online"]]
        )
        assert len(online["online"]) == 2
        doomed.kill()
        await bob.close()
        await ann.wait_lobby(
            lambda lobby: (
                [p["player"]["id"] for p in lobby["online"]]
                == [ann.player["id"] if ann.player else ""]
            ),
            timeout=15,
        )
    finally:
        survivor.terminate()
        doomed.kill()


async def test_a_challenge_to_the_matching_bot_goes_to_the_level_nearest_the_players_rating(
    app_server: RunningServer, redis_client: aioredis.Redis, closing: list[Client]
) -> None:
    await ensure_bot_accounts(redis_client)
    measured = bot_strength.measured()["boche"]
    newcomer = await in_lobby(app_server)
    alice, alice_client = await register(app_server, "alice")
    bob = Player("u:bob", "bob", False)
    closing += [newcomer, alice_client]
    for game in range(8):  # alice beats bob eight times in rated Boche games
        await rating_store.apply_result(redis_client, "boche", f"g{game}", alice, bob, 1.0, 0.0)
    strong = (await rating_store.get_rating(redis_client, "boche", alice.id)).rating
    assert strong > 1800

    for client, rating in ((newcomer, 1500.0), (alice_client, strong)):
        made = await client.challenge("boche", target=bot_strength.MATCHING_BOT)
        level = bot_strength.matching_level(measured, rating)
        assert made["target"]["name"] == f"bot-{level}"
        assert level == int(min(measured, key=lambda n: (abs(measured[n] - rating), int(n))))
        await client.cancel(made["id"])
    assert bot_strength.matching_level(measured, strong) > bot_strength.matching_level(
        measured, 1500.0
    )
