"""Every game's ways to end, said in words and drawn on the board.

Each game is played through the server up to its last move, which the player makes on the page
by pointer (the palette's pictures where a piece has several ways to lie).  The page must then
say who won and why, and draw the explanation (the group, its links and points, the sides or
bases it reached); a spectator who opens a finished game of each kind sees the same.  The
games come from the rules' explanation cases (``tests/rules/cases/explanations``) or from
seeded random games for the endings those cases reach only from a set-up position.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from playwright.async_api import Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from client import Client
from rules import find_game
from tests.browser.conftest import Opener, room_for
from tests.browser.gestures import play_moves
from tests.e2e.conftest import RunningServer, token_for

CASES = Path(__file__).resolve().parents[1] / "rules" / "cases" / "explanations"


def seeded_ending(game: str, options: str, seed: int) -> list[str]:
    """The moves of the random game of ``seed`` (no swap), played to its end."""
    rules = find_game(game)
    rng = random.Random(seed)
    state = rules.new_game(rules.parse_options(options))
    texts = []
    while rules.outcome(state) is None:
        move = rng.choice([m for m in rules.legal_moves(state) if rules.move_text(m) != "swap"])
        texts.append(rules.move_text(move))
        state = rules.play(state, move)
    return texts


Case = tuple[str, str, str, list[str], str, int, str | None]


def played_cases() -> list[Case]:
    """(name, game, options, moves, words, groups, winner) of every ending to play."""
    found = []
    for path in sorted(CASES.glob("*.json")):
        case = json.loads(path.read_text())
        if "setup" in case:
            continue  # reached only from a set-up position: the seeded games below instead
        winner = case["winner"]
        found.append(
            (
                path.stem,
                case["game"],
                case["options"],
                case["moves"],
                case["words"],
                len(case["groups"]),
                winner,
            )
        )
    found += [
        (
            "ankor_connection",
            "ankor",
            "-size=3",
            seeded_ending("ankor", "-size=3", 1),
            "connected the three sides",
            1,
            "blue",
        ),
        (
            "osbox_last_knot",
            "osbox",
            "-size=3 -no_capture",
            seeded_ending("osbox", "-size=3 -no_capture", 18),
            "the board is full: Horz 6, Vert 0",
            1,
            "horz",
        ),
        (
            "marque_joined_bases",
            "marque",
            "-any_2",
            seeded_ending("marque", "-any_2", 0),
            "joined bases E, G",
            1,
            "black",
        ),
    ]
    return found


CASE_LIST = played_cases()
WATCHED = {next(c[0] for c in CASE_LIST if c[1] == game) for game in {c[1] for c in CASE_LIST}}
"""One ending of each game is also opened by a spectator afterwards (a snapshot, not diffs)."""
LABELS = {
    "light": "Light",
    "dark": "Dark",
    "white": "White",
    "blue": "Blue",
    "black": "Black",
    "horz": "Horz",
    "vert": "Vert",
}


@pytest.mark.parametrize(
    ("name", "game", "options", "moves", "words", "groups", "winner"),
    CASE_LIST,
    ids=[c[0] for c in CASE_LIST],
)
async def test_the_end_is_said_and_drawn(
    name: str,
    game: str,
    options: str,
    moves: list[str],
    words: str,
    groups: int,
    winner: str | None,
    redis_client: aioredis.Redis,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    room, first, second = await room_for(redis_client, game, options)
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    try:
        doc = await play_moves(clients, (first, second), room, moves[:-1])
    finally:
        for client in clients.values():
            await client.close()
    last = doc["seats"][doc["to_move"]]["id"]
    page = await open_page(f"/#/room/{room}", first if last == first.id else second)
    await expect(page.locator(".turn")).to_contain_text("Your turn")
    await click_move(page, game, moves[-1])
    said = page.locator(".turn")
    if winner is None:
        await expect(said).to_have_text(re.compile(rf"^Draw: .*{re.escape(words)}.*\.$"))
    else:
        await expect(said).to_have_text(
            re.compile(rf"^{LABELS[winner]} wins: .*{re.escape(words)}.*\.$")
        )
    drawn = page.locator(
        "svg.board .explained-cell, svg.board .explained-link, svg.board .explained-point"
    )
    if groups:
        await expect(drawn.first).to_be_attached()
        await expect(page.locator(".player.winner")).to_have_count(1)
    else:
        await expect(drawn).to_have_count(0)
    await page.locator("svg.board").screenshot(path=artifacts / f"ending-{name}.png")
    if name not in WATCHED:
        return
    watcher = await open_page(f"/#/room/{room}")
    await expect(watcher.locator(".turn")).to_have_text(await said.inner_text())
    assert (
        await watcher.locator(
            "svg.board .explained-cell, svg.board .explained-link, svg.board .explained-point"
        ).count()
        == await drawn.count()
    )


async def click_move(page: Page, game: str, text: str) -> None:
    """Makes the move ``text`` by pointer: each target in turn, its piece from the palette."""
    for key, choice in steps(game, text):
        target = page.locator(f'svg.board .targets [data-target="{key}"]')
        await target.hover()
        if choice is not None:
            # The palette follows the pointer: wait for its picture of this piece, or for the
            # piece previewed under the pointer, drawn at the same time where the place has
            # one completion and no palette (a loaded machine draws both late).
            wanted = page.locator(f'.palette .choice[data-choice="{choice}"]')
            drawn = page.locator(f'.palette .choice[data-choice="{choice}"], svg.board .hover')
            with contextlib.suppress(PlaywrightTimeoutError):
                await drawn.first.wait_for(timeout=8000)
            if await page.locator(".palette .choice").count() > 1:
                await wanted.click()
        await target.click()
    await expect(page.locator(".turn")).not_to_contain_text("Your turn")


def steps(game: str, text: str) -> list[tuple[str, str | None]]:
    """The page's steps of a move (as the game modules split it): target and piece."""
    if game == "boche":
        rotation, position = text.split(":")
        return [(position, rotation)]
    if game == "osbox":
        return [(text[1:], text[0])]
    if game == "che":
        moved = re.fullmatch(r"(\d+)-([a-d])\((-?\d+),(-?\d+)\)", text)
        if moved:
            number, tile, x, y = moved.groups()
            return [(f"tile {number}", None), (f"{x},{y}", tile)]
        return [
            (f"{x},{y}", tile) for tile, x, y in re.findall(r"([a-d])\((-?\d+),(-?\d+)\)", text)
        ]
    separator = "-" if game == "ankor" else ","
    return [(key, None) for key in text.split(separator)]
