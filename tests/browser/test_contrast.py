"""The colours the boards use are readable: WCAG AA contrast, computed from the page's own
styles (4.5:1 for text such as Che's tile numbers, 3:1 for graphics such as a white piece's
outline against the board under it)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from playwright.async_api import expect

from client import Client
from tests.browser.conftest import Opener, room_for
from tests.browser.gestures import play_moves, random_moves
from tests.e2e.conftest import RunningServer, token_for

# For each element a selector picks: which of its colours (the text's fill, or its stroke) must
# stand out from which colour under it (the fill of an element or of the element's own group).
CONTRAST = r"""(checks) => {
    const rgba = (text) => {
        const m = text.match(/rgba?\(([^)]+)\)/);
        if (m) { const [r, g, b, a] = m[1].split(",").map(Number); return [r, g, b, a ?? 1]; }
        const probe = document.createElement("span");
        probe.style.color = text;
        document.body.append(probe);
        const found = getComputedStyle(probe).color;
        probe.remove();
        return rgba(found);
    };
    const over = ([r, g, b, a], [r2, g2, b2]) =>
        [r * a + r2 * (1 - a), g * a + g2 * (1 - a), b * a + b2 * (1 - a)];
    const linear = (c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    const luminance = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    const ratio = (a, b) => {
        const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
    };
    // A fill that is a gradient counts as each of its stops.
    const fills = (element) => {
        const fill = getComputedStyle(element).fill;
        const id = fill.match(/url\("?#([^")]+)"?\)/);
        if (id === null) return [rgba(fill)];
        const stops = document.getElementById(id[1]).querySelectorAll("stop");
        return [...stops].map((s) => rgba(getComputedStyle(s).stopColor));
    };
    const out = [];
    for (const { name, selector, part, under } of checks) {
        for (const element of document.querySelectorAll(selector)) {
            const ground = under(element);
            if (ground === null) continue;
            for (const fill of fills(ground)) {
                const back = over(fill, [255, 255, 255]);
                const front = over(rgba(getComputedStyle(element)[part]), back);
                out.push([name, Math.round(ratio(front, back) * 100) / 100]);
            }
        }
    }
    return out;
}"""

CHECKS = {
    "che": [
        ("tile number", "svg.board .tile-number", "fill", "tile", 4.5),
    ],
    "marque": [
        ("white piece outline", "svg.board .piece-white .piece-body", "stroke", "cell", 3.0),
        ("black piece outline", "svg.board .piece-black .piece-body", "stroke", "cell", 3.0),
        ("base letter", "svg.board .base-letter", "fill", "base", 4.5),
    ],
    "osbox": [
        ("side number", "svg.board .side-number", "fill", "side", 4.5),
        ("die outline", "svg.board .die .die-body", "stroke", "board-cell", 3.0),
    ],
    "ankor": [
        ("white cube edge", "svg.board .cube-white .face-edge", "stroke", "board", 3.0),
    ],
}
UNDER = {
    # What lies under each element: the tile's own square, the Marque cell at its centre...
    "tile": "(e) => e.parentNode.querySelector('rect')",
    "cell": """(e) => {
        const c = e.getBoundingClientRect();
        const under = document.elementsFromPoint(c.left + 1, c.top + c.height / 2);
        return under.find((x) => x.matches('polygon.cell')) ?? null;
    }""",
    "base": """(e) => {
        const c = e.getBoundingClientRect();
        const under = document.elementsFromPoint(c.left + c.width / 2, c.top + c.height / 2);
        return under.find((x) => x.matches('polygon.cell')) ?? null;
    }""",
    "side": "(e) => e.parentNode.querySelector('rect')",
    "board-cell": "(e) => document.querySelector('svg.board rect.cell')",
    "board": "(e) => document.querySelector('svg.board .pyramid-board')",
}


@pytest.mark.parametrize("game", sorted(CHECKS))
async def test_board_colours_have_enough_contrast(
    game: str, redis_client: aioredis.Redis, server: RunningServer, open_page: Opener
) -> None:
    room, first, second = await room_for(redis_client, game)
    clients = {p.id: await Client.connect(server.ws_url, token_for(p)) for p in (first, second)}
    await play_moves(clients, (first, second), room, random_moves(game, "", 12, seed=5))
    for client in clients.values():
        await client.close()
    page = await open_page(f"/#/room/{room}")
    await expect(page.locator(".moves .move").first).to_be_attached()
    checks = CHECKS[game]
    script = (
        "() => ("
        + CONTRAST
        + ")(["
        + ",".join(
            f"{{name: {name!r}, selector: {selector!r}, part: {part!r}, under: {UNDER[under]}}}"
            for name, selector, part, under, _ in checks
        )
        + "])"
    )
    ratios: list[list[object]] = await page.evaluate(script)
    for name, _, _, _, least in checks:
        found = [r for n, r in ratios if n == name]
        assert found, f"nothing measured for {name}"
        assert min(found) >= least, f"{game}: {name} contrast {min(found)} < {least}"
