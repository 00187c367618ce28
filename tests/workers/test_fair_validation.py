"""Validation is fair between users, with a real Celery worker on a real Redis validating in the real sandbox: one
user's burst of uploads does not make another user's upload wait behind all of it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from league.bots.models import BotVersion
from league.bots.services import do_add_version, do_create_bot
from league.core import outbox
from tests.workers.fault_helpers import SLOW_BOT

pytestmark = pytest.mark.e2e

BURST = 12
PLAYED = (BotVersion.Status.READY, BotVersion.Status.RETIRED)


def _wait(version: BotVersion) -> timedelta:
    version.refresh_from_db()
    return version.validated - version.created


def _pending() -> list[dict[str, object]]:
    fields = ("pk", "attempts", "lease_until", "enqueued_at", "claimed_by", "validation_log")
    return list(BotVersion.objects.filter(status=BotVersion.Status.PENDING).values(*fields))


def test_a_burst_of_uploads_does_not_hold_up_another_users_validation(celery_workers, alice, bob, settings) -> None:
    # A bot that thinks a little before each move: a validation lasts a second or two, as a real bot's does.
    code = SLOW_BOT.read_bytes()
    settings.FAIR_USE_UPLOADS_PER_HOUR = settings.FAIR_USE_VERSIONS_PER_BOT_PER_HOUR = 100  # the burst is the point
    celery_workers.start(concurrency=2)
    # A warm-up validation: the worker is up and the sandbox is ready before anything is timed.
    carol = User.objects.create_user("carol")
    warm = do_create_bot(carol, "love_letter", "warm", code, "main.py").versions.get()
    celery_workers.wait_for(lambda: BotVersion.objects.get(pk=warm.pk).validated, 120, "the warm-up validation")

    # Alice uploads a burst; then Bob uploads one version.
    bot = do_create_bot(alice, "love_letter", "burst", code, "main.py")
    burst = [bot.versions.get()] + [do_add_version(bot, code, "main.py") for _ in range(BURST - 1)]
    bobs = do_create_bot(bob, "love_letter", "single", code, "main.py").versions.get()

    celery_workers.wait_for(lambda: BotVersion.objects.get(pk=bobs.pk).validated, 120, "Bob's validation")
    done_before_bob = BotVersion.objects.filter(
        pk__in=[v.pk for v in burst], validated__lte=BotVersion.objects.get(pk=bobs.pk).validated
    ).count()
    try:
        celery_workers.wait_for(
            lambda: not BotVersion.objects.filter(status=BotVersion.Status.PENDING).exists(), 300, "the whole burst"
        )
    except AssertionError as error:
        raise AssertionError(f"{error}; still pending: {_pending()}") from None
    with_burst = _wait(bobs)
    burst_end = max(BotVersion.objects.get(pk=v.pk).validated for v in burst)
    burst_span = burst_end - burst[0].created

    # The same upload by Bob with nobody else waiting: the baseline.
    alone = do_add_version(bobs.bot, code, "main.py")
    celery_workers.wait_for(lambda: BotVersion.objects.get(pk=alone.pk).validated, 120, "Bob's upload alone")
    baseline = _wait(alone)

    print(
        f"\nfair validation: Bob waited {with_burst.total_seconds():.1f} s behind Alice's burst of {BURST} "
        f"(of which {done_before_bob} were validated first), {baseline.total_seconds():.1f} s alone; "
        f"the burst took {burst_span.total_seconds():.1f} s to validate"
    )
    assert all(v.status in PLAYED for v in BotVersion.objects.all())
    # Taken in turns: at most the two in flight when Bob uploaded (concurrency 2) and one more were validated first
    # (first come first served would have validated all twelve first), and Bob's wait was not the burst's.
    assert done_before_bob <= 3
    assert with_burst < burst_span / 2


def test_uploads_whose_messages_were_lost_are_validated_by_a_worker_that_is_validating(
    celery_workers, alice, monkeypatch
) -> None:
    """Only the first of five uploads reaches the broker: the worker that validates it goes on to the others, fairest
    first, without the sweeper (there is no beat here)."""
    code = SLOW_BOT.read_bytes()
    sent = outbox.enqueue
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: None)  # the broker "loses" these four
    bot = do_create_bot(alice, "love_letter", "lost", code, "main.py")
    versions = [do_add_version(bot, code, "main.py") for _ in range(4)]
    monkeypatch.setattr(outbox, "enqueue", sent)
    do_add_version(bot, code, "main.py")  # its message goes out
    celery_workers.start(concurrency=1)
    celery_workers.wait_for(
        lambda: not BotVersion.objects.filter(status=BotVersion.Status.PENDING).exists(), 120, "every version"
    )
    assert all(v.status in PLAYED for v in BotVersion.objects.all())
    assert BotVersion.objects.count() == len(versions) + 2
