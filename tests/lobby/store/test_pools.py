"""Quick-pairing pools against a real redis-server: pairing, rating ranges, lapsed entries,
leaving, and a race of many joins over two clients (two server processes) in which nobody is
paired twice.  Time is passed in, never slept."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from lobby.identity import Player, new_guest
from lobby.pools import (
    ENTRY_SECONDS,
    MAX_WAITING,
    RATING_RANGE,
    WIDEST_RATING_RANGE,
    Entry,
    rating_range,
)
from lobby.store import pools as pool_store
from protocol.errors import LimitReachedError

T0 = 1_000_000.0
POOL = "boche/5+3/casual"


@pytest.fixture
async def second_client(redis_server: Any) -> AsyncIterator[aioredis.Redis]:
    """Another connection to the same Redis, standing for a second server process."""
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def join(
    client: aioredis.Redis, joining: Entry, now: float, max_waiting: int = MAX_WAITING
) -> Entry | None:
    """The player a join pairs with (None: waiting), the room named after the joiner."""
    joined = await pool_store.join(client, joining, now, room_of(joining.player), max_waiting)
    assert (joined.room is None) == (joined.partner is None)
    return joined.partner


def room_of(player: Player) -> str:
    """The room a pairing made by ``player``'s join would get."""
    return f"qp-{player.id}"


def entry(player: Player, pool: str = POOL, rating: float | None = None, now: float = T0) -> Entry:
    return Entry(player, pool, rating, connection=f"socket-{player.id}", expires=now + 30)


async def test_the_first_player_waits_and_the_second_is_paired_with_them(
    redis_client: aioredis.Redis,
) -> None:
    ann, bob = new_guest(), new_guest()
    assert await join(redis_client, entry(ann), T0) is None
    assert await pool_store.waiting(redis_client, T0) == {POOL: 1}
    partner = await join(redis_client, entry(bob), T0 + 1)
    assert partner is not None and partner.player == ann
    assert await pool_store.waiting(redis_client, T0 + 1) == {}


async def test_a_renewal_after_the_pairing_is_sent_to_the_game_not_back_in_the_pool(
    redis_client: aioredis.Redis,
) -> None:
    ann, bob, cy = new_guest(), new_guest(), new_guest()
    assert await join(redis_client, entry(ann), T0) is None
    assert await join(redis_client, entry(bob), T0 + 1) is not None  # the game qp-<bob>
    renewed = await pool_store.join(redis_client, entry(ann), T0 + 2, room_of(ann))
    assert renewed == pool_store.Joined(room_of(bob))
    assert await join(redis_client, entry(cy), T0 + 3) is None  # ann waits nowhere
    # Told once: ann's next join (a new game) waits as usual.
    assert await join(redis_client, entry(ann), T0 + 4) is not None


async def test_a_pairing_is_forgotten_after_a_while_or_when_the_page_leaves(
    redis_client: aioredis.Redis,
) -> None:
    ann, bob, cy, dan = new_guest(), new_guest(), new_guest(), new_guest()
    assert await join(redis_client, entry(ann), T0) is None
    assert await join(redis_client, entry(bob), T0) is not None
    later = T0 + ENTRY_SECONDS + 1
    assert await join(redis_client, entry(ann, now=later), later) is None  # waits afresh
    assert await join(redis_client, entry(cy, now=later), later) is not None
    await pool_store.leave(redis_client, cy.id)
    assert await join(redis_client, entry(dan, now=later), later) is None


async def test_players_in_other_pools_are_not_paired(redis_client: aioredis.Redis) -> None:
    ann, bob = new_guest(), new_guest()
    assert await join(redis_client, entry(ann, "boche/5+3/casual"), T0) is None
    assert await join(redis_client, entry(bob, "boche/3+2/casual"), T0) is None
    assert await pool_store.waiting(redis_client, T0) == {
        "boche/5+3/casual": 1,
        "boche/3+2/casual": 1,
    }


async def test_a_player_is_never_paired_with_themselves_and_waits_in_one_pool(
    redis_client: aioredis.Redis,
) -> None:
    ann = new_guest()
    assert await join(redis_client, entry(ann, "che/5+3/casual"), T0) is None
    assert await join(redis_client, entry(ann), T0 + 1) is None
    assert await join(redis_client, entry(ann), T0 + 2) is None  # a renewal
    assert await pool_store.waiting(redis_client, T0 + 2) == {POOL: 1}


async def test_rated_players_pair_only_within_the_rating_range(
    redis_client: aioredis.Redis,
) -> None:
    strong, weak, middle = (Player(f"p-{n}", n, False) for n in ("strong", "weak", "middle"))
    rated = "boche/5+3/rated"
    assert await join(redis_client, entry(strong, rated, 1900.0), T0) is None
    # 500 apart: both wait.
    assert await join(redis_client, entry(weak, rated, 1400.0), T0 + 1) is None
    assert await pool_store.waiting(redis_client, T0 + 1) == {rated: 2}
    # 250 from each: paired with the one who waited longest.
    partner = await join(redis_client, entry(middle, rated, 1650.0), T0 + 2)
    assert partner is not None and partner.player == strong
    assert await pool_store.waiting(redis_client, T0 + 2) == {rated: 1}


