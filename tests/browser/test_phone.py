"""Every kind of page on a phone (390 x 844) and on a laptop (1366 x 900): the page is never wider than the screen
(a wide table scrolls inside its own box), the navigation wraps instead of being cut off, the console stays clean."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from games.registry import GAMES
from league.accounts.tokens import do_create_token
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_register_builtin_bots
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.conftest import PHONE, Tab
from tests.browser.recorded import record_match

WIDE_LAPTOP = {"width": 1366, "height": 900}


@pytest.fixture
def member(transactional_db: None) -> User:
    # Long names are what widen tables and cards in practice.
    return User.objects.create_user("margaret_hamilton_1936", password="correct horse battery")


@pytest.fixture
def pages(member: User) -> list[str]:
    matches = {game_id: record_match(game_id, players=3, seed=41).pk for game_id in GAMES}
    do_register_builtin_bots(["love_letter"])
    own = do_create_bot(member, "love_letter", "countess-counter-deluxe", b"print('hi')\n", "bot.py")
    do_create_token(member, "the laptop in the kitchen, for the nightly uploads")
    entrants = Bot.objects.filter(game="love_letter", is_builtin=True)
    swiss = do_create_tournament(None, "love_letter", "Winter Swiss open", "swiss", {}, entrants)
    do_start_tournament(swiss)
    paths = ["/"] + [f"/games/{game_id}/" for game_id in GAMES]
    paths += [f"/bots/{own.pk}/", f"/bots/{entrants[0].pk}/", f"/matches/{matches['love_letter']}/"]
    paths += ["/tournaments/", f"/tournaments/{swiss.pk}/", "/first-bot/"]
    paths += ["/account/tokens/", "/challenges/", "/bots/new/"]
    return paths


def _visit(tab: Tab, paths: list[str], width: int) -> None:
    for path in paths:
        response = tab.goto(path)
        assert response.status == 200, path
        tab.page.wait_for_load_state("networkidle")
        tab.assert_fits(width)  # names the elements that stick out
        # A phone widens its layout viewport to fit what overflows, so innerWidth must still be the screen's width.
        wide = tab.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1] == width, f"{path}: the page is {wide[0]}px wide on a {wide[1]}px screen"
        # Every nav link is on the screen: wrapped onto another row, not cut off or pushed sideways.
        cut = tab.page.evaluate(
            """(width) => [...document.querySelectorAll('header.topbar a, header.topbar button')]
                .filter((el) => { const box = el.getBoundingClientRect(); return box.left < 0 || box.right > width; })
                .map((el) => el.textContent.trim())""",
            width,
        )
        assert cut == [], f"{path}: nav links off the screen: {cut}"


@pytest.mark.parametrize(("device", "viewport"), [("phone", PHONE), ("wide-laptop", WIDE_LAPTOP)])
def test_no_page_is_wider_than_the_screen(
    open_tab: Callable[..., Tab],
    live_server: Any,
    member: User,
    pages: list[str],
    device: str,
    viewport: dict[str, int],
) -> None:
    visitor = open_tab(viewport=viewport)
    _visit(visitor, ["/account/login/", "/account/signup/", *pages[:-3]], viewport["width"])
    visitor.assert_no_errors()

    signed_in = open_tab(viewport=viewport).sign_in(member)
    _visit(signed_in, pages, viewport["width"])
    for path in ("/", "/account/tokens/", pages[-5]):  # home, tokens, the tournament
        signed_in.goto(path)
        signed_in.shot(f"fits-{device}-{path.strip('/').replace('/', '-') or 'home'}", full_page=False)
    signed_in.assert_no_errors()


def test_home_cards_show_the_elo_column_whole(open_tab: Callable[..., Tab], live_server: Any, pages: list[str]) -> None:
    for viewport in (PHONE, WIDE_LAPTOP):
        tab = open_tab(viewport=viewport)
        tab.goto("/")
        clipped = tab.page.evaluate(
            """() => [...document.querySelectorAll('.grid .card')].filter((card) => card.scrollWidth > card.clientWidth)
                .map((card) => card.querySelector('h2').textContent)"""
        )
        assert clipped == [], f"home cards that scroll sideways at {viewport['width']}px: {clipped}"
        tab.assert_no_errors()
