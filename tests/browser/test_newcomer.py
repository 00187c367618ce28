"""Issue #19, finding 7: "Take it off the ladder" looks like a button, one you can click."""

from __future__ import annotations

from collections.abc import Callable

from league.bots.models import Bot
from tests.browser.conftest import Tab
from tests.league.challenges.test_challenges import _ready_bot


def test_take_it_off_the_ladder_looks_clickable_and_works(open_tab: Callable[..., Tab], alice) -> None:
    bot = _ready_bot(alice, "hero")
    tab = open_tab().sign_in(alice)
    tab.goto(f"/bots/{bot.pk}/")
    button = tab.page.get_by_role("button", name="Take it off the ladder")
    style = button.evaluate(
        "(b) => { const s = getComputedStyle(b);"
        " return [s.borderTopWidth, s.borderTopStyle, s.cursor, s.paddingLeft]; }"
    )
    border, line, cursor, padding = style
    assert border != "0px" and line != "none" and cursor == "pointer" and float(padding.removesuffix("px")) >= 4
    button.click()
    tab.page.wait_for_selector("text=Taken off the ladder")
    assert Bot.objects.get(pk=bot.pk).is_active is False
    tab.assert_no_errors()
