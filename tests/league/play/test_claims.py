"""Claims are leases (league/play/matches.py; docs/operations.md, Reliability): who may run a match, for how long,
what happens when its worker dies or its message is lost, and why a worker presumed dead cannot overwrite a re-run."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.test.utils import override_settings
from django.utils import timezone

from league.bots.models import BotVersion
from league.bots.services import do_create_bot, do_record_validation
from league.bots.validation import do_claim_version, do_release_version, do_resend_lost_validations
from league.core import outbox
from league.core.leases import retry_delay
from league.core.outbox import RUN_MATCH_TASK, VALIDATE_VERSION_TASK
from league.play.matches import (
    do_claim_match,
    do_create_match,
    do_fail_match,
    do_release_match,
    do_renew_lease,
    do_requeue_stale_matches,
)
from league.play.models import Match
from league.play.recording import do_record_match_result
from league.ratings.models import Rating, RatingChange
from tests.results import runner_result
from tests.workers.conftest import ROOT


def _versions(owner) -> list[BotVersion]:
    versions = []
    for name in ("a", "b"):
        version = do_create_bot(owner, "love_letter", name, b"print('hi')\n", "bot.py").versions.get()
        do_record_validation(version.pk, True, "ok", "")
        versions.append(BotVersion.objects.get(pk=version.pk))
    return versions


def _result(ranks: list[int]) -> dict:
    return {
        "seats": [{"rank": rank, "score": 0.0, "fault": None} for rank in ranks],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": 1,
    }


@pytest.fixture
def match(alice) -> Match:
    return do_create_match("love_letter", _versions(alice), seed=3)


def _lapse(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))


def test_a_claim_is_a_lease_with_a_token_and_the_worker_that_holds_it(match) -> None:
    claimed = do_claim_match(match.pk, worker="w1@host/42")
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING and claimed.attempts == 1
    assert len(claimed.claim_token) == 32 and claimed.claimed_by == "w1@host/42"
    lease = (claimed.lease_until - claimed.claimed_at).total_seconds()
    assert lease == django_settings.MATCH_STALE_SECONDS


def test_a_running_match_under_a_live_lease_cannot_be_claimed_again(match) -> None:
    do_claim_match(match.pk, worker="w1")
    assert do_claim_match(match.pk, worker="w2") is None
    assert Match.objects.get(pk=match.pk).claimed_by == "w1"


def test_a_running_match_whose_lease_ran_out_is_claimed_again_as_a_new_attempt(match) -> None:
    first = do_claim_match(match.pk, worker="w1")
    _lapse(match)
    second = do_claim_match(match.pk, worker="w2")
    assert second is not None and second.attempts == 2 and second.claim_token != first.claim_token


def test_a_retry_takes_back_its_own_claim_at_once(match) -> None:
    first = do_claim_match(match.pk, worker="w1")
    again = do_claim_match(match.pk, worker="w1", claim_token=first.claim_token)
    assert again is not None and again.attempts == 2
    assert do_claim_match(match.pk, worker="w2", claim_token=first.claim_token) is None, "spent"


def test_a_worker_presumed_dead_cannot_record_over_the_re_run(match) -> None:
    zombie = do_claim_match(match.pk, worker="slow")
    _lapse(match)
    rerun = do_claim_match(match.pk, worker="fast")
    assert not do_renew_lease(match.pk, zombie.claim_token), "the zombie learns it lost the claim"
    assert not do_record_match_result(match.pk, runner_result(_result([2, 1])), claim_token=zombie.claim_token)
    assert do_record_match_result(match.pk, runner_result(_result([1, 2])), claim_token=rerun.claim_token)
    assert not do_record_match_result(match.pk, runner_result(_result([2, 1])), claim_token=zombie.claim_token)
    assert RatingChange.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    assert list(match.seats.order_by("number").values_list("rank", flat=True)) == [1, 2]


def test_renewing_a_lease_extends_it(match) -> None:
    claimed = do_claim_match(match.pk)
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() + timedelta(seconds=1))
    assert do_renew_lease(match.pk, claimed.claim_token)
    lease = Match.objects.get(pk=match.pk).lease_until - timezone.now()
    assert lease > timedelta(seconds=django_settings.MATCH_STALE_SECONDS - 5)


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_a_claim_beyond_the_last_attempt_fails_the_match_with_the_last_reason(match) -> None:
    do_claim_match(match.pk)
    do_release_match(match.pk, "SandboxError: bwrap is missing")
    do_claim_match(match.pk)
    _lapse(match)  # the second worker died without a word
    assert do_claim_match(match.pk) is None
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and match.attempts == 3
    assert match.error == "gave up after 2 attempts; the last: SandboxError: bwrap is missing"


def test_a_released_attempt_is_queued_again_after_a_back_off(match, monkeypatch) -> None:
    sent = []
    monkeypatch.setattr(outbox, "enqueue_later", lambda task, object_id, countdown: sent.append((task, countdown)))
    claimed = do_claim_match(match.pk)
    before = timezone.now()
    released = do_release_match(match.pk, "OperationalError: gone", claim_token=claimed.claim_token)
    assert released.status == Match.Status.QUEUED and released.claim_token == "" and released.lease_until is None
    ((task, countdown),) = sent
    assert task == RUN_MATCH_TASK and 0.75 * 10 <= countdown <= 10
    assert released.enqueued_at >= before + timedelta(seconds=countdown - 1), "the sweeper counts from the retry"


def test_a_release_by_a_worker_that_lost_its_claim_changes_nothing(match) -> None:
    zombie = do_claim_match(match.pk)
    _lapse(match)
    do_claim_match(match.pk)
    assert do_release_match(match.pk, "late", claim_token=zombie.claim_token).status == Match.Status.RUNNING
    assert not do_fail_match(match.pk, "late", claim_token=zombie.claim_token)


@override_settings(MATCH_RETRY_SECONDS=10, MATCH_RETRY_MAX_SECONDS=600)
def test_the_back_off_doubles_per_attempt_up_to_its_cap() -> None:
    with mock.patch("league.core.leases.random.uniform", return_value=1.0):
        assert [retry_delay(n) for n in (1, 2, 3, 4, 8, 20)] == [10, 20, 40, 80, 600, 600]
    assert all(7.5 <= retry_delay(1) <= 10 for _ in range(50))


def test_the_sweeper_queues_again_a_match_whose_worker_died(match) -> None:
    do_claim_match(match.pk, worker="w1@host/7")
    assert do_requeue_stale_matches() == []
    _lapse(match)
    assert do_requeue_stale_matches() == [match.pk]
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and "(w1@host/7) stopped answering" in match.error


@override_settings(MATCH_RESEND_SECONDS=300)
def test_the_sweeper_sends_again_a_queued_match_whose_message_was_lost_once_per_period(match, monkeypatch) -> None:
    sent = []
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: sent.append((task, object_id)))
    assert do_requeue_stale_matches() == [], "a fresh message is not presumed lost"
    Match.objects.filter(pk=match.pk).update(enqueued_at=timezone.now() - timedelta(seconds=301))
    assert do_requeue_stale_matches() == [match.pk]
    assert do_requeue_stale_matches() == [], "not again until another period has passed"
    assert sent == [(RUN_MATCH_TASK, match.pk)]


def test_a_validation_is_claimed_once_and_recorded_only_under_its_claim(alice) -> None:
    version = do_create_bot(alice, "love_letter", "v", b"pass\n", "bot.py").versions.get()
    zombie = do_claim_version(version.pk, worker="w1")
    assert zombie is not None and do_claim_version(version.pk, worker="w2") is None
    BotVersion.objects.filter(pk=version.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    live = do_claim_version(version.pk, worker="w2")
    assert live is not None and live.attempts == 2
    assert not do_record_validation(version.pk, False, "crashed", "", claim_token=zombie.claim_token)
    assert do_record_validation(version.pk, True, "ok", "", claim_token=live.claim_token)
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.READY


@override_settings(MATCH_MAX_ATTEMPTS=1)
def test_a_validation_that_keeps_failing_for_the_infrastructure_is_rejected_saying_so(alice, monkeypatch) -> None:
    monkeypatch.setattr(outbox, "enqueue_later", lambda *args: None)
    version = do_create_bot(alice, "love_letter", "v", b"pass\n", "bot.py").versions.get()
    claimed = do_claim_version(version.pk)
    assert do_release_version(version.pk, "SandboxError: no bwrap", claim_token=claimed.claim_token)
    assert do_claim_version(version.pk) is None
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    assert "could not validate this version after 1 attempts" in version.validation_log
    assert "SandboxError: no bwrap" in version.validation_log


def test_the_sweeper_sends_again_a_validation_whose_worker_died(alice, monkeypatch) -> None:
    version = do_create_bot(alice, "love_letter", "v", b"pass\n", "bot.py").versions.get()
    sent = []
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: sent.append((task, object_id)))
    do_claim_version(version.pk)
    assert do_resend_lost_validations() == []
    now = timezone.now()  # sent, claimed, and its lease ran out a second ago
    BotVersion.objects.filter(pk=version.pk).update(
        enqueued_at=now - timedelta(seconds=100), lease_until=now - timedelta(seconds=1)
    )
    assert do_resend_lost_validations() == [version.pk]
    assert do_resend_lost_validations() == []
    assert sent == [(VALIDATE_VERSION_TASK, version.pk)]


def test_time_limits_leases_and_back_offs_are_below_the_brokers_visibility_timeout() -> None:
    visibility = django_settings.BROKER_VISIBILITY_TIMEOUT
    assert django_settings.CELERY_TASK_SOFT_TIME_LIMIT < django_settings.CELERY_TASK_TIME_LIMIT < visibility
    assert max(django_settings.MATCH_STALE_SECONDS, django_settings.MATCH_RETRY_MAX_SECONDS) < visibility
    assert django_settings.MATCH_HEARTBEAT_SECONDS * 3 <= django_settings.MATCH_STALE_SECONDS
    if django_settings.REDIS_URL:
        assert django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == visibility


@pytest.mark.parametrize("name", ["CELERY_TASK_TIME_LIMIT", "MATCH_STALE_SECONDS", "MATCH_RETRY_MAX_SECONDS"])
def test_a_limit_at_or_above_the_visibility_timeout_is_refused_at_start_up(name: str) -> None:
    env = {**os.environ, "SECRET_KEY": "x", "CELERY_VISIBILITY_TIMEOUT": "2000", name: "2000"}
    process = subprocess.run(
        [sys.executable, "-c", "import parlour.settings"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert process.returncode != 0
    assert f"{name} (2000 s) must be positive and below CELERY_VISIBILITY_TIMEOUT" in process.stderr
