"""Every page type, on a laptop and on a phone, checked by axe-core (the axe-playwright-python package bundles it):
no serious and no critical violation; the moderate and minor ones are printed. And the keyboard: the skip link is the
first Tab stop and lands on the main content, the focus ring is visible, and the replay's controls keep the focus.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.db import connection

from games.registry import GAMES
from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.challenges.services import do_create_challenge
from league.ratings import fits
from league.tables.models import Table
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.recorded import record_match
from workers.tables import play_table

AXE = Axe()
# Redoc's sidebar asks Redocly's CDN for its logo; the Content-Security-Policy refuses it (tests/browser/test_csp.py).
REDOC_LOGO = re.compile(r"Loading the image 'https://cdn\.redoc\.ly/redoc/logo-mini\.svg'|/favicon\.ico$")
BLOCKING = ("serious", "critical")
DEVICES = [("laptop", LAPTOP), ("phone", PHONE)]


def audit(tab: Tab, name: str) -> list[str]:
    """axe-core on the page as it stands: the serious and critical violations, each with the elements it found
    (the rest are printed)."""
    results = AXE.run(tab.page).response
    blocking = []
    for violation in results["violations"]:
        targets = ", ".join(" ".join(map(str, node["target"])) for node in violation["nodes"][:6])
        line = f"{name}: {violation['id']} ({violation['impact']}) {violation['help']} — {targets}"
        if violation["impact"] in BLOCKING:
            blocking.append(line)
            blocking += [f"    {node['target']}: {node['failureSummary']}" for node in violation["nodes"][:8]]
        else:
            print(line)
    return blocking


@pytest.fixture
def member(transactional_db: None) -> User:
    return User.objects.create_user("margaret_hamilton_1936", password="correct horse battery")


@pytest.fixture
def league(member: User) -> dict[str, str]:
    """A league with something on every page: a finished match per game, fitted ratings, a tournament, a member
    with a bot, a token and a challenge. Returns the pages by name."""
    matches = {game_id: record_match(game_id, players=3, seed=31).pk for game_id in GAMES}
    record_match("love_letter", names=["heuristic", "random"], seed=32)  # rated: two distinct bots
    for game_id in GAMES:
        fits.refit_game(game_id)
    do_register_builtin_bots(["love_letter"])
    entrants = Bot.objects.filter(game="love_letter", is_builtin=True)
    tournament = do_create_tournament(None, "love_letter", "Autumn cup", "knockout", {}, entrants)
    do_start_tournament(tournament)
    own = do_create_bot(member, "love_letter", "countess-counter", b"print('hi')\n", "bot.py")
    do_record_validation(own.versions.get().pk, True, "ok", "")
    do_create_token(member, "the laptop in the kitchen")
    challenge = do_create_challenge(member, own.pk, [entrants[0].pk], 10)
    heuristic = Bot.objects.get(game="love_letter", name="heuristic")
    return {
        "home": "/",
        **{f"leaderboard-{game_id}": f"/games/{game_id}/" for game_id in GAMES},
        "bot": f"/bots/{heuristic.pk}/",
        "own-bot": f"/bots/{own.pk}/",
        "match": f"/matches/{matches['love_letter']}/",
        "live": "/live/",
        "play": "/play/",
        "tournaments": "/tournaments/",
        "tournament": f"/tournaments/{tournament.pk}/",
        "challenges": "/challenges/",
        "challenge": f"/challenges/{challenge.pk}/",
        "first-bot": "/first-bot/",
        "reference": "/games/love_letter/reference/",
        "my-bots": "/account/bots/",
        "tokens": "/account/tokens/",
    }


def _settle(tab: Tab, path: str) -> None:
    response = tab.goto(path)
    assert response.status == 200, path
    tab.page.wait_for_load_state("networkidle")
    if tab.page.locator("[data-parlour-viewer]").count():
        tab.page.wait_for_selector("[data-parlour-viewer][data-ready='1']")
    if path == "/api/docs/":
        tab.page.wait_for_selector(".swagger-ui .opblock", timeout=20000)
    if path == "/api/redoc/":
        tab.page.wait_for_selector("#redoc-container .api-content", timeout=20000)


@pytest.mark.parametrize(("device", "viewport"), DEVICES)
def test_no_page_has_a_serious_accessibility_violation(
    open_tab: Callable[..., Tab], league: dict[str, str], member: User, device: str, viewport: dict[str, int]
) -> None:
    found: list[str] = []
    signed_in = open_tab(viewport=viewport).sign_in(member)
    for name, path in league.items():
        _settle(signed_in, path)
        found += audit(signed_in, f"{name} ({device})")
        signed_in.shot(f"a11y-{name}-{device}", full_page=False)
    anonymous = open_tab(viewport=viewport, tolerate=REDOC_LOGO)
    for name, path in [
        ("home-anonymous", "/"),
        ("signup", "/account/signup/"),
        ("login", "/account/login/"),
        ("api-docs", "/api/docs/"),
        ("api-redoc", "/api/redoc/"),
    ]:
        _settle(anonymous, path)
        found += audit(anonymous, f"{name} ({device})")
        anonymous.shot(f"a11y-{name}-{device}", full_page=False)
    assert found == [], "\n".join(found)
    signed_in.assert_no_errors()
    anonymous.assert_no_errors()


@pytest.mark.parametrize(("device", "viewport"), DEVICES)
def test_a_persons_table_has_no_serious_accessibility_violation(
    open_tab: Callable[..., Tab], member: User, django_db_blocker: Any, device: str, viewport: dict[str, int]
) -> None:
    person = open_tab(viewport=viewport).sign_in(member)
    person.goto("/play/?game=love_letter")
    person.page.click("[data-sit]")
    person.page.wait_for_url("**/tables/*/")
    table = Table.objects.get(owner=member)

    def run() -> None:
        with django_db_blocker.unblock():
            try:
                play_table(table.pk)
            finally:
                connection.close()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    person.page.wait_for_selector("[data-parlour-table][data-turn=mine] .tb-action", state="attached", timeout=20000)
    found = audit(person, f"table ({device})")
    person.shot(f"a11y-table-{device}", full_page=False)
    Table.objects.filter(pk=table.pk).update(clock_seconds=1)  # the person leaves: the game ends quickly
    worker.join(timeout=10)
    assert found == [], "\n".join(found)
    person.assert_no_errors()


# ----- the keyboard, and the layout stumbles ---------------------------------------------------------------------

FOCUSED = """() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    return {tag: el.tagName.toLowerCase(), id: el.id, cls: el.className, text: el.textContent.trim().slice(0, 60),
            inMain: Boolean(el.closest('main')), outline: parseFloat(style.outlineWidth) || 0,
            outlineStyle: style.outlineStyle, top: box.top, bottom: box.bottom, width: box.width};
}"""


def _tab(tab: Tab) -> dict[str, Any]:
    tab.page.keyboard.press("Tab")
    return dict(tab.page.evaluate(FOCUSED))


def _ring(focused: dict[str, Any]) -> None:
    """The focus is on something the eye can find: an outline wider than 1 px, on the screen."""
    assert focused["outlineStyle"] != "none" and focused["outline"] > 1, focused
    assert focused["width"] > 0 and focused["top"] >= 0, focused


@pytest.mark.parametrize(("device", "viewport"), DEVICES)
def test_the_skip_link_is_the_first_tab_stop_and_the_focus_shows(
    open_tab: Callable[..., Tab], member: User, device: str, viewport: dict[str, int]
) -> None:
    do_register_builtin_bots(["love_letter"])
    tab = open_tab(viewport=viewport)
    _settle(tab, "/")
    skip = _tab(tab)
    assert skip["cls"] == "skip-link" and skip["text"] == "Skip to the content", skip
    _ring(skip)
    tab.shot(f"a11y-skip-link-{device}", full_page=False)
    brand = _tab(tab)  # not taken: the next stop is the header's first, ringed on the dark green bar
    assert brand["cls"] == "brand", brand
    _ring(brand)
    tab.page.keyboard.press("Shift+Tab")
    tab.page.keyboard.press("Enter")  # taken: the focus is on the main content, and the next stop is in it
    assert tab.page.evaluate("document.activeElement.id") == "main"
    inside = _tab(tab)
    assert inside["inMain"] and inside["tag"] == "a", inside
    _ring(inside)
    tab.shot(f"a11y-focus-in-main-{device}", full_page=False)
    tab.assert_no_errors()


def test_the_phone_menu_folds_the_navigation_behind_one_button(open_tab: Callable[..., Tab], member: User) -> None:
    tab = open_tab(viewport=PHONE).sign_in(member)
    _settle(tab, "/")
    header = tab.page.locator("header.topbar").bounding_box()
    assert header and header["height"] <= 64, header  # one row: the brand and the menu button
    assert not tab.page.is_visible("#site-nav a >> nth=0")
    _tab(tab)  # the skip link
    _tab(tab)  # the brand
    menu = _tab(tab)
    assert menu["cls"] == "menu-button" and menu["text"] == "Menu", menu
    _ring(menu)
    tab.page.keyboard.press("Enter")
    assert tab.page.get_attribute(".menu-button", "aria-expanded") == "true"
    first = _tab(tab)
    assert first["text"] == GAMES[next(iter(GAMES))].title, first  # the first game's leaderboard
    assert tab.page.is_visible("#account-nav a:text('My bots')")
    tab.shot("a11y-menu-open-phone", full_page=False)
    tab.page.keyboard.press("Escape")  # closed again, the focus back on its button
    assert tab.page.get_attribute(".menu-button", "aria-expanded") == "false"
    assert tab.page.evaluate("document.activeElement.className") == "menu-button"
    assert not tab.page.is_visible("#site-nav a >> nth=0")
    tab.assert_no_errors()


def test_the_replays_controls_are_three_tabs_away_and_keep_the_focus(open_tab: Callable[..., Tab]) -> None:
    match = record_match("love_letter", players=3, seed=31)
    tab = open_tab()
    _settle(tab, f"/matches/{match.pk}/")
    _tab(tab)
    skip = _tab(tab)
    assert skip["text"] == "Skip to the replay's controls", skip
    tab.page.keyboard.press("Enter")
    play = _tab(tab)  # First and Back are disabled at the deal
    assert play["cls"].startswith("pv-btn pv-play"), play
    _ring(play)
    _tab(tab)  # Forward one move
    last = _tab(tab)
    assert last["text"] == "" and "Last" in tab.page.evaluate("document.activeElement.title"), last
    tab.page.keyboard.press("Enter")  # the last move: Last and Forward are disabled, the focus stays on a control
    assert tab.page.is_disabled("button[title^='Last']")
    after = tab.page.evaluate(FOCUSED)
    assert after["tag"] == "button" and after["cls"].startswith("pv-btn pv-play"), after
    tab.page.keyboard.press("Shift+Tab")  # and the keyboard goes on from there: Back one move
    assert tab.page.evaluate("document.activeElement.title").startswith("Back")
    tab.assert_no_errors()


def test_names_break_between_words_and_the_phone_leaderboard_is_short(
    open_tab: Callable[..., Tab], member: User
) -> None:
    """Issue 15: a home card breaks a bot's name after its owner's slash, never inside a word; issue 22: the
    leaderboard's rows on a phone are one or two lines, and a table wider than the phone shows it scrolls and can be
    scrolled from the keyboard; issue 17: the sign-up form's e-mail field looks like its other fields."""
    record_match("love_letter", names=["heuristic", "random"], seed=32)
    fits.refit_game("love_letter")
    laptop = open_tab()
    _settle(laptop, "/")
    breaks = laptop.page.evaluate(
        """() => [...document.querySelectorAll('.grid .card table.compact td:nth-child(2) a')].map((link) => {
            const range = document.createRange(), chars = [], before = [];
            const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
                for (let i = 0; i < n.length; i++) {
                    range.setStart(n, i);
                    range.setEnd(n, i + 1);
                    chars.push([n.data[i], range.getBoundingClientRect().top]);
                }
            }
            for (let i = 1; i < chars.length; i++) if (chars[i][1] > chars[i - 1][1] + 2) before.push(chars[i - 1][0]);
            return before.join('');
        })"""
    )
    assert breaks and all(char in "/- " for line in breaks for char in line), breaks
    phone = open_tab(viewport=PHONE)
    _settle(phone, "/games/love_letter/")
    phone.shot("a11y-leaderboard-phone")
    heights = phone.page.evaluate(
        "[...document.querySelectorAll('table.leaderboard tbody tr')].map((tr) => tr.getBoundingClientRect().height)"
    )
    assert heights and max(heights) <= 80, heights
    box = phone.page.locator(".table-scroll:has(table.leaderboard)")
    scrolls = box.evaluate("(el) => el.scrollWidth > el.clientWidth")
    assert box.evaluate("(el) => el.classList.contains('scrolls-x')") == scrolls
    seats = phone.page.locator(".seat-advantage .table-scroll")
    assert seats.evaluate("(el) => el.scrollWidth > el.clientWidth")  # "Win rate by seat" is wider than a phone
    assert seats.get_attribute("tabindex") == "0" and seats.get_attribute("role") == "region"
    assert "scrolls-x" in (seats.get_attribute("class") or "")
    _settle(phone, "/account/signup/")
    styles = phone.page.evaluate(
        """() => ['#id_username', '#id_email'].map((sel) => {
            const s = getComputedStyle(document.querySelector(sel));
            return [s.borderTopWidth, s.borderTopColor, s.borderRadius, s.paddingLeft, s.width]; })"""
    )
    assert styles[0] == styles[1], styles
    laptop.assert_no_errors()
    phone.assert_no_errors()
