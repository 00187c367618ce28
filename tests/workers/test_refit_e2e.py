"""The fitted Elo on real parts: a real Celery worker (with beat) on a real Redis refits a game whose rated games
changed, and ``request_refit`` (the placement hook) reaches a worker without beat."""

from __future__ import annotations

import pytest
from django.db import transaction

from league.ratings import fits
from league.ratings.models import FittedRating, RatingFit
from parlour.celery import app
from tests.league.ratings.fits_helpers import league, play_ordered

pytestmark = pytest.mark.e2e


def test_beat_refits_every_ratings_refit_seconds() -> None:
    app.loader.import_default_modules()
    entries = [entry for entry in app.conf.beat_schedule.values() if entry["task"] == "parlour.refit_ratings"]
    assert len(entries) == 1 and entries[0]["schedule"] == 60.0 and not entries[0].get("args")


def test_beat_refits_a_game_whose_games_changed(celery_workers) -> None:
    bots = league(4)
    play_ordered(bots, 40)
    celery_workers.start(beat=True, concurrency=1, RATINGS_REFIT_SECONDS="1", LADDER_ENABLED="false")
    celery_workers.wait_for(lambda: FittedRating.objects.count() == 4, 60, "beat's first fit")
    fit = RatingFit.objects.get()
    assert fit.matches == 40 and fits.compare_fit("love_letter") == []
    with transaction.atomic():  # five results at once: one refit sees them all
        play_ordered(bots[:2], 5, seed=2)
    celery_workers.wait_for(lambda: RatingFit.objects.filter(matches=45).exists(), 60, "a refit after new games")
    assert RatingFit.objects.count() == 2  # an unchanged game is not refitted tick after tick


def test_request_refit_reaches_a_worker(celery_workers) -> None:
    bots = league(3)
    play_ordered(bots, 20)
    celery_workers.start(concurrency=1, LADDER_ENABLED="false")  # no beat: only the request refits
    with transaction.atomic():
        fits.request_refit("love_letter")
    celery_workers.wait_for(lambda: FittedRating.objects.count() == 3, 60, "the requested refit")
