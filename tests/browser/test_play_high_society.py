"""A person plays a whole game of High Society at a table with the game's own controls (games/high_society/viewer.js,
``controls``; docs/viewer.md, "Controls"): money cards toggled into a bid, the running total against the highest bid,
"Bid N" enabled only for a legal bid, "Pass" saying what passing means now, and Gossip's discard as guest cards. Only
``[data-controls]`` is clicked, never the protocol's folded buttons, on a phone and on a laptop.

The worker's side is the real task (workers.tables.play_table) in a thread of the test process with the league's
built-in bots, as in tests/browser/test_tables.py."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from league.tables.models import Table
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.table_worker import play_in_background

ROOT = "[data-parlour-table]"
DEALS = {"phone": (1, 8), "laptop": (2, 5)}  # the person's seat and the table's seed (the deck's order)
RNG_SEEDS = {"phone": 17, "laptop": 23}  # the person's choices
CONTROLS = f"{ROOT}[data-turn=mine] [data-controls]"


def _view(tab: Tab) -> dict[str, Any]:
    return json.loads(tab.page.evaluate("JSON.stringify(window.parlourTable.view)"))


def _press(tab: Tab, button: Any, how: str) -> None:
    """A person's press: a click, or the key Space or Enter on the focused button."""
    if how == "click":
        button.click()
    else:
        button.focus()
        tab.page.keyboard.press(how)


def _shot(tab: Tab, name: str) -> None:
    """The screen as the person sees it at their move: scrolled to the controls."""
    tab.page.locator(CONTROLS).evaluate("(el) => el.scrollIntoView({block: 'end'})")
    tab.shot(name, full_page=False)


GOSSIP = {"kind": "scandal", "effect": "discard"}
Step = tuple[str, int, str]  # (what, money or guest value or 0, how it is pressed)


