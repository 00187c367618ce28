"""Celery tasks. Each takes an id, claims its row first (so a repeated delivery does nothing) and calls services.

A bot's misbehaviour is a result, recorded by the runner; only infrastructure errors (the sandbox could not start,
the database went away, a file could not be written) make a task retry, with back-off; any other exception is a bug
and fails the match at once, with the reason. docs/operations.md (Reliability) tells the whole story.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections, connections

from bots.limits import Limits
from bots.packaging import PackagingError
from bots.results import BotSeat, MatchResult, fault_text
from bots.runner import (
    GameObserver,
    MoveObserver,
    PreparedSeries,
    SeriesGame,
    SeriesResult,
    play_match,
    prepare_series,
)
from bots.sandbox import SandboxError
from games.registry import get_game
from league.accounts.guests import do_delete_expired_guests
from league.bots.services import do_record_validation
from league.bots.validation import (
    do_claim_next_version,
    do_claim_version,
    do_release_version,
    do_renew_version_lease,
    do_resend_lost_validations,
)
from league.core.leases import retry_delay
from league.core.reasons import public_reason
from league.ladder.scheduling import do_schedule_ladder
from league.play import retention
from league.play.matches import (
    ClaimedSeries,
    do_claim_next_match,
    do_fail_match,
    do_release_match,
    do_renew_claim,
    do_requeue_stale_matches,
)
from league.play.series import do_claim_next_series, do_claim_work, do_record_series, others_placement_waiting
from league.ratings import fits
from league.tables.services import do_sweep_tables
from league.tournaments.services import do_advance_running_tournaments, do_advance_tournament
from workers import faults, live
from workers.seats import runner_seat as _runner_seat

if TYPE_CHECKING:
    from league.bots.models import BotVersion

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
# A series' finished games are written whenever this long has passed since the last write, and at its end: a short
# series costs one recording, as before, and a long or slow one keeps the games it played if its task runs out of
# time (or its worker is killed) before the end.
SERIES_RECORD_EVERY_S = 1.5
T = TypeVar("T")
AnyTask: TypeAlias = "Task[Any, Any]"  # a bound task's ``self`` (celery's Task is generic only to type checkers)


class Heartbeat:
    """Renews a claim's lease every MATCH_HEARTBEAT_SECONDS from a thread while the task plays (the runner blocks).

    If the renewal finds the claim taken over (this worker was presumed dead), it stops and says so; the result will
    be refused by the services anyway. The thread has its own database connection and closes it at the end."""

    def __init__(self, renew: Callable[[], bool], what: str) -> None:
        self.renew, self.what = renew, what
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat {what}", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def __enter__(self) -> Heartbeat:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

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


def _worker(task: AnyTask) -> str:
    return f"{task.request.hostname or '?'}/{os.getpid()}"


def _describe(error: BaseException) -> str:
    """An error as the league stores and logs it: an OSError without its file names (paths on this machine are
    nobody's business, and an upload's path can be 6 KB), everything bounded."""
    if isinstance(error, OSError) and error.strerror:
        return public_reason(f"{type(error).__name__}: [Errno {error.errno}] {error.strerror}")
    return public_reason(f"{type(error).__name__}: {error}")


def _retry_task(task: AnyTask, error: Exception, object_id: int, **kwargs: Any) -> Exception:
    """Celery's retry of this task for ``object_id`` (in a chain, not always the id it was sent), with the league's
    back-off; re-raise what it returns."""
    close_old_connections()
    countdown = retry_delay(task.request.retries + 1)
    log.warning("%s[%s]: %s; retrying in %.0f s", task.name, task.request.id, _describe(error), countdown)
    return task.retry(
        args=(object_id,), exc=error, countdown=countdown, max_retries=TASK_RETRIES, kwargs=kwargs or None
    )


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
def run_match(self: AnyTask, match_id: int, claim_token: str | None = None) -> None:
    """Claim the match (a game of a series: its whole series; a lone match is a series of one), play it, record it;
    then play on through the due work the worker claims itself (``_Chain``). ``claim_token``: a retry of this worker's
    own claim (see ``_play_and_record``)."""
    try:
        claimed = do_claim_work(match_id, worker=_worker(self), claim_token=claim_token)
    except DATABASE_ERRORS as error:
        raise _retry_task(self, error, match_id, claim_token=claim_token) from error
    if claimed is None:
        log.info("match %s: nothing to do (another worker holds it, or it is finalized)", match_id)
        return
    chain = _Chain(self)
    job: _Job | None = _Job(claimed)
    while job is not None:
        job = _play_and_record(self, job, chain)


class _Job:
    """Games this task has claimed (league/play/series.py; a lone match is a series of one): their lease is renewed
    from the claim until they are recorded (or let go); they are played by the same bot processes
    (bots.runner.prepare_series) and recorded as they finish (``_Recorder``). When the job follows another in the
    chain, its bots are started ahead (``prepare``) while that one is recorded."""

    def __init__(self, claimed: ClaimedSeries) -> None:
        self.claimed, self.token = claimed, claimed.claim_token
        if claimed.series_id is None:
            self.what = f"match {claimed.games[0].match_id}"
        else:
            self.what = f"series {claimed.series_id} ({len(claimed.games)} games)"
        self.prepared: PreparedSeries | None = None
        self.heartbeat = Heartbeat(lambda: do_renew_claim(claimed), self.what).start()
        log.info("%s: claimed (attempt %s)", self.what, claimed.attempts)

    def prepare(self) -> None:
        claimed = self.claimed
        limits = Limits.for_game(claimed.game, **claimed.time_control) if claimed.time_control else None
        seats = [
            _runner_seat(
                seat.version_id, seat.label, seat.builtin, remote_bot=seat.remote_bot, game=claimed.game, what=self.what
            )
            for seat in claimed.seats
        ]
        games = [SeriesGame(game.seed, dict(game.options) or None) for game in claimed.games]
        observers: list[MoveObserver | None] = list(live.series_publishers(claimed.match_ids))
        self.prepared = prepare_series(
            claimed.game, seats, games, sandbox=settings.BOT_SANDBOX, limits=limits, observers=observers
        )

    def play(self, on_game: GameObserver | None = None) -> SeriesResult:
        if self.prepared is None:
            self.prepare()
        prepared, self.prepared = self.prepared, None
        assert prepared is not None
        return prepared.play(on_game)

    def let_go(self) -> None:
        """Stop renewing the lease (recorded, released or failed by now, or left for the sweeper); discard bots that
        were started and not played."""
        self.heartbeat.stop()
        if self.prepared is not None:
            self.prepared.close()
            self.prepared = None

    def release(self, reason: str) -> None:
        """(The games recorded are no longer held: the release leaves them alone.)"""
        for match_id in self.claimed.match_ids:
            do_release_match(match_id, reason, claim_token=self.token)

    def fail(self, reason: str) -> None:
        for match_id in self.claimed.match_ids:
            do_fail_match(match_id, reason, self.token)


class _Chain:
    """The work one task does: the job it was sent, then due work it claims itself, each while the previous job is
    recorded (its bots start meanwhile), MATCH_CHAIN_MAX in all, none claimed after MATCH_CHAIN_SECONDS.

    Every game keeps its own claim and lease, so a worker that dies mid-chain loses nothing: what it held is swept
    back to the queue like any lapsed lease, and a chained match's own message finds nothing to claim."""

    def __init__(self, task: AnyTask) -> None:
        self.task = task
        self.left = settings.MATCH_CHAIN_MAX - 1
        self.until = time.monotonic() + settings.MATCH_CHAIN_SECONDS

    def next(self) -> _Job | None:
        """The next due work, claimed, its bots starting: a placement series first (placement's lane,
        ``fair_series_order``), else the longest-waiting lone match, else another series; None when the chain
        ends. Never raises: what cannot be prepared is released (the infrastructure) or failed (a bad match) as if it
        had been played."""
        if self.left <= 0 or time.monotonic() > self.until:
            return None
        self.left -= 1
        try:
            worker = _worker(self.task)
            claimed = (
                do_claim_next_series(worker)
                or do_claim_next_match(worker)
                or do_claim_next_series(worker, placement=False)
            )
        except DATABASE_ERRORS as error:
            log.warning("chain: could not claim a next match: %s", _describe(error))
            close_old_connections()
            return None
        if claimed is None:
            return None
        job = _Job(claimed)
        try:
            job.prepare()
        except INFRASTRUCTURE_ERRORS as error:
            _hand_back(job, _describe(error))
            return None
        except Exception as error:
            log.exception("%s: could not be prepared", job.what)
            job.let_go()
            with contextlib.suppress(*DATABASE_ERRORS):
                job.fail(f"{_describe(error)} (not retried: not an infrastructure error)")
            return None
        return job


