"""A person plays a whole game of TEN in Chromium with TEN's own controls (games/ten/viewer.js, `controls`): flip or
stop, bid or pass, a payment built from tokens and cards with the sum against what is due, and the market's cards.
Only `[data-controls]` is clicked; the protocol's own actions (`[data-raw-actions]`) stay folded.

The worker's side is the real task (workers.tables.play_table) in a thread of the test process against the league's
built-in bots, as in tests/browser/test_tables.py. One run switches on "Play the obvious moves for me" and must
finish with fewer decisions clicked than decisions made."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from math import comb
from typing import Any

import pytest

from games.ten.scoring import score_cards
from league.play.replays import renderer_url
from league.tables.models import Table
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.table_worker import play_in_background

ROOT = "[data-parlour-table]"
CONTROLS = "[data-controls]"
AUTO_KEY = "parlour-ten-play-obvious-moves"
# The person's decision is on the page: its legal actions arrived and the controls drawn from them wait for a click
# (or say they play the only possible move), or the game is over.
READY = """() => {
  const root = document.querySelector('[data-parlour-table]');
  const view = window.parlourTable && window.parlourTable.view;
  if (!root || !view) return false;
  if (root.dataset.status === 'finished') return 'finished';
  if (root.dataset.turn !== 'mine' || !(view.legal_actions || []).length) return false;
  if (document.querySelector('[data-controls] [data-auto-acting]')) return ['auto', root.dataset.move];
  return document.querySelector('[data-controls] button:not([disabled])') ? ['click', root.dataset.move] : false;
}"""
# The replay viewer's narration, step by step (the renderer's `narrate`).
NARRATION = """() => {
  const viewer = window.parlourViewer;
  return viewer.spectator.frames.map((_, step) => viewer.narration(step).map((line) => line.text).join(" "));
}"""


def _wait_moved(tab: Tab, moved: str) -> None:
    try:
        tab.page.wait_for_selector(moved, timeout=20000)
    except Exception:
        tab.shot("table-ten-stuck")
        said = tab.page.text_content("[data-message]")
        view = tab.page.evaluate(
            "(({ narration, observation, ...rest }) => JSON.stringify({ ...rest, last: narration.slice(-6),"
            " phase: observation && observation.phase }))(window.parlourTable.view)"
        )
        move = tab.page.get_attribute(ROOT, "data-move")
        raise AssertionError(f"the move was not played: {said!r} at {move}: {view[:3000]} {tab.errors}") from None


def _press(tab: Tab, target: Any, key: str) -> None:
    """Choose with the keyboard: the control is reached with Tab (Shift+Tab back to it), shows its focus, and `key`
    (Enter or Space) plays it."""
    target.focus()
    tab.page.keyboard.press("Tab")
    tab.page.keyboard.press("Shift+Tab")
    assert target.evaluate("(el) => el === document.activeElement")
    assert target.evaluate("(el) => el.matches(':focus-visible') && getComputedStyle(el).outlineStyle !== 'none'")
    tab.page.keyboard.press(key)


def _ways(legal: list[dict[str, Any]], cards: int) -> int:
    """How many complete actions `legal` stands for (a payment template with k card blanks: C(cards, k) of them)."""
    return sum(comb(cards, len(a["pay"]["cards"])) if "pay" in a and a["pay"]["cards"] else 1 for a in legal)


def _choice_names(tab: Tab) -> list[str]:
    return tab.page.evaluate(
        """() => [...document.querySelectorAll('[data-controls] button')]
            .map((b) => b.getAttribute('aria-label') || b.textContent)"""
    )


def _pay(tab: Tab, rng: random.Random, options: list[dict[str, Any]], coins_held: int) -> None:
    """Build one of the legal payments `options` by clicking tokens and cards (or a quick fill), checking on the way
    that the Pay button waits for a legal payment, then pay."""
    controls = tab.page.locator(CONTROLS)
    submit = controls.locator("[data-tn=pay]")
    assert submit.is_disabled()  # nothing given yet: short
    pay = rng.choice(options)["pay"]
    fill = controls.locator(f"[data-tn=fill][data-coins='{pay['coins']}'][data-fiasco='{pay['fiasco']}']")
    if not pay["cards"] and fill.count() and rng.random() < 0.5:
        fill.click()
    else:
        give = controls.locator("[data-tn=give]")
        for i in sorted(rng.sample(range(give.count()), len(pay["cards"]))):
            give.nth(i).click()
            assert give.nth(i).get_attribute("aria-pressed") == "true"
        for _ in range(pay["fiasco"]):
            controls.locator("[data-tn=more-fiasco]").click()
        if pay["coins"]:
            assert submit.is_disabled()  # still short by the black tokens
            for _ in range(pay["coins"]):
                controls.locator("[data-tn=more-coins]").click()
            if coins_held > pay["coins"]:  # one too many: no change is given, so no Pay
                controls.locator("[data-tn=more-coins]").click()
                assert submit.is_disabled()
                assert "too many" in controls.locator(".tn-pay-sum").inner_text()
                controls.locator("[data-tn=fewer-coins]").click()
    due = int(controls.locator(".tn-pay").get_attribute("data-due"))
    assert f"of {due} due" in controls.locator(".tn-pay-sum").inner_text()
    assert submit.is_enabled(), controls.locator(".tn-pay-sum").inner_text()
    submit.click()


@pytest.mark.parametrize(
    ("size", "viewport", "obvious"), [("phone", PHONE, True), ("laptop", LAPTOP, False)], ids=["phone", "laptop"]
)
def test_a_person_plays_a_whole_game_of_ten_with_its_controls(
    open_tab: Callable[..., Tab], alice, django_db_blocker, size: str, viewport: dict[str, int], obvious: bool
) -> None:
    started = time.monotonic()
    person = open_tab(viewport).sign_in(alice)
    person.goto("/play/?game=ten")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    Table.objects.filter(pk=table.pk).update(seed=7 if obvious else 11)  # the same deal each run
    posts: list[str] = []
    person.page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/act/" in r.url else None)
    worker = play_in_background(table.pk, django_db_blocker)
    bots = [seat["label"] for i, seat in enumerate(table.seats) if i != table.person_seat]
    rng = random.Random(3 if obvious else 4)
    clicked = obvious_seen = keyed = left_to_click = 0
    names: set[str] = set()
    shots: set[str] = set()
    deadline = time.monotonic() + 150  # a guard against a hang: a game takes 30-70 s on a busy machine
    while time.monotonic() < deadline:
        try:
            ready = person.page.wait_for_function(READY, timeout=20000).json_value()
        except Exception:
            person.shot(f"table-ten-{size}-stuck")
            view = person.page.evaluate("JSON.stringify(window.parlourTable.view)")
            raise AssertionError(f"stuck: {view[:3000]} {person.errors}") from None
        if ready == "finished":
            break
        state, move = ready  # read together: an obvious move played by the page may already have been answered
        moved = f"{ROOT}:not([data-move='{move}']), {ROOT}:not([data-status=running])"
        assert person.page.evaluate("[...document.querySelectorAll('[data-raw-actions]')].every((d) => !d.open)")
        person.assert_fits(viewport["width"])
        if state == "auto":  # the page plays it (counted below: the decisions sent that were not clicked)
            _wait_moved(person, moved)
            continue
        view = json.loads(person.page.evaluate("JSON.stringify(window.parlourTable.view)"))
        obs, legal = view["observation"], view["legal_actions"]
        seat = table.person_seat
        numbers = [c for c in obs["collection"][seat] if c["kind"] == "number"]
        trivial = _ways(legal, len(numbers)) == 1
        obvious_seen += trivial
        left_to_click += trivial and person.page.evaluate(f"localStorage.getItem('{AUTO_KEY}')") == "1"
        names.update(_choice_names(person))
        controls = person.page.locator(CONTROLS)
        if obvious and person.page.evaluate(f"localStorage.getItem('{AUTO_KEY}')") != "1":
            controls.locator("[data-tn=auto]").check()  # switched on once, kept in localStorage from then on
            assert person.page.evaluate(f"localStorage.getItem('{AUTO_KEY}')") == "1"
            if trivial:  # switching it on plays the obvious move at once
                _wait_moved(person, moved)
                continue
        phase = obs["phase"]
        if obs["total"] < 0:  # currency before the numbers: the felt says so instead of "-4 of 10" on an empty bar
            assert "(below 0)" in person.page.locator(".tn-meter").first.inner_text()
            if "below-zero" not in shots:
                shots.add("below-zero")
                person.shot(f"table-ten-{size}-below-zero", full_page=False)
        if obs["auction"]:
            assert "…" not in person.page.inner_text(".tn-auction")
        if phase not in shots and (phase != "flip" or clicked >= 8):
            controls.scroll_into_view_if_needed()
            person.shot(f"table-ten-controls-{size}-{phase}", full_page=False)
            shots.add(phase)
        if phase == "flip":
            offered = [t for t in ("flip", "stop-numbers", "stop-coins") if controls.locator(f"[data-tn={t}]").count()]
            assert offered, (controls.inner_html()[:2000], legal, person.errors)
            weights = {"flip": 6, "stop-numbers": 3, "stop-coins": 1}
            choice = controls.locator(f"[data-tn={rng.choices(offered, [weights[t] for t in offered])[0]}]")
            if rng.random() < 0.2:
                _press(person, choice, "Enter")
                keyed += 1
            else:
                choice.click()
        elif phase == "auction":
            bids = controls.locator("[data-tn=bid]")
            choice = bids.nth(rng.randrange(min(3, bids.count()))) if bids.count() and rng.random() < 0.5 else None
            choice = choice or controls.locator("[data-tn=pass]")
            if rng.random() < 0.2:
                _press(person, choice, " ")
                keyed += 1
            else:
                choice.click()
        elif phase == "pay":
            _pay(person, rng, [a for a in legal if "pay" in a], obs["coins"][seat])
        else:  # buy, final_buy
            market = controls.locator("[data-tn=market]:not([disabled])")
            if market.count() and rng.random() < 0.7:
                pick = market.nth(rng.randrange(market.count()))
                card_id = int(pick.get_attribute("data-card"))
                pick.click()
                assert pick.get_attribute("aria-pressed") == "true"
                person.assert_fits(viewport["width"])
                if "buying" not in shots:
                    shots.add("buying")
                    person.shot(f"table-ten-controls-{size}-buying", full_page=False)
                _pay(person, rng, [a for a in legal if a.get("buy") == card_id], obs["coins"][seat])
            else:
                controls.locator("[data-tn=nothing]").click()
        clicked += 1
        _wait_moved(person, moved)
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    person_moves = [m for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"]]
    assert len(person_moves) == len(posts)  # every decision sent is a move of the person's, none refused
    autos = len(posts) - clicked
    assert keyed >= 1  # some moves were made with the keyboard alone
    if obvious:
        assert autos >= 3  # the obvious moves were played without a click: fewer decisions clicked than made
        assert left_to_click == 0  # once switched on, no move with a single way to play it waited for a click
    else:
        assert autos == 0 and obvious_seen >= 3  # the same kind of moves, each one clicked here
    assert any(bot in name for name in names for bot in bots), sorted(names)[:20]  # choices name the opponent
    assert not [n for n in names if "{" in n or "seat " in n.lower() or "null" in n]  # sentences, not the protocol
    person.page.wait_for_selector("[data-result]:not([hidden])")
    # the finished page comes back with the replay, narrated in the rules' word (the engine says "fiasko!")
    person.page.wait_for_selector("[data-parlour-viewer][data-ready='1']", timeout=20000)
    told = "\n".join(person.page.evaluate(NARRATION))
    engine = "\n".join(
        person.page.evaluate("() => window.parlourViewer.spectator.frames.map((f) => f.lines.join(' '))")
    )
    assert "fiasko" not in told.lower() and "token(s)" not in told
    assert ("fiasko!" in engine) == ("Fiasco!" in told)
    person.shot(f"table-ten-{size}-end")
    person.assert_no_errors()
    print(
        f"\nten on a {size}: {len(posts)} decisions, {clicked} clicked ({keyed} by keyboard), {autos} played for "
        f"the person (obvious ones seen and clicked: {obvious_seen}), {time.monotonic() - started:.0f} s"
    )


def test_the_controls_score_as_the_engine_scores(open_tab: Callable[..., Tab]) -> None:
    """The controls say what a choice does to a score ("your score 6 → 8") with a port of games/ten/scoring.py: it
    gives the engine's score for random collections with every kind of wild."""
    rng = random.Random(9)
    colours = ["red", "blue", "green", "yellow"]
    cases = []
    for _ in range(400):
        cards: list[dict[str, Any]] = [
            {"kind": "number", "colour": rng.choice(colours), "value": rng.randint(1, 9)}
            for _ in range(rng.randint(0, 24))
        ]
        for _ in range(rng.randint(0, 6)):
            r = rng.random()
            colour = rng.choice(colours) if r < 0.4 else None
            value = rng.randint(1, 9) if 0.4 <= r < 0.85 else None
            cards.append({"kind": "wild", "colour": colour, "value": value})
        cases.append(cards)
    tab = open_tab()
    tab.goto("/play/")
    scored = tab.page.evaluate(
        "async ([url, cases]) => { const m = await import(url); return cases.map((c) => m.scoreOf(c)); }",
        [renderer_url("ten"), cases],
    )
    assert scored == [score_cards(c) for c in cases]
    assert len(set(scored)) > 10  # not a constant
    tab.assert_no_errors()
