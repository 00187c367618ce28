"""A person plays a whole game of Love Letter in Chromium with the game's own controls (games/love_letter/viewer.js,
`controls`; docs/viewer.md, "Controls"): a card of the hand, then a target by name, then the Guard's guess by card
name. Only `[data-controls]` is clicked: the protocol's actions (`.tb-action`, folded in `[data-raw-actions]`) stay
closed. On a phone and on a laptop, against the built-in bots through the real task (workers.tables.play_table) in a
thread of the test process."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable

import pytest

from league.tables.models import Table
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.table_worker import play_in_background

ROOT = "[data-parlour-table]"
CONTROLS = f"{ROOT} [data-controls]"
# What a choice must never read like: a seat number, the protocol's keys, JSON.
PROTOCOL_WORDS = re.compile(r"\bseat \d|\btarget\b|\bguess\b|[{}\[\]\"]|\bnull\b")


def _labels(person: Tab, selector: str) -> list[str]:
    """The accessible names of the buttons matched (aria-label, else their text)."""
    return person.page.locator(selector).evaluate_all(
        "(els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent).replace(/\\s+/g, ' ').trim())"
    )


def _focus_is_visible(person: Tab) -> bool:
    return person.page.evaluate(
        """() => { const el = document.activeElement; const style = getComputedStyle(el);
                   return el.matches(':focus-visible') && style.outlineStyle !== 'none'
                     && parseFloat(style.outlineWidth) > 0; }"""
    )


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_person_plays_love_letter_with_its_own_controls(
    open_tab: Callable[..., Tab], alice, django_db_blocker, viewport: dict[str, int]
) -> None:
    size = "phone" if viewport is PHONE else "laptop"
    person = open_tab(viewport).sign_in(alice)
    person.goto("/play/?game=love_letter")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=alice)
    bots = [s["label"] for s in table.seats if s["kind"] != "person"]
    worker = play_in_background(table.pk, django_db_blocker)
    rng = random.Random(11 if size == "phone" else 12)
    started = time.monotonic()
    submissions = turns = 0
    labels: list[str] = []
    cards_played: set[str] = set()
    shots: set[str] = set()
    deadline = started + 150
    while time.monotonic() < deadline:
        try:
            person.page.wait_for_selector(
                f"{ROOT}[data-turn=mine] [data-controls] button:not([disabled]), {ROOT}[data-status=finished]",
                timeout=20000,
            )
        except Exception:
            person.shot(f"love_letter-controls-{size}-stuck")
            raise AssertionError(f"stuck after {submissions} moves: {person.errors}") from None
        if person.page.get_attribute(ROOT, "data-status") == "finished":
            break
        turns += 1
        move = person.page.get_attribute(ROOT, "data-move")
        assert person.page.eval_on_selector("[data-raw-actions]", "(d) => d.open") is False
        hand = person.page.locator(f"{CONTROLS} button.ll-pick")
        playable = person.page.locator(f"{CONTROLS} button.ll-pick:not([disabled])")
        for name in _labels(person, f"{CONTROLS} button.ll-pick"):
            assert re.match(r"^(Guard|Priest|Baron|Handmaid|Prince|King|Countess|Princess) \(\d\)", name), name
        assert hand.count() == 2, _labels(person, f"{CONTROLS} button.ll-pick")

        if turns == 1:
            # The first move by keyboard only: a card of the hand (Enter), then the first choice each time (Space).
            playable.first.focus()
            person.page.keyboard.press("Enter")
            assert person.page.locator(f"{CONTROLS} button.ll-pick[aria-pressed=true]").count() == 1
            for _ in range(3):
                focused = person.page.evaluate(
                    "() => document.activeElement.closest('[data-step]') ? document.activeElement.outerHTML : null"
                )
                assert focused, "the choice after the card is not focused"
                assert _focus_is_visible(person), focused
                labels += _labels(person, f"{CONTROLS} [data-final]")
                final = person.page.evaluate("() => document.activeElement.hasAttribute('data-final')")
                person.page.keyboard.press("Space")
                if final:
                    break
            submissions += 1
        else:
            if not person.page.locator(f"{CONTROLS} button.ll-pick[aria-pressed=true]").count():
                if playable.count() > 1 and rng.random() < 0.25:
                    playable.nth(rng.randrange(playable.count())).click()  # a change of mind: another card after
                playable.nth(rng.randrange(playable.count())).click()
            chosen = person.page.locator(f"{CONTROLS} button.ll-pick[aria-pressed=true]")
            assert chosen.count() == 1
            cards_played.add(chosen.get_attribute("data-card") or "")
            if size == "phone":
                person.assert_fits(PHONE["width"])  # while the hand and the choice are shown
            for _ in range(3):
                picks = person.page.locator(f"{CONTROLS} [data-pick]:not([disabled])")
                finals = person.page.locator(f"{CONTROLS} [data-final]:not([disabled])")
                if picks.count() and (not finals.count() or rng.random() < 0.3):
                    picks.nth(rng.randrange(picks.count())).click()  # the Guard's target, by name
                    continue
                assert finals.count(), "no move to make"
                labels += _labels(person, f"{CONTROLS} [data-final]")
                guard = person.page.locator(f"{CONTROLS} .ll-guess").count() > 0
                for kind in ("guard", "any") if guard else ("any",):
                    if kind not in shots and (kind == "guard" or turns >= 3):
                        shots.add(kind)
                        person.page.locator(CONTROLS).scroll_into_view_if_needed()
                        person.shot(f"love_letter-controls-{kind}-{size}", full_page=False)
                        if kind == "any":
                            person.shot(f"love_letter-controls-page-{size}")
                finals.nth(rng.randrange(finals.count())).click()
                submissions += 1
                break
            else:
                raise AssertionError("the controls never offered a move")
        person.page.wait_for_selector(f"{ROOT}:not([data-move='{move}']), {ROOT}:not([data-status=running])")
    worker.join(timeout=30)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.status, table.error)
    assert submissions == sum(1 for m in table.replay["moves"] if m["seat"] == table.person_seat and not m["auto"])
    assert labels and not [label for label in labels if PROTOCOL_WORDS.search(label)], labels
    assert [label for label in labels if any(bot in label for bot in bots)], (bots, labels)
    assert len(cards_played) >= 3, cards_played  # different paths: several kinds of card played
    assert {"guard", "any"} <= shots
    person.assert_no_errors()
    elapsed = time.monotonic() - started
    print(f"\nlove_letter on a {size}: {submissions} moves by clicks in {elapsed:.0f} s, cards {sorted(cards_played)}")


# ----- The rules' corners, from the real engine: positions a random game rarely reaches -----------------------------
NAMES = ["you (alice)", "parlour/heuristic v1", "parlour/random v1"]
MOUNT = """async ({ obs, legal, names, you }) => {
  const kit = await import("/static/league/viewer/kit.js");
  const ll = await import("/static/games/love_letter/viewer.js");
  kit.adoptCss("game-love_letter", ll.css);
  window.sent = [];
  const ctx = {
    h: kit.h, esc: kit.esc, compact: kit.compact, ordinal: kit.ordinal, seats: names, players: names.length,
    seatChip: (seat, extra) => kit.seatChip(seat, names[seat], extra), name: (seat) => names[seat],
    seat: you, you, legal, blanks: null, act: (action, label) => window.sent.push({ action, label }),
  };
  const box = kit.h("div", { class: "pv", "data-controls": "" }, ll.controls(obs, ctx));
  document.querySelector("main, body").prepend(box);
}"""


def _position(hands: list[int], draws: list[int], *moves: dict) -> tuple[dict, list[dict]]:
    """Three players, the burned card a Princess, `hands` dealt from seat 0, then `draws` in turn order; the moves
    played: seat 0's observation and legal actions at its turn."""
    from collections import Counter

    from games.love_letter.engine import FULL_DECK, GAME

    top = [8, *hands, *draws]
    deck = top + sorted((Counter(FULL_DECK) - Counter(top)).elements())
    state = GAME.new_state(3, 1, {"deck": deck})
    for move in moves:
        state.apply(move)
    assert state.to_move() == 0
    return state.observation(0), state.legal_actions()


