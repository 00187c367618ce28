"""Faults injected into a running league, with real parts: Celery worker processes, a Redis server of our own (restarted
at will, keeping nothing on disk like the machine's), the test database (SQLite, and PostgreSQL in the second pass of
bin/test). After each fault the database must hold every match exactly once and pass the league's invariant check.

The workers run with short leases and a sweeper every second (``FAST_RECOVERY``), so that recovery takes seconds.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.contrib.auth.models import User
from django.core.management import call_command

from league.bots.models import BotVersion
from league.bots.services import do_create_bot
from league.core import outbox
from league.core.outbox import RUN_MATCH_TASK, VALIDATE_VERSION_TASK
from league.play.matches import do_create_match
from league.play.models import Match
from league.play.series import do_create_series
from league.ratings.models import Rating, RatingChange
from tests.workers.fault_helpers import SLOW_BOT, FaultWorkers, PrivateRedis, assert_league_consistent, league_bot

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def league(transactional_db, broker: PrivateRedis, tmp_path: Path, monkeypatch) -> Iterator[FaultWorkers]:
    """Worker processes on the private Redis; this process's league sends its tasks there too."""
    redis.Redis.from_url(broker.url).flushall()
    monkeypatch.setattr(outbox, "current_app", broker.app())
    workers = FaultWorkers(tmp_path, broker)
    yield workers
    workers.stop_all()


@pytest.fixture
def owner(transactional_db) -> User:
    return User.objects.create(username="league")


def _finished(*matches: Match) -> bool:
    return Match.objects.filter(pk__in=[m.pk for m in matches], status=Match.Status.FINISHED).count() == len(matches)


def _counted_once(match: Match) -> None:
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED, match.error
    seats = list(match.seats.select_related("bot_version"))
    changes = RatingChange.objects.filter(match=match)
    assert sorted(change.bot_id for change in changes) == sorted(seat.bot_version.bot_id for seat in seats)


def test_a_worker_killed_in_the_middle_of_a_match_has_it_played_again_and_counted_once(league, owner) -> None:
    slow, rival = league_bot(owner, "slow", source=SLOW_BOT), league_bot(owner, "random", builtin="random")
    doomed = league.start()
    match = do_create_match("love_letter", [slow, rival])
    league.wait_for(
        lambda: Match.objects.filter(pk=match.pk, claimed_by__startswith=league.name(doomed)).exists(),
        30,
        "the first worker to claim the match",
    )
    time.sleep(1.0)  # into the match: the slow bot needs a few seconds for it
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    league.kill(doomed)

    survivor = league.start(beat=True)  # the sweeper finds the lease run out and queues the match again
    league.wait_for(lambda: _finished(match), 60, "the match to be played again")
    _counted_once(match)
    assert match.attempts == 2 and match.claimed_by.startswith(league.name(survivor))
    assert sorted(Rating.objects.filter(bot__in=[slow.bot, rival.bot]).values_list("games", flat=True)) == [1, 1]
    assert "sweeper: sent 1 matches again" in league.log(survivor)
    assert_league_consistent()


def test_a_worker_killed_in_the_middle_of_a_series_keeps_the_games_it_recorded_and_the_rest_are_re_run_once(
    league, owner
) -> None:
    slow, rival = league_bot(owner, "slow", source=SLOW_BOT), league_bot(owner, "random", builtin="random")
    doomed = league.start()
    series = do_create_series("love_letter", [slow, rival], seeds=[11, 12, 13, 14, 15, 16])
    games = list(series.matches.order_by("pk"))
    league.wait_for(
        lambda: Match.objects.filter(series=series, claimed_by__startswith=league.name(doomed)).count() == 6,
        30,
        "the first worker to claim the whole series",
    )
    # Into the series: its finished games are recorded as it goes (every second or two), the rest still to play.
    league.wait_for(
        lambda: Match.objects.filter(series=series, status=Match.Status.FINISHED).exists(), 60, "a game recorded"
    )
    league.kill(doomed)
    kept = set(
        Match.objects.filter(pk__in=[g.pk for g in games], status=Match.Status.FINISHED).values_list("pk", flat=True)
    )
    assert 0 < len(kept) < 6

    survivor = league.start(beat=True)  # the sweeper queues the other games again; they are claimed as a series
    league.wait_for(lambda: _finished(*games), 90, "the rest of the series to be played")
    for match in games:
        _counted_once(match)
        if match.pk in kept:  # recorded before the kill: never played again
            assert match.attempts == 1 and match.claimed_by.startswith(league.name(doomed))
        else:
            assert match.attempts == 2 and match.claimed_by.startswith(league.name(survivor))
    assert sorted(Rating.objects.filter(bot__in=[slow.bot, rival.bot]).values_list("games", flat=True)) == [6, 6]
    assert f"({6 - len(kept)} games): claimed" in league.log(survivor)
    assert_league_consistent()


