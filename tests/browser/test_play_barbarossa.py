"""A person plays a whole game of Barbarossa in Chromium with the game's own controls (games/barbarossa/viewer.js
``controls``, docs/viewer.md "Controls"): a word picked from the lexicon and its sculpture's features as chips, the
next spaces to pay for, the others' objects by their makers' names, letter tiles, questions as sentences and a guess
typed into a box. Only ``[data-controls]`` is clicked; the protocol's folded actions stay closed.

The worker's side is the real task (workers.tables.play_table) in a thread, against the league's built-in bots."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from games.barbarossa.lexicon import WORDS
from league.tables.models import Table
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.table_worker import play_in_background

ROOT = "[data-parlour-table]"
CONTROLS = f"{ROOT} [data-controls]"
ENABLED = ":not([disabled]):not([hidden])"


class Person:
    """Clicks (or, now and then, presses Enter or Space on) the choices inside the controls, and keeps what it chose."""

    def __init__(self, tab: Tab, rng: random.Random, size: str) -> None:
        self.tab, self.page, self.rng, self.size = tab, tab.page, rng, size
        self.labels: list[str] = []  # the accessible name of every choice made
        self.shown_sculpture = False

    def controls(self, selector: str) -> Any:
        return self.page.locator(f"{CONTROLS} {selector}")

    def choose(self, locator: Any) -> None:
        label = locator.get_attribute("aria-label") or locator.inner_text()
        self.labels.append(" ".join(label.split()))
        if self.rng.random() < 0.2:  # by keyboard: focus it, then Enter or Space
            locator.focus()
            self.page.keyboard.press(self.rng.choice(["Enter", "Space"]))
        else:
            locator.click()

    def pick(self, selector: str) -> None:
        options = self.controls(f"{selector}{ENABLED}")
        count = options.count()
        assert count, f"nothing to choose in {selector}"
        self.choose(options.nth(self.rng.randrange(count)))

    # ----- one decision per phase; each sends exactly one action ----------------------------------------------------
    def create(self) -> None:
        if self.rng.random() < 0.3:
            self.pick("[data-bb=suggest]")
            return
        make = self.controls("[data-bb=make]")
        assert make.is_disabled()  # no word, no features: nothing to make yet
        picked = False
        if self.rng.random() < 0.5:  # narrow the lexicon by typing
            box = self.controls(".bb-c-filter")
            box.fill(self.rng.choice("aeiou"))
            if self.rng.random() < 0.5:  # Enter goes to the first word that matches; Space picks it
                box.press("Enter")
                assert self.page.evaluate("document.activeElement.dataset.bb") == "word"
                self.page.keyboard.press("Space")
                picked = True
        if not picked:
            self.pick("[data-bb=word]")
        assert self.controls("[data-bb=word][aria-pressed=true]").count() == 1
        features = self.controls(f"[data-bb=feature]{ENABLED}")
        assert features.count() > 0 and make.is_disabled()  # the word's true features, none chosen yet
        for _ in range(self.rng.randint(1, 3)):
            self.pick("[data-bb=feature][aria-pressed=false]")
        assert self.controls("[data-bb=feature][aria-pressed=true]").count() >= 1
        assert "its sculpture shows that it" in self.controls(".bb-c-preview").inner_text()
        if not self.shown_sculpture:  # a word and its features chosen, before making it
            self.shown_sculpture = True
            self.tab.shot(f"barbarossa-controls-{self.size}-create-chosen", full_page=False)
        self.choose(make)

    def move(self) -> None:
        # Often pays its way to a question space (one is always 1 to 6 spaces ahead), so that question rounds come up.
        if self.rng.random() < 0.6 and self.controls(f"[data-bb=pay].bb-question{ENABLED}").count():
            self.pick("[data-bb=pay].bb-question")
        else:
            self.pick("[data-bb=roll], [data-bb=pay]")

    def object(self) -> None:
        if self.rng.random() < 0.5:
            self.pick("[data-bb=object]")
        assert self.controls("[data-bb=object][aria-pressed=true]").count() == 1

    def dwarf(self) -> None:
        self.object()
        self.pick("[data-bb=letter]")

    def question(self) -> None:
        second = self.controls("[data-bb=stop]").count() > 0
        roll = self.rng.random()
        if second and roll < 0.25:
            self.pick("[data-bb=stop]")
            return
        self.object()
        if second and roll < 0.6 and self.controls("[data-bb=guess]").count():
            self.guess()
            return
        if self.rng.random() < 0.3:  # find a question by typing part of it
            box = self.controls(".bb-c-qs")
            words = re.findall(r"[a-z]{3,}", box.inner_text().lower())
            self.controls(".bb-c-part .bb-c-filter").fill(self.rng.choice(words))
        self.pick("[data-bb=ask]")

    def curse(self) -> None:
        roll = self.rng.random()
        if roll < 0.75:
            self.pick("[data-bb=pass]")
            return
        self.object()
        if roll < 0.88 or not self.controls("[data-bb=guess]").count():
            self.pick("[data-bb=letter]")
        else:
            self.guess()

    def guess(self) -> None:
        box = self.controls(".bb-c-guess-in")
        if self.rng.random() < 0.5:  # a word that is not in the lexicon is refused on the page, nothing is sent
            box.fill("xyzzy")
            self.controls("[data-bb=guess]").click()
            assert "not a word of the lexicon" in self.controls(".bb-c-note").inner_text()
        box.fill(self.rng.choice(WORDS).upper())  # typed as a person would; the controls lower-case it
        if self.rng.random() < 0.5:
            self.labels.append(box.get_attribute("aria-label") or "")
            box.press("Enter")
        else:
            self.choose(self.controls("[data-bb=guess]"))


@pytest.mark.parametrize(("viewport", "seed"), [(PHONE, 11), (LAPTOP, 12)], ids=["phone", "laptop"])
def test_a_person_plays_a_whole_game_of_barbarossa_with_its_own_controls(
    open_tab: Callable[..., Tab], alice: Any, django_db_blocker: Any, viewport: dict[str, int], seed: int
) -> None:
    size = "phone" if viewport is PHONE else "laptop"
    tab = open_tab(viewport).sign_in(alice)
    tab.goto("/play/?game=barbarossa")
    tab.page.click("[data-sit]")
    tab.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    opponents = [seat["label"] for i, seat in enumerate(table.seats) if i != table.person_seat]
    worker = play_in_background(table.pk, django_db_blocker)
    person = Person(tab, random.Random(seed), size)
    submissions = 0
    phases: dict[str, int] = {}
    started = time.monotonic()
    while time.monotonic() - started < 150:
        try:
            tab.page.wait_for_selector(
                f"{ROOT}[data-turn=mine] [data-controls] button:not([disabled]), {ROOT}[data-status=finished]",
                timeout=20000,
            )
        except Exception:
            tab.shot(f"barbarossa-controls-{size}-stuck")
            view = tab.page.evaluate("JSON.stringify(window.parlourTable.view)")
            raise AssertionError(f"stuck: {view[:3000]} {tab.errors}") from None
        if tab.page.get_attribute(ROOT, "data-status") == "finished":
            break
        move = tab.page.get_attribute(ROOT, "data-move")
        phase = tab.page.get_attribute(f"{CONTROLS} .bb-c", "data-bb-phase")
        assert phase in ("create", "move", "dwarf", "question", "curse"), phase
        assert tab.page.locator("[data-raw-actions]").count() == 1
        assert tab.page.locator("[data-raw-actions][open]").count() == 0  # the protocol's actions stay folded
        controls_text = tab.page.inner_text(CONTROLS)
        assert not re.search(r"\bo\d+\b|\{|\bseat \d", controls_text), controls_text  # no ids, no JSON, no seat numbers
        if phase not in phases:
            tab.assert_fits(viewport["width"])
            tab.page.locator(CONTROLS).scroll_into_view_if_needed()
            tab.shot(f"barbarossa-controls-{size}-{phase}", full_page=False)
        phases[phase] = phases.get(phase, 0) + 1
        getattr(person, phase)()
        submissions += 1
        tab.page.wait_for_selector(f"{ROOT}:not([data-move='{move}']), {ROOT}:not([data-status=running])")
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error, phases)
    person_moves = [m for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"]]
    assert submissions == len(person_moves), (submissions, len(person_moves), phases)
    assert {"create", "move"} <= set(phases), phases
    assert "question" in phases or phases["move"] < 3, phases
    assert any(name in label for label in person.labels for name in opponents), (opponents, person.labels[:20])
    # The end: each seat's crown on the board shows the score of the result table (stumble 30).
    tab.page.wait_for_selector("[data-parlour-viewer][data-ready='1']", timeout=20000)
    crowns = [tab.page.inner_text(f"[data-felt] .bb-seat[data-seat='{s}'] .bb-hat") for s in range(table.players)]
    assert crowns == [f"♛ {seat['score']}" for seat in table.result["seats"]], crowns
    tab.shot(f"barbarossa-controls-{size}-end")
    print(f"\nbarbarossa on a {size}: {submissions} moves {phases} in {time.monotonic() - started:.0f} s")
    tab.assert_no_errors()
