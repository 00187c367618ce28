"""The lease rules, once for every kind of queued work (league/core/leases.py): a lone match, a bot version to
validate, a series' games and a person's table are claimed once, renewed, taken over when their worker dies, released
with a back-off, given up after MATCH_MAX_ATTEMPTS, and swept when their message is lost — each through the services
the workers call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.test.utils import override_settings
from django.utils import timezone

from league.bots.models import BotVersion
from league.bots.services import do_create_bot, do_record_validation
from league.bots.validation import (
    do_claim_version,
    do_release_version,
    do_renew_version_lease,
    do_resend_lost_validations,
)
from league.core import outbox
from league.play.matches import (
    ClaimedSeries,
    do_claim_match,
    do_create_match,
    do_release_match,
    do_renew_claim,
    do_requeue_stale_matches,
)
from league.play.models import Match
from league.play.series import do_claim_series, do_create_series
from league.tables import services as tables
from league.tables.models import Table


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, int, float]]:
    messages: list[tuple[str, int, float]] = []
    monkeypatch.setattr(outbox, "enqueue", lambda task, object_id: messages.append((task, object_id, 0.0)))
    monkeypatch.setattr(outbox, "enqueue_later", lambda task, pk, delay: messages.append((task, pk, delay)))
    return messages


@dataclass
class Kind:
    """One kind of queued work, seen through its services: ``rows`` are what one claim takes (a series: its games)."""

    task: str
    rows: QuerySet[Any]
    claim: Callable[[str], str | None]  # the worker's name -> the claim's token, or None: nothing claimed
    renew: Callable[[str], bool]
    release: Callable[[str, str], object]  # token, error
    sweep: Callable[[], list[int]]
    waiting: Callable[[Any], bool]
    given_up: Callable[[Any], str | None]  # the reason shown, once given up
    error: Callable[[Any], str]
    ids: list[int] = field(default_factory=list)

    def all(self) -> list[Any]:
        return list(self.rows.order_by("pk"))

    def lapse(self) -> None:
        self.rows.update(lease_until=timezone.now() - timedelta(seconds=1))


def _ready(owner: User, name: str) -> BotVersion:
    version = do_create_bot(owner, "love_letter", name, b"print('hi')\n", "bot.py").versions.get()
    do_record_validation(version.pk, True, "ok", "")
    return BotVersion.objects.get(pk=version.pk)


def _match_kind(owner: User, series: bool) -> Kind:
    versions = [_ready(owner, "a"), _ready(owner, "b")]
    claims: dict[str, ClaimedSeries] = {}
    if series:
        made = do_create_series("love_letter", versions, seeds=[1, 2, 3])
        rows = Match.objects.filter(series=made)
        claim_one: Callable[[str], ClaimedSeries | None] = lambda worker: do_claim_series(made.pk, worker)  # noqa: E731
    else:
        match = do_create_match("love_letter", versions, seed=3)
        rows = Match.objects.filter(pk=match.pk)
        claim_one = lambda worker: do_claim_match(match.pk, worker)  # noqa: E731

    def claim(worker: str) -> str | None:
        claimed = claim_one(worker)
        if claimed is None:
            return None
        claims[claimed.claim_token] = claimed
        return claimed.claim_token

    def release(token: str, error: str) -> None:
        for match_id in claims[token].match_ids:
            do_release_match(match_id, error, claim_token=token)

    return Kind(
        task=outbox.RUN_MATCH_TASK,
        rows=rows,
        claim=claim,
        renew=lambda token: do_renew_claim(claims[token]),
        release=release,
        sweep=do_requeue_stale_matches,
        waiting=lambda row: row.status == Match.Status.QUEUED and row.claim_token == "",
        given_up=lambda row: row.error if row.status == Match.Status.FAILED else None,
        error=lambda row: row.error,
        ids=sorted(rows.values_list("pk", flat=True)),
    )


def _version_kind(owner: User) -> Kind:
    version = do_create_bot(owner, "love_letter", "new", b"print('hi')\n", "bot.py").versions.get()

    def claim(worker: str) -> str | None:
        claimed = do_claim_version(version.pk, worker)
        return None if claimed is None else claimed.claim_token

    return Kind(
        task=outbox.VALIDATE_VERSION_TASK,
        rows=BotVersion.objects.filter(pk=version.pk),
        claim=claim,
        renew=lambda token: do_renew_version_lease(version.pk, token),
        release=lambda token, error: do_release_version(version.pk, error, token),
        sweep=do_resend_lost_validations,
        waiting=lambda row: row.status == BotVersion.Status.PENDING and row.lease_until is None,
        given_up=lambda row: row.validation_log if row.status == BotVersion.Status.REJECTED else None,
        error=lambda row: row.validation_log,
        ids=[version.pk],
    )


def _table_kind(owner: User) -> Kind:
    table = tables.do_create_table(owner, "love_letter", 2)

    def claim(worker: str) -> str | None:
        claimed = tables.do_claim_table(table.pk)
        return None if claimed is None else claimed.claim_token

    return Kind(
        task=outbox.PLAY_TABLE_TASK,
        rows=Table.objects.filter(pk=table.pk),
        claim=claim,
        renew=lambda token: tables.do_renew_table(table.pk, token),
        release=lambda token, error: tables.do_release_table(table.pk, token, error),
        sweep=tables.do_sweep_tables,
        waiting=lambda row: row.status == Table.Status.QUEUED and row.claim_token == "",
        given_up=lambda row: row.error if row.status == Table.Status.FAILED else None,
        error=lambda row: row.error,
        ids=[table.pk],
    )


KINDS = ["match", "validation", "series", "table"]


@pytest.fixture(params=KINDS)
def kind(request, alice, sent) -> Kind:
    made = {
        "match": lambda: _match_kind(alice, series=False),
        "validation": lambda: _version_kind(alice),
        "series": lambda: _match_kind(alice, series=True),
        "table": lambda: _table_kind(alice),
    }[request.param]()
    sent.clear()
    return made


def _tokens(rows: list[Model]) -> set[str]:
    return {row.claim_token for row in rows}  # type: ignore[attr-defined]


def test_a_row_is_claimed_once_under_a_lease_and_each_claim_is_an_attempt(kind: Kind) -> None:
    token = kind.claim("w1")
    assert token is not None and len(token) == 32
    assert kind.claim("w2") is None, "a live lease is not taken"
    rows = kind.all()
    assert _tokens(rows) == {token} and {row.attempts for row in rows} == {1}
    assert all(row.lease_until > timezone.now() + timedelta(seconds=60) for row in rows)


def test_renewing_extends_the_lease_of_the_worker_that_holds_it(kind: Kind) -> None:
    token = kind.claim("w1")
    assert token is not None
    kind.rows.update(lease_until=timezone.now() + timedelta(seconds=1))
    assert kind.renew(token)
    assert all(row.lease_until > timezone.now() + timedelta(seconds=60) for row in kind.all())


def test_a_lost_lease_is_taken_over_as_a_new_attempt_and_the_old_worker_can_no_longer_renew(kind: Kind) -> None:
    zombie = kind.claim("slow")
    assert zombie is not None
    kind.lapse()
    live = kind.claim("fast")
    assert live is not None and live != zombie
    assert {row.attempts for row in kind.all()} == {2}
    assert not kind.renew(zombie), "the worker presumed dead learns it lost the claim"
    assert kind.renew(live)


@override_settings(MATCH_RETRY_SECONDS=10, MATCH_RETRY_MAX_SECONDS=600)
def test_a_released_attempt_waits_for_the_back_off_then_its_task_is_sent(kind: Kind, sent) -> None:
    token = kind.claim("w1")
    assert token is not None
    before = timezone.now()
    kind.release(token, "SandboxError: bwrap is missing")
    rows = kind.all()
    assert all(kind.waiting(row) for row in rows)
    assert all("SandboxError: bwrap is missing" in kind.error(row) for row in rows)
    assert sorted(pk for _task, pk, _delay in sent) == kind.ids and {task for task, _pk, _delay in sent} == {kind.task}
    for row, (_task, _pk, delay) in zip(rows, sorted(sent, key=lambda message: message[1]), strict=True):
        assert 7.5 <= delay <= 10, "the first retry's back-off, less up to a quarter at random"
        assert row.enqueued_at >= before + timedelta(seconds=delay - 1), "the sweeper counts from the retry"


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_a_row_whose_workers_keep_dying_is_given_up_after_the_last_attempt(kind: Kind) -> None:
    for attempt in (1, 2):
        assert kind.claim(f"w{attempt}") is not None
        kind.lapse()
    assert kind.claim("w3") is None
    for row in kind.all():
        reason = kind.given_up(row)
        assert reason is not None and "after 2 attempts" in reason and "stopped answering" in reason
    assert kind.claim("w4") is None


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_the_release_of_the_last_attempt_gives_up_with_its_reason(kind: Kind) -> None:
    first = kind.claim("w1")
    assert first is not None
    kind.release(first, "OSError: disk full")
    kind.rows.update(enqueued_at=timezone.now())  # its back-off is over
    second = kind.claim("w2")
    assert second is not None
    kind.release(second, "OSError: disk full again")
    for row in kind.all():
        reason = kind.given_up(row)
        assert reason is not None and "after 2 attempts" in reason and "OSError: disk full again" in reason


def test_the_sweeper_puts_back_what_a_dead_worker_held(kind: Kind) -> None:
    assert kind.claim("w1@host/7") is not None
    assert kind.sweep() == [], "a live lease is left alone"
    kind.lapse()
    assert sorted(kind.sweep()) == kind.ids
    rows = kind.all()
    assert all(kind.waiting(row) and "stopped answering: its lease ran out" in kind.error(row) for row in rows)
    assert kind.claim("w2") is not None, "claimed again (at once, or once its back-off is over)"


@override_settings(MATCH_RESEND_SECONDS=300)
def test_the_sweeper_sends_a_lost_message_again_once_per_period(kind: Kind, sent) -> None:
    assert kind.sweep() == [], "a fresh message is not presumed lost"
    kind.rows.update(enqueued_at=timezone.now() - timedelta(seconds=301))
    assert sorted(kind.sweep()) == kind.ids
    assert kind.sweep() == [], "not again until another period has passed"
    assert sorted(sent) == [(kind.task, pk, 0.0) for pk in kind.ids]