def test_a_series_that_outlives_the_task_time_limit_keeps_its_finished_games_and_plays_only_the_rest(
    league, owner
) -> None:
    slow, rival = league_bot(owner, "slow", source=SLOW_BOT), league_bot(owner, "random", builtin="random")
    # A soft limit of 7 s for a series of a few seconds a game: each attempt records what it finished before the
    # limit; the rest is handed back and played by the next attempt, and so on (before, every attempt recorded none).
    worker = league.start(beat=True, CELERY_TASK_TIME_LIMIT="8", MATCH_MAX_ATTEMPTS="8", MATCH_RETRY_MAX_SECONDS="2")
    series = do_create_series("love_letter", [slow, rival], seeds=list(range(51, 57)))
    games = list(series.matches.order_by("pk"))
    league.wait_for(
        lambda: not Match.objects.filter(pk__in=[g.pk for g in games], status__in=["queued", "running"]).exists(),
        150,
        "the series to be played",
    )
    for match in games:
        _counted_once(match)
    attempts = [match.attempts for match in games]
    assert attempts[0] == 1 and max(attempts) > 1 and attempts == sorted(attempts), attempts
    assert sorted(Rating.objects.filter(bot__in=[slow.bot, rival.bot]).values_list("games", flat=True)) == [6, 6]
    log = league.log(worker)
    assert "SoftTimeLimitExceeded" in log and f"series {series.pk} (6 games): claimed" in log
    recorded_first = sum(1 for n in attempts if n == 1)
    assert f"attempt failed after {recorded_first} games recorded" in log
    assert f"({6 - recorded_first} games): claimed" in log  # the next attempt claims only the games left
    assert_league_consistent()


def test_a_redis_restart_loses_no_queued_match_and_disturbs_no_running_one(league, owner) -> None:
    slow = league_bot(owner, "slow", source=SLOW_BOT)
    rivals = [league_bot(owner, f"random{n}", builtin="random") for n in range(3)]
    # One match per message: a worker playing on through due matches (the chain) would find the lost ones itself;
    # here the sweeper must.
    worker = league.start(beat=True, concurrency=2, MATCH_CHAIN_MAX="1")
    matches = [do_create_match("love_letter", [slow, rivals[n % 3]]) for n in range(6)]
    league.wait_for(
        lambda: Match.objects.filter(status=Match.Status.RUNNING).count() == 2, 30, "two matches to be running"
    )
    waiting = redis.Redis.from_url(league.broker.url).llen("celery")
    assert waiting >= 3, "the queued matches' messages are in Redis, to be lost"

    league.broker.restart()  # SIGKILL, no persistence: every message is gone
    assert redis.Redis.from_url(league.broker.url).llen("celery") == 0
    league.wait_for(lambda: _finished(*matches), 90, "all six matches to finish")
    for match in matches:
        _counted_once(match)
        assert match.attempts == 1, "nothing was played twice"
    assert "sweeper: sent" in league.log(worker), "the lost messages were sent again"
    assert Rating.objects.get(bot=slow.bot).games == 6
    assert_league_consistent()


