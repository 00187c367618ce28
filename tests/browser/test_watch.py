"""A spectator watches a running league match in Chromium: /live/ lists it (and picks up a new one by itself), its
live page draws the public view with the game's renderer, and the moves appear as the worker's observer publishes
them; when the match is recorded the page moves on to the match's page.

The worker's side is the real runner (bots.runner.play_match with the league's built-in players) and the worker's
real publisher (workers.live.LivePublisher), run in a thread of the test process; a short pause per move makes the
game last a few seconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection

from bots.results import BotSeat, MatchResult
from bots.runner import play_match
from league.bots.models import Bot
from league.bots.services import do_register_builtin_bots
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from tests.browser.conftest import Tab
from workers.live import LivePublisher

PAUSE_SECONDS = 0.08  # per move: a Love Letter game of ~20-40 decisions lasts a few seconds


def _running_match(kind: str = Match.Kind.LADDER) -> Match:
    bots = Bot.objects.filter(game="love_letter").order_by("pk")[:2]
    versions = [bot.current_version() for bot in bots]
    match = do_create_match("love_letter", [v for v in versions if v is not None], kind=kind)
    assert do_claim_match(match.pk) is not None
    return match


def _play_in_background(match: Match, blocker: Any, results: list[MatchResult]) -> threading.Thread:
    publisher = LivePublisher(match.pk, interval_ms=0)

    def observe(moves: list[dict[str, Any]]) -> None:
        publisher(moves)
        time.sleep(PAUSE_SECONDS)

    def run() -> None:
        with blocker.unblock():
            seats = [BotSeat(label=s.bot_version.label, builtin=s.bot_version.builtin) for s in match.seats.all()]
            result = play_match("love_letter", seats, match.seed, observer=observe)
            results.append(result)
            try:
                do_record_match_result(match.pk, result)
            finally:
                connection.close()  # this thread's own: the test database is dropped at the end of the run

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_spectator_sees_the_moves_of_a_running_match_appear(
    open_tab: Callable[..., Tab], django_db_blocker: Any
) -> None:
    do_register_builtin_bots(["love_letter"])
    first = _running_match(Match.Kind.TOURNAMENT)
    lister = open_tab()
    lister.goto("/live/")
    lister.page.wait_for_selector(f"[data-live-matches] a[href='/matches/{first.pk}/live/']")
    second = _running_match()  # the list picks it up by itself (htmx, every few seconds)
    lister.page.wait_for_selector(f"[data-live-matches] a[href='/matches/{second.pk}/live/']", timeout=8000)

    spectator = open_tab()
    spectator.goto(f"/matches/{second.pk}/live/")
    root = "[data-parlour-table]"
    spectator.page.wait_for_selector(f"{root}[data-ready='1'] [data-felt][data-perspective=spectator]")
    results: list[MatchResult] = []
    worker = _play_in_background(Match.objects.get(pk=second.pk), django_db_blocker, results)
    steps: set[int] = set()
    narrated = 0
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not results:
        step = spectator.page.get_attribute("[data-felt]", "data-step")
        if step is not None and spectator.page.url.endswith("/live/"):
            steps.add(int(step))
            if int(step) > 0:
                narrated = max(narrated, spectator.page.locator("[data-narration] li").count())
        time.sleep(0.05)
    worker.join(15)
    assert results, "the match did not finish"
    moves = len(results[0].replay["moves"])
    assert len([s for s in steps if 0 < s < moves]) >= 3, f"steps seen while it ran: {sorted(steps)} of {moves}"
    assert narrated > 0  # the engine's public narration of the moves
    # Recorded: the live page gives way to the match's own page.
    spectator.page.wait_for_url(f"**/matches/{second.pk}/", timeout=8000)
    spectator.assert_no_errors()
    lister.assert_no_errors()
