"""The admin's tournament form in Chromium: the entrants list shows only the bots of the chosen game (a static script,
allowed by the CSP), each labelled with its game and status, and saving makes a draft with the ticked bots."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User

from league.tournaments.models import Tournament
from tests.browser.conftest import Tab
from tests.league.tournaments.tournament_helpers import make_bots


def test_the_entrants_follow_the_chosen_game(open_tab: Callable[..., Tab]) -> None:
    root = User.objects.create_superuser("root", "root@example.org", "correct horse battery")
    make_bots(root, "love_letter", 3, prefix="ll")
    make_bots(root, "ten", 2, prefix="tn")
    tab = open_tab()
    tab.goto("/admin/login/")
    tab.page.fill("#id_username", "root")
    tab.page.fill("#id_password", "correct horse battery")
    tab.page.click("input[type=submit]")
    tab.page.wait_for_url("**/admin/")
    tab.goto("/admin/league/tournament/add/")
    tab.page.wait_for_load_state("networkidle")
    visible = "input[data-game]:visible"
    assert tab.page.locator(visible).count() == 0  # no game chosen yet
    assert "Choose a game" in tab.page.inner_text("#entrants-hint")
    tab.page.select_option("#id_game", "ten")
    assert tab.page.locator(visible).count() == 2
    tab.page.select_option("#id_game", "love_letter")
    labels = tab.page.locator("label:has(input[data-game]:visible)").all_inner_texts()
    assert [label.strip() for label in labels] == [f"root/ll{i} · Love Letter · ready" for i in range(3)]
    tab.page.fill("#id_name", "Spring cup")
    tab.page.select_option("#id_format", "round_robin")
    tab.page.check("label:has-text('root/ll0') input")
    tab.page.check("label:has-text('root/ll2') input")
    tab.shot("admin-tournament-add")
    tab.page.click("input[name=_save]")
    tab.page.wait_for_url("**/admin/league/tournament/")
    tournament = Tournament.objects.get()
    assert sorted(entry.bot.name for entry in tournament.entries.all()) == ["ll0", "ll2"]
    tab.assert_no_errors()
