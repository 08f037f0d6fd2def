"""The client's pure parts run in Chromium: diff.js on the shared fixtures, and the version
rules of connection.js (apply only version + 1, ask `sync` once on a gap, rejoin from the
version held) fed frames directly, with no server in the way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.browser.conftest import Opener

FIXTURES = sorted(
    (Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "diffs").glob("*.json")
)


@pytest.fixture
async def page(open_page: Opener) -> Page:
    return await open_page("/")


async def test_diff_js_reaches_every_fixtures_new_document(page: Page) -> None:
    assert FIXTURES, "no diff fixtures found"
    cases = {path.stem: json.loads(path.read_text()) for path in FIXTURES}
    results = await page.evaluate(
        """async (cases) => {
            const { apply } = await import("/diff.js");
            const out = {};
            for (const [name, c] of Object.entries(cases)) {
                out[name] = apply(structuredClone(c.old), c.ops);
            }
            return out;
        }""",
        cases,
    )
    for name, case in cases.items():
        assert results[name] == case["new"], name


async def test_diff_js_refuses_a_path_that_does_not_fit(page: Page) -> None:
    message = await page.evaluate(
        """async () => {
            const { apply, DiffError } = await import("/diff.js");
            try { apply({a: [1]}, [["s", ["a", 5], 2]]); } catch (e) {
                return e instanceof DiffError ? "DiffError" : String(e);
            }
            return "applied";
        }"""
    )
    assert message == "DiffError"


FEED = """async () => {
    const { Connection } = await import("/connection.js");
    const { encode, decode } = await import("/vendor/msgpack/index.mjs");
    const seen = [];
    const sent = [];
    const connection = new Connection("ws://unused", "token", {
        onRoom: (room, doc, version) => seen.push([version, structuredClone(doc)]),
    });
    connection.socket = { send: (bytes) => sent.push(decode(bytes)) };
    connection.status = "open";
    connection.rooms.set("r", { version: -1, doc: null, syncing: false });
    const feed = (body) => connection.receive(encode(body).slice().buffer);
    feed({ t: "snapshot", room: "r", version: 3, state: { a: 1, list: [] } });
    feed({ t: "diff", room: "r", version: 4, ops: [["s", ["a"], 2]] });
    feed({ t: "diff", room: "r", version: 4, ops: [["s", ["a"], 99]] });   // already applied
    feed({ t: "diff", room: "r", version: 6, ops: [["s", ["a"], 6]] });    // gap: sync
    feed({ t: "diff", room: "r", version: 7, ops: [["s", ["a"], 7]] });    // still syncing
    feed({ t: "snapshot", room: "r", version: 7, state: { a: 7, list: [] } });
    feed({ t: "diff", room: "r", version: 8, ops: [["s", ["list", 0], "x"]] });
    feed({ t: "diff", room: "r", version: 9, ops: [["s", ["nowhere", 3], 1]] }); // cannot apply
    feed({ t: "joined", room: "r", ref: 1, version: 8, role: "spectator", seat: null });
    connection.status = "reconnecting";
    connection.welcomed({ id: "g:1", name: "Ann", guest: true });
    return { seen, sent, status: connection.status };
}"""


async def test_connection_applies_only_the_next_version_and_syncs_on_a_gap(page: Page) -> None:
    result: dict[str, Any] = await page.evaluate(FEED)
    assert result["seen"] == [
        [3, {"a": 1, "list": []}],
        [4, {"a": 2, "list": []}],
        [7, {"a": 7, "list": []}],
        [8, {"a": 7, "list": ["x"]}],
    ]
    sent = [{k: v for k, v in body.items() if k != "id"} for body in result["sent"]]
    assert sent == [
        {"t": "sync", "room": "r", "version": 4},
        {"t": "sync", "room": "r", "version": 8},
        {"t": "join", "room": "r", "version": 8},  # after reconnecting: from the version held
    ]
    assert result["status"] == "open"


BOARD = """async () => {
    const { BoardView } = await import("/board.js");
    const host = document.createElement("div");
    document.body.append(host);
    window.chosen = [];
    const view = new BoardView(host, { choose: (key, how) => window.chosen.push([key, how]) });
    const square = (x, y) => ({ points: [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]] });
    window.scene = (pieces) => ({
        viewBox: [0, 0, 4, 4],
        items: pieces.map((id, i) => ({
            tag: "circle", piece: id, attrs: { cx: i + 0.5, cy: 0.5, r: 0.4 },
        })),
        overlay: [],
        targets: [
            { key: "c3", shape: square(0, 2), state: "idle", label: "cell c3" },
            { key: "d3", shape: square(3, 2), state: "idle", label: "cell d3" },
        ],
    });
    window.view = view;
    view.render(window.scene(["a", "b"]));
    view.render(window.scene(["a"]));
}"""


async def test_board_fades_removed_pieces_and_plays_targets_by_keyboard(page: Page) -> None:
    await page.evaluate(BOARD)
    await expect(page.locator("svg.board .fading")).to_have_count(1)
    await expect(page.locator("svg.board .fading")).to_have_count(0)  # then it is gone
    target = page.get_by_role("button", name="cell c3")
    await target.focus()
    await page.keyboard.press("Enter")
    await page.keyboard.press("ArrowRight")  # the focus moves to the target on the right
    await expect(page.get_by_role("button", name="cell d3")).to_be_focused()
    await page.keyboard.press("Enter")
    assert await page.evaluate("window.chosen") == [["c3", "key"], ["d3", "key"]]
    await page.evaluate("window.view.render(window.scene(['a']))")
    await expect(page.get_by_role("button", name="cell d3")).to_be_focused()  # kept on redraw


MOVES = """async (texts) => {
    const { MoveSet } = await import("/moves.js");
    const che = await import("/games/che.js");
    const set = new MoveSet(texts, che.split);
    const next = (steps) => Object.fromEntries(set.next(steps));
    const a = { key: "0,0", choice: "a" };
    const b = { key: "1,0", choice: "b" };
    return {
        size: set.size,
        first: next([]),
        afterB: next([b]),
        exactAB: set.exact([b, a])?.text ?? null,
        exactA: set.exact([a])?.text ?? null,
        continuesA: set.continues([a]),
    };
}"""


async def test_a_move_set_offers_the_steps_of_the_listed_moves_in_any_order(page: Page) -> None:
    """Che's placements may be chosen in any order; a pair met twice is one move; a text that
    names one cell twice is none."""
    texts = ["a(0,0),b(1,0)", "b(1,0),a(0,0)", "a(0,0)", "a(0,0),c(0,0)", "d(0,1),b(1,0)"]
    result = await page.evaluate(MOVES, texts)
    assert result["size"] == 3
    assert result["first"] == {"0,0": ["a"], "1,0": ["b"], "0,1": ["d"]}
    assert result["afterB"] == {"0,0": ["a"], "0,1": ["d"]}
    assert result["exactAB"] == "a(0,0),b(1,0)"
    assert result["exactA"] == "a(0,0)" and result["continuesA"] is True


async def test_expand_blocks_is_the_twin_of_the_rules(page: Page) -> None:
    """The page expands the server's blocks into the same move texts as the rules do."""
    from rules import find_game
    from rules.api import Seat, expand_blocks
    from tests.browser.gestures import random_moves

    for game, options, plies in (("che", "", 3), ("ankor", "", 30), ("boche", "-size=8", 0)):
        rules = find_game(game)
        state = rules.new_game(rules.parse_options(options))
        for text in random_moves(game, options, plies, seed=1):
            state = rules.play(state, rules.parse_move(state, text))
        listed = [b for seat in Seat for b in rules.seat_moves(state, seat)]
        blocks = [block for block in listed if not isinstance(block, str)]
        assert blocks, game
        texts = await page.evaluate(
            "async (blocks) => (await import('/moves.js')).expandBlocks(blocks)", blocks
        )
        assert texts == list(expand_blocks(blocks)), game