def test_the_same_match_delivered_twice_at_once_is_played_by_one_worker_and_ignored_by_the_other(league, owner) -> None:
    first, second = league.start(), league.start()
    match = do_create_match(
        "love_letter", [league_bot(owner, "slow", source=SLOW_BOT), league_bot(owner, "random", builtin="random")]
    )
    outbox.current_app.send_task(RUN_MATCH_TASK, args=[match.pk])  # the same message, again
    ignored = f"match {match.pk}: nothing to do"
    idle = league.wait_for(
        lambda: next((worker for worker in (first, second) if ignored in league.log(worker)), None),
        30,
        "one worker to find nothing to do",
    )
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING, "both deliveries were handled at once"
    league.wait_for(lambda: _finished(match), 30, "the match to finish")
    playing = second if idle is first else first
    assert f"match {match.pk}: claimed" in league.log(playing)
    assert f"match {match.pk}: claimed" not in league.log(idle)
    _counted_once(match)
    assert match.attempts == 1
    assert_league_consistent()


def test_a_database_connection_cut_while_saving_a_result_is_saved_again_once(league, owner) -> None:
    worker = league.start(PARLOUR_FAULTS="drop_db_while_recording")
    versions = [league_bot(owner, "random", builtin="random"), league_bot(owner, "heuristic", builtin="heuristic")]
    match = do_create_match("love_letter", versions)
    league.wait_for(lambda: _finished(match), 30, "the match to be recorded")
    # The worker logs "recorded" just after the commit the test sees, so wait for the line too.
    league.wait_for(lambda: f"match {match.pk}: 1 games recorded" in league.log(worker), 10, "the log line")
    log = league.log(worker)
    assert "fault injection: cutting the database connection" in log
    assert "the database failed" in log
    _counted_once(match)
    assert match.attempts == 1, "the result was written again, not the match played again"
    assert list(Rating.objects.filter(bot__in=[v.bot for v in versions]).values_list("games", flat=True)) == [1, 1]
    assert_league_consistent()


def test_two_matches_of_one_bot_recorded_at_the_same_instant_both_change_its_rating_in_order(
    league, owner, tmp_path
) -> None:
    barrier = f"record_barrier={tmp_path / 'barrier'}:2"
    # No chains: a worker that finished its match first would otherwise claim the other one before it records (and
    # meets the barrier alone) whenever the other worker is slow to take its message (seen under load).
    workers = [league.start(PARLOUR_FAULTS=barrier, MATCH_CHAIN_MAX="1") for _ in range(2)]
    shared = league_bot(owner, "shared", builtin="heuristic")
    first = do_create_match("love_letter", [shared, league_bot(owner, "x", builtin="random")])
    second = do_create_match("love_letter", [league_bot(owner, "y", builtin="random"), shared])
    league.wait_for(lambda: _finished(first, second), 60, "both matches to be recorded")
    assert all("leaves the record barrier" in league.log(worker) for worker in workers), "recorded at once"
    for match in (first, second):
        _counted_once(match)
    chain = list(RatingChange.objects.filter(bot=shared.bot).select_related("match").order_by("id"))
    rating = Rating.objects.get(bot=shared.bot)
    assert len(chain) == rating.games == 2
    assert chain[0].before == 1500.0 and chain[1].before == chain[0].after and chain[1].after == rating.elo
    assert chain[0].match.finished_at < chain[1].match.finished_at, "the history replays in the order applied"
    assert_league_consistent()
    out = io.StringIO()
    call_command("check_league", stdout=out)
    assert "the league's records are consistent" in out.getvalue()


def test_a_version_is_validated_once_though_its_message_is_delivered_twice(league, owner) -> None:
    first, second = league.start(), league.start()
    bot = do_create_bot(owner, "love_letter", "steady", SLOW_BOT.read_bytes(), "main.py")
    version = bot.versions.get()
    outbox.current_app.send_task(VALIDATE_VERSION_TASK, args=[version.pk])
    league.wait_for(
        lambda: BotVersion.objects.get(pk=version.pk).status != BotVersion.Status.PENDING, 60, "the validation"
    )
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY and version.attempts == 1
    logs = league.log(first) + league.log(second)
    assert logs.count(f"version {version.pk}: nothing to do") == 1
