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
    const view = new BoardView(host, (key) => window.chosen.push(key));
    window.layout = (pieces) => ({
        viewBox: [0, 0, 4, 4],
        items: [
            ...pieces.map((id, i) => ({
                tag: "circle", piece: id, attrs: { cx: i + 0.5, cy: 0.5, r: 0.4 },
            })),
            { tag: "rect", attrs: { x: 0, y: 2, width: 1, height: 1 },
              target: { key: "c3", state: "legal", label: "cell c3" } },
        ],
    });
    window.view = view;
    view.render(window.layout(["a", "b"]));
    view.render(window.layout(["a"]));
}"""


async def test_board_fades_removed_pieces_and_plays_targets_by_keyboard(page: Page) -> None:
    await page.evaluate(BOARD)
    await expect(page.locator("svg.board .fading")).to_have_count(1)
    await expect(page.locator("svg.board .fading")).to_have_count(0)  # then it is gone
    target = page.get_by_role("button", name="cell c3")
    await target.focus()
    await page.keyboard.press("Enter")
    await page.keyboard.press(" ")
    assert await page.evaluate("window.chosen") == ["c3", "c3"]
    await page.evaluate("window.view.render(window.layout(['a']))")
    await expect(target).to_be_focused()  # a redraw keeps the keyboard player's place