def _plan(obs: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> list[Step]:
    """What the person presses for this decision, chosen with ``rng``: ("discard", guest, how), ("pass", 0, how), or
    money cards ("card" to choose, "back" to put back, "clear" after choosing two) and then ("bid", 0, how), stopping
    as soon as the chosen cards make a legal bid. Pure: the same choices whatever shows them."""
    if obs["phase"] == "discard":
        guests = [a["discard"] for a in legal]
        return [("discard", guests[rng.randrange(len(guests))], rng.choice(["click", "Enter", "Space"]))]
    me = obs["seat"]
    legal_bids = {tuple(sorted(a["bid"])) for a in legal if "bid" in a}
    # A person passes more often the dearer the raise (the money they must add, of what they hold), and takes Gossip
    # when they own a guest to give up (its discard is a choice of its own).
    dear = (obs["highest_bid"] + 1 - sum(obs["bids"][me])) / max(1, sum(obs["money"]))
    gossip = obs["card"] == GOSSIP and any(c["kind"] == "guest" for c in obs["won"][me])
    if not legal_bids or gossip or rng.random() < 0.2 + 0.6 * min(1.0, dear):
        return [("pass", 0, rng.choice(["click", "Enter"]))]
    values = sorted(obs["money"])
    steps: list[Step] = []
    if rng.random() < 0.25:  # a change of mind: two cards chosen, then Clear
        steps += [("card", v, "click") for v in rng.sample(values, min(2, len(values)))] + [("clear", 0, "click")]
    # Mostly small cards first, as a person raising a little would; sometimes a card is put back (and may be chosen
    # again later).
    order = sorted(values, key=lambda v: v * rng.uniform(0.5, 1.0))
    chosen: set[int] = set()
    while tuple(sorted(chosen)) not in legal_bids:
        value = order.pop(0)
        steps.append(("card", value, rng.choice(["click", "click", "Space", "Enter"])))
        chosen.add(value)
        if len(chosen) > 1 and rng.random() < 0.15:
            back = rng.choice(sorted(chosen))
            steps.append(("back", back, "click"))
            chosen.discard(back)
            order.append(back)
    return [*steps, ("bid", 0, rng.choice(["click", "Enter"]))]


def _check_keyboard(tab: Tab) -> None:
    """The money cards toggle with Space and Enter, Tab moves on to the next, and the focus is visible."""
    cards = tab.page.locator(f"{CONTROLS} [data-hs-money]")
    first = cards.nth(0)
    first.focus()
    tab.page.keyboard.press("Space")
    assert first.get_attribute("aria-pressed") == "true"
    tab.page.keyboard.press("Enter")
    assert first.get_attribute("aria-pressed") == "false"
    tab.page.keyboard.press("Tab")
    focused = tab.page.evaluate(
        "[document.activeElement.dataset.hsMoney, getComputedStyle(document.activeElement).outlineStyle]"
    )
    assert focused == [cards.nth(1).get_attribute("data-hs-money"), "solid"], focused


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_person_plays_high_society_with_money_cards(
    open_tab: Callable[..., Tab], alice, django_db_blocker, viewport: dict[str, int]
) -> None:
    size = "phone" if viewport is PHONE else "laptop"
    person = open_tab(viewport).sign_in(alice)
    person.goto("/play/?game=high_society")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    # The same game every run: the person's seat (the bots keep their order) and the seed (the deck's order).
    seat, seed = DEALS[size]
    seats = [s for s in table.seats if s["kind"] != "person"]
    seats.insert(seat, next(s for s in table.seats if s["kind"] == "person"))
    Table.objects.filter(pk=table.pk).update(seed=seed, person_seat=seat, seats=seats)
    table.refresh_from_db()
    labels = [s["label"] for s in table.seats]
    opponents = [s["label"] for s in table.seats if s["kind"] != "person"]
    worker = play_in_background(table.pk, django_db_blocker)
    rng = random.Random(RNG_SEEDS[size])
    submissions = bids = passes = discards = 0
    named = keyboard_checked = False
    seen: set[str] = set()  # the kinds of controls met: bid, pass-only, discard, scandal
    deadline = time.monotonic() + 80
    while True:
        assert time.monotonic() < deadline, f"the game took too long: {submissions} moves"
        try:
            person.page.wait_for_selector(
                f"{CONTROLS} button:not([disabled]), {ROOT}[data-status=finished]", timeout=20000
            )
        except Exception:
            person.shot(f"table-high_society-{size}-stuck")
            raise AssertionError(f"stuck: {json.dumps(_view(person))[:3000]} {person.errors}") from None
        if person.page.get_attribute(ROOT, "data-status") == "finished":
            break
        move = person.page.get_attribute(ROOT, "data-move")
        view = _view(person)
        obs, legal = view["observation"], view["legal_actions"]
        me = obs["seat"]
        box = person.page.locator(CONTROLS)
        text = box.inner_text()
        # Sentences with names: no JSON, no seat numbers, the protocol's buttons folded away.
        assert "{" not in text and "[" not in text and "seat" not in text.lower(), text
        assert person.page.locator("[data-raw-actions][open]").count() == 0
        assert person.page.locator(".tb-action:visible").count() == 0
        named = named or any(label in text for label in opponents)
        if viewport is PHONE:
            person.assert_fits(PHONE["width"])
        kind = box.locator("[data-hs-controls]").get_attribute("data-hs-controls")
        legal_bids = {tuple(sorted(a["bid"])) for a in legal if "bid" in a}
        if obs["phase"] == "discard":
            assert kind == "discard"
            offered = box.locator("[data-hs-discard]").evaluate_all(
                "(bs) => bs.map((b) => Number(b.dataset.hsDiscard))"
            )
            assert offered == [a["discard"] for a in legal]
            if "discard" not in seen:
                _shot(person, f"table-high_society-{size}-discard")
            seen.add("discard")
        else:
            card = obs["card"]
            said = box.locator("[data-hs-pass]").inner_text()
            if card["kind"] == "scandal":
                # passing takes the scandal, and says whose bid is spent
                assert said.startswith("Pass and take the") and "You take the" in said, said
                for s, bid in enumerate(obs["bids"]):
                    if s != me and bid:
                        assert f"{labels[s]} spends {sum(bid)}" in said, said
                if "scandal" not in seen:
                    _shot(person, f"table-high_society-{size}-scandal")
                seen.add("scandal")
            else:
                assert said.startswith("Pass") and "leave this auction" in said, said
                still_in = [s for s, out in enumerate(obs["passed"]) if s != me and not out]
                if len(still_in) == 1:  # passing gives the card to the last one in: named
                    assert f"{labels[still_in[0]]} takes the" in said, said
            if sum(obs["bids"][me]):
                assert "take" in said and "back" in said, said  # your bid comes back
            if not legal_bids:
                assert kind == "pass-only" and "you can only pass" in text, text
                if "pass-only" not in seen:
                    _shot(person, f"table-high_society-{size}-pass-only")
                seen.add("pass-only")
            else:
                assert kind == "bid"
                assert sorted(
                    box.locator("[data-hs-money]").evaluate_all("(bs) => bs.map((b) => Number(b.dataset.hsMoney))")
                ) == sorted(obs["money"])
        steps = _plan(obs, legal, rng)
        if steps[-1][0] == "bid" and not keyboard_checked:
            _check_keyboard(person)
            keyboard_checked = True
        in_front = sum(obs["bids"][me]) if obs["phase"] == "bid" else 0
        bid_button = box.locator("[data-hs-bid]")
        chosen: set[int] = set()
        for what, value, how in steps:
            if what == "discard":
                _press(person, box.locator(f"[data-hs-discard='{value}']"), how)
                discards += 1
            elif what == "pass":
                _press(person, box.locator("[data-hs-pass]"), how)
                passes += 1
            elif what == "clear":
                _press(person, box.locator("[data-hs-clear]"), how)
                chosen.clear()
                assert box.locator("[data-hs-money][aria-pressed=true]").count() == 0
                assert not bid_button.is_enabled() and box.locator("[data-hs-clear]").is_disabled()
            elif what in ("card", "back"):
                _press(person, box.locator(f"[data-hs-money='{value}']"), how)
                chosen ^= {value}
                pressed = box.locator("[data-hs-money][aria-pressed=true]").evaluate_all(
                    "(bs) => bs.map((b) => Number(b.dataset.hsMoney))"
                )
                assert set(pressed) == chosen
                total = in_front + sum(chosen)
                assert bid_button.inner_text() == f"Bid {total}"
                # enabled exactly for a legal bid, and the tally says so too
                assert bid_button.is_enabled() == (tuple(sorted(chosen)) in legal_bids), (chosen, total)
                tally = box.locator("[data-hs-tally]").inner_text()
                assert tally.startswith("Your bid: ") and str(total) in tally, tally
                assert ("beats" in tally or "opening" in tally) == bid_button.is_enabled(), tally
            else:
                assert bid_button.is_enabled()
                if "bid" not in seen and submissions >= 1:
                    _shot(person, f"table-high_society-{size}-controls")
                    seen.add("bid")
                _press(person, bid_button, how)
                bids += 1
        submissions += 1
        person.page.wait_for_selector(f"{ROOT}:not([data-move='{move}']), {ROOT}:not([data-status=running])")
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    moves = [m for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"]]
    assert len(moves) == submissions, (len(moves), submissions)
    assert sum(1 for m in moves if "bid" in m["action"]) == bids
    assert sum(1 for m in moves if "discard" in m["action"]) == discards
    assert bids and passes and discards, (bids, passes, discards)  # the deals were chosen to reach each kind
    assert named, "no choice named an opponent"
    person.page.wait_for_selector("[data-result]:not([hidden])")
    person.shot(f"table-high_society-{size}-end")
    print(
        f"\nhigh_society on a {size}: {submissions} moves ({bids} bids, {passes} passes, {discards} discards); {seen}"
    )
    person.assert_no_errors()
    if viewport is PHONE:
        person.assert_fits(PHONE["width"])
