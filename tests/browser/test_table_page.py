"""The table page around the game (issue 32): the person's move docked in view on a phone, names instead of seat
numbers, the rules one click away, Resign, and at the end the result first with Play again. The worker's side is the
real task in a thread, as in tests/browser/test_tables.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from league.tables.models import Table
from tests.browser.conftest import PHONE, Tab
from tests.browser.table_worker import play_in_background


def test_a_person_on_a_phone_resigns_then_plays_again(open_tab: Callable[..., Tab], alice, django_db_blocker) -> None:
    person = open_tab(PHONE).sign_in(alice)
    person.goto("/play/?game=love_letter")
    person.page.click("summary:has-text('How to play Love Letter')")
    assert person.page.locator(".tb-rules-text").is_visible()  # the rules in brief, on the setup page
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    worker = play_in_background(table.pk, django_db_blocker)
    root = "[data-parlour-table]"
    person.page.wait_for_selector(f"{root}[data-turn=mine]", timeout=30000)
    # The move is in view, docked at the bottom of the phone's screen, without scrolling down to it.
    box = person.page.locator("[data-actions]").bounding_box()
    assert box is not None and box["y"] < PHONE["height"] and box["y"] + min(box["height"], 60) <= PHONE["height"]
    person.assert_fits(PHONE["width"])
    person.shot("table-page-phone-turn", full_page=False)
    # Resign: the first click asks, the second resigns.
    person.page.click("[data-resign-button]")
    assert "click again" in person.page.inner_text("[data-resign-button]")
    person.page.click("[data-resign-button]")
    person.page.wait_for_selector(f"{root}[data-status=finished]", timeout=60000)
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.resigned and table.result["outcome"]["ranks"][table.person_seat] == table.players
    person.page.wait_for_selector("[data-result]:not([hidden])", timeout=20000)
    assert "You resigned" in person.page.inner_text("[data-result]")
    assert "resigned" in person.page.locator("[data-result] .tb-fault").nth(table.person_seat).inner_text()
    person.assert_fits(PHONE["width"])
    result_top = person.page.locator("[data-result]").bounding_box()
    felt_top = person.page.locator("[data-felt]").bounding_box()
    assert result_top is not None and felt_top is not None and result_top["y"] < felt_top["y"]  # the result first
    # The finished page comes back with the replay (a reload): then Play again.
    person.page.wait_for_selector("[data-parlour-viewer][data-ready='1']", timeout=20000)
    narration = person.page.locator("[data-narration] li").all_inner_texts()
    assert narration and not any(re.search(r"\bseat \d\b", line, re.I) for line in narration), narration
    assert any("you" in line.lower() for line in narration) and any("parlour/" in line for line in narration)
    person.shot("table-page-phone-resigned")
    person.page.click("[data-rematch] button")
    person.page.wait_for_url(re.compile(rf".*/tables/(?!{table.pk}/)\d+/"))
    again = Table.objects.filter(owner=alice).exclude(pk=table.pk).get()
    assert again.game == table.game and again.players == table.players
    assert [s["bot_id"] for s in again.seats if s["kind"] != "person"] == [
        s["bot_id"] for s in table.seats if s["kind"] != "person"
    ]
    person.assert_no_errors()
