"""A finished game's page asks for the computer analysis and shows it: the graph under the
move list, the blunder marked ?? in the moves, and, for the move shown, the better one."""

from __future__ import annotations

from pathlib import Path

import redis.asyncio as aioredis
from playwright.async_api import expect

from rules import find_game
from tests.bots.test_analysis import planted_blunder
from tests.browser.conftest import Opener, room_for
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer
from tests.e2e.test_analysis import play_record, running_analyst

GAME, OPTIONS = "boche", "-size=4"


async def test_a_finished_game_shows_its_analysis_graph_and_marks(
    redis_client: aioredis.Redis,
    redis_server: RedisServer,
    server: RunningServer,
    open_page: Opener,
    artifacts: Path,
) -> None:
    moves, blunder_ply, winning = planted_blunder(find_game(GAME), OPTIONS)
    room, first, second = await room_for(redis_client, GAME, OPTIONS)
    await play_record(server, room, [first, second], moves)

    page = await open_page(f"/#/room/{room}", first)
    await expect(page.locator(".moves .move")).to_have_count(len(moves))
    button = page.locator(".analysis-request")
    await expect(button).to_be_visible()
    with running_analyst(redis_server.url):
        await button.click()
        await expect(page.locator(".analysis-chart")).to_be_visible(timeout=60_000)
    await expect(page.locator(".analysis-request")).to_be_hidden()
    await expect(page.locator(".analysis-chart .chart-hit")).to_have_count(len(moves))
    await expect(page.locator(".analysis-chart .chart-mark.blunder")).not_to_have_count(0)
    blunder = page.locator(f'.moves .move[data-ply="{blunder_ply}"] .mark')
    await expect(blunder).to_have_text("??")
    await page.screenshot(path=artifacts / "analysis-final.png")

    await page.locator(f'.analysis-chart .chart-hit[data-ply="{blunder_ply}"]').click()
    await expect(page.locator(".replay-banner")).to_contain_text(f"Move {blunder_ply} of")
    detail = page.locator(".analysis-detail")
    await expect(detail).to_contain_text("blunder")
    better = (await detail.inner_text()).rsplit("Better: ", 1)[1].rstrip(".")
    assert better in winning
    await page.locator(".moves-box").screenshot(path=artifacts / "analysis-blunder.png")

    # A page opened later shows the analysis at once, on a phone too.
    phone = await open_page(f"/#/room/{room}", second, phone=True)
    await expect(phone.locator(".analysis-chart .chart-hit")).to_have_count(len(moves))
    await expect(phone.locator(".analysis-request")).to_be_hidden()
    await expect(phone.locator(f'.moves .move[data-ply="{blunder_ply}"] .mark')).to_have_text("??")
    await phone.locator(".analysis").scroll_into_view_if_needed()
    await phone.screenshot(path=artifacts / "analysis-phone.png")
