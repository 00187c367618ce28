"""Issue #19: pages that change update themselves (htmx live regions, league/site/parts.py), without a reload and
without console errors. One game of a rated tournament changes both its standings and the ladder, so both tabs wait
at once (the tournament asks every 5 s, the leaderboard every 10 s)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User

from league.play.models import Match
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.browser.conftest import Tab
from tests.league.challenges.test_challenges import _play
from tests.league.tournaments.tournament_helpers import make_bots


def test_a_tournaments_standings_and_the_leaderboard_update_without_a_reload(
    open_tab: Callable[..., Tab], live_server
) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    bots = make_bots(None, "love_letter", 4)  # one owner each: a rated tournament takes one bot per owner
    tournament = do_create_tournament(staff, "love_letter", "Cup", "round_robin", {}, bots, rated=True)
    do_start_tournament(tournament)
    standings, board = open_tab(), open_tab()
    standings.goto(f"/tournaments/{tournament.pk}/")
    board.goto("/games/love_letter/")
    assert standings.page.locator("#tournament-live").get_attribute("hx-trigger") == "every 5s"
    assert "0 of 2 games played" in standings.page.inner_text("#tournament-live")
    assert board.page.locator("table.leaderboard tbody a").count() == 0  # nobody has played a rated game yet
    for tab in (standings, board):
        tab.page.evaluate("window.loaded = true")  # gone if the page reloads
    first = Match.objects.filter(round__tournament=tournament).order_by("id").first()
    assert first is not None
    _play(first, {seat.bot_version_id: seat.number + 1 for seat in first.seats.all()})
    standings.page.locator("#tournament-live", has_text="1 of 2 games played").wait_for(timeout=8_000)
    board.page.wait_for_selector("table.leaderboard tbody a", timeout=13_000)
    assert board.page.locator("table.leaderboard tbody a").count() == 2  # the two who played are ranked now
    for tab in (standings, board):
        assert tab.page.evaluate("window.loaded") is True
        tab.assert_no_errors()
