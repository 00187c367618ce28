"""Celery tasks. Each takes an id, claims its row first (so a repeated delivery does nothing) and calls services.

A bot's misbehaviour is a result, recorded by the runner; only infrastructure errors (the sandbox could not start,
the database went away, a file could not be written) make a task retry, with back-off; any other exception is a bug
and fails the match at once, with the reason. docs/operations.md (Reliability) tells the whole story.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections, connections

from bots.limits import Limits
from bots.runner import Seat as RunnerSeat
from bots.runner import run_match as play_match
from bots.sandbox import SandboxError
from games.registry import get_game
from league import services, tournaments
from league.models import BotVersion
from workers import code_cache, faults

log = logging.getLogger(__name__)
# Errors of the database connection itself (not of a query: those are bugs, and retrying them would not help).
DATABASE_ERRORS = (OperationalError, InterfaceError)
INFRASTRUCTURE_ERRORS = (SandboxError, *DATABASE_ERRORS, OSError, SoftTimeLimitExceeded)
# A result that could not be written is written again in the same process this many times (the match is not played
# again for a database that blinked), then the attempt is released like any other infrastructure failure.
RECORD_TRIES = 4
# A task that cannot even reach the database to claim or release its row is retried by Celery this many times
# (with back-off); after that the row's own state (queued, or a lease that runs out) lets the sweeper take over.
TASK_RETRIES = 8
T = TypeVar("T")


def _runner_seat(version: BotVersion) -> RunnerSeat:
    """The runner's seat for ``version``: its code unpacked once per machine (workers/code_cache.py), read-only."""
    if version.builtin:
        return RunnerSeat(label=version.label, builtin=version.builtin)

    def archive() -> bytes:
        # Only on this process's first sight of the version: the seats are loaded without the archives.
        if "archive" in version.get_deferred_fields():
            return bytes(BotVersion.objects.values_list("archive", flat=True).get(pk=version.pk))
        return bytes(version.archive)

    return RunnerSeat(label=version.label, code_dir=code_cache.code_dir_for(version.pk, archive))


class Heartbeat:
    """Renews a claim's lease every MATCH_HEARTBEAT_SECONDS from a thread while the task plays (the runner blocks).

    If the renewal finds the claim taken over (this worker was presumed dead), it stops and says so; the result will
    be refused by the services anyway. The thread has its own database connection and closes it at the end."""

    def __init__(self, renew: Callable[[], bool], what: str) -> None:
        self.renew, self.what = renew, what
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat {what}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.MATCH_HEARTBEAT_SECONDS):
                try:
                    if not self.renew():
                        if not self._stop.is_set():  # (not merely finished by this very worker a moment ago)
                            log.warning("%s: the claim is no longer this worker's (taken over?)", self.what)
                        return
                except DATABASE_ERRORS as error:
                    log.warning("%s: could not renew the lease: %s", self.what, error)
                    close_old_connections()
        finally:
            connections.close_all()  # this thread's connections only


def _worker(task: Task) -> str:
    return f"{task.request.hostname or '?'}/{os.getpid()}"


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".strip()


def _retry_task(task: Task, error: BaseException, **kwargs: Any) -> Exception:
    """Celery's retry of this task, with the league's back-off; re-raise what it returns."""
    close_old_connections()
    countdown = services.retry_delay(task.request.retries + 1)
    log.warning("%s[%s]: %s; retrying in %.0f s", task.name, task.request.id, _describe(error), countdown)
    return task.retry(exc=error, countdown=countdown, max_retries=TASK_RETRIES, kwargs=kwargs or None)


def _with_database_retries(what: str, call: Callable[[], T]) -> T:
    for attempt in range(RECORD_TRIES):
        try:
            return call()
        except DATABASE_ERRORS as error:
            if attempt + 1 == RECORD_TRIES:
                raise
            delay = 0.5 * 2**attempt
            log.warning("%s: the database failed (%s); writing again in %.1f s", what, _describe(error), delay)
            close_old_connections()  # a connection that errored and no longer answers is dropped and reopened
            time.sleep(delay)
    raise AssertionError("unreachable")


