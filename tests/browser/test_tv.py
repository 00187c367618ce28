"""Parlour TV in Chromium (templates/league/live.html, league/static/league/tv.js): with no league match in play,
/live/ replays the top bots' latest game as a broadcast, its moves advancing on their own at the setting's pace,
shows the result, then switches to the next game by itself, on a phone and on a laptop, for an anonymous visitor,
without console errors. Each broadcast's frames come from the public broadcast endpoint, once a broadcast.

The page keeps what it drew (window.parlourTv.history: each game's steps with the time each was drawn), so the
assertions do not depend on catching a 70 ms step on a busy machine."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import caches
from django.utils import timezone

from bots.results import MatchResult
from league.bots.services import do_register_builtin_bots
from league.live import broadcasts
from league.live.models import LiveMatch
from league.play.models import Match
from tests.browser import test_watch
from tests.browser.conftest import LAPTOP, PHONE, Tab
from tests.league.live.test_broadcasts import rank, record

TV = "[data-parlour-tv]"
MOVE_MS = 70


def _history(tab: Tab) -> list[dict[str, Any]]:
    return list(tab.page.evaluate("window.parlourTv.history"))


def _moves(match: Match) -> int:
    replay = match.replay
    assert replay is not None
    return len(replay["moves"])


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("laptop", LAPTOP)])
def test_the_tv_plays_a_broadcast_by_itself_and_moves_on_to_the_next_game(
    open_tab: Callable[..., Tab], settings, size: str, viewport: dict[str, int]
) -> None:
    settings.LIVE_BROADCAST_MOVE_MS = MOVE_MS
    settings.LIVE_BROADCAST_RESULT_MS = 1500
    caches[broadcasts.CACHE].clear()
    first = record("love_letter", ["heuristic", "random"], 11)
    second = record("love_letter", ["random-2", "heuristic"], 12)
    rank("love_letter", "heuristic", "random", "random-2")
    tab = open_tab(viewport)
    fetched: list[str] = []
    tab.page.on("request", lambda request: fetched.append(request.url.removeprefix(tab.base)))
    tab.goto("/live/")
    page = tab.page
    assert page.inner_text("[data-tv-caption]") == "Replay: the top two Love Letter bots, just now"
    assert "No league match is being played right now." in page.inner_text("[data-live-matches]")

    # The first game plays by itself, drawn by Love Letter's own renderer as a spectator sees it.
    page.wait_for_selector(f"{TV}[data-match='{first.pk}'][data-phase='playing'] [data-tv-felt][data-perspective]")
    assert page.get_attribute("[data-tv-felt]", "data-perspective") == "spectator"
    page.wait_for_function("() => Number(document.querySelector('[data-parlour-tv]').dataset.step) >= 3")
    assert page.locator("[data-tv-felt] .ll-seat").count() == 2
    # Hidden information stays hidden: every hand is drawn face down, as a spectator at the table would see it.
    assert page.locator("[data-tv-felt] .ll-hand .ll-back").count() >= 2
    assert page.locator("[data-tv-felt] .ll-hand .ll-card:not(.ll-back)").count() == 0
    assert page.inner_text("[data-tv-count]").startswith("Move ")
    assert page.inner_text("[data-tv-say]").strip()
    assert not {"null", "undefined"} & set(page.inner_text(TV).split())
    tab.shot(f"tv-{size}-playing")
    tab.assert_fits(viewport["width"])

    # Its result, then the next game by itself.
    page.wait_for_selector(f"{TV}[data-phase='result'] [data-tv-result]", timeout=20_000)
    result = page.inner_text("[data-tv-result]")
    assert "Result" in result and "1st" in result and "parlour/heuristic v1" in result
    assert not {"null", "undefined"} & set(page.inner_text(TV).split())
    tab.shot(f"tv-{size}-result", full_page=False)
    tab.assert_fits(viewport["width"])
    page.wait_for_function("() => (window.parlourTv.history[1] || {}).result", timeout=30_000)
    played, following = _history(tab)[:2]
    for shown, match in ((played, first), (following, second)):
        assert shown["match"] == match.pk and shown["result"] is True
        steps = [step for step, _ in shown["steps"]]
        assert steps == list(range(_moves(match) + 1)), steps  # every move, in order, from the deal, by itself
        times = [at for _, at in shown["steps"]]
        assert (times[-1] - times[0]) / (len(times) - 1) >= MOVE_MS * 0.9  # at the setting's pace
    assert following["caption"] == "Replay: Love Letter's #1 and #3 bots, just now"

    # Round and round: the first game again; "Next game" cuts it short.
    page.wait_for_selector(f"{TV}[data-match='{first.pk}'][data-phase='playing']", timeout=20_000)
    page.click("[data-tv-skip]")
    page.wait_for_function("() => window.parlourTv.history.length >= 4", timeout=10_000)
    history = _history(tab)
    assert [shown["match"] for shown in history[:4]] == [first.pk, second.pk, first.pk, second.pk]
    assert history[2]["result"] is False and len(history[2]["steps"]) < _moves(first) + 1

    # The frames came from the public broadcast endpoint only, once a broadcast at most (the browser may keep them).
    frames = [url for url in fetched if not url.startswith("/static/") and ("/frames" in url or "/replay" in url)]
    assert set(frames) == {f"/live/broadcasts/{m}/frames/" for m in (first.pk, second.pk)}, frames
    assert len(frames) <= len(history), frames
    tab.assert_no_errors()


def test_with_nothing_to_show_the_tv_says_so(open_tab: Callable[..., Tab]) -> None:
    caches[broadcasts.CACHE].clear()
    tab = open_tab(PHONE)
    tab.goto("/live/")
    tab.page.wait_for_selector(f"{TV}[data-phase='empty']")
    assert tab.page.inner_text("[data-tv-caption]") == "Nothing to watch yet"
    assert tab.page.locator("[data-tv-felt]").is_hidden() and tab.page.locator("[data-tv-skip]").is_hidden()
    tab.shot("tv-phone-empty")
    tab.assert_fits(PHONE["width"])
    tab.assert_no_errors()


def test_a_slow_league_match_in_play_is_featured_live_then_the_replays(
    open_tab: Callable[..., Tab], settings, django_db_blocker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A league match still running seconds after it started (slow bots) is worth watching: the TV follows it live
    (its event stream, the public view), says when it is over, then goes on to the replays by itself."""
    settings.LIVE_BROADCAST_MOVE_MS = MOVE_MS
    settings.LIVE_BROADCAST_RESULT_MS = 1000
    monkeypatch.setattr(test_watch, "PAUSE_SECONDS", 0.15)  # a slow game: a few seconds
    do_register_builtin_bots(["love_letter"])
    replayed = record("love_letter", ["heuristic", "random"], 11)
    match = test_watch._running_match()
    Match.objects.filter(pk=match.pk).update(claimed_at=timezone.now() - timedelta(seconds=10))
    results: list[MatchResult] = []
    worker = test_watch._play_in_background(Match.objects.get(pk=match.pk), django_db_blocker, results)
    deadline = time.monotonic() + 10
    while not LiveMatch.objects.filter(match=match, move_count__gt=0).exists():
        assert time.monotonic() < deadline, "the match published no move"
        time.sleep(0.05)
    caches[broadcasts.CACHE].clear()
    tab = open_tab(PHONE)
    tab.goto("/live/")
    page = tab.page
    assert page.inner_text("[data-tv-caption]") == "Live: a Love Letter ladder game"
    page.wait_for_selector(f"{TV}[data-match='{match.pk}'][data-kind='live'][data-phase='live'] .ll-seat")
    assert page.locator("[data-tv-felt] .ll-hand .ll-card:not(.ll-back)").count() == 0  # the public view
    assert "to move…" in page.inner_text("[data-tv-say]") and "null" not in page.inner_text(TV).split()
    tab.shot("tv-phone-live")
    tab.assert_fits(PHONE["width"])
    worker.join(30)
    assert results, "the match did not finish"
    page.wait_for_selector(f"{TV}[data-kind='live'][data-phase='result']", timeout=15_000)
    assert "Its result and replay are on the match's page." in page.inner_text("[data-tv-result]")
    page.wait_for_function("() => window.parlourTv.history.length >= 2", timeout=15_000)
    live, after = _history(tab)[:2]
    assert live["match"] == match.pk and live["result"] is True
    steps = [step for step, _ in live["steps"]]
    assert len(set(steps)) >= 3 and steps == sorted(steps), steps  # the moves appeared as they were played
    assert after["match"] in {replayed.pk, match.pk} and after["caption"].startswith("Replay: ")
    tab.assert_no_errors()


def test_a_long_game_is_broadcast_faster(open_tab: Callable[..., Tab], settings) -> None:
    # TEN's 300 moves at 1.5 s took 7.5 minutes: a long game is paced to last about LIVE_BROADCAST_MAX_SECONDS.
    settings.LIVE_BROADCAST_MOVE_MS = 1500
    settings.LIVE_BROADCAST_MAX_SECONDS = 10
    caches[broadcasts.CACHE].clear()
    moves = record("love_letter", ["heuristic", "random"], 11).replay["moves"]
    rank("love_letter", "heuristic", "random")
    tab = open_tab()
    tab.goto("/live/")
    tab.page.wait_for_selector(f"{TV}[data-phase='playing']")
    pace = tab.page.evaluate("window.parlourTv.pace")
    assert pace == max(400, min(1500, 10_000 / len(moves))) < 1500, (pace, len(moves))
    tab.assert_no_errors()