def _hand_back(job: _Job | None, reason: str) -> None:
    """Give claimed games back to the queue (after the usual back-off); if even that cannot be written, their lease
    runs out and the sweeper does it."""
    if job is None:
        return
    job.let_go()
    log.warning("%s: handed back: %s", job.what, reason)
    with contextlib.suppress(*DATABASE_ERRORS):
        job.release(reason)


class _Recorder:
    """Records a job's games as they are played (the runner's ``GameObserver``): the games finished since the last
    write once SERIES_RECORD_EVERY_S has passed, then the rest with ``finish``, after the chain's next job is claimed
    (its bots start while this one is recorded). Each write is one transaction (``do_record_series``), written again
    if the database blinks; what it recorded stays recorded whatever happens to the rest of the job."""

    def __init__(self, job: _Job) -> None:
        self.claimed, self.what = job.claimed, job.what
        self.pending: list[MatchResult] = []
        self.written = 0  # games of ``claimed.games`` already handed to do_record_series
        self.recorded: list[int] = []
        self.started = self.last_write = time.monotonic()

    def __call__(self, index: int, result: MatchResult) -> bool:
        """Keep the game; False (stop after it) once its slice is spent and another owner's placement waits."""
        assert index == self.written + len(self.pending), "the runner reports the games in order"
        self.pending.append(result)
        last = index + 1 >= len(self.claimed.games)
        if not last and time.monotonic() - self.last_write >= SERIES_RECORD_EVERY_S:
            self.write()
        return last or not self._should_yield()

    def _should_yield(self) -> bool:
        """Time-slicing between owners: a series that has run SERIES_SLICE_SECONDS gives its worker up between two
        games when another owner's placement is waiting (its rest is rescheduled, fresh processes, no fault), so a slow
        bot's long series is slow for its own owner only. A lookup a game, only once the slice is spent."""
        series_id = self.claimed.series_id
        if series_id is None or time.monotonic() - self.started < settings.SERIES_SLICE_SECONDS:
            return False
        try:
            return others_placement_waiting(series_id)
        except DATABASE_ERRORS as error:  # (the series plays on; the recording will retry the database)
            log.warning("%s: could not look for waiting placements: %s", self.what, _describe(error))
            return False

    def finish(self, unplayed: list[int]) -> None:
        """The last write: what is left, and the games a fault left unplayed (rescheduled)."""
        self.write(unplayed)

    def write(self, unplayed: list[int] | None = None) -> None:
        results, first = self.pending, self.written
        if not results and not unplayed:
            return
        first_id = self.claimed.games[first].match_id if results else self.claimed.games[0].match_id
        faults.before_record(first_id)

        def record() -> list[int]:
            with faults.while_recording(first_id):
                return do_record_series(self.claimed, results, unplayed, first=first)

        self.recorded += _with_database_retries(self.what, record)
        self.pending, self.written = [], first + len(results)
        self.last_write = time.monotonic()


