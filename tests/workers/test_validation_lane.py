"""The validation lane (docs/operations.md, "Processes"): validations go to a queue of their own, so an upload is
validated in seconds while the match queue is full. Real worker processes on a real Redis, a real sandbox: a match
worker (-Q celery, one process) busy with a queue of slow matches, and a lane worker (-Q validation)."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User

from league.bots.models import BotVersion
from league.bots.services import do_create_bot
from league.play.matches import do_create_match
from league.play.models import Match
from tests.conftest import EXAMPLE_BOT
from tests.workers.conftest import Workers
from tests.workers.fault_helpers import SLOW_BOT, league_bot

pytestmark = pytest.mark.e2e

QUICK_BOT = EXAMPLE_BOT  # answers at once: validation's own time is the figure
QUEUED_MATCHES = 6
BUSY_LADDER_BOUND_SECONDS = 5.0  # issue #20: within 5 s of the upload answering while the ladder is busy


def _ready(workers: Workers, process: subprocess.Popen) -> bool:
    log = next(log for started, log in workers.processes if started is process)
    return " ready." in log.read_text(errors="replace")


def _validated(version: BotVersion) -> BotVersion | None:
    version.refresh_from_db()
    return version if version.validated else None


def test_an_upload_is_validated_at_once_while_the_match_queue_is_full(celery_workers: Workers, alice: User) -> None:
    quiet = {"LADDER_ENABLED": "0"}  # only this test's matches: a queue of known length
    matches_worker = celery_workers.start(concurrency=1, queues="celery", **quiet)
    lane_worker = celery_workers.start(concurrency=1, queues="validation", **quiet)
    for process in (matches_worker, lane_worker):
        celery_workers.wait_for(lambda process=process: _ready(celery_workers, process), 60, "the workers to start")
    # A warm-up: the lane worker has validated once (its sandbox is ready) before anything is timed.
    warm = do_create_bot(alice, "love_letter", "warm", QUICK_BOT, "main.py").versions.get()
    celery_workers.wait_for(lambda: _validated(warm), 60, "the warm-up validation")

    slow, rival = league_bot(alice, "slow", source=SLOW_BOT), league_bot(alice, "random", builtin="random")
    matches = [do_create_match("love_letter", [slow, rival]) for _ in range(QUEUED_MATCHES)]
    celery_workers.wait_for(
        lambda: Match.objects.filter(status=Match.Status.RUNNING).exists(), 30, "the match worker to be busy"
    )

    version = do_create_bot(alice, "love_letter", "fresh", QUICK_BOT, "main.py").versions.get()
    validated = celery_workers.wait_for(lambda: _validated(version), 30, "the new version's validation")
    assert isinstance(validated, BotVersion)
    unfinished = Match.objects.filter(pk__in=[m.pk for m in matches]).exclude(status=Match.Status.FINISHED).count()
    waited = (validated.validated - validated.created).total_seconds()
    print(f"\nvalidation lane: validated {waited:.2f} s after the upload, {unfinished} matches still to play")
    assert validated.status == BotVersion.Status.READY, validated.validation_log
    assert unfinished >= QUEUED_MATCHES // 2, "the validation waited behind the matches"
    assert waited < BUSY_LADDER_BOUND_SECONDS
