"""Browser tests: Playwright drives Debian's Chromium (``apt-get install chromium``; never a downloaded browser) against
pytest-django's live server. They are part of the normal suite: a missing browser fails them, it does not skip them.

Screenshots go to ``artifacts/screenshots/`` (a person looks at them; CI keeps them).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from league.core import outbox

CHROMIUM = os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
LAPTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
VIEWER_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "league.site.staticfinders.GameViewerFinder",
]
# base.html has no <link rel="icon">, so Chromium asks for /favicon.ico and logs the 404 as a console error. That is
# the only console error tolerated here; remove this once base.html links an icon.
TOLERATED_ERROR_URLS = re.compile(r"/favicon\.ico$")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives headless Chromium through Playwright")


@pytest.fixture(scope="package")
def chromium() -> Iterator[Any]:
    yield from launched_chromium()


def launched_chromium() -> Iterator[Any]:
    """Chromium under Playwright for as long as the generator is not closed (a fixture of another package takes it
    with a scope of its own: this package's fixture ends only with this package)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set PARLOUR_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio loop running in this thread, which makes Django refuse database
    # calls ("you cannot call this from an async context"). The test body is plain synchronous code, so allow it,
    # and only while the loop exists.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class AsgiLiveServer:
    """pytest-django's ``live_server``, served as the site is served (uvicorn on parlour.asgi) instead of by a WSGI
    thread: the live event streams are async (league/site/event_stream.py) and a WSGI server would collect a whole
    stream before sending any of it. In this process, in a thread of its own, on the test database; static files as
    Django's test servers serve them."""

    def __init__(self) -> None:
        import socket
        import threading

        import uvicorn
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.test.utils import modify_settings

        from parlour.asgi import application

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        # pytest-django's helper enables this around each test that uses the server
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": "127.0.0.1"})
        config = uvicorn.Config(
            ASGIStaticFilesHandler(application), host="127.0.0.1", port=port, lifespan="off", log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="asgi-live-server", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the ASGI live server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="session")
def live_server() -> Iterator[AsgiLiveServer]:
    server = AsgiLiveServer()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _renderers_are_static_files(settings) -> None:
    """The settings line the lead adds (STATICFILES_FINDERS); harmless once it is there."""
    settings.STATICFILES_FINDERS = VIEWER_FINDERS


@pytest.fixture(autouse=True)
def _no_task_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches here are played in process; nothing must reach the real broker (a worker test could pick it up)."""
    monkeypatch.setattr(outbox, "enqueue", lambda task_name, object_id: None)


@dataclass
class Tab:
    """A page with every console error, uncaught exception and failed request kept for the assertions."""

    page: Any
    base: str
    errors: list[str] = field(default_factory=list)

    def goto(self, path: str) -> Any:
        return self.page.goto(self.base + path)

    def sign_in(self, user: Any) -> Tab:
        """This tab, signed in as ``user`` (a session made by Django's test client, handed to the browser)."""
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        self.page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": self.base}])
        return self

    def shot(self, name: str, full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def assert_fits(self, width: int) -> None:
        """Nothing makes the page scroll sideways (a table may scroll inside its own box)."""
        overflow = self.page.evaluate(
            """(width) => [...document.querySelectorAll('body *')]
                .filter((el) => el.getBoundingClientRect().right > width + 1)
                .filter((el) => !el.closest('.table-scroll, .pv-table'))
                .slice(0, 8)
                .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${el.getBoundingClientRect().right}`)""",
            width,
        )
        scroll_width = self.page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"{self.page.url} is {scroll_width}px wide on a {width}px screen: {overflow}"

    def assert_no_errors(self) -> None:
        assert self.errors == [], "\n".join(self.errors)


@pytest.fixture
def open_tab(chromium: Any, live_server: Any, transactional_db: None) -> Iterator[Callable[..., Tab]]:
    contexts = []

    def open_tab(viewport: dict[str, int] | None = None, tolerate: re.Pattern[str] | None = None) -> Tab:
        is_phone = (viewport or LAPTOP)["width"] < 600
        context = chromium.new_context(
            viewport=viewport or LAPTOP,
            device_scale_factor=2 if is_phone else 1,
            is_mobile=is_phone,
            has_touch=is_phone,
        )
        contexts.append(context)
        tab = Tab(context.new_page(), live_server.url)
        allowed = tolerate or TOLERATED_ERROR_URLS

        def on_console(message: Any) -> None:
            if message.type != "error":
                return
            url = (message.location or {}).get("url", "")
            if not (allowed.search(url) or allowed.search(message.text)):
                tab.errors.append(f"console: {message.text} ({url})")

        tab.page.on("console", on_console)
        tab.page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
        return tab

    yield open_tab
    for context in contexts:
        context.close()