@shared_task(name="parlour.run_match", bind=True, acks_late=True, reject_on_worker_lost=True)
def run_match(self: Task, match_id: int, claim_token: str | None = None) -> None:
    """Claim the match, play it, record it. ``claim_token``: a retry of this worker's own claim (see below)."""
    try:
        match = services.do_claim_match(match_id, worker=_worker(self), claim_token=claim_token)
    except DATABASE_ERRORS as error:
        raise _retry_task(self, error, claim_token=claim_token) from error
    if match is None:
        log.info("match %s: nothing to do (another worker holds it, or it is finalized)", match_id)
        return
    token, what = match.claim_token, f"match {match_id}"
    log.info("%s: claimed (attempt %s)", what, match.attempts)
    try:
        with Heartbeat(lambda: services.do_renew_lease(match_id, token), what):
            limits = Limits.for_game(match.game, **match.time_control) if match.time_control else None
            # (Loaded by the claim, in seat order, without the archives.)
            runner_seats = [_runner_seat(seat.bot_version) for seat in match.seats.all()]
            result = play_match(
                match.game, runner_seats, match.seed, match.options, sandbox=settings.BOT_SANDBOX, limits=limits
            ).to_json()
            faults.before_record(match_id)

            def record() -> bool:
                with faults.while_recording(match_id):
                    return services.do_record_match_result(match_id, result, claim_token=token)

            recorded = _with_database_retries(what, record)
        log.info("%s: %s", what, "recorded" if recorded else "not recorded: this worker lost its claim")
    except INFRASTRUCTURE_ERRORS as error:
        log.warning("%s: attempt %s failed: %s", what, match.attempts, _describe(error))
        try:
            services.do_release_match(match_id, _describe(error), claim_token=token)
        except DATABASE_ERRORS as again:
            # Not even the release could be written: retry this task, which may take back its own claim at once.
            raise _retry_task(self, again, claim_token=token) from error
    except Exception as error:
        # A bug (or a bad match: unknown game, wrong seat count): retrying cannot help. Fail it, saying why.
        log.exception("%s: failed", what)
        services.do_fail_match(match_id, f"{_describe(error)} (not retried: not an infrastructure error)", token)
        raise


@shared_task(name="parlour.validate_version", bind=True, acks_late=True, reject_on_worker_lost=True)
def validate_version(self: Task, version_id: int, claim_token: str | None = None) -> None:
    """Claim the pending version, play its smoke match in the sandbox, record ready or rejected (like run_match)."""
    try:
        version = services.do_claim_version(version_id, worker=_worker(self), claim_token=claim_token)
    except DATABASE_ERRORS as error:
        raise _retry_task(self, error, claim_token=claim_token) from error
    if version is None:
        log.info("version %s: nothing to do (another worker holds it, or it is validated)", version_id)
        return
    token, what = version.claim_token, f"version {version_id}"
    game = version.bot.game
    players = get_game(game).min_players
    try:
        with Heartbeat(lambda: services.do_renew_version_lease(version_id, token), what):
            seats = [_runner_seat(version)]
            seats += [RunnerSeat(label="builtin:random", builtin="random") for _ in range(players - 1)]
            result = play_match(game, seats, seed=version_id, sandbox=settings.BOT_SANDBOX)
            mine = result.seats[0]
            if mine.fault is None:
                accepted = True
                log_text = f"Smoke match against the built-in random player: finished, rank {mine.rank} of {players}."
            else:
                accepted = False
                log_text = f"Smoke match failed: {mine.fault.cause} at move {mine.fault.move}: {mine.fault.detail}"
            _with_database_retries(
                what,
                lambda: services.do_record_validation(version_id, accepted, log_text, mine.stderr, claim_token=token),
            )
    except INFRASTRUCTURE_ERRORS as error:
        log.warning("%s: validation attempt failed: %s", what, _describe(error))
        try:
            services.do_release_version(version_id, _describe(error), claim_token=token)
        except DATABASE_ERRORS as again:
            raise _retry_task(self, again, claim_token=token) from error


@shared_task(name="parlour.schedule_ladder")
def schedule_ladder() -> int:
    return len(services.do_schedule_ladder())


@shared_task(name="parlour.requeue_stale_matches")
def requeue_stale_matches() -> int:
    """The sweeper (every MATCH_SWEEP_SECONDS): what dead workers and lost messages left behind goes out again."""
    return len(services.do_requeue_stale_matches()) + len(services.do_resend_lost_validations())


@shared_task(name="parlour.advance_tournament", autoretry_for=(DatabaseError,), retry_backoff=True, max_retries=5)
def advance_tournament(tournament_id: int | None = None) -> int:
    """After a tournament game is finalized (its id), and from beat for every running tournament (no id)."""
    if tournament_id is None:
        return len(tournaments.do_advance_running_tournaments())
    tournaments.do_advance_tournament(tournament_id)
    return 1
