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
from typing import Any, TypeAlias, TypeVar

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
    PreparedMatch,
    PreparedSeries,
    SeriesGame,
    SeriesResult,
    play_match,
    prepare_match,
    prepare_series,
)
from bots.sandbox import SandboxError
from games.registry import get_game
from league import retention
from league.reasons import public_reason
from league.services import fits
from league.services.bots import do_record_validation
from league.services.ladder import do_schedule_ladder
from league.services.leases import retry_delay
from league.services.matches import (
    ClaimedSeries,
    do_claim_match,
    do_claim_next_match,
    do_claim_next_version,
    do_claim_version,
    do_fail_match,
    do_release_match,
    do_release_version,
    do_renew_claim,
    do_renew_lease,
    do_renew_version_lease,
    do_requeue_stale_matches,
    do_resend_lost_validations,
)
from league.services.recording import do_record_match_result
from league.services.series import (
    do_claim_fairest_series,
    do_claim_next_series,
    do_claim_series,
    do_record_series,
    others_placement_waiting,
    series_of,
)
from league.services.tables import do_sweep_tables
from league.services.tournaments import do_advance_running_tournaments, do_advance_tournament
from workers import faults, live
from workers.seats import runner_seat as _runner_seat

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
    """Claim the match, play it, record it; then play on through the due matches the worker claims itself (``_Chain``).
    ``claim_token``: a retry of this worker's own claim (see ``_play_and_record``)."""
    held: _Held | _HeldSeries | None = None
    try:
        # A game of a series is played with the rest of its series: the whole series is claimed.
        series_id = series_of(match_id)
        if series_id is not None:
            if claim_token is None:  # (a placement series' message claims the fairest placement series)
                series = do_claim_fairest_series(series_id, worker=_worker(self))
            else:
                series = do_claim_series(series_id, worker=_worker(self), claim_token=claim_token)
            held = None if series is None else _HeldSeries(series)
        else:
            match = do_claim_match(match_id, worker=_worker(self), claim_token=claim_token)
            held = None if match is None else _Held(match)
    except DATABASE_ERRORS as error:
        raise _retry_task(self, error, match_id, claim_token=claim_token) from error
    if held is None:
        log.info("match %s: nothing to do (another worker holds it, or it is finalized)", match_id)
        return
    chain = _Chain(self)
    while held is not None:
        if isinstance(held, _HeldSeries):
            held = _play_and_record_series(self, held, chain)
        else:
            held = _play_and_record(self, held, chain)


class _Held:
    """A match this task has claimed: its lease is renewed from the claim until the match is recorded (or let go);
    when it follows another match of the chain, its bots are started ahead (``prepare``) while that one is recorded."""

    def __init__(self, match: ClaimedSeries) -> None:
        self.match, self.token, self.what = match, match.claim_token, f"match {match.games[0].match_id}"
        self.match_id = match.games[0].match_id
        self.prepared: PreparedMatch | None = None
        self.heartbeat = Heartbeat(lambda: do_renew_lease(self.match_id, self.token), self.what).start()
        log.info("%s: claimed (attempt %s)", self.what, match.attempts)

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        match = self.match
        limits = Limits.for_game(match.game, **match.time_control) if match.time_control else None
        seats = [_runner_seat(seat.version_id, seat.label, seat.builtin) for seat in match.seats]
        kwargs: dict[str, Any] = {
            "sandbox": settings.BOT_SANDBOX,
            "limits": limits,
            "observer": live.publisher(self.match_id),
        }
        return (match.game, seats, match.games[0].seed, match.games[0].options), kwargs

    def prepare(self) -> None:
        args, kwargs = self._arguments()
        self.prepared = prepare_match(*args, **kwargs)

    def play(self) -> MatchResult:
        prepared, self.prepared = self.prepared, None
        if prepared is not None:
            return prepared.play()
        args, kwargs = self._arguments()
        return play_match(*args, **kwargs)

    def let_go(self) -> None:
        """Stop renewing the lease (recorded, released or failed by now, or left for the sweeper); discard bots that
        were started and not played."""
        self.heartbeat.stop()
        if self.prepared is not None:
            self.prepared.close()
            self.prepared = None

    def release(self, reason: str) -> None:
        do_release_match(self.match_id, reason, claim_token=self.token)

    def fail(self, reason: str) -> None:
        do_fail_match(self.match_id, reason, self.token)