def _mount(tab: Tab, obs: dict, legal: list[dict]) -> None:
    tab.page.evaluate("document.querySelectorAll('[data-controls]').forEach((el) => el.remove())")
    tab.page.evaluate(MOUNT, {"obs": obs, "legal": legal, "names": NAMES, "you": 0})


def test_love_letter_controls_say_the_rules_corners(open_tab: Callable[..., Tab]) -> None:
    tab = open_tab(PHONE)
    tab.goto("/")
    controls = tab.page.locator("[data-controls]")

    # Seat 1 is knocked out by a Guard, seat 2 plays a Handmaid: seat 0's Prince can only choose itself, its Guard
    # nobody.
    obs, legal = _position([1, 2, 6], [1, 4, 5], {"card": 1, "target": 1, "guess": 2}, {"card": 4})
    assert sorted(map(str, legal)) == sorted(map(str, [{"card": 1}, {"card": 5, "target": 0}]))
    _mount(tab, obs, legal)
    controls.locator("button.ll-pick[data-card='5']").click()
    note = controls.locator(".ll-ctl-note").text_content() or ""
    assert (
        "parlour/heuristic v1 is out of the round" in note and "parlour/random v1 is protected by the Handmaid" in note
    )
    assert "the Prince must choose you" in note
    assert controls.locator("[data-final]").count() == 1
    assert (controls.locator("[data-final]").text_content() or "").startswith(
        "Play Prince on yourself: discard your Guard"
    )
    tab.assert_fits(PHONE["width"])
    tab.shot("love_letter-controls-prince-on-yourself-phone", full_page=False)
    controls.locator("button.ll-pick[data-card='1']").click()
    assert "nobody can be chosen, so the Guard has no effect" in (controls.locator(".ll-ctl-note").text_content() or "")
    controls.locator("[data-final]").click()
    assert tab.page.evaluate("window.sent") == [
        {"action": {"card": 1}, "label": "Play Guard: no effect, nobody can be chosen"}
    ]

    # Two players to choose from: the Guard's target by name, then the guess by card name.
    obs, legal = _position([1, 2, 3], [1])
    _mount(tab, obs, legal)
    controls.locator("button.ll-pick").first.click()
    assert controls.locator("[data-final]").count() == 0
    assert [b.text_content() for b in controls.locator("[data-pick]").all()] == [
        f"Guess {NAMES[1]}'s card",
        f"Guess {NAMES[2]}'s card",
    ]
    controls.locator("[data-pick]", has_text=NAMES[2]).click()
    guesses = controls.locator("[data-final]")
    assert [b.locator("span").text_content() for b in guesses.all()] == [
        "Priest",
        "Baron",
        "Handmaid",
        "Prince",
        "King",
        "Countess",
        "Princess",
    ]
    tab.assert_fits(PHONE["width"])
    tab.shot("love_letter-controls-guard-targets-phone", full_page=False)
    guesses.nth(1).click()
    sent = tab.page.evaluate("window.sent")
    assert sent == [
        {"action": {"card": 1, "target": 2, "guess": 3}, "label": f"Play Guard on {NAMES[2]}, naming Baron"}
    ]
    assert sent[0]["action"] in legal

    # The Countess beside a King must be played: the King is shown, not playable, and the rule is said.
    obs, legal = _position([7, 2, 3], [6])
    assert legal == [{"card": 7}]
    _mount(tab, obs, legal)
    assert controls.locator("button.ll-pick[data-card='6']").is_disabled()
    assert "you must play the Countess" in (controls.locator(".ll-ctl-note").text_content() or "")
    controls.locator("[data-final]").click()
    assert tab.page.evaluate("window.sent") == [{"action": {"card": 7}, "label": "Play Countess: it has no effect"}]
    tab.assert_no_errors()