def _play_and_record(task: AnyTask, job: _Job, chain: _Chain) -> _Job | None:
    """Play a claimed job, recording its games as they finish (``_Recorder``); claims the chain's next job (its bots
    start) before the last write and returns it. A bot's misbehaviour is a result, and a fault ends a series: the
    games it did not play are rescheduled (``do_record_series``). An infrastructure error (the task's time limit, the
    sandbox, the database) releases the games not recorded yet for a retry after a back-off; the games recorded stay
    so. A bug fails them at once, with the reason."""
    claimed, what = job.claimed, job.what
    following: _Job | None = None
    recorder = _Recorder(job)
    try:
        try:
            result = job.play(recorder)
            unplayed = claimed.match_ids[len(result.games) :]
            following = chain.next()
            recorder.finish(unplayed)
        finally:
            job.let_go()
            # Recording deleted the recorded games' live rows; the rest (a game cut short, or none recorded) go here.
            if left := [match_id for match_id in claimed.match_ids if match_id not in recorder.recorded]:
                live.clear(*left)
        lost = len(result.games) - len(recorder.recorded)
        log.info(
            "%s: %d games recorded, %d rescheduled; bots restarted between games: %s%s",
            what,
            len(recorder.recorded),
            len(unplayed),
            result.restarts,
            f"; {lost} not recorded: this worker lost its claim" if lost else "",
        )
    except INFRASTRUCTURE_ERRORS as error:
        _hand_back(following, f"the match before it in the worker's chain failed ({_describe(error)})")
        log.warning("%s: attempt failed after %d games recorded: %s", what, len(recorder.recorded), _describe(error))
        try:
            job.release(_describe(error))
        except DATABASE_ERRORS as again:
            # Not even the release could be written: retry this task, which may take back its own claim at once.
            raise _retry_task(task, again, claimed.games[0].match_id, claim_token=job.token) from error
        return None
    except Exception as error:
        _hand_back(following, f"the match before it in the worker's chain failed ({_describe(error)})")
        log.exception("%s: failed", what)
        job.fail(f"{_describe(error)} (not retried: not an infrastructure error)")
        raise
    return following


