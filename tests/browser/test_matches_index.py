"""/matches/ in a browser, on a phone and a laptop: a person narrows the list by clicking (a game, a bot and its
result), reads each row with that bot's result first, pages back, and is told plainly when a filter cannot apply.
Nothing is wider than the screen; the console stays clean."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from league.bots.models import Bot, BotVersion
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.results import runner_result


def _bot(owner: User, name: str, game: str) -> Bot:
    bot = Bot.objects.create(owner=owner, game=game, name=name)
    Rating.objects.create(bot=bot)
    BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY)
    return bot


def _play(bots: list[Bot], ranks: list[int]) -> Match:
    match = do_create_match(bots[0].game, [bot.versions.get() for bot in bots])
    do_claim_match(match.pk)
    seats = [{"rank": rank, "score": 0.0} for rank in ranks]
    do_record_match_result(match.pk, runner_result({"seats": seats, "replay": {}, "wall_ms": 1}))
    return match


@pytest.fixture
def hero(transactional_db: None) -> Bot:
    """A Love Letter bot among 40 matches of two games: it wins 10, loses 10 and comes 2nd of 3 in 10; the TEN
    matches are between other bots. Long names, as they widen a phone's rows in practice."""
    margaret = User.objects.create(username="margaret_hamilton_1936")
    grace = User.objects.create(username="grace_brewster_hopper")
    hero = _bot(margaret, "countess-counter-deluxe", "love_letter")
    rival, third = _bot(grace, "baroness-of-the-guard", "love_letter"), _bot(grace, "handmaid", "love_letter")
    ten = [_bot(margaret, "tens-and-more-tens", "ten"), _bot(grace, "ten-ten", "ten")]
    for i in range(20):
        _play([hero, rival] if i % 2 else [rival, hero], [1, 2])  # the first seat wins: hero every other game
    for _ in range(10):
        _play([third, hero, rival], [1, 2, 3])
    for _ in range(10):
        _play(ten, [1, 2])
    return hero


# The one console error expected: Chromium logs the 400 of the filters that cannot apply (and the favicon's 404).
BAD_FILTER = re.compile(r"/favicon\.ico$|/matches/\?game=love_letter&bot=&owner=&result=lost&rated=&tournament=$")


RESULT_WORDS = re.compile(r"\b(won|lost|drew|\d(st|nd|rd|th) of \d)\b")


def _rows(tab: Tab) -> list[str]:
    return tab.page.locator("table.match-list tbody tr").all_inner_texts()


@pytest.mark.parametrize(("device", "viewport"), [("phone", PHONE), ("laptop", LAPTOP)])
def test_a_person_narrows_the_matches_by_clicking_and_reads_the_bots_result_first(
    open_tab: Callable[..., Tab], hero: Bot, device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport, tolerate=BAD_FILTER)
    assert tab.goto("/matches/").status == 200
    assert len(_rows(tab)) == 25 and tab.page.is_visible("a[rel=next]")  # a bounded page, and a way to older ones
    assert any("TEN" in row for row in _rows(tab)) and any("Love Letter" in row for row in _rows(tab))
    tab.assert_fits(viewport["width"])
    tab.shot(f"matches-{device}")

    # A game, then a bot and its result: chosen in the form, applied by its button.
    tab.page.select_option("#id_game", "love_letter")
    tab.page.click("button:has-text('Show matches')")
    tab.page.wait_for_url(re.compile(r"game=love_letter"))
    assert "TEN" not in " ".join(_rows(tab)) and len(_rows(tab)) == 25
    tab.page.select_option("#id_bot", label=str(hero))
    tab.page.select_option("#id_result", "won")
    tab.page.click("button:has-text('Show matches')")
    tab.page.wait_for_url(re.compile(rf"bot={hero.pk}.*result=won"))
    focus = tab.page.locator("td.focus-result").all_inner_texts()
    assert len(focus) == 10 and set(focus) == {"won"}  # its ten wins, its own result first in every row
    assert tab.page.locator("table.match-list th").first.inner_text().lower() == "match"
    assert tab.page.locator("table.match-list th").nth(1).inner_text().lower() == "result"
    tab.assert_fits(viewport["width"])
    tab.shot(f"matches-{device}-bot-won")

    # Its other results, in words; then the next page of them.
    tab.page.select_option("#id_result", "")
    tab.page.click("button:has-text('Show matches')")
    tab.page.wait_for_url(re.compile(r"result=&"))
    focus = tab.page.locator("td.focus-result").all_inner_texts()
    assert len(focus) == 25 and set(focus) == {"won", "lost", "2nd of 3"}
    tab.page.click("a[rel=next]")
    tab.page.wait_for_url(re.compile(r"before=\d+"))
    assert len(tab.page.locator("td.focus-result").all_inner_texts()) == 5  # 30 in all
    assert f"bot={hero.pk}" in tab.page.url and tab.page.is_visible("a[rel=prev]")
    tab.assert_fits(viewport["width"])

    # A result without a bot cannot apply: the page says so beside the field, and lists nothing it cannot stand by.
    tab.page.select_option("#id_bot", "")
    tab.page.select_option("#id_result", "lost")
    with tab.page.expect_navigation() as refused:
        tab.page.click("button:has-text('Show matches')")
    assert refused.value.status == 400 and BAD_FILTER.search(refused.value.url)
    assert "Choose a bot as well" in tab.page.inner_text("[role=alert]") and _rows(tab) == []
    assert tab.page.get_attribute("#id_result", "aria-invalid") == "true"
    tab.assert_fits(viewport["width"])
    tab.shot(f"matches-{device}-bad-filter")
    tab.page.click("text=Clear the filters")
    tab.page.wait_for_url(re.compile(r"/matches/$"))
    assert len(_rows(tab)) == 25
    tab.assert_no_errors()


@pytest.mark.parametrize(("device", "viewport"), [("phone", PHONE), ("laptop", LAPTOP)])
def test_every_match_list_says_results_in_words_and_fits(
    open_tab: Callable[..., Tab], hero: Bot, device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport)
    for name, path, link in [
        ("home", "/", "/matches/"),
        ("game", "/games/love_letter/", "/matches/?game=love_letter"),
        ("bot", f"/bots/{hero.pk}/", f"/matches/?bot={hero.pk}"),
    ]:
        assert tab.goto(path).status == 200
        rows = _rows(tab)
        assert rows and all(RESULT_WORDS.search(row) for row in rows), name  # every row says how it ended
        assert "<small>#" not in tab.page.content(), name  # no "#1" beside a name, read as a seat
        tab.assert_fits(viewport["width"])
        tab.shot(f"match-list-{name}-{device}")
        tab.page.locator("table.match-list").first.scroll_into_view_if_needed()
        tab.shot(f"match-list-{name}-{device}-rows", full_page=False)
        assert tab.page.locator(f'a[href="{link}"]').count() == 1, name
    # The bot's page: its own result first in every row of its recent matches.
    assert set(tab.page.locator("td.focus-result").all_inner_texts()) <= {"won", "lost", "2nd of 3"}
    tab.assert_no_errors()
