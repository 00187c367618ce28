"""A worker plays on: after its match, run_match claims the next due match, starts its bots while it records the
first, then plays it (workers/tasks.py ``_Chain``). Run in this process, against the real runner and sandbox."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError
from django.test.utils import override_settings
from django.utils import timezone

from bots import runner
from games.registry import example_dir
from league.play.invariants import check_league
from league.play.matches import do_create_match
from league.play.models import Match
from tests.workers.fault_helpers import league_bot
from workers import tasks

EXAMPLE_BOT = example_dir("love_letter") / "main.py"


@pytest.fixture
def versions(transactional_db, sent):
    owner = User.objects.create(username="league")
    return [league_bot(owner, "random", builtin="random"), league_bot(owner, "heuristic", builtin="heuristic")]


def _queue(versions, count: int) -> list[Match]:
    return [do_create_match("love_letter", versions, seed=seed) for seed in range(count)]


def _statuses(matches: list[Match]) -> list[str]:
    return [Match.objects.get(pk=match.pk).status for match in matches]


def test_one_message_plays_the_due_matches_queued_behind_it_oldest_first(versions) -> None:
    matches = _queue(versions, 3)
    tasks.run_match(matches[0].pk)
    rows = [Match.objects.get(pk=match.pk) for match in matches]
    assert [row.status for row in rows] == [Match.Status.FINISHED] * 3
    assert [row.attempts for row in rows] == [1, 1, 1]
    assert rows[0].finished_at < rows[1].finished_at < rows[2].finished_at
    assert check_league().ok


def test_the_message_of_a_match_already_played_in_a_chain_does_nothing(versions) -> None:
    matches = _queue(versions, 2)
    tasks.run_match(matches[0].pk)
    finished_at = Match.objects.get(pk=matches[1].pk).finished_at
    tasks.run_match(matches[1].pk)  # its own message, delivered late
    second = Match.objects.get(pk=matches[1].pk)
    assert second.attempts == 1 and second.finished_at == finished_at


@override_settings(MATCH_CHAIN_MAX=2)
def test_a_chain_stops_at_its_length(versions) -> None:
    matches = _queue(versions, 3)
    tasks.run_match(matches[0].pk)
    assert _statuses(matches) == [Match.Status.FINISHED, Match.Status.FINISHED, Match.Status.QUEUED]


@override_settings(MATCH_CHAIN_MAX=1)
def test_a_chain_of_one_is_one_match_per_message(versions) -> None:
    matches = _queue(versions, 2)
    tasks.run_match(matches[0].pk)
    assert _statuses(matches) == [Match.Status.FINISHED, Match.Status.QUEUED]


def test_a_match_backing_off_after_a_failure_is_not_taken_early(versions) -> None:
    first, backing_off = _queue(versions, 2)
    Match.objects.filter(pk=backing_off.pk).update(enqueued_at=timezone.now() + timedelta(minutes=5))
    tasks.run_match(first.pk)
    assert _statuses([first, backing_off]) == [Match.Status.FINISHED, Match.Status.QUEUED]
    assert Match.objects.get(pk=backing_off.pk).attempts == 0


def test_sandboxed_bots_of_the_next_match_start_while_the_previous_one_is_recorded(versions, monkeypatch) -> None:
    owner = versions[0].bot.owner
    uploaded = [league_bot(owner, f"example-{n}", source=EXAMPLE_BOT) for n in range(2)]
    matches = _queue(uploaded, 3)
    prepared: list[tuple[int, bool]] = []
    real_prepare = runner.prepare_series

    def counting_prepare(game, seats, games, **kwargs):
        seed = games[0].seed  # a lone match is a series of one: seed n is matches[n]
        before = Match.objects.get(pk=matches[seed - 1].pk).status if seed else None
        prepared.append((seed, before == Match.Status.FINISHED))
        return real_prepare(game, seats, games, **kwargs)

    monkeypatch.setattr(tasks, "prepare_series", counting_prepare)
    tasks.run_match(matches[0].pk)
    rows = [Match.objects.get(pk=match.pk) for match in matches]
    assert [row.status for row in rows] == [Match.Status.FINISHED] * 3
    assert all(seat.fault == "" for row in rows for seat in row.seats.all()), "every bot played its match to the end"
    assert prepared == [(0, False), (1, False), (2, False)], (
        "each chained match's bots started before the one before it was recorded"
    )
    assert check_league().ok


def test_when_a_result_cannot_be_written_the_match_claimed_behind_it_goes_back_to_the_queue(
    versions, sent, monkeypatch
) -> None:
    first, second = _queue(versions, 2)
    sent.clear()
    monkeypatch.setattr(tasks.time, "sleep", lambda seconds: None)

    def database_down(*args, **kwargs):
        raise OperationalError("the server closed the connection")

    monkeypatch.setattr(tasks, "do_record_series", database_down)
    tasks.run_match(first.pk)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == second.status == Match.Status.QUEUED
    assert first.claim_token == second.claim_token == ""
    assert "chain failed" in second.error
    assert {match_id for _task, match_id, _delay in sent} == {first.pk, second.pk}, "both are sent again, later"
    assert check_league().ok


def test_a_next_match_that_cannot_be_prepared_is_failed_with_the_reason_and_the_chain_ends(
    versions, monkeypatch
) -> None:
    first, bad, after = _queue(versions, 3)
    Match.objects.filter(pk=bad.pk).update(options={"no such option": 1})
    tasks.run_match(first.pk)
    bad.refresh_from_db()
    assert _statuses([first, bad, after]) == [Match.Status.FINISHED, Match.Status.FAILED, Match.Status.QUEUED]
    assert "not retried" in bad.error