@shared_task(name="parlour.validate_version", bind=True, acks_late=True, reject_on_worker_lost=True)
def validate_version(self: AnyTask, version_id: int, claim_token: str | None = None) -> None:
    """Claim a pending version, play its smoke match in the sandbox, record ready or rejected (like run_match).

    Not necessarily ``version_id``: the fairest due version (``do_claim_next_version``), so that one user's
    burst of uploads does not hold up another's. Each upload sends one message, so each version still gets one;
    ``version_id`` is claimed when no fairer one is left, and the worker goes on to the next fairest while any is
    due. ``claim_token``: a retry of this worker's own claim."""
    worker = _worker(self)
    try:
        if claim_token is None:
            version = do_claim_next_version(worker) or do_claim_version(version_id, worker=worker)
        else:
            version = do_claim_version(version_id, worker=worker, claim_token=claim_token)
    except DATABASE_ERRORS as error:
        raise _retry_task(self, error, version_id, claim_token=claim_token) from error
    if version is None:
        log.info("version %s: nothing to do (another worker holds it, or it is validated)", version_id)
        return
    # Then the next fairest due version while there is one (MATCH_CHAIN_MAX in all, none claimed after
    # MATCH_CHAIN_SECONDS): a message lost, or spent on a version that another worker had taken, leaves no upload
    # waiting for the sweeper's resend while this worker is validating.
    left, until = settings.MATCH_CHAIN_MAX - 1, time.monotonic() + settings.MATCH_CHAIN_SECONDS
    while version is not None:
        _validate_claimed(self, version)
        if left <= 0 or time.monotonic() > until:
            return
        left -= 1
        try:
            version = do_claim_next_version(worker)
        except DATABASE_ERRORS as error:
            log.warning("no next version claimed after version %s: %s", version_id, _describe(error))
            return


