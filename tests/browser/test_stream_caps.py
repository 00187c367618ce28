"""Past the cap on open live streams (league/site/event_stream.py) the server answers 429 and EventSource gives up: the
live page keeps the view it was served with, marks itself as refreshing slowly, and throws nothing."""

from __future__ import annotations

import re
from collections.abc import Callable

from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from tests.browser.conftest import Tab

# Chromium logs the refused stream itself (not the page's script): the one console error expected here.
REFUSED_STREAM = re.compile(r"EventSource|/live/events/|status of 429|favicon\.ico")


def test_past_the_stream_cap_the_live_page_keeps_its_view_and_asks_again_later(
    open_tab: Callable[..., Tab], settings
) -> None:
    settings.STREAM_MAX_PER_ADDRESS = 0  # every stream from this address is refused (429, Retry-After)
    do_register_builtin_bots(["love_letter"])
    versions = [bot.current_version() for bot in Bot.objects.filter(game="love_letter").order_by("pk")[:2]]
    match = do_create_match("love_letter", [v for v in versions if v is not None])
    assert do_claim_match(match.pk) is not None
    tab = open_tab(tolerate=REFUSED_STREAM)
    tab.goto(f"/matches/{match.pk}/live/")
    root = "[data-parlour-table]"
    tab.page.wait_for_selector(f"{root}[data-ready='1'] [data-felt][data-perspective=spectator]")
    tab.page.wait_for_selector(f"{root}[data-live='slow']", timeout=8000)
    assert tab.page.locator("[data-felt]").count() == 1  # the view it was served with is still drawn
    tab.assert_no_errors()
