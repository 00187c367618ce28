"""Worker time per owner (league/play/worker_budget.py): what an owner's placement and challenges cost the
workers in the last hour, counted once per game and once per claim still playing; a person over it opens no table."""

from __future__ import annotations

from datetime import timedelta

from django.test.utils import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from league.bots.models import Bot
from league.bots.services import do_create_bot, do_record_validation
from league.challenges.models import Challenge
from league.challenges.services import do_create_challenge
from league.play import worker_budget
from league.play.matches import do_claim_match, do_claim_next_match
from league.play.models import Match


def _ready_bot(owner, name: str) -> Bot:
    bot = do_create_bot(owner, "love_letter", name, b"print('hi')\n", "bot.py")
    do_record_validation(bot.versions.get().pk, True, "ok", "")
    return bot


@override_settings(SERIES_GAMES=3)
def test_the_challengers_games_are_counted_once_and_a_playing_series_from_its_claim(alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    challenge = do_create_challenge(alice, hero.pk, [villain.pk], 6)  # two series of three (one per seating)
    now = timezone.now()
    games = list(challenge.matches.order_by("pk"))
    series = [g for g in games if g.series_id == games[0].series_id]
    # The first series: one game recorded (2 s), two still running under the same claim since 10 s ago.
    Match.objects.filter(pk__in=[g.pk for g in series]).update(
        status=Match.Status.RUNNING, claim_token="t", claimed_at=now - timedelta(seconds=10)
    )
    Match.objects.filter(pk=series[0].pk).update(
        status=Match.Status.FINISHED, finished_at=now - timedelta(seconds=4), wall_ms=2000
    )
    spent = worker_budget.spent_ms([alice.pk, bob.pk], now)
    # 2 s recorded, and the claim's current game since that one finished (4 s), not 10 s for each running game.
    assert spent == {alice.pk: 6000, bob.pk: 0}
    # Games over an hour old no longer count.
    Match.objects.filter(pk=series[0].pk).update(finished_at=now - timedelta(minutes=61))
    Match.objects.filter(pk__in=[g.pk for g in series]).exclude(pk=series[0].pk).update(status=Match.Status.QUEUED)
    assert worker_budget.spent_ms([alice.pk], now) == {alice.pk: 0}


@override_settings(FAIR_USE_WORKER_SECONDS_PER_HOUR=5)
def test_a_person_whose_worker_time_is_spent_opens_no_table(alice, bob, alice_api: APIClient) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    challenge = Challenge.objects.get(pk=do_create_challenge(alice, hero.pk, [villain.pk], 2).pk)
    challenge.matches.update(status=Match.Status.FINISHED, finished_at=timezone.now(), wall_ms=3000)
    response = alice_api.post("/api/tables/", {"game": "love_letter", "players": 2}, format="json")
    assert response.status_code == 429, response.content
    assert response.json()["error"]["code"] == "rate_limited" and int(response["Retry-After"]) > 3500


@override_settings(FAIR_USE_WORKER_SECONDS_PER_HOUR=5, SERIES_GAMES=1)
def test_a_challenge_accepted_under_the_budget_waits_once_it_is_spent(alice, bob) -> None:
    hero, villain = _ready_bot(alice, "hero"), _ready_bot(bob, "villain")
    first, rest = (
        do_create_challenge(alice, hero.pk, [villain.pk], 1),
        do_create_challenge(alice, hero.pk, [villain.pk], 4),
    )
    first.matches.update(status=Match.Status.FINISHED, finished_at=timezone.now(), wall_ms=6000)  # a slow game: 6 s
    waiting = rest.matches.order_by("pk").first()
    # Its message comes: the game is not claimed, it waits until the hour's worker time frees.
    assert do_claim_match(waiting.pk, "w") is None
    waiting.refresh_from_db()
    assert waiting.status == Match.Status.QUEUED and waiting.enqueued_at > timezone.now() + timedelta(minutes=59)
    assert do_claim_next_match("w") is None  # nor by a worker looking for due work
    # Bob's challenge games are his: served at once.
    bobs = do_create_challenge(bob, villain.pk, [hero.pk], 1).matches.get()
    assert do_claim_match(bobs.pk, "w") is not None
