"""A person plays a whole game of Ranczo Party at a table with the game's own controls (games/ranczo/viewer.js
`controls`, docs/viewer.md "Controls"): a card picked in the hand, then one of its lit places on the grid (or, when no
card fits, the deck to slide it under), by mouse and by keyboard, on a phone and on a laptop, against the built-in
bots played by the real task (workers.tables.play_table) in a thread. Only the controls are clicked: the protocol's
own actions stay folded."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

import pytest

from league.tables.models import Table
from tests.browser.conftest import LAPTOP, PHONE, SCREENSHOTS, Tab
from tests.browser.table_worker import play_in_background

ROOT = "[data-parlour-table]"
CONTROLS = f"{ROOT}[data-turn=mine] [data-controls]"
# What a person must never be shown: JSON, seat numbers, the engine's row numbers, card ids.
PROTOCOL_WORDS = re.compile(r"[{}\"]|\bseat \d|\brow -?\d|\bid\b|\bplay \d")


def _choose_a_card(tab: Tab, rng: random.Random, keyboard: bool) -> bool:
    """Pick a card of the hand (one that is not picked already; the controls pick the only playable card
    themselves), or keep the one picked; whether a card was picked now."""
    picks = tab.page.locator(f"{CONTROLS} .rz-pick:not([disabled])")
    if tab.page.locator(f"{CONTROLS} .rz-pick[aria-pressed=true]").count() and rng.random() < 0.5:
        return False  # keep the card already picked
    free = [i for i in range(picks.count()) if picks.nth(i).get_attribute("aria-pressed") != "true"]
    if not free:
        return False
    pick = picks.nth(rng.choice(free))
    if keyboard:
        pick.focus()
        tab.page.keyboard.press("Enter")
    else:
        pick.click()
    assert pick.get_attribute("aria-pressed") == "true"
    return True


@pytest.mark.parametrize(("viewport", "players", "seed"), [(PHONE, 2, 7), (LAPTOP, 3, 11)], ids=["phone", "laptop"])
def test_a_person_plays_ranczo_by_its_cards_and_grid(
    open_tab: Callable[..., Tab], alice, django_db_blocker, viewport: dict[str, int], players: int, seed: int
) -> None:
    size = "phone" if viewport is PHONE else "laptop"
    tab = open_tab(viewport).sign_in(alice)
    tab.goto(f"/play/?game=ranczo&players={players}")
    tab.page.click("[data-sit]")
    tab.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    opponents = [seat["label"] for seat in table.seats if seat["kind"] != "person"]
    assert len(opponents) == players - 1
    worker = play_in_background(table.pk, django_db_blocker)
    rng = random.Random(seed)
    submissions = buried = by_keyboard = 0
    labels: list[str] = []
    said: list[str] = []
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < 85, f"too slow: {submissions} moves in {time.monotonic() - started:.0f} s"
        tab.page.wait_for_selector(f"{CONTROLS} .rz-pick:not([disabled]), {ROOT}[data-status=finished]", timeout=20000)
        if tab.page.get_attribute(ROOT, "data-status") == "finished":
            break
        move = tab.page.get_attribute(ROOT, "data-move")
        assert tab.page.get_attribute("[data-raw-actions]", "open") is None  # the protocol's actions stay folded
        assert tab.page.locator("[data-felt] .rz-gridwrap").is_hidden()  # one grid on the page: the controls'
        keyboard = submissions % 4 == 3
        picked_now = _choose_a_card(tab, rng, keyboard)
        text = tab.page.inner_text(CONTROLS)
        names = tab.page.eval_on_selector_all(
            f"{CONTROLS} button", "(buttons) => buttons.map((b) => b.getAttribute('aria-label') || b.textContent)"
        )
        assert not [n for n in [text, *names] if PROTOCOL_WORDS.search(n)], (text, names)
        labels += names
        if tab.page.locator(f"{CONTROLS} .rz-said").count():
            said.append(tab.page.inner_text(f"{CONTROLS} .rz-said"))
        if submissions == 5:  # mid-game, a card picked and its places lit
            tab.assert_fits(viewport["width"])
            tab.shot(f"table-ranczo-controls-{size}")
            tab.page.locator(CONTROLS).screenshot(path=str(SCREENSHOTS / f"table-ranczo-controls-{size}-close.png"))
        targets = tab.page.locator(f"{CONTROLS} .rz-target")
        if targets.count():
            assert "Put your" in (targets.first.get_attribute("aria-label") or "")
            if keyboard:  # Enter on a card goes on to its first place
                if not picked_now:
                    targets.first.focus()
                assert tab.page.evaluate("document.activeElement.classList.contains('rz-target')")
                tab.page.keyboard.press("Space")
            else:
                targets.nth(rng.randrange(targets.count())).click()
        else:
            deck = tab.page.locator(f"{CONTROLS} .rz-deck")
            assert "under the deck" in deck.inner_text()
            if keyboard:
                if not picked_now:
                    deck.focus()
                assert tab.page.evaluate("document.activeElement.classList.contains('rz-deck')")
                tab.page.keyboard.press("Enter")
            else:
                deck.click()
            buried += 1
        by_keyboard += keyboard
        submissions += 1
        tab.page.wait_for_selector(f"{ROOT}:not([data-move='{move}']), {ROOT}:not([data-status=running])")
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    moves = table.replay["moves"]
    assert submissions == sum(1 for m in moves if m["seat"] == table.person_seat and not m["auto"])
    assert submissions >= 5 and by_keyboard >= 1
    # Ranczo has no targets among the players: the opponent is named in the sentence about their last move.
    assert any(name in line for line in said for name in opponents), said[:5]
    assert any("Put your" in label for label in labels)
    tab.page.wait_for_selector("[data-result]:not([hidden])")
    tab.shot(f"table-ranczo-end-{size}")
    print(
        f"\nranczo on a {size}: {submissions} moves ({buried} buried, {by_keyboard} by keyboard) "
        f"in {time.monotonic() - started:.0f} s"
    )
    tab.assert_no_errors()


def test_when_no_card_fits_the_person_slides_one_under_the_deck(
    open_tab: Callable[..., Tab], alice, django_db_blocker
) -> None:
    """A deal (the `deck` option) where the first card on the grid is a hen and no hand holds a hen or a goose: no
    card fits anywhere, so the controls offer the hand to put one under the deck. Both players do, and the game ends
    (RULES.md "End of game" 2)."""
    tab = open_tab(PHONE).sign_in(alice)
    tab.goto("/play/?game=ranczo")
    tab.page.click("[data-sit]")
    tab.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    high = [{"value": v, "balloon": i == 0 and v <= 6} for v in range(3, 8) for i in range(7)]
    random.Random(3).shuffle(high)
    low = [{"value": 1}] * 7 + [{"value": 2, "balloon": i == 0} for i in range(7)]
    deck = high[:14] + low[:1] + high[14:] + low[1:]  # two hands, the first card (a hen), the draws, then 1s and 2s
    Table.objects.filter(pk=table.pk).update(options={"deck": deck})
    worker = play_in_background(table.pk, django_db_blocker)
    tab.page.wait_for_selector(f"{CONTROLS} .rz-pick", timeout=20000)
    assert "None of your cards fits" in tab.page.inner_text(f"{CONTROLS} .rz-say")
    picks = tab.page.locator(f"{CONTROLS} .rz-pick")
    assert picks.count() == 8 and tab.page.locator(f"{CONTROLS} .rz-pick:disabled").count() == 0
    assert tab.page.locator(f"{CONTROLS} .rz-target").count() == 0
    assert tab.page.locator(f"{CONTROLS} .rz-deck").count() == 0  # a card first
    picks.nth(2).focus()
    tab.page.keyboard.press("Enter")  # from the keyboard: the deck takes the focus
    deck_button = tab.page.locator(f"{CONTROLS} .rz-deck")
    name = deck_button.inner_text()
    assert re.fullmatch(r"Put your (goat|sheep|pig|cow|horse) \(\d\)( with a balloon)? under the deck", name), name
    assert tab.page.evaluate("document.activeElement.classList.contains('rz-deck')")
    tab.assert_fits(PHONE["width"])
    tab.shot("table-ranczo-bury-phone")
    tab.page.keyboard.press("Enter")
    tab.page.wait_for_selector(f"{ROOT}[data-status=finished]", timeout=20000)
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    mine = [m for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"]]
    assert [list(m["action"]) for m in mine] == [["bury"]]
    assert len(table.replay["moves"]) == 2  # the bot could not play either
    tab.assert_no_errors()