async def test_the_longest_waiting_compatible_player_is_paired_first(
    redis_client: aioredis.Redis,
) -> None:
    low, high, joining = (Player(f"p-{n}", n, False) for n in ("low", "high", "joining"))
    rated = "che/10+5/rated"
    assert await join(redis_client, entry(low, rated, 1500.0), T0) is None
    assert await join(redis_client, entry(high, rated, 1900.0), T0 + 5) is None
    # A renewal keeps its place in the queue.
    assert await join(redis_client, entry(low, rated, 1500.0), T0 + 10) is None
    partner = await join(redis_client, entry(joining, rated, 1700.0), T0 + 11)
    assert partner is not None and partner.player == low


async def test_a_lapsed_entry_is_never_paired(redis_client: aioredis.Redis) -> None:
    gone, bob = new_guest(), new_guest()
    assert await join(redis_client, entry(gone), T0) is None
    later = T0 + ENTRY_SECONDS + 1
    assert await join(redis_client, entry(bob, now=later), later) is None
    assert await pool_store.waiting(redis_client, later) == {POOL: 1}


async def test_leaving_takes_the_entry_away_only_for_its_own_socket(
    redis_client: aioredis.Redis,
) -> None:
    ann, bob = new_guest(), new_guest()
    assert await join(redis_client, entry(ann), T0) is None
    assert not await pool_store.leave(redis_client, ann.id, "another-socket")
    assert await pool_store.leave(redis_client, ann.id, f"socket-{ann.id}")
    assert not await pool_store.leave(redis_client, ann.id)
    assert await join(redis_client, entry(bob), T0) is None  # nobody to pair with


async def test_joining_is_refused_when_the_pools_are_full(redis_client: aioredis.Redis) -> None:
    for n in range(3):
        assert await join(redis_client, entry(new_guest(), f"che/{n}"), T0, 3) is None
    with pytest.raises(LimitReachedError):
        await join(redis_client, entry(new_guest(), "che/x"), T0, 3)


async def test_a_race_of_joins_on_two_clients_pairs_nobody_twice(
    redis_client: aioredis.Redis, second_client: aioredis.Redis
) -> None:
    """200 players join two pools at once through two clients; every player ends up in
    exactly one pair or still waiting, never in two pairs, never paired with themselves."""
    players = [new_guest() for _ in range(200)]
    rng = random.Random(7)
    pools = {p.id: rng.choice(["ankor/3+2/casual", "ankor/5+3/casual"]) for p in players}

    async def join_one(player: Player, client: aioredis.Redis) -> tuple[Player, Player | None]:
        found = await join(client, entry(player, pools[player.id]), T0)
        return player, None if found is None else found.player

    clients = [redis_client, second_client]
    results = await asyncio.gather(*(join_one(p, clients[i % 2]) for i, p in enumerate(players)))
    pairs = [(joiner, partner) for joiner, partner in results if partner is not None]
    seen: list[str] = [p.id for pair in pairs for p in pair]
    assert len(seen) == len(set(seen)), "a player was paired twice"
    assert all(pools[a.id] == pools[b.id] and a.id != b.id for a, b in pairs)
    still = await pool_store.waiting(redis_client, T0)
    assert sum(still.values()) + len(seen) == len(players)
    assert all(count <= 1 for count in still.values())  # two waiting in one pool would pair


async def test_the_rating_range_widens_while_players_wait(redis_client: aioredis.Redis) -> None:
    strong, weak = Player("p-strong", "strong", False), Player("p-weak", "weak", False)
    rated = "osbox/10+5/rated"
    assert await join(redis_client, entry(strong, rated, 2000.0), T0) is None
    assert await join(redis_client, entry(weak, rated, 1450.0), T0 + 1) is None  # 550 apart
    # Each renews its wait every 10 s; at 26 s the weak player's range reaches 550.
    assert await join(redis_client, entry(strong, rated, 2000.0, T0 + 20), T0 + 20) is None
    assert await join(redis_client, entry(weak, rated, 1450.0, T0 + 20), T0 + 20) is None
    partner = await join(redis_client, entry(strong, rated, 2000.0, T0 + 26), T0 + 26)
    assert partner is not None and partner.player == weak
    assert rating_range(26) == 560.0 and rating_range(0) == RATING_RANGE


async def test_ratings_further_apart_than_the_widest_range_never_pair(
    redis_client: aioredis.Redis,
) -> None:
    master, novice = Player("p-master", "master", False), Player("p-novice", "novice", False)
    rated = "marque/3+2/rated"
    for now in range(int(T0), int(T0) + 120, 10):  # both renew their wait for two minutes
        assert await join(redis_client, entry(master, rated, 2400.0, now), now) is None
        assert await join(redis_client, entry(novice, rated, 1500.0, now), now + 1) is None
    assert rating_range(120) == WIDEST_RATING_RANGE < 900
