"""Seats as people count them, from 1, wherever a person reads one: the match page's seats, the replay viewer's seat
chips, its seat picker and its "seen as" note. The protocol, the API and the page's links keep the 0-based index
(``#move=3&seat=0``, ``?seat=0``): only the words change."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.browser.conftest import PHONE, Tab
from tests.browser.recorded import record_match

READY = "[data-parlour-viewer][data-ready='1']"


def test_the_match_page_and_its_replay_count_seats_from_one(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=3, seed=5)
    names = [seat.bot_version.label for seat in match.seats.order_by("number")]  # "parlour/heuristic v1"
    tab = open_tab()
    tab.goto(f"/matches/{match.pk}/")
    tab.page.wait_for_selector(READY, timeout=15_000)

    assert tab.page.locator("table.seats-table .seat-dot").all_inner_texts() == ["1", "2", "3"]
    chips = tab.page.locator(".pv-persp-btn .pv-chip")
    assert [chip.split("\n")[0].strip() for chip in chips.all_inner_texts()] == ["1", "2", "3"]
    assert chips.first.get_attribute("title") == f"Seat 1: {names[0]}"
    assert set(tab.page.locator(".pv-move .pv-chip b").all_inner_texts()) <= {"1", "2", "3"}
    assert "0" not in tab.page.locator(".pv-chip b").all_inner_texts()

    tab.page.click(".pv-persp-btn[data-seat='1']")  # the second seat: "seat=1" on the wire, "Seat 2" in words
    tab.page.wait_for_url(re.compile(r"seat=1$"))
    assert f"Seen as seat 2: only what {names[1]} knew" in tab.page.inner_text(".pv-caption")
    tab.assert_no_errors()


def test_the_phones_seat_picker_counts_from_one(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=2, seed=6)
    tab = open_tab(viewport=PHONE)
    tab.goto(f"/matches/{match.pk}/")
    tab.page.wait_for_selector(READY, timeout=15_000)
    options = tab.page.locator(".pv-persp-select option").all_inner_texts()
    assert options[0] == "Spectator" and [o.split(" · ")[0] for o in options[1:]] == ["Seat 1", "Seat 2"]
    assert tab.page.locator(".pv-persp-select option").nth(1).get_attribute("value") == "0"  # the wire's index
    tab.assert_fits(PHONE["width"])
    tab.assert_no_errors()
