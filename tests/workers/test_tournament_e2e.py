"""A tournament on real parts: real Celery worker processes on a real Redis play the games, and each recorded result
enqueues ``parlour.advance_tournament``, which opens the next round until the tournament is finished."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from league.bots.services import do_register_builtin_bots
from league.play.models import Match
from league.ratings.models import RatingChange
from league.tournaments.models import Round, Tournament
from league.tournaments.services import do_create_tournament, do_start_tournament
from tests.league.tournaments.tournament_helpers import make_bots

pytestmark = pytest.mark.e2e


def test_a_round_robin_plays_to_the_end_on_real_workers(celery_workers) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    house = do_register_builtin_bots(["love_letter"])  # random, heuristic, ...
    bots = house[:2] + make_bots(staff, "love_letter", 3)
    tournament = do_create_tournament(staff, "love_letter", "Worker cup", "round_robin", {"games_per_pairing": 2}, bots)
    celery_workers.start(concurrency=2)  # no beat: every round must open from the recorded-result hook
    do_start_tournament(tournament)

    def finished() -> bool:
        return Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED

    celery_workers.wait_for(finished, 180, "the round robin to finish")
    matches = Match.objects.filter(round__tournament=tournament)
    assert matches.count() == 10 * 2 and not matches.exclude(status=Match.Status.FINISHED).exists()
    assert all(match.replay["moves"] for match in matches)
    assert set(Round.objects.filter(tournament=tournament).values_list("status", flat=True)) == {"finished"}
    entries = list(Tournament.objects.get(pk=tournament.pk).entries.order_by("position"))
    assert [entry.position for entry in entries] == [1, 2, 3, 4, 5]
    assert sum(entry.score for entry in entries) == pytest.approx(20) and {e.games for e in entries} == {8}
    assert not RatingChange.objects.exists(), "an unrated tournament leaves ladder Elo alone"
