"""Matches finishing at the same moment in two real Celery worker processes never lose or double a rating change.

Run in both passes of bin/test: on PostgreSQL the rating rows are locked with SELECT ... FOR UPDATE (in bot order)
while each result is recorded, on SQLite the database's write lock serialises the same transactions. Either way
every bot's rating changes must form one unbroken chain, and the replay of the history must equal the ratings.
"""

from __future__ import annotations

import io
import random
from itertools import pairwise

import pytest
from celery import current_app
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection

from league.bots.models import Bot, BotVersion
from league.core.outbox import RUN_MATCH_TASK
from league.play.matches import do_create_match
from league.play.models import Match
from league.ratings.models import Rating, RatingChange

pytestmark = pytest.mark.e2e

MATCHES = 40


def test_concurrent_results_never_lose_or_double_a_rating_change(celery_workers) -> None:
    owner = User.objects.create(username="league")
    versions = []
    for n in range(4):  # few bots, so that nearly every pair of matches shares one and contends for its rating
        bot = Bot.objects.create(owner=owner, game="love_letter", name=f"random{n}", is_builtin=True)
        Rating.objects.create(bot=bot)
        versions.append(BotVersion.objects.create(bot=bot, number=1, builtin="random", status=BotVersion.Status.READY))
    for _ in range(2):
        celery_workers.start(concurrency=2, LADDER_ENABLED="0")

    rng = random.Random(4)
    matches = [do_create_match("love_letter", rng.sample(versions, rng.choice([2, 3, 4]))) for _ in range(MATCHES)]
    for match in matches:  # every task delivered twice: a duplicate must change nothing
        current_app.send_task(RUN_MATCH_TASK, args=[match.pk])

    def all_finished() -> bool:
        return Match.objects.filter(status=Match.Status.FINISHED).count() == MATCHES

    celery_workers.wait_for(all_finished, 120, f"{MATCHES} matches to finish")

    for match in Match.objects.prefetch_related("seats", "rating_changes"):
        assert len(match.rating_changes.all()) == len(match.seats.all()), f"match {match.pk}"
    for bot_id, rating in Rating.objects.in_bulk(field_name="bot_id").items():
        chain = list(RatingChange.objects.filter(bot_id=bot_id).select_related("match").order_by("id"))
        assert len(chain) == rating.games
        assert chain[0].before == 1500.0 and chain[-1].after == rating.elo
        for earlier, later in pairwise(chain):
            assert later.before == earlier.after, "a rating change was computed from a stale rating (lost update)"
            assert later.match.finished_at > earlier.match.finished_at
    assert sum(rating.games for rating in Rating.objects.all()) == RatingChange.objects.count()
    call_command("recompute_ratings", "--check", "--game", "love_letter", stdout=io.StringIO())

    # Both processes really did record results (so the results really did race).
    logs = [log.read_text(errors="replace") for _process, log in celery_workers.processes]
    assert all("parlour.run_match" in log and "succeeded" in log for log in logs), connection.vendor
