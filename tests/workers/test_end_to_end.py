"""The whole path with real parts: API upload → sandboxed validation → ladder matches by a real Celery worker on a
real Redis → ratings and leaderboard."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from league.bots.models import Bot, BotVersion
from league.bots.services import do_register_builtin_bots
from league.play.models import Match
from league.ratings.models import FittedRating, Rating, RatingChange
from tests.workers.conftest import upload_bot

pytestmark = pytest.mark.e2e

CRASHING_BOT = b"import sys\nsys.stderr.write('I give up\\n')\nsys.exit(3)\n"


def test_an_uploaded_bot_is_validated_and_climbs_the_ladder(celery_workers, alice_api, example_bot_source) -> None:
    do_register_builtin_bots(["love_letter"])
    celery_workers.start(beat=True, RATINGS_REFIT_SECONDS="1")
    good = upload_bot(alice_api, "steady", example_bot_source)
    bad = upload_bot(alice_api, "quitter", CRASHING_BOT)

    def validated() -> bool:
        return not BotVersion.objects.filter(bot_id__in=[good, bad], status=BotVersion.Status.PENDING).exists()

    celery_workers.wait_for(validated, 90, "both uploads to be validated")
    assert Bot.objects.get(pk=good).versions.get().status == BotVersion.Status.READY
    rejected = Bot.objects.get(pk=bad).versions.get()
    assert rejected.status == BotVersion.Status.REJECTED
    assert "crash" in rejected.validation_log and "I give up" in rejected.validation_stderr

    celery_workers.wait_for(
        lambda: Rating.objects.get(bot_id=good).games >= 2, 120, "two rated ladder matches of the new bot"
    )
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    for match in finished:
        seats = match.seats.count()
        assert RatingChange.objects.filter(match=match).count() == seats
        assert match.replay["moves"] and match.replay["game"] == "love_letter"
    board = APIClient().get("/api/leaderboards/love_letter/").json()["results"]
    mine = next(row for row in board if row["bot"] == good)
    last_change = RatingChange.objects.filter(bot_id=good).order_by("-id").first()
    assert mine["games"] >= 2 and mine["online_elo"] == round(last_change.after, 1)
    # Beat fits the new bot's games within a second or so (the rest of the ladder plays on meanwhile).
    celery_workers.wait_for(lambda: FittedRating.objects.filter(bot_id=good).exists(), 60, "the new bot's fit")
    board = APIClient().get("/api/leaderboards/love_letter/").json()["results"]
    mine = next(row for row in board if row["bot"] == good)
    assert mine["fitted"] and mine["interval"][0] < mine["elo"] < mine["interval"][1] and mine["rank_range"]
    assert all(row["bot"] != bad for row in board)  # rejected: not ranked (issue #19)
    listed = APIClient().get(f"/api/matches/?bot={good}").json()
    assert len(listed["results"]) >= 2 and all(good in [s["bot"] for s in m["seats"]] for m in listed["results"])
