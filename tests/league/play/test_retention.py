"""Retention: bots' stderr and move notes go LOG_RETENTION_DAYS after the match (or validation); replays stay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.runner import BotSeat, play_match
from league.bots.models import Bot, BotVersion
from league.bots.services import do_create_bot, do_record_validation, do_register_builtin_bots
from league.play import retention
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.recording import do_record_match_result
from parlour.celery import app
from tests.results import runner_result
from workers.tasks import delete_old_logs

STDERR = "thinking hard\n" * 4000  # ~56 KB, as a chatty bot leaves in every match


def _played(versions: list[BotVersion], days_ago: float, seed: int) -> Match:
    """A real match of built-in players, recorded through the services as a worker would, with stderr on every seat
    and a note on every move (built-in players write neither), finished ``days_ago`` days ago."""
    match = do_create_match("love_letter", versions, seed=seed)
    claimed = do_claim_match(match.pk, worker="test")
    result = play_match(
        "love_letter", [BotSeat(label=str(v), builtin="random") for v in versions], seed=seed, sandbox="none"
    ).to_json()
    for seat in result["seats"]:
        seat["stderr"] = STDERR
    for number, move in enumerate(result["replay"]["moves"]):
        move["note"] = f"plan {number}"
    assert do_record_match_result(match.pk, runner_result(result), claim_token=claimed.claim_token)
    Match.objects.filter(pk=match.pk).update(finished_at=timezone.now() - timedelta(days=days_ago))
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def house(db) -> list[BotVersion]:
    do_register_builtin_bots(["love_letter"])
    bots = Bot.objects.filter(game="love_letter", is_builtin=True).order_by("name")[:2]
    return [bot.versions.get() for bot in bots]


def test_old_logs_are_deleted_and_the_replay_is_kept(house, settings) -> None:
    settings.LOG_RETENTION_DAYS = 30
    old = _played(house, days_ago=31, seed=1)
    recent = _played(house, days_ago=29, seed=2)
    before = old.replay
    assert all(move["note"] for move in before["moves"]) and before["moves"]
    seats_before = [(s.rank, s.score, s.fault, s.moves, s.time_ms) for s in old.seats.all()]

    deleted = delete_old_logs()  # the beat's task, called directly

    assert deleted == 1
    old.refresh_from_db()
    assert old.logs_deleted_at is not None
    assert [seat.stderr for seat in old.seats.all()] == ["", ""]
    after = old.replay
    # Every move stays (who, what, how long), without its note; the outcome, faults and seats stay as they were.
    assert [move["note"] for move in after["moves"]] == [None] * len(before["moves"])
    strip = [{key: value for key, value in move.items() if key != "note"} for move in before["moves"]]
    assert [{key: value for key, value in move.items() if key != "note"} for move in after["moves"]] == strip
    assert {key: value for key, value in after.items() if key != "moves"} == {
        key: value for key, value in before.items() if key != "moves"
    }
    assert [(s.rank, s.score, s.fault, s.moves, s.time_ms) for s in old.seats.all()] == seats_before
    # Within the retention period nothing is touched; a second run finds nothing more to do.
    recent.refresh_from_db()
    assert recent.logs_deleted_at is None and all(seat.stderr == STDERR for seat in recent.seats.all())
    assert all(move["note"] for move in recent.replay["moves"])
    assert delete_old_logs() == 0


def test_validation_stderr_is_deleted_after_the_retention_period(alice, settings) -> None:
    settings.LOG_RETENTION_DAYS = 7
    old = do_create_bot(alice, "love_letter", "old", b"print('hi')\n", "bot.py").versions.get()
    new = do_create_bot(alice, "love_letter", "new", b"print('hi')\n", "bot.py").versions.get()
    for version in (old, new):
        do_record_validation(version.pk, False, "crashed", "Traceback: oops\n" * 100)
    BotVersion.objects.filter(pk=old.pk).update(validated=timezone.now() - timedelta(days=8))

    assert retention.do_delete_old_logs().versions == 1

    old.refresh_from_db()
    new.refresh_from_db()
    assert old.validation_stderr == "" and old.validation_log == "crashed" and old.status == BotVersion.Status.REJECTED
    assert new.validation_stderr.startswith("Traceback")


def test_deletion_goes_in_bounded_batches(house, settings, monkeypatch) -> None:
    settings.LOG_RETENTION_DAYS = 1
    matches = [_played(house, days_ago=2 + n, seed=10 + n) for n in range(5)]
    monkeypatch.setattr(retention, "RETENTION_BATCH", 2)
    monkeypatch.setattr(retention, "RETENTION_MAX_BATCHES", 2)

    # One run: two batches of two, the oldest first; the fifth (the newest of them) waits for the next run.
    assert retention.do_delete_old_logs().matches == 4
    kept = [m.pk for m in Match.objects.filter(pk__in=[m.pk for m in matches], logs_deleted_at__isnull=True)]
    assert kept == [matches[0].pk]
    assert retention.do_delete_old_logs().matches == 1
    assert not Match.objects.filter(logs_deleted_at__isnull=True).exists()


def test_beat_runs_the_retention_task_hourly() -> None:
    entries = [entry for entry in app.conf.beat_schedule.values() if entry["task"] == "parlour.delete_old_logs"]
    assert len(entries) == 1 and entries[0]["schedule"] == 3600.0
    assert "parlour.delete_old_logs" in app.tasks
