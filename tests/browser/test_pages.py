"""The league's pages in Chromium, on a laptop and on a phone: they render, nothing overflows sideways, and the
console stays clean; a bot's stderr is shown to its owner only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.registry import GAMES
from league.bots.models import Bot
from league.bots.services import do_create_bot, do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.recording import do_record_match_result
from league.ratings import fits
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.browser.recorded import play_replay, record_match
from tests.results import runner_result


@pytest.fixture
def league(transactional_db) -> dict[str, int]:
    """A league with one finished match per game, so every page has something to show."""
    matches = {game_id: record_match(game_id, players=3, seed=31).pk for game_id in GAMES}
    record_match("love_letter", names=["heuristic", "random"], seed=32)  # rated: two distinct bots
    for game_id in GAMES:  # the fitted Elo, its rank ranges, chart and seat table show
        fits.refit_game(game_id)
    bot = Bot.objects.get(game="love_letter", name="heuristic")
    do_register_builtin_bots(["love_letter"])
    entrants = Bot.objects.filter(game="love_letter", is_builtin=True)
    knockout = do_create_tournament(None, "love_letter", "Autumn cup", "knockout", {}, entrants)
    do_start_tournament(knockout)
    return {"bot": bot.pk, "match": matches["love_letter"], "tournament": knockout.pk}


def _pages(league: dict[str, int]) -> list[tuple[str, str]]:
    pages = [("home", "/")]
    pages += [(f"leaderboard-{game_id}", f"/games/{game_id}/") for game_id in GAMES]
    pages += [("bot", f"/bots/{league['bot']}/"), ("match", f"/matches/{league['match']}/")]
    pages += [("login", "/account/login/"), ("signup", "/account/signup/")]
    pages += [("tournaments", "/tournaments/"), ("tournament", f"/tournaments/{league['tournament']}/")]
    pages += [("first-bot", "/first-bot/"), ("reference-love_letter", "/games/love_letter/reference/")]
    return pages


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_every_page_renders_with_a_clean_console(
    open_tab: Callable[..., Tab], league: dict[str, int], device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport)
    for name, path in _pages(league):
        response = tab.goto(path)
        assert response.status == 200, path
        tab.page.wait_for_load_state("networkidle")
        assert tab.page.locator("main h1").count() >= 1, path
        tab.shot(f"page-{name}-{device}", full_page=device == "laptop")
        tab.assert_fits(viewport["width"])
    tab.assert_no_errors()


@pytest.mark.parametrize(("device", "viewport"), [("laptop", LAPTOP), ("phone", PHONE)])
def test_the_fitted_elo_chart_spans_its_card_with_the_band_inside(
    open_tab: Callable[..., Tab], league: dict[str, int], device: str, viewport: dict[str, int]
) -> None:
    tab = open_tab(viewport=viewport)
    tab.goto(f"/bots/{league['bot']}/")
    card = tab.page.locator("section.card", has=tab.page.locator("figure.chart")).bounding_box()
    svg = tab.page.locator("figure.chart svg").bounding_box()
    band = tab.page.locator("figure.chart polygon.band").bounding_box()
    assert card and svg and band
    padding = 2 * 24  # the card's padding, at most
    assert svg["width"] >= card["width"] - padding - 1
    assert svg["x"] - 0.5 <= band["x"] and band["x"] + band["width"] <= svg["x"] + svg["width"] + 0.5
    assert svg["y"] - 0.5 <= band["y"] and band["y"] + band["height"] <= svg["y"] + svg["height"] + 0.5
    assert band["width"] > svg["width"] / 2  # one fit: the band spans the plot
    tab.assert_no_errors()


def test_a_bots_stderr_is_shown_to_its_owner_only(open_tab: Callable[..., Tab], live_server, alice, bob) -> None:
    do_register_builtin_bots(["love_letter"])
    mine = do_create_bot(alice, "love_letter", "mine", b"print('hi')\n", "bot.py").versions.get()
    other = Bot.objects.get(game="love_letter", name="heuristic").current_version()
    match = do_create_match("love_letter", [mine, other], seed=51)
    do_claim_match(match.pk)
    result = play_replay("love_letter", ["random", "heuristic"], 51, [mine.label, other.label])
    result["seats"][0]["stderr"] = "ALICE-DEBUG-LOG: thinking hard"
    do_record_match_result(match.pk, runner_result(result))

    owner = open_tab().sign_in(alice)
    owner.goto(f"/matches/{match.pk}/")
    owner.page.wait_for_selector("[data-parlour-viewer][data-ready='1']")
    owner.page.click("details summary")
    assert "ALICE-DEBUG-LOG" in owner.page.inner_text("pre.log")
    owner.shot("match-owner-stderr")
    for path in ("/bots/new/", "/account/tokens/"):
        assert owner.goto(path).status == 200
    owner.assert_no_errors()

    for tab in (open_tab().sign_in(bob), open_tab()):
        tab.goto(f"/matches/{match.pk}/")
        tab.page.wait_for_selector("[data-parlour-viewer][data-ready='1']")
        assert "ALICE-DEBUG-LOG" not in tab.page.content()
        tab.assert_no_errors()
