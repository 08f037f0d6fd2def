"""Browser fixtures: Debian's Chromium driven by Playwright, against the real app on port 0.

The server runs in the test process on the private Redis, exactly as in ``tests/e2e``; rooms
are created in the store as the end-to-end tests create them.  Players get tokens put in
``localStorage`` before the page loads; a spectator signs in with the page's one-click guest
button.  Screenshots go to ``artifacts/browser/`` (the path is printed at the end of the run).
``CHROMIUM`` names another Chromium binary; without one the tests fail and say how to install it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from lobby.identity import Player, new_guest
from tests.conftest import RedisServer
from tests.e2e.conftest import RunningServer, make_room, start_server, token_for

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # Debian's build by default
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN_KEY = "browne-games.token"
TIMEOUT_MS = 10_000

try:
    from playwright.async_api import Browser, BrowserContext, Page, async_playwright
except ImportError:  # the message below says how to install it
    async_playwright = None  # type: ignore[assignment]


_screenshots_taken: list[Path] = []


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The folder for screenshots; its path is printed at the end of the run."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    _screenshots_taken.append(ARTIFACTS)
    return ARTIFACTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _screenshots_taken:
        terminalreporter.write_line(f"browser screenshots: {ARTIFACTS}")


@pytest.fixture(scope="session")
async def chromium() -> AsyncIterator[Browser]:
    """One headless Chromium (Debian's build) for the session, with a fresh profile."""
    if async_playwright is None:
        pytest.fail(
            "the browser tests need Playwright: `.venv/bin/pip install -e '.[test]'` "
            "(never `playwright install`: they use Debian's Chromium)",
            pytrace=False,
        )
    if shutil.which(CHROMIUM) is None:
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: run `apt-get install chromium` "
            "(or `./dev test`, which installs it) and try again",
            pytrace=False,
        )
    # launch() gives Chromium a fresh temporary profile (user-data dir) of its own.
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000
        )
        yield browser
        await browser.close()


@pytest.fixture
async def server(
    redis_server: RedisServer, redis_client: aioredis.Redis
) -> AsyncIterator[RunningServer]:
    running = await start_server(redis_server.url)
    yield running
    await running.stop()


Opener = Callable[..., Awaitable[Page]]


@pytest.fixture
async def open_page(chromium: Browser, server: RunningServer) -> AsyncIterator[Opener]:
    """``await open_page(path, player=None, phone=False)``: a page in its own context.

    With a player, its token is in localStorage before the page loads; without one, the page
    shows its sign-in and the test clicks the guest button.  JS errors fail the test.
    """
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    async def open_(path: str, player: Player | None = None, phone: bool = False) -> Page:
        viewport = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 800}
        context = await chromium.new_context(
            viewport=viewport,  # type: ignore[arg-type]
            is_mobile=phone,
            has_touch=phone,
            base_url=server.base_url,
        )
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        if player is not None:
            await context.add_init_script(
                f"localStorage.setItem({TOKEN_KEY!r}, {token_for(player)!r});"
            )
        page = await context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(path)
        return page

    yield open_
    for context in contexts:
        await context.close()
    assert errors == [], f"JavaScript errors in the page: {errors}"


async def room_for(
    client: aioredis.Redis, game: str, options: str = ""
) -> tuple[str, Player, Player]:
    """A new room of ``game`` with two new guests in its seats."""
    first, second = new_guest(), new_guest()
    room = await make_room(client, first, second, game=game, options=options, room_id=f"b-{game}")
    return room, first, second
