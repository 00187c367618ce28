"""A person plays a whole game of each game in Chromium by clicking legal actions, while a spectator watches the same
table live in a second browser context (public information only); the moves reach both by server-sent events.

The worker's side is the real task (workers.tables.play_table) run in a thread of the test process with the league's
built-in bots (the sandboxed path is tests/workers/test_tables_e2e.py's); the person's side is the page only."""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable

import pytest

from games.registry import GAMES
from league.tables.models import Table
from tests.browser.conftest import PHONE, Tab
from tests.browser.table_worker import play_in_background

LATENCIES: dict[str, float] = {}  # game -> the median ms from a click to the bots' reply drawn (docs/benchmarks.md)


def _fill_and_play(person: Tab, form, rng: random.Random) -> None:
    """Fill each blank of a template's form as a person would (a random choice among those offered), then Play."""
    index = int(form.get_attribute("data-fill"))
    view = json.loads(person.page.evaluate("JSON.stringify(window.parlourTable.view)"))
    for blank in view["blanks"]["blanks"][index]:
        control = form.locator(f"[data-blank='{json.dumps(blank['path'], separators=(',', ':'))}']")
        if blank["kind"] == "one":
            options = control.locator("option").count() - 1  # "choose…" first
            assert options > 0, blank
            control.select_option(index=1 + rng.randrange(options))
        elif blank["kind"] == "some":
            boxes = control.locator("input[type=checkbox]")
            offered = boxes.count()
            high = min(blank.get("max", offered), offered)
            for i in sorted(rng.sample(range(offered), rng.randint(min(blank.get("min", 0), high), high))):
                boxes.nth(i).check()
        elif blank["kind"] == "number":
            control.fill(str(rng.randint(blank["min"], blank["max"])))
        else:
            raise AssertionError(f"a free-text blank in a game's template: {blank}")
    form.locator(".tb-play").click()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_person_plays_a_whole_game_and_a_spectator_watches(
    open_tab: Callable[..., Tab], alice, game_id: str, django_db_blocker
) -> None:
    person = open_tab().sign_in(alice)
    person.goto(f"/play/?game={game_id}")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    worker = play_in_background(table.pk, django_db_blocker)
    spectator = open_tab()
    spectator.goto(f"/tables/{table.pk}/")
    root = "[data-parlour-table]"
    rng = random.Random(5)
    clicks = filled = 0
    seen_by_spectator = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            person.page.wait_for_selector(
                f"{root}[data-turn=mine] .tb-action:not([disabled]), {root}[data-turn=mine] .tb-play:not([disabled]),"
                f" {root}[data-status=finished]",
                state="attached",  # (folded below a game's own controls)
                timeout=20000,
            )
        except Exception:
            person.shot(f"table-{game_id}-stuck")
            view = person.page.evaluate("JSON.stringify(window.parlourTable.view)")
            raise AssertionError(f"stuck: {view[:3000]} {person.errors}") from None
        if person.page.get_attribute(root, "data-status") == "finished":
            break
        move = person.page.get_attribute(root, "data-move")
        # This test plays the protocol's own actions (the games' controls have tests of their own): unfold them.
        person.page.evaluate("document.querySelectorAll('[data-raw-actions]').forEach((d) => { d.open = true; })")
        buttons = person.page.locator(".tb-action:not([disabled])")
        count = buttons.count()
        forms = person.page.locator("form.tb-fill")
        if forms.count() and (not count or rng.random() < 0.5):
            # An action with blanks (Barbarossa's words, TEN's payment by cards): filled in through its controls.
            _fill_and_play(person, forms.nth(rng.randrange(forms.count())), rng)
            filled += 1
        else:
            buttons.nth(rng.randrange(count)).click()
        clicks += 1
        person.page.wait_for_selector(f"{root}:not([data-move='{move}']), {root}:not([data-status=running])")
        if clicks % 5 == 1:
            seen_by_spectator.add(spectator.page.get_attribute(root, "data-move"))
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    assert clicks == sum(1 for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"])
    person.page.wait_for_selector("[data-result]:not([hidden])")
    # the finished page comes back with the replay viewer
    person.page.wait_for_selector("[data-parlour-viewer][data-ready='1']", timeout=20000)
    spectator.page.wait_for_selector(f"{root}[data-status=finished]", timeout=20000)
    assert len(seen_by_spectator) > 1 or clicks <= 2  # the spectator followed the game as it went
    if game_id == "barbarossa":
        assert filled >= 1  # the creation at least: a word and a sculpture chosen, no JSON typed
    assert person.page.locator(".tb-template:visible").count() == 0
    assert spectator.page.query_selector(".tb-action") is None
    person.shot(f"table-{game_id}-person-end")
    spectator.shot(f"table-{game_id}-spectator-end")
    latencies = person.page.evaluate("window.parlourTable ? window.parlourTable.latencies : []")
    if latencies:
        LATENCIES[game_id] = statistics.median(latencies)
        print(
            f"\n{game_id}: {clicks} clicks ({filled} through blanks), "
            f"latency median {statistics.median(latencies):.0f} ms "
            f"(min {min(latencies)}, max {max(latencies)}) {json.dumps(sorted(latencies)[-3:])}"
        )
    person.assert_no_errors()
    spectator.assert_no_errors()


def test_the_spectator_never_sees_the_persons_hand(open_tab: Callable[..., Tab], alice, django_db_blocker) -> None:
    person = open_tab().sign_in(alice)
    person.goto("/play/?game=love_letter")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    worker = play_in_background(table.pk, django_db_blocker)
    person.page.wait_for_selector("[data-parlour-table][data-turn=mine] .tb-action", state="attached", timeout=20000)
    person.page.wait_for_selector("[data-clock]:not([hidden])")  # the person's clock is shown, counting down
    person.shot("table-love_letter-person-turn")
    spectator = open_tab(PHONE)  # and on a phone, nothing scrolls sideways
    spectator.goto(f"/tables/{table.pk}/")
    spectator.page.wait_for_selector("[data-parlour-table][data-ready='1']")
    spectator.assert_fits(PHONE["width"])
    spectator.shot("table-love_letter-spectator-phone")
    assert spectator.page.get_attribute("[data-felt]", "data-perspective") == "spectator"
    assert person.page.get_attribute("[data-felt]", "data-perspective") == str(table.person_seat)
    config = json.loads(spectator.page.text_content("#table-config"))
    assert "observation" not in config["view"] and "legal_actions" not in config["view"]
    # The person forfeits by leaving: end the game quickly for the thread.
    Table.objects.filter(pk=table.pk).update(clock_seconds=1)
    worker.join(timeout=5)
    spectator.assert_no_errors()


def test_a_person_plays_a_sandboxed_bot(open_tab: Callable[..., Tab], alice, bob, django_db_blocker) -> None:
    """The same as above against a real uploaded bot (the game's example, in the sandbox): its thinking is in the
    latency too."""
    from games.registry import example_dir
    from league.bots.services import do_create_bot, do_record_validation

    source = (example_dir("love_letter") / "main.py").read_bytes()
    bot = do_create_bot(bob, "love_letter", "example", source, "main.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    person = open_tab().sign_in(alice)
    person.goto(f"/play/?bot={bot.pk}")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    assert [s["bot_id"] for s in table.seats if s["kind"] == "bot"] == [bot.pk]
    worker = play_in_background(table.pk, django_db_blocker)
    root = "[data-parlour-table]"
    rng = random.Random(2)
    for _ in range(200):
        person.page.wait_for_selector(
            f"{root}[data-turn=mine] .tb-action:not([disabled]), {root}[data-status=finished]", state="attached"
        )
        if person.page.get_attribute(root, "data-status") == "finished":
            break
        move = person.page.get_attribute(root, "data-move")
        # This test plays the protocol's own actions (the games' controls have tests of their own): unfold them.
        person.page.evaluate("document.querySelectorAll('[data-raw-actions]').forEach((d) => { d.open = true; })")
        buttons = person.page.locator(".tb-action:not([disabled])")
        buttons.nth(rng.randrange(buttons.count())).click()
        person.page.wait_for_selector(f"{root}:not([data-move='{move}']), {root}:not([data-status=running])")
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    assert table.result["seats"][1 - table.person_seat]["fault"] is None
    latencies = person.page.evaluate("window.parlourTable.latencies")
    print(
        f"\nlove_letter against a sandboxed bot: latency median {statistics.median(latencies):.0f} ms "
        f"(min {min(latencies)}, max {max(latencies)}, {len(latencies)} moves)"
    )
    person.assert_no_errors()


def test_blanks_are_controls_that_fit_a_phone(open_tab: Callable[..., Tab], alice, django_db_blocker) -> None:
    """Barbarossa's creation on a phone: the secret word is a select of the lexicon's words, the sculpture chips of
    that word's true features; nothing scrolls sideways and no JSON is shown."""
    person = open_tab(PHONE).sign_in(alice)
    person.goto("/play/?game=barbarossa")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    worker = play_in_background(table.pk, django_db_blocker)
    # (This test fills the protocol's own controls, folded below the game's: unfold them.)
    person.page.wait_for_selector("[data-parlour-table][data-turn=mine] [data-raw-actions]", timeout=20000)
    person.page.evaluate("document.querySelectorAll('[data-raw-actions]').forEach((d) => { d.open = true; })")
    form = person.page.locator("[data-parlour-table][data-turn=mine] form.tb-fill").first
    form.wait_for(timeout=20000)
    word = form.locator("""[data-blank='["create","word"]']""")
    assert word.locator("option").count() > 100  # the lexicon's words (the first option asks to choose)
    chips = form.locator("""[data-blank='["create","sculpture"]'] input[type=checkbox]""")
    assert chips.count() == 0  # no word, no features yet
    form.locator(".tb-play").click()  # nothing chosen: the page says what is missing, nothing is sent
    assert "Fill in your secret word" in person.page.text_content("[data-message]")
    word.select_option(label="anchor")
    assert chips.count() > 0
    chips.first.check()
    assert form.locator(".tb-chip").first.text_content()
    assert person.page.locator(".tb-template:visible").count() == 0
    person.assert_fits(PHONE["width"])
    person.shot("table-barbarossa-create-phone")
    move = person.page.get_attribute("[data-parlour-table]", "data-move")
    form.locator(".tb-play").click()
    person.page.wait_for_selector(f"[data-parlour-table]:not([data-move='{move}'])", timeout=20000)
    Table.objects.filter(pk=table.pk).update(clock_seconds=1)  # the person forfeits by leaving: end quickly
    worker.join(timeout=10)
    person.assert_no_errors()


def test_a_person_cancels_a_queued_table_and_sits_again(open_tab: Callable[..., Tab], alice, django_db_blocker) -> None:
    """Issue 29, hole 9: the queued table's page shows the person's place and a Cancel button; once cancelled they may
    sit again, and the button goes away by itself when their next table starts."""
    person = open_tab().sign_in(alice)
    person.goto("/play/?game=love_letter")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    first = Table.objects.get(owner=alice)
    assert "1st in line" in person.page.text_content("[data-message]")
    person.page.click("[data-cancel] button")
    person.page.wait_for_url("**/play/?game=love_letter")
    assert "Your table is cancelled" in person.page.content()
    assert Table.objects.get(pk=first.pk).status == Table.Status.CANCELLED
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    second = Table.objects.exclude(pk=first.pk).get(owner=alice)
    assert person.page.is_visible("[data-cancel]")
    worker = play_in_background(second.pk, django_db_blocker)
    person.page.wait_for_selector("[data-parlour-table][data-status=running]", timeout=20000)
    assert not person.page.is_visible("[data-cancel]")
    Table.objects.filter(pk=second.pk).update(clock_seconds=1)  # the person forfeits by leaving: end quickly
    worker.join(timeout=10)
    person.assert_no_errors()