def _validate_claimed(self: AnyTask, version: BotVersion) -> None:
    version_id = version.pk
    token, what = version.claim_token, f"version {version_id}"
    game = version.bot.game
    players = get_game(game).min_players
    try:
        with Heartbeat(lambda: do_renew_version_lease(version_id, token), what):
            try:
                stored = version.archive  # (loaded with the claim: it is at hand)
                archive = None if stored is None else functools.partial(bytes, stored)
                remote_bot = version.bot_id if version.remote else None
                seats = [
                    _runner_seat(version.pk, version.label, version.builtin, archive, remote_bot=remote_bot, game=game)
                ]
            except PackagingError as error:  # stored before one of today's upload rules existed: the bot's fault
                reason = f"The archive cannot be unpacked: {error}"
                _with_database_retries(
                    what, lambda: do_record_validation(version_id, False, reason, "", claim_token=token)
                )
                return
            seats += [BotSeat(label="builtin:random", builtin="random") for _ in range(players - 1)]
            limits = Limits.for_validation(game)  # a bank of one move: a bot slow on every move fails here
            result = play_match(game, seats, seed=version_id, sandbox=str(settings.BOT_SANDBOX), limits=limits)
            mine = result.seats[0]
            if mine.fault is None:
                accepted = True
                log_text = f"Smoke match against the built-in random player: finished, rank {mine.rank} of {players}."
            else:
                accepted = False
                log_text = f"Smoke match failed: the bot {fault_text(mine.fault)}"
            _with_database_retries(
                what,
                lambda: do_record_validation(version_id, accepted, log_text, mine.stderr, claim_token=token),
            )
    except INFRASTRUCTURE_ERRORS as error:
        log.warning("%s: validation attempt failed: %s", what, _describe(error))
        try:
            do_release_version(version_id, _describe(error), claim_token=token)
        except DATABASE_ERRORS as again:
            raise _retry_task(self, again, version_id, claim_token=token) from error


# Beat's tasks ack on receipt (the settings make acks-late the default): a tick lost with a crashed worker is
# harmless, the next one does the same work, while re-delivery would only run it twice (advance_tournament's
# per-tournament message too: beat sweeps every running tournament every 30 s).
@shared_task(name="parlour.schedule_ladder", acks_late=False)
def schedule_ladder() -> int:
    return len(do_schedule_ladder())


@shared_task(name="parlour.requeue_stale_matches", acks_late=False)
def requeue_stale_matches() -> int:
    """The sweeper (every MATCH_SWEEP_SECONDS): what dead workers and lost messages left behind goes out again."""
    return len(do_requeue_stale_matches()) + len(do_resend_lost_validations()) + len(do_sweep_tables())


@shared_task(
    name="parlour.advance_tournament",
    acks_late=False,
    autoretry_for=(DatabaseError,),
    retry_backoff=True,
    max_retries=5,
)
def advance_tournament(tournament_id: int | None = None) -> int:
    """After a tournament game is finalized (its id), and from beat for every running tournament (no id)."""
    if tournament_id is None:
        return len(do_advance_running_tournaments())
    do_advance_tournament(tournament_id)
    return 1


@shared_task(name="parlour.refit_ratings", acks_late=False)
def refit_ratings(game_id: str | None = None) -> int:
    """Beat (every RATINGS_REFIT_SECONDS, no game): refit every game whose rated games changed. With a game (after a
    burst of results, ``fits.request_refit``): that game, if its games changed. The fits refitted."""
    return len(fits.do_refit_stale([game_id] if game_id else None))


@shared_task(name="parlour.delete_old_logs", acks_late=False)
def delete_old_logs() -> int:
    """Hourly (beat): the bots' stderr and move notes older than LOG_RETENTION_DAYS go (the replays stay), and the
    guests older than GUEST_HOURS with their tables."""
    deleted = retention.do_delete_old_logs()
    guests = do_delete_expired_guests()
    return deleted.matches + deleted.versions + guests
