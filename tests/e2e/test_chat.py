"""Room chats on real sockets: the players' chat and the spectators' kept apart, kept across
reconnections, bounded, rate-limited, and reports kept for the operators."""

from __future__ import annotations

from types import ModuleType

import pytest
import redis.asyncio as aioredis

from client import ServerReplyError
from lobby.identity import new_guest
from protocol.messages import MAX_CHAT_LENGTH
from server.redis import chat_store
from server.settings import Settings
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, connect, make_room, start_server


async def test_players_and_spectators_each_hear_only_their_own_chat(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    room = await make_room(redis_client, ann, bob)
    first, second = await connect(app_server, ann), await connect(app_server, bob)
    eve, max_ = await connect(app_server), await connect(app_server)
    try:
        for client in (first, second, eve, max_):
            await client.join(room)
        said = await first.chat(room, "players", "  good luck  ")
        assert said["text"] == "good luck" and said["name"] == ann.name
        assert await second.wait_chat(1) == ["good luck"]
        await eve.chat(room, "spectators", "nice opening")
        assert await max_.wait_chat(1) == ["nice opening"]
        # Lines of one room reach a process in the order said: had the spectators' line gone
        # to a player (or the players' to a spectator), it would come before these.
        await first.chat(room, "players", "thanks")
        await eve.chat(room, "spectators", "they are polite")
        assert await second.wait_chat(2) == ["good luck", "thanks"]
        assert await max_.wait_chat(2) == ["nice opening", "they are polite"]
        assert await first.wait_chat(2) == ["good luck", "thanks"]
        assert await eve.wait_chat(2) == ["nice opening", "they are polite"]
        with pytest.raises(ServerReplyError) as refused:
            await eve.chat(room, "players", "play c3!")
        assert refused.value.code == "not_a_player"
        with pytest.raises(ServerReplyError) as closed:
            await first.chat(room, "spectators", "hello watchers")
        assert closed.value.code == "chat_closed"
        with pytest.raises(ServerReplyError) as hidden:
            await eve.chat_history(room, "players")
        assert hidden.value.code == "not_a_player"
        assert [line["text"] for line in await first.chat_history(room, "players")] == [
            "good luck",
            "thanks",
        ]
        # A reconnection (a reload) reads the same lines back.
        again = await connect(app_server, bob)
        await again.join(room)
        assert [line["text"] for line in await again.chat_history(room, "players")] == [
            "good luck",
            "thanks",
        ]
        await again.close()
    finally:
        for client in (first, second, eve, max_):
            await client.close()


async def test_the_players_read_the_spectators_chat_once_the_game_is_over(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    room = await make_room(redis_client, ann, bob)
    first, eve = await connect(app_server, ann), await connect(app_server)
    try:
        await first.join(room)
        await eve.join(room)
        await eve.chat(room, "spectators", "during the game")
        await first.resign(room)
        assert [line["text"] for line in await first.chat_history(room, "spectators")] == [
            "during the game"
        ]
        await eve.chat(room, "spectators", "well played")
        assert await first.wait_chat(1) == ["well played"]
        await first.chat(room, "spectators", "thanks")
        assert await eve.wait_chat(3) == ["during the game", "well played", "thanks"]
    finally:
        await first.close()
        await eve.close()


async def test_bad_chat_requests_are_refused_and_say_nothing(
    app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    ann, bob = new_guest(), new_guest()
    room = await make_room(redis_client, ann, bob)
    first = await connect(app_server, ann)
    stranger = await connect(app_server)
    try:
        with pytest.raises(ServerReplyError) as not_joined:
            await first.chat(room, "players", "hello")
        assert not_joined.value.code == "not_joined"
        await first.join(room)
        cases = [
            {"channel": "everyone", "text": "hi"},
            {"channel": "players", "text": "   "},
            {"channel": "players", "text": "x" * (MAX_CHAT_LENGTH + 1)},
            {"channel": "players", "text": 7},
            {"channel": "players"},
        ]
        for fields in cases:
            with pytest.raises(ServerReplyError) as refused:
                await first.request({"t": "chat", "room": room, **fields})
            assert refused.value.code == "bad_request", fields
        with pytest.raises(ServerReplyError) as unknown:
            await first.report_chat(room, "players", "nope")
        assert unknown.value.code == "unknown_line"
        await stranger.join(room)
        with pytest.raises(ServerReplyError) as other_room:
            await stranger.chat(room, "players", "hi")
        assert other_room.value.code == "not_a_player"
        assert await first.chat_history(room, "players") == []
    finally:
        await first.close()
        await stranger.close()


async def test_chat_is_rate_limited_bounded_and_reports_are_kept(
    redis_server: RedisServer, redis_client: aioredis.Redis, ttt: ModuleType
) -> None:
    server = await start_server(redis_server.url, chat_per_window=3, chat_kept=2)
    ann, bob = new_guest(), new_guest()
    room = await make_room(redis_client, ann, bob)
    first, second = await connect(server, ann), await connect(server, bob)
    try:
        await first.join(room)
        await second.join(room)
        for n in range(3):
            await first.chat(room, "players", f"line {n}")
        with pytest.raises(ServerReplyError) as limited:
            await first.chat(room, "players", "one too many")
        assert limited.value.code == "rate_limited"
        kept = await second.chat_history(room, "players")
        assert [line["text"] for line in kept] == ["line 1", "line 2"]
        await second.report_chat(room, "players", kept[-1]["id"])
        await second.report_chat(room, "players", kept[-1]["id"])
        await second.report_chat(room, "players", kept[-1]["id"])
        with pytest.raises(ServerReplyError) as flooding:
            await second.report_chat(room, "players", kept[-1]["id"])
        assert flooding.value.code == "rate_limited"  # a report counts as a line said
        report, *_ = await chat_store.reports(redis_client)
        assert report["room"] == room and report["channel"] == "players"
        assert report["line"]["text"] == "line 2" and report["line"]["player"] == ann.id
        assert report["reporter"] == {"id": bob.id, "name": bob.name}
    finally:
        await first.close()
        await second.close()
        await server.stop()


def test_chat_settings_default_to_the_documented_limits() -> None:
    settings = Settings()
    assert (settings.chat_per_window, settings.chat_window_seconds) == (5, 10.0)
    assert (settings.chat_kept, settings.chat_reports_kept) == (100, 10_000)


async def test_chat_reaches_the_readers_on_another_process(
    redis_server: RedisServer, app_server: RunningServer, redis_client: aioredis.Redis
) -> None:
    other = await start_server(redis_server.url)
    ann, bob = new_guest(), new_guest()
    room = await make_room(redis_client, ann, bob)
    here, there = await connect(app_server, ann), await connect(other, bob)
    watching_there = await connect(other)
    try:
        for client in (here, there, watching_there):
            await client.join(room)
        await here.chat(room, "players", "hello from one process")
        await watching_there.chat(room, "spectators", "hello from the other")
        await there.chat(room, "players", "and back")
        assert await there.wait_chat(2) == ["hello from one process", "and back"]
        assert await here.wait_chat(2) == ["hello from one process", "and back"]
        assert await watching_there.wait_chat(1) == ["hello from the other"]
        await here.chat(room, "players", "bye")
        assert await there.wait_chat(3) == ["hello from one process", "and back", "bye"]
        assert [line["text"] for line in watching_there.chat_lines] == ["hello from the other"]
    finally:
        for client in (here, there, watching_there):
            await client.close()
        await other.stop()
