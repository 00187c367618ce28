"""run_match in this process, with the runner and the services made to fail: what is retried (the infrastructure, with
back-off), what is not (a bug), and that a result is written again rather than the match played again."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError
from django.test.utils import override_settings

from bots.results import MatchResult
from bots.runner import SeriesResult
from bots.sandbox import SandboxError
from league.core.outbox import RUN_MATCH_TASK
from league.play.matches import do_claim_match, do_create_match
from league.play.models import Match
from league.play.series import do_record_series
from league.ratings.models import RatingChange
from tests.results import runner_result
from tests.workers.fault_helpers import league_bot
from workers import tasks


def _result(ranks: list[int]) -> MatchResult:
    data = {
        "seats": [{"rank": rank, "score": 0.0, "fault": None} for rank in ranks],
        "replay": {"format": "parlour-replay/1", "moves": []},
        "wall_ms": 1,
    }
    return runner_result(data)


class _Prepared:
    """What ``prepare_series`` returns to the worker, its games played by ``play`` (a lone match: one game)."""

    def __init__(self, play: Callable[[], MatchResult], games: list) -> None:
        self._play, self._games = play, games

    def play(self, on_game=None) -> SeriesResult:
        results = []
        for index in range(len(self._games)):
            results.append(self._play())
            if on_game is not None:
                on_game(index, results[-1])
        return SeriesResult(games=results, unplayed=[], restarts=[0, 0])

    def close(self) -> None:
        pass


def _runner(monkeypatch, play: Callable[[], MatchResult]) -> None:
    """The worker's runner plays every game with ``play`` (which may raise, as the runner would)."""
    monkeypatch.setattr(tasks, "prepare_series", lambda game, seats, games, **kwargs: _Prepared(play, games))


def _raise(error: Exception) -> Callable[[], MatchResult]:
    def play() -> MatchResult:
        raise error

    return play


@pytest.fixture
def match(transactional_db, sent) -> Match:
    owner = User.objects.create(username="league")
    versions = [league_bot(owner, "random", builtin="random"), league_bot(owner, "heuristic", builtin="heuristic")]
    match = do_create_match("love_letter", versions, seed=9)
    sent.clear()
    return match


def test_an_infrastructure_failure_queues_the_match_again_after_a_back_off(match, sent, monkeypatch) -> None:
    _runner(monkeypatch, _raise(SandboxError("no bwrap")))
    tasks.run_match(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.QUEUED and match.attempts == 1
    assert match.error == "SandboxError: no bwrap"
    ((task, match_id, delay),) = sent
    assert (task, match_id) == (RUN_MATCH_TASK, match.pk) and delay > 0


@override_settings(MATCH_MAX_ATTEMPTS=1)
def test_an_infrastructure_failure_on_the_last_attempt_fails_the_match_with_the_reason(match, monkeypatch) -> None:
    _runner(monkeypatch, _raise(OSError("disk full")))
    tasks.run_match(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED
    assert match.error == "gave up after 1 attempts; the last: OSError: disk full"


def test_a_bug_fails_the_match_at_once_and_is_not_retried(match, sent, monkeypatch) -> None:
    _runner(monkeypatch, _raise(KeyError("seat")))
    with pytest.raises(KeyError):
        tasks.run_match(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FAILED and match.attempts == 1
    assert match.error == "KeyError: 'seat' (not retried: not an infrastructure error)"
    assert sent == []


def test_a_result_the_database_refused_is_written_again_not_played_again(match, monkeypatch) -> None:
    plays, failures = [], [OperationalError("server closed the connection"), OperationalError("still closed")]
    _runner(monkeypatch, lambda: plays.append(1) or _result([1, 2]))
    monkeypatch.setattr(tasks.time, "sleep", lambda seconds: None)
    record = do_record_series

    def flaky(*args, **kwargs):
        if failures:
            raise failures.pop(0)
        return record(*args, **kwargs)

    monkeypatch.setattr(tasks, "do_record_series", flaky)
    tasks.run_match(match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.attempts == 1 and plays == [1]
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_worker_that_cannot_even_release_its_claim_retries_with_it(match, monkeypatch) -> None:
    _runner(monkeypatch, _raise(SandboxError("gone")))
    monkeypatch.setattr(tasks, "do_release_match", lambda *args, **kwargs: (_ for _ in ()).throw(OperationalError()))
    retries = []

    class Retry(Exception):
        pass

    def retry(**options):
        retries.append(options)
        return Retry()

    monkeypatch.setattr(tasks.run_match, "retry", retry)
    with pytest.raises(Retry):
        tasks.run_match(match.pk)
    token = Match.objects.get(pk=match.pk).claim_token
    ((options,),) = [retries]
    assert options["kwargs"] == {"claim_token": token} and options["countdown"] > 0
    claimed = do_claim_match(match.pk, claim_token=token)
    assert claimed is not None and claimed.attempts == 2, "the retry takes its claim back without waiting"


@override_settings(MATCH_HEARTBEAT_SECONDS=0.05)
def test_the_lease_is_renewed_while_the_match_is_played(match, monkeypatch) -> None:
    leases = []

    def slow_play() -> MatchResult:
        for _ in range(6):
            time.sleep(0.05)
            leases.append(Match.objects.get(pk=match.pk).lease_until)
        return _result([2, 1])

    _runner(monkeypatch, slow_play)
    tasks.run_match(match.pk)
    assert len(set(leases)) > 1 and leases == sorted(leases)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
