"""The ``parlour.advance_tournament`` task: thin over league.tournaments.services; on Celery beat as a safety net."""

from __future__ import annotations

from django.contrib.auth.models import User

from league.play.matches import do_claim_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.tournaments.models import Tournament
from league.tournaments.services import do_create_tournament, do_start_tournament
from parlour.celery import app
from tests.league.tournaments.tournament_helpers import make_bots, result
from tests.results import runner_result
from workers import tasks


def test_beat_runs_the_safety_net_every_thirty_seconds() -> None:
    app.loader.import_default_modules()
    entries = [entry for entry in app.conf.beat_schedule.values() if entry["task"] == "parlour.advance_tournament"]
    assert len(entries) == 1 and entries[0]["schedule"] == 30.0 and not entries[0].get("args")


def test_the_task_advances_one_tournament_or_every_running_one(db) -> None:
    staff = User.objects.create_user("staff", is_staff=True)
    bots = make_bots(staff, "love_letter", 3)
    tournament = do_create_tournament(staff, "love_letter", "Cup", "swiss", {"rounds": 2}, bots)
    do_start_tournament(tournament)
    (match,) = Match.objects.filter(round__tournament=tournament)
    do_claim_match(match.pk)
    do_record_match_result(match.pk, runner_result(result([1, 2])))
    assert tasks.advance_tournament(tournament.pk) == 1
    assert tournament.rounds.count() == 2
    assert tasks.advance_tournament(tournament.pk + 1000) == 1, "a tournament that is gone is no error"
    (second,) = Match.objects.filter(round__number=2, round__tournament=tournament)
    do_claim_match(second.pk)
    do_record_match_result(second.pk, runner_result(result([2, 1])))
    assert tasks.advance_tournament() == 1  # beat: every running tournament
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    assert tasks.advance_tournament() == 0
