"""Time-slicing between owners, with real parts: a real Celery worker plays a slow bot's placement series in the real
sandbox while another owner's placement arrives. The long series gives its worker up between two games once its slice
(SERIES_SLICE_SECONDS) is spent, so the other owner's games are not held behind all of it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from league.play.models import Match
from league.play.series import do_create_series
from tests.workers.fault_helpers import SLOW_BOT, assert_league_consistent, league_bot

pytestmark = pytest.mark.e2e


def _placement(version, rival, seeds: list[int]):
    return do_create_series(
        "love_letter", [version, rival], seeds, kind=Match.Kind.PLACEMENT, placing_version=version, placing=True
    )


def test_a_slow_series_yields_its_worker_to_another_owners_placement(celery_workers) -> None:
    slow_owner, other_owner = User.objects.create(username="slow"), User.objects.create(username="other")
    house = User.objects.create(username="house")
    slow = league_bot(slow_owner, "slow", source=SLOW_BOT)
    quick = league_bot(other_owner, "quick", builtin="random")
    rival = league_bot(house, "random", builtin="random")
    # One worker process, so without the slice the other owner waits for every game of the slow series.
    celery_workers.start(concurrency=1, SERIES_SLICE_SECONDS="1", MATCH_CHAIN_SECONDS="60")
    long_series = _placement(slow, rival, list(range(71, 77)))
    celery_workers.wait_for(
        lambda: Match.objects.filter(series=long_series, status=Match.Status.RUNNING).exists(),
        60,
        "the slow series to start",
    )
    short_series = _placement(quick, rival, [81, 82])
    short_games = list(short_series.matches.all())
    slow_games = list(long_series.matches.order_by("pk"))
    celery_workers.wait_for(
        lambda: Match.objects.filter(pk__in=[m.pk for m in slow_games + short_games])
        .exclude(status=Match.Status.FINISHED)
        .count()
        == 0,
        150,
        "every game to be played",
    )
    other_done = max(Match.objects.get(pk=m.pk).finished_at for m in short_games)
    slow_finished = sorted(Match.objects.get(pk=m.pk).finished_at for m in slow_games)
    # The other owner's games came in before the slow series was through: at most its slice and one game ahead.
    assert other_done < slow_finished[-1], "the other owner's placement waited behind the whole slow series"
    assert sum(1 for at in slow_finished if at < other_done) <= 2, slow_finished
    for match in slow_games + short_games:
        match.refresh_from_db()
        assert match.attempts == 1, "a yield is not an attempt"
    assert_league_consistent()