class _HeldSeries:
    """A series this task has claimed (league/services/series.py): like ``_Held``, for all its games at once, played
    by the same bot processes (bots.runner.prepare_series) and recorded as they finish (``_SeriesRecorder``)."""

    def __init__(self, series: ClaimedSeries) -> None:
        self.series, self.token = series, series.claim_token
        self.what = f"series {series.series_id} ({len(series.games)} games)"
        self.prepared: PreparedSeries | None = None
        self.heartbeat = Heartbeat(lambda: do_renew_claim(series), self.what).start()
        log.info("%s: claimed", self.what)

    def prepare(self) -> None:
        series = self.series
        limits = Limits.for_game(series.game, **series.time_control) if series.time_control else None
        seats = [_runner_seat(seat.version_id, seat.label, seat.builtin) for seat in series.seats]
        games = [SeriesGame(game.seed, dict(game.options) or None) for game in series.games]
        observers: list[MoveObserver | None] = list(live.series_publishers([game.match_id for game in series.games]))
        self.prepared = prepare_series(
            series.game, seats, games, sandbox=settings.BOT_SANDBOX, limits=limits, observers=observers
        )

    def play(self, on_game: GameObserver | None = None) -> SeriesResult:
        if self.prepared is None:
            self.prepare()
        prepared, self.prepared = self.prepared, None
        assert prepared is not None
        return prepared.play(on_game)

    def let_go(self) -> None:
        self.heartbeat.stop()
        if self.prepared is not None:
            self.prepared.close()
            self.prepared = None

    def release(self, reason: str) -> None:
        for game in self.series.games:
            do_release_match(game.match_id, reason, claim_token=self.token)

    def fail(self, reason: str) -> None:
        for game in self.series.games:
            do_fail_match(game.match_id, reason, self.token)


class _Chain:
    """The matches one task plays: the one it was sent, then due matches it claims itself, each while the previous one
    is recorded (its bots start meanwhile), MATCH_CHAIN_MAX in all, none claimed after MATCH_CHAIN_SECONDS.

    Every match keeps its own claim and lease, so a worker that dies mid-chain loses nothing: what it held is swept
    back to the queue like any lapsed lease, and a chained match's own message finds nothing to claim."""

    def __init__(self, task: AnyTask) -> None:
        self.task = task
        self.left = settings.MATCH_CHAIN_MAX - 1
        self.until = time.monotonic() + settings.MATCH_CHAIN_SECONDS

    def next(self) -> _Held | _HeldSeries | None:
        """The next due work, claimed, its bots starting: a placement series first (placement's lane,
        ``fair_series_order``), else the longest-waiting single match, else another series; None when the chain
        ends. Never raises: what cannot be prepared is released (the infrastructure) or failed (a bad match) as if it
        had been played."""
        if self.left <= 0 or time.monotonic() > self.until:
            return None
        self.left -= 1
        held: _Held | _HeldSeries
        try:
            worker = _worker(self.task)
            series = do_claim_next_series(worker)
            match = None if series is not None else do_claim_next_match(worker)
            if series is None and match is None:
                series = do_claim_next_series(worker, placement=False)
        except DATABASE_ERRORS as error:
            log.warning("chain: could not claim a next match: %s", _describe(error))
            close_old_connections()
            return None
        if series is not None:
            held = _HeldSeries(series)
        elif match is not None:
            held = _Held(match)
        else:
            return None
        try:
            held.prepare()
        except INFRASTRUCTURE_ERRORS as error:
            _hand_back(held, _describe(error))
            return None
        except Exception as error:
            log.exception("%s: could not be prepared", held.what)
            held.let_go()
            with contextlib.suppress(*DATABASE_ERRORS):
                held.fail(f"{_describe(error)} (not retried: not an infrastructure error)")
            return None
        return held


def _hand_back(held: _Held | _HeldSeries | None, reason: str) -> None:
    """Give a claimed match (or series) back to the queue (after the usual back-off); if even that cannot be written,
    its lease runs out and the sweeper does it."""
    if held is None:
        return
    held.let_go()
    log.warning("%s: handed back: %s", held.what, reason)
    with contextlib.suppress(*DATABASE_ERRORS):
        held.release(reason)


def _play_and_record(task: AnyTask, held: _Held, chain: _Chain) -> _Held | _HeldSeries | None:
    """Play a claimed match and record it; claims the chain's next match (its bots start) between the two and returns
    it. A bot's misbehaviour is a result; an infrastructure error releases the match for a retry after a back-off; a
    bug fails it at once, with the reason."""
    match_id, token, what = held.match_id, held.token, held.what
    following: _Held | _HeldSeries | None = None
    recorded = False
    try:
        try:
            result = held.play()
            faults.before_record(match_id)
            following = chain.next()

            def record() -> bool:
                with faults.while_recording(match_id):
                    return do_record_match_result(match_id, result, claim_token=token)

            recorded = _with_database_retries(what, record)
        finally:
            held.let_go()
            if not recorded:  # recording deletes the live row itself; a match given back keeps none either
                live.clear(match_id)
        log.info("%s: %s", what, "recorded" if recorded else "not recorded: this worker lost its claim")
    except INFRASTRUCTURE_ERRORS as error:
        _hand_back(following, f"the match before it in the worker's chain failed ({_describe(error)})")
        log.warning("%s: attempt %s failed: %s", what, held.match.attempts, _describe(error))
        try:
            do_release_match(match_id, _describe(error), claim_token=token)
        except DATABASE_ERRORS as again:
            # Not even the release could be written: retry this task, which may take back its own claim at once.
            raise _retry_task(task, again, match_id, claim_token=token) from error
        return None
    except Exception as error:
        _hand_back(following, f"the match before it in the worker's chain failed ({_describe(error)})")
        log.exception("%s: failed", what)
        do_fail_match(match_id, f"{_describe(error)} (not retried: not an infrastructure error)", token)
        raise
    return following


