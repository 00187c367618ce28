"""Issue #19: the leaderboard ranks only bots that have played; a bot's status banner updates by itself (htmx)."""

from __future__ import annotations

from collections.abc import Callable

from league.bots.models import Bot
from league.bots.services import do_create_bot, do_disable_bot, do_record_validation, do_register_builtin_bots
from league.ratings import fits
from tests.browser.conftest import PHONE, Tab


def test_a_rejected_upload_is_not_ranked_and_its_page_says_why(
    open_tab: Callable[..., Tab], live_server, alice, example_bot_source: bytes
) -> None:
    do_register_builtin_bots(["love_letter"])
    bot = do_create_bot(alice, "love_letter", "broken", example_bot_source, "bot.py")
    reason = "Smoke match failed: the bot crashed at start-up: exit status 1"
    do_record_validation(bot.versions.get().pk, False, reason, "Traceback: ALICE-STDERR")
    tab = open_tab()
    tab.goto("/games/love_letter/")
    assert "alice/broken" not in tab.page.inner_text("main")
    assert "parlour/random" in tab.page.inner_text(".not-ranked")  # ready, never played: listed apart as new
    assert tab.page.locator("table.leaderboard tbody a").count() == 0
    owner = open_tab().sign_in(alice)
    owner.goto(f"/bots/{bot.pk}/")
    banner = owner.page.locator("#bot-status")
    assert banner.get_attribute("data-state") == "rejected" and "at start-up" in banner.inner_text()
    assert "None" not in banner.inner_text()
    assert owner.page.locator("#bot-summary").get_attribute("hx-trigger") is None  # settled: no polling
    assert owner.page.locator("#bot-status pre.log", has_text="ALICE-STDERR").is_visible()  # open, not folded away
    main = owner.page.inner_text("main")
    assert "Play against" not in main and "No faults" not in main and "first rated game" not in main
    owner.shot("bot-rejected-banner")
    phone = open_tab(PHONE).sign_in(alice)
    phone.goto(f"/bots/{bot.pk}/")
    phone.assert_fits(PHONE["width"])
    phone.shot("bot-rejected-phone", full_page=False)
    tab.assert_no_errors()
    owner.assert_no_errors()
    phone.assert_no_errors()


def test_the_status_banner_goes_from_pending_to_ready_without_a_reload(
    open_tab: Callable[..., Tab], live_server, alice, example_bot_source: bytes
) -> None:
    bot = do_create_bot(alice, "love_letter", "waiting", example_bot_source, "bot.py")
    tab = open_tab().sign_in(alice)
    tab.goto(f"/bots/{bot.pk}/")
    banner, summary = tab.page.locator("#bot-status"), tab.page.locator("#bot-summary")
    assert banner.get_attribute("data-state") == "pending" and summary.get_attribute("hx-trigger") == "every 2s"
    assert "pending" in tab.page.inner_text("#bot-summary [data-versions]")
    tab.page.evaluate("window.loaded = true")  # gone if the page reloads
    do_record_validation(bot.versions.get().pk, True, "Smoke match: finished, rank 1 of 2.", "")
    tab.page.wait_for_selector("#bot-status[data-state='ready']", timeout=10_000)
    assert tab.page.evaluate("window.loaded") is True
    assert "Ready" in banner.inner_text() and "pending" not in tab.page.inner_text("#bot-summary [data-versions]")
    assert summary.get_attribute("hx-trigger") == "every 10s"  # it plays now: its numbers will move
    assert tab.page.get_by_role("link", name="Play against waiting").is_visible()  # it can sit now
    do_disable_bot(bot, alice)
    tab.page.wait_for_selector("#bot-status[data-state='off']", timeout=15_000)
    assert summary.get_attribute("hx-trigger") is None  # nothing can change now: it stops asking
    assert Bot.objects.get(pk=bot.pk).versions.get().status == "ready"
    tab.assert_no_errors()


