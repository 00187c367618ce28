"""Celery tasks. Each takes an id, claims its row first (so a repeated delivery does nothing) and calls services.

A bot's misbehaviour is a result, recorded by the runner; only infrastructure errors (the sandbox could not start,
the database went away) make a task retry.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from bots.packaging import unpack
from bots.runner import Seat as RunnerSeat
from bots.runner import run_match as play_match
from bots.sandbox import SandboxError
from games.registry import get_game
from league import services
from league.models import BotVersion

log = logging.getLogger(__name__)
INFRASTRUCTURE_ERRORS = (SandboxError, DatabaseError, OSError)


def _runner_seat(version: BotVersion, workdir: Path) -> RunnerSeat:
    if version.builtin:
        return RunnerSeat(label=version.label, builtin=version.builtin)
    code_dir = workdir / f"v{version.pk}"
    if not code_dir.exists():
        unpack(bytes(version.archive), code_dir)
    return RunnerSeat(label=version.label, code_dir=code_dir)


@shared_task(name="parlour.run_match", acks_late=True, bind=True, max_retries=5)
def run_match(self, match_id: int) -> None:
    match = services.do_claim_match(match_id)
    if match is None:
        return  # already claimed by another delivery, or finished
    try:
        seats = list(match.seats.select_related("bot_version__bot__owner").order_by("number"))
        with tempfile.TemporaryDirectory(prefix=f"parlour-match-{match_id}-") as workdir:
            Path(workdir).chmod(0o755)
            runner_seats = [_runner_seat(seat.bot_version, Path(workdir)) for seat in seats]
            result = play_match(match.game, runner_seats, match.seed, match.options, sandbox=settings.BOT_SANDBOX)
        services.do_record_match_result(match_id, result.to_json())
    except INFRASTRUCTURE_ERRORS as error:
        log.warning("match %s: attempt failed: %s", match_id, error)
        released = services.do_release_match(match_id, f"{type(error).__name__}: {error}")
        if released.status == released.Status.QUEUED:
            return  # do_release_match re-enqueued it
        raise


@shared_task(
    name="parlour.validate_version",
    acks_late=True,
    autoretry_for=INFRASTRUCTURE_ERRORS,
    retry_backoff=True,
    max_retries=5,
)
def validate_version(version_id: int) -> None:
    version = services.do_claim_version(version_id)
    if version is None:
        return
    game = version.bot.game
    players = get_game(game).min_players
    with tempfile.TemporaryDirectory(prefix=f"parlour-validate-{version_id}-") as workdir:
        Path(workdir).chmod(0o755)
        seats = [_runner_seat(version, Path(workdir))]
        seats += [RunnerSeat(label="builtin:random", builtin="random") for _ in range(players - 1)]
        result = play_match(game, seats, seed=version_id, sandbox=settings.BOT_SANDBOX)
    mine = result.seats[0]
    if mine.fault is None:
        log_text = f"Smoke match against the built-in random player: finished, rank {mine.rank} of {players}."
        services.do_record_validation(version_id, True, log_text, mine.stderr)
    else:
        log_text = f"Smoke match failed: {mine.fault.cause} at move {mine.fault.move}: {mine.fault.detail}"
        services.do_record_validation(version_id, False, log_text, mine.stderr)


@shared_task(name="parlour.schedule_ladder")
def schedule_ladder() -> int:
    return len(services.do_schedule_ladder())


@shared_task(name="parlour.requeue_stale_matches")
def requeue_stale_matches() -> int:
    return len(services.do_requeue_stale_matches())