class _SeriesRecorder:
    """Records a series' games as they are played (the runner's ``GameObserver``): the games finished since the last
    write once SERIES_RECORD_EVERY_S has passed, then the rest with ``finish``. Each write is one transaction
    (``do_record_series``), written again if the database blinks; what it recorded stays recorded whatever happens to
    the rest of the series."""

    def __init__(self, held: _HeldSeries) -> None:
        self.series, self.what = held.series, held.what
        self.pending: list[MatchResult] = []
        self.written = 0  # games of ``series.games`` already handed to do_record_series
        self.recorded: list[int] = []
        self.started = self.last_write = time.monotonic()

    def __call__(self, index: int, result: MatchResult) -> bool:
        """Keep the game; False (stop after it) once its slice is spent and another owner's placement waits."""
        assert index == self.written + len(self.pending), "the runner reports the games in order"
        self.pending.append(result)
        if time.monotonic() - self.last_write >= SERIES_RECORD_EVERY_S:
            self.write()
        return not self._should_yield(index)

    def _should_yield(self, index: int) -> bool:
        """Time-slicing between owners: a series that has run SERIES_SLICE_SECONDS gives its worker up between two
        games when another owner's placement is waiting (its rest is rescheduled, fresh processes, no fault), so a slow
        bot's long series is slow for its own owner only. A lookup a game, only once the slice is spent."""
        series_id = self.series.series_id
        if series_id is None or index + 1 >= len(self.series.games):
            return False
        if time.monotonic() - self.started < settings.SERIES_SLICE_SECONDS:
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
        first_id = self.series.games[first].match_id if results else self.series.games[0].match_id
        faults.before_record(first_id)

        def record() -> list[int]:
            with faults.while_recording(first_id):
                return do_record_series(self.series, results, unplayed, first=first)

        self.recorded += _with_database_retries(self.what, record)
        self.pending, self.written = [], first + len(results)
        self.last_write = time.monotonic()


def _play_and_record_series(task: AnyTask, held: _HeldSeries, chain: _Chain) -> _Held | _HeldSeries | None:
    """Play a claimed series, recording its games as they finish (``_SeriesRecorder``), as ``_play_and_record`` does
    a match. A fault ends the series: the games it did not play are rescheduled (``do_record_series``). Should the
    task fail before the end (its time limit, the sandbox, the database), the games already recorded stay so and only
    the others are handed back."""
    series, what = held.series, held.what
    first = series.games[0].match_id
    following: _Held | _HeldSeries | None = None
    recorder = _SeriesRecorder(held)
    try:
        try:
            result = held.play(recorder)
            following = chain.next()
            unplayed = [game.match_id for game in series.games[len(result.games) :]]
            recorder.finish(unplayed)
        finally:
            held.let_go()
            # Recording deleted the recorded games' live rows; the rest (a game cut short, or none recorded) go here.
            if left := [game.match_id for game in series.games if game.match_id not in recorder.recorded]:
                live.clear(*left)
        log.info(
            "%s: %d games recorded, %d rescheduled; bots restarted between games: %s",
            what,
            len(recorder.recorded),
            len(unplayed),
            result.restarts,
        )
    except INFRASTRUCTURE_ERRORS as error:
        _hand_back(following, f"the series before it in the worker's chain failed ({_describe(error)})")
        log.warning("%s: attempt failed after %d games recorded: %s", what, len(recorder.recorded), _describe(error))
        try:
            held.release(_describe(error))
        except DATABASE_ERRORS as again:
            raise _retry_task(task, again, first, claim_token=held.token) from error
        return None
    except Exception as error:
        _hand_back(following, f"the series before it in the worker's chain failed ({_describe(error)})")
        log.exception("%s: failed", what)
        held.fail(f"{_describe(error)} (not retried: not an infrastructure error)")
        raise
    return following


@shared_task(name="parlour.validate_version", bind=True, acks_late=True, reject_on_worker_lost=True)
def validate_version(self: AnyTask, version_id: int, claim_token: str | None = None) -> None:
    """Claim a pending version, play its smoke match in the sandbox, record ready or rejected (like run_match).

    Not necessarily ``version_id``: the fairest due version (``do_claim_next_version``), so that one user's
    burst of uploads does not hold up another's. Each upload sends one message, so each version still gets one;
    ``version_id`` is claimed when no fairer one is left. ``claim_token``: a retry of this worker's own claim."""
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
    version_id = version.pk
    token, what = version.claim_token, f"version {version_id}"
    game = version.bot.game
    players = get_game(game).min_players
    try:
        with Heartbeat(lambda: do_renew_version_lease(version_id, token), what):
            try:
                stored = version.archive  # (loaded with the claim: it is at hand)
                archive = None if stored is None else functools.partial(bytes, stored)
                seats = [_runner_seat(version.pk, version.label, version.builtin, archive)]
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
    """Hourly (beat): the bots' stderr and move notes older than LOG_RETENTION_DAYS go; the replays stay."""
    deleted = retention.do_delete_old_logs()
    return deleted.matches + deleted.versions