def test_my_bots_lists_each_bot_with_its_status_and_the_upload_form(
    open_tab: Callable[..., Tab], live_server, alice, bob, example_bot_source: bytes
) -> None:
    good = do_create_bot(alice, "love_letter", "good", example_bot_source, "bot.py")
    do_record_validation(good.versions.get().pk, True, "Smoke match: finished, rank 1 of 2.", "")
    broken = do_create_bot(alice, "love_letter", "broken", example_bot_source, "bot.py")
    do_record_validation(broken.versions.get().pk, False, "Smoke match failed: the bot crashed at start-up", "")
    do_create_bot(bob, "love_letter", "bobs", example_bot_source, "bot.py")
    anonymous = open_tab()
    anonymous.goto("/account/bots/")
    assert "/account/login/" in anonymous.page.url  # sign-in required
    tab = open_tab().sign_in(alice)
    tab.goto("/")
    tab.page.click("header a[href='/account/bots/']")  # linked from the navigation bar
    tab.page.wait_for_url("**/account/bots/")
    states = {
        tab.page.locator(".my-bot h2 a").nth(i).inner_text(): tab.page.locator(".my-bot [data-state]")
        .nth(i)
        .get_attribute("data-state")
        for i in range(tab.page.locator(".my-bot").count())
    }
    assert states == {"alice/broken": "rejected", "alice/good": "ready"}  # bob's bot is not listed
    assert "crashed at start-up" in tab.page.inner_text("main") and "not ranked yet" in tab.page.inner_text("main")
    assert tab.page.locator("main form[action='/bots/new/'] input[type=file]").count() == 1
    tab.shot("my-bots")
    tab.assert_no_errors()


def test_the_banner_follows_a_placement_burst_live_and_my_bots_shows_it(
    open_tab: Callable[..., Tab], live_server, alice, example_bot_source: bytes, settings
) -> None:
    from bots.results import BotSeat
    from bots.runner import SeriesGame, run_series
    from league.play.models import MatchSeries
    from league.play.series import do_claim_series, do_record_series

    settings.PLACEMENT_GAMES, settings.SERIES_GAMES = 4, 2
    do_register_builtin_bots(["love_letter"])
    bot = do_create_bot(alice, "love_letter", "placer", example_bot_source, "bot.py")
    tab = open_tab().sign_in(alice)
    tab.goto(f"/bots/{bot.pk}/")
    tab.page.evaluate("window.loaded = true")  # gone if the page reloads
    do_record_validation(bot.versions.get().pk, True, "Smoke match: finished, rank 1 of 2.", "")
    tab.page.wait_for_selector("#bot-status[data-state='placing']", timeout=10_000)
    banner, summary = tab.page.locator("#bot-status"), tab.page.locator("#bot-summary")
    assert "Placing v1: 0 of 4 games. Not ranked yet." in banner.inner_text()
    assert summary.get_attribute("hx-trigger") == "every 2s"
    for series in MatchSeries.objects.filter(placing_version__bot=bot).order_by("pk"):
        claimed = do_claim_series(series.pk, "test")
        assert claimed is not None
        seats = [BotSeat(label=seat.label, builtin="random") for seat in claimed.seats]
        played = run_series("love_letter", seats, [SeriesGame(game.seed) for game in claimed.games]).games
        do_record_series(claimed, played)
        if series == MatchSeries.objects.filter(placing_version__bot=bot).order_by("pk").first():
            tab.page.locator("#bot-status", has_text="2 of 4 games. Rank so far").wait_for(timeout=10_000)
            assert "not ranked" not in summary.inner_text().lower()  # the tag moved on with the banner
            mine = open_tab().sign_in(alice)
            mine.goto("/account/bots/")
            assert "Placing v1: 2 of 4 games. Rank so far" in mine.page.inner_text(".my-bot")
            mine.assert_no_errors()
    tab.page.wait_for_selector("#bot-status[data-state='ready']", timeout=10_000)
    assert tab.page.evaluate("window.loaded") is True and summary.get_attribute("hx-trigger") == "every 2s"
    fits.refit_game("love_letter")  # as the task after_placement asks for does
    tab.page.wait_for_selector("#bot-summary [data-rank]", timeout=10_000)  # the fitted Elo and rank, no reload
    assert tab.page.evaluate("window.loaded") is True and summary.get_attribute("hx-trigger") == "every 10s"
    tab.shot("bot-placed")
    tab.assert_no_errors()