async def test_the_page_says_clocks_and_results_in_words(page: Page) -> None:
    said = await page.evaluate(
        """async () => {
            const { clockText, resultText } = await import("/room.js");
            const label = (seat) => ["Light", "Dark"][seat];
            return [
                clockText(86400, "correspondence"),
                clockText(2 * 86400 + 3 * 3600, "correspondence"),
                clockText(3600 * 5 + 60 * 7, "correspondence"), clockText(61, "correspondence"),
                clockText(3725), clockText(65), clockText(9.44),
                resultText({ winner: 0, reason: "enclosed a Dark group of 4 blobs" }, label),
                resultText({ winner: null, reason: "aborted" }, label),
                resultText({ winner: 1, reason: "resignation" }, label),
                resultText({ winner: 0, reason: "time" }, label),
                resultText({ winner: null, reason: "agreement" }, label),
            ];
        }"""
    )
    assert said == [
        "1 day",
        "2 days 3 h",
        "5 h 07 min",
        "1 minute",
        "1:02:05",
        "1:05",
        "0:09.4",
        "Light wins: enclosed a Dark group of 4 blobs.",
        "Game aborted.",
        "Light resigned: Dark wins.",
        "Dark ran out of time: Light wins.",
        "Draw by agreement.",
    ]


async def test_a_finished_game_says_how_it_ended_as_a_person_would(page: Page) -> None:
    said = await page.evaluate(
        """async () => {
            const { endingWords } = await import("/archive.js");
            const players = [{ id: "u:a", name: "annie" }, { id: "u:b", name: "bobby" }];
            const ended = (moves, winner_id, reason) =>
                endingWords({ players, moves, winner_id, reason });
            return [
                ended(0, "u:b", "resignation"),
                ended(0, "u:a", "time"),
                ended(7, "u:a", "time"),
                ended(1, "u:b", "abandonment"),
                ended(0, null, "aborted"),
                ended(3, null, "idle"),
                ended(0, null, "idle"),
                ended(30, null, "agreement"),
                ended(41, null, "the same position occurred for the third time"),
                ended(12, "u:a", "connected the three sides"),
            ];
        }"""
    )
    assert said == [
        "annie resigned before the first move",
        "bobby lost on time before moving",
        "bobby ran out of time after 7 moves",
        "annie left the game after 1 move",
        "Aborted before the first move",
        "Nobody moved for too long after 3 moves: no result",
        "Nobody made the first move: no result",
        "Drawn by agreement after 30 moves",
        "Drawn after 41 moves: the same position occurred for the third time",
        "annie won after 12 moves: connected the three sides",
    ]
