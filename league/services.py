"""Every write to the league goes through a ``do_<verb>_<noun>`` function here. Views, the API and tasks call them.

Tasks are enqueued by name after the transaction commits (saleor/sentry style), so a worker never sees a row that
is not there yet; the league never imports ``workers``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import secrets
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from bots.packaging import Package, PackagingError, package_upload
from games.registry import GAMES, builtin_players
from league import pairing, ratings
from league.models import ApiToken, Bot, BotVersion, Match, Rating, RatingChange, Seat
from league.reasons import public_reason
from league.rows import update_rows

log = logging.getLogger(__name__)

SYSTEM_USERNAME = "parlour"
RUN_MATCH_TASK = "parlour.run_match"
VALIDATE_VERSION_TASK = "parlour.validate_version"
ADVANCE_TOURNAMENT_TASK = "parlour.advance_tournament"


class ServiceError(Exception):
    """A request the league refuses: a machine-readable ``code``, a message for people, and an HTTP status."""

    def __init__(self, message: str, code: str = "invalid", status: int = 400) -> None:
        super().__init__(message)
        self.message, self.code, self.status = message, code, status


class RateLimited(ServiceError):
    """Too many of something in the last hour (429); ``retry_at`` is when this request would be accepted."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message, code="rate_limited", status=429)
        self.retry_at = retry_at

    @property
    def retry_after(self) -> int:
        """Whole seconds until ``retry_at`` (at least 1): the Retry-After header."""
        return max(1, math.ceil((self.retry_at - timezone.now()).total_seconds()))


HOUR = timedelta(hours=1)


def hourly_retry_at(recent: list[tuple[datetime, int]], wanted: int, limit: int) -> datetime | None:
    """When ``wanted`` more fit under ``limit`` per hour beside ``recent`` — the (time, amount) pairs of the last hour,
    oldest first: None if they fit now, else once enough of the oldest have left the hour."""
    used = sum(amount for _at, amount in recent)
    if used + wanted <= limit:
        return None
    freed = 0
    for at, amount in recent:
        freed += amount
        if used - freed + wanted <= limit:
            return at + HOUR
    return timezone.now() + HOUR


def wait_text(retry_at: datetime) -> str:
    """``retry_at`` for people: "in 12 min 5 s (at 14:03:20 UTC)"."""
    seconds = max(1, math.ceil((retry_at - timezone.now()).total_seconds()))
    minutes, secs = divmod(seconds, 60)
    return f"in {f'{minutes} min {secs} s' if minutes else f'{secs} s'} (at {retry_at:%H:%M:%S} UTC)"


def _enqueue(task_name: str, object_id: int) -> None:
    # robust: a broker that is down must not undo a committed request; the sweeper sends lost messages again.
    transaction.on_commit(lambda: current_app.send_task(task_name, args=[object_id]), robust=True)


# ----- bots --------------------------------------------------------------------------------------------------


def _package(data: bytes, filename: str) -> Package:
    try:
        return package_upload(data, filename)
    except PackagingError as error:
        raise ServiceError(str(error), code="bad_upload") from None


def do_create_bot(
    owner: AbstractBaseUser, game: str, name: str, data: bytes, filename: str, description: str = ""
) -> Bot:
    """A new bot with its first version, queued for validation. Nothing is stored if the upload is refused."""
    if game not in GAMES:
        raise ServiceError(f"no game called {game!r}; known games: {', '.join(GAMES)}", code="unknown_game")
    _check_fair_use(owner)  # before the work of packaging; again under the lock below
    package = _package(data, filename)
    try:
        with transaction.atomic():
            _lock_user(owner)
            _check_fair_use(owner)
            bot = Bot.objects.create(owner=owner, game=game, name=name, description=description)
            Rating.objects.create(bot=bot)
            _create_version(bot, package)
    except IntegrityError:
        raise ServiceError(f"you already have a {game} bot called {name!r}", code="duplicate", status=409) from None
    return bot


def do_add_version(bot: Bot, data: bytes, filename: str) -> BotVersion:
    """Upload new code for ``bot``; the ladder keeps playing the previous ready version until this one is ready."""
    _check_fair_use(bot.owner, bot)
    package = _package(data, filename)
    with transaction.atomic():
        _lock_user(bot.owner)
        Bot.objects.select_for_update().get(pk=bot.pk)  # serialises version numbers per bot
        _check_fair_use(bot.owner, bot)
        return _create_version(bot, package)


# ----- fair use: how much one user may upload (docs/security.md, "Fair use and retention") ---------------------


def _lock_user(user: AbstractBaseUser) -> None:
    """One user's uploads are serialised on their row (before any bot's), so two at once cannot both squeeze under a
    limit (challenges lock the same row)."""
    User.objects.select_for_update().filter(pk=user.pk).first()


def _check_fair_use(owner: AbstractBaseUser, bot: Bot | None = None) -> None:
    """Refuse an upload beyond the owner's share: a new bot beyond FAIR_USE_BOTS_PER_USER (403: waiting does not
    help), a version beyond FAIR_USE_UPLOADS_PER_HOUR of theirs or FAIR_USE_VERSIONS_PER_BOT_PER_HOUR of ``bot`` in
    the last hour (429, ``RateLimited``). Counted from the database, so every web process sees the same. Staff are
    exempt (they seed and test the league)."""
    if getattr(owner, "is_staff", False):
        return
    if bot is None:
        bots = Bot.objects.filter(owner=owner).count()
        limit = settings.FAIR_USE_BOTS_PER_USER
        if bots >= limit:
            raise ServiceError(
                f"you have {bots} bots; the limit is {limit} per user. Upload a new version of one of them instead.",
                code="too_many_bots",
                status=403,
            )
    recent = BotVersion.objects.filter(bot__owner=owner, created__gt=timezone.now() - HOUR).order_by("created")
    _check_hourly(
        list(recent.values_list("created", flat=True)), settings.FAIR_USE_UPLOADS_PER_HOUR, "uploads of yours"
    )
    if bot is not None:
        _check_hourly(
            list(recent.filter(bot=bot).values_list("created", flat=True)),
            settings.FAIR_USE_VERSIONS_PER_BOT_PER_HOUR,
            f"versions of {bot.name}",
        )


def _check_hourly(times: list[datetime], limit: int, what: str) -> None:
    retry_at = hourly_retry_at([(at, 1) for at in times], 1, limit)
    if retry_at is not None:
        raise RateLimited(
            f"{len(times)} {what} in the last hour; the limit is {limit} an hour. "
            f"The next upload is accepted {wait_text(retry_at)}.",
            retry_at,
        )


def _create_version(bot: Bot, package: Package) -> BotVersion:
    number = (bot.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = BotVersion.objects.create(
        bot=bot,
        number=number,
        archive=package.archive,
        language=package.language,
        archive_size=len(package.archive),
    )
    _enqueue(VALIDATE_VERSION_TASK, version.pk)
    return version


def do_record_validation(
    version_id: int, accepted: bool, log_text: str, stderr: str, claim_token: str | None = None
) -> bool:
    """Record a validation result once; False when another delivery recorded it first, or (with ``claim_token``)
    when this worker's claim was taken over by another (``do_claim_version``)."""
    status = BotVersion.Status.READY if accepted else BotVersion.Status.REJECTED
    pending = BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING)
    if claim_token is not None:
        pending = pending.filter(claim_token=claim_token)
    with transaction.atomic():
        updated = pending.update(
            status=status,
            validation_log=public_reason(log_text, limit=2000),
            validation_stderr=stderr[-64 * 1024 :],
            validated=timezone.now(),
            lease_until=None,
        )
        if updated and accepted:
            # The new version replaces the older ones on the ladder. Its rating becomes provisional again when it
            # plays its first rated match (ratings.rate_match sees the newer version number): the rating follows the
            # match history alone, so that recompute_ratings can reproduce it.
            version = BotVersion.objects.select_related("bot").get(pk=version_id)
            ready = BotVersion.objects.filter(bot_id=version.bot_id, status=BotVersion.Status.READY)
            ready.filter(number__lt=version.number).update(status=BotVersion.Status.RETIRED)
            if ready.filter(number__gt=version.number).exists():  # validated out of order: a newer one is live
                ready.filter(pk=version_id).update(status=BotVersion.Status.RETIRED)
            # A new version deserves a fresh start: a pause for faults is lifted and old faults are forgiven.
            Bot.objects.filter(pk=version.bot_id).update(
                paused_at=None, paused_reason="", fault_window_start=timezone.now()
            )
    return bool(updated)


def do_register_builtin_bots(games: list[str] | None = None) -> list[Bot]:
    """The house bots of every game (or of ``games``): ready bots of the built-in players, owned by the system user,
    enough of them to fill the game's largest table (``random``, ``heuristic``, ``random-2``, ...). Idempotent."""
    created = []
    for game_id in games or list(GAMES):
        for name, player_name in _house_roster(game_id):
            bot, is_new = do_create_house_bot(game_id, name, player_name)
            if is_new:
                created.append(bot)
    return created


def do_create_house_bot(game_id: str, name: str, player_name: str) -> tuple[Bot, bool]:
    """A ready bot of the built-in player ``player_name``, owned by the system user (created if missing, with its
    rating and its one version); returns it and whether it is new. Idempotent."""
    owner, _ = User.objects.get_or_create(username=SYSTEM_USERNAME, defaults={"is_active": False})
    player = builtin_players(game_id)[player_name]
    with transaction.atomic():
        bot, is_new = Bot.objects.get_or_create(
            owner=owner, game=game_id, name=name, defaults={"is_builtin": True, "description": player.description}
        )
        Rating.objects.get_or_create(bot=bot)
        if not bot.versions.exists():
            BotVersion.objects.create(
                bot=bot,
                number=1,
                builtin=player_name,
                language="builtin",
                status=BotVersion.Status.READY,
                validated=timezone.now(),
            )
    return bot, is_new


def _house_roster(game_id: str) -> list[tuple[str, str]]:
    """(bot name, built-in player) pairs: every player once, then numbered copies until a full table can sit,
    so that every game's ladder runs from the first minute, even one that needs five players."""
    players = list(builtin_players(game_id))
    roster = [(name, name) for name in players]
    copy = 2
    while len(roster) < GAMES[game_id].max_players:
        roster += [(f"{name}-{copy}", name) for name in players][: GAMES[game_id].max_players - len(roster)]
        copy += 1
    return roster


# ----- API tokens --------------------------------------------------------------------------------------------


def hash_token(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def do_create_token(user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token and its key; the key is not stored and cannot be shown again."""
    name = name.strip()
    if not name:
        raise ServiceError("give the token a name", code="invalid")
    key = "plr_" + secrets.token_urlsafe(30)
    token = ApiToken.objects.create(user=user, name=name[:60], prefix=key[:10], key_hash=hash_token(key))
    return token, key


def do_revoke_token(user: AbstractBaseUser, token_id: int) -> None:
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise ServiceError("no such token", code="not_found", status=404)


# ----- matches -----------------------------------------------------------------------------------------------


def do_create_match(
    game: str,
    versions: list[BotVersion],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    kind: str = Match.Kind.LADDER,
    time_control: dict[str, int] | None = None,
) -> Match:
    """A queued match with ``versions`` in seat order; ``run_match`` is enqueued when the transaction commits."""
    spec = GAMES[game]
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            kind=kind,
            options=options or {},
            engine_version=spec.version,
            seed=secrets.randbits(31) if seed is None else seed,
            time_control=time_control or {},
        )
        Seat.objects.bulk_create(
            Seat(match=match, number=number, bot_version=version) for number, version in enumerate(versions)
        )
        _enqueue(RUN_MATCH_TASK, match.pk)
    return match


# ----- claims: which worker runs a match or a validation, and for how long -----------------------------------
# A claim is a lease (docs/operations.md, Reliability): one conditional UPDATE takes a row that is waiting, or whose
# worker's lease ran out (that worker died), and stamps it with a fresh token. The worker renews the lease while it
# plays and records its result only under its token, so a worker presumed dead cannot overwrite the re-run.


def _lease_until(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.MATCH_STALE_SECONDS)


def retry_delay(attempts: int) -> float:
    """The back-off before attempt ``attempts + 1`` after an infrastructure failure: MATCH_RETRY_SECONDS doubled per
    attempt, capped at MATCH_RETRY_MAX_SECONDS, less up to a quarter at random so that retries spread out."""
    delay = min(settings.MATCH_RETRY_MAX_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1))
    return delay * random.uniform(0.75, 1.0)


def _send_later(task_name: str, object_id: int, countdown: float) -> None:
    if countdown <= 0:
        _enqueue(task_name, object_id)
    else:
        transaction.on_commit(
            lambda: current_app.send_task(task_name, args=[object_id], countdown=countdown), robust=True
        )


def _lapsed_match(now: datetime) -> Q:
    """Running under a lease that ran out (or, claimed before leases existed, claimed longer than a lease ago)."""
    return Q(status=Match.Status.RUNNING) & (
        Q(lease_until__lt=now)
        | Q(lease_until__isnull=True, claimed_at__lt=now - timedelta(seconds=settings.MATCH_STALE_SECONDS))
    )


def do_claim_match(match_id: int, worker: str = "", claim_token: str | None = None) -> Match | None:
    """Claim a match for this worker; None when there is nothing for it to do.

    One conditional UPDATE, so of two deliveries exactly one wins. The match must be queued, or running under a
    lease that ran out (its worker died), or held under ``claim_token`` (this worker's own retry). Every claim counts
    as an attempt; a claim beyond MATCH_MAX_ATTEMPTS fails the match, with the last reason, instead."""
    now = timezone.now()
    token = secrets.token_hex(16)
    claimable = Q(status=Match.Status.QUEUED) | _lapsed_match(now)
    if claim_token:
        claimable |= Q(status=Match.Status.RUNNING, claim_token=claim_token)
    claimed = Match.objects.filter(claimable, pk=match_id).update(
        status=Match.Status.RUNNING,
        claim_token=token,
        claimed_by=worker[:200],
        claimed_at=now,
        lease_until=_lease_until(now),
        attempts=F("attempts") + 1,
    )
    if claimed != 1:
        return None
    # One query for the match and what the worker needs to play it: its seats, their versions, bots and owners (not
    # the archives: up to 1 MiB a seat, unpacked once per machine). ``match.seats.all()`` answers from this list.
    seats = list(
        Seat.objects.filter(match_id=match_id)
        .select_related("match", "bot_version__bot__owner")
        .defer("bot_version__archive")
        .order_by("number")
    )
    match = seats[0].match if seats else Match.objects.get(pk=match_id)
    for seat in seats:
        seat.match = match
    # As prefetch_related leaves it: a queryset holding its rows, so ``match.seats.all()`` answers from them and any
    # other query on ``match.seats`` (a filter, another select_related) still works.
    prefetched = Seat.objects.filter(match=match)
    prefetched._result_cache, prefetched._prefetch_done = seats, True
    match._prefetched_objects_cache = {"seats": prefetched}
    if match.attempts > settings.MATCH_MAX_ATTEMPTS:
        last = match.error or "its worker stopped answering (killed, or its lease ran out)"
        do_fail_match(match_id, f"gave up after {settings.MATCH_MAX_ATTEMPTS} attempts; the last: {last}", token)
        return None
    return match


# How many of the longest-waiting due matches ``do_claim_next_match`` tries before giving up (others may take them).
CLAIM_NEXT_CANDIDATES = 4


def do_claim_next_match(worker: str = "") -> Match | None:
    """Claim the queued match that has waited longest and is due (not backing off after a failure), as
    ``do_claim_match`` does; None when there is none, or other workers took them first.

    A worker that has just played a match claims its next one here, without waiting for that match's own message:
    the message then finds nothing to claim (docs/decisions.md, "A worker plays on")."""
    due = Match.objects.filter(status=Match.Status.QUEUED, enqueued_at__lte=timezone.now()).order_by(
        "enqueued_at", "pk"
    )
    for match_id in due.values_list("pk", flat=True)[:CLAIM_NEXT_CANDIDATES]:
        match = do_claim_match(match_id, worker)
        if match is not None:
            return match
    return None


def do_renew_lease(match_id: int, claim_token: str) -> bool:
    """Extend this worker's lease on a match it is playing; False when the claim is no longer its own."""
    return (
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, claim_token=claim_token).update(
            lease_until=_lease_until(timezone.now())
        )
        == 1
    )


def do_release_match(match_id: int, error: str, claim_token: str | None = None) -> Match:
    """An attempt failed for a reason outside the bots (infrastructure): queue the match again after a back-off
    (``retry_delay``), or fail it for good after MATCH_MAX_ATTEMPTS. Nothing happens if the claim is not
    ``claim_token`` any more (when given) or the match is not running."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return match
        _release(match, error)
    return match


def _release(match: Match, error: str) -> None:
    """(Under the match's row lock.)"""
    now = timezone.now()
    match.error = error[-2000:]
    match.claim_token, match.lease_until = "", None
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        match.status = Match.Status.FAILED
        match.finished_at = now
        match.error = f"gave up after {match.attempts} attempts; the last: {match.error}"[-2000:]
        _tournament_game_over(match)
    else:
        delay = retry_delay(match.attempts)
        match.status = Match.Status.QUEUED
        match.claimed_at = None
        match.enqueued_at = now + timedelta(seconds=delay)
        _send_later(RUN_MATCH_TASK, match.pk, delay)
    match.save(
        update_fields=["status", "error", "finished_at", "claimed_at", "claim_token", "lease_until", "enqueued_at"]
    )


def do_fail_match(match_id: int, reason: str, claim_token: str | None = None) -> bool:
    """Fail a running match at once, with the reason (not retried: a bug, or attempts exhausted). False when the
    claim is not ``claim_token`` any more (when given) or the match is not running."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return False
        match.status, match.finished_at, match.error = Match.Status.FAILED, timezone.now(), reason[-2000:]
        match.claim_token, match.lease_until = "", None
        match.save(update_fields=["status", "finished_at", "error", "claim_token", "lease_until"])
        _tournament_game_over(match)
    return True


SWEEP_BATCH = 500


def do_requeue_stale_matches() -> list[int]:
    """The sweeper (Celery beat, every MATCH_SWEEP_SECONDS) puts back what dead workers and lost messages left.

    - A running match whose lease ran out (its worker died: killed, out of memory, machine gone) is queued again,
      or failed after MATCH_MAX_ATTEMPTS.
    - A queued match whose last message is older than MATCH_RESEND_SECONDS is sent again: the broker may have lost
      it (a Redis restarted without persistence keeps nothing). If it was not lost, the duplicate finds nothing to
      claim. Likewise ``validate_version`` for pending versions (``do_resend_lost_validations``).
    Returns the ids of the matches re-queued or sent again."""
    now = timezone.now()
    swept = []
    for match_id in Match.objects.filter(_lapsed_match(now)).values_list("pk", flat=True)[:SWEEP_BATCH]:
        with transaction.atomic():
            match = Match.objects.select_for_update().filter(_lapsed_match(now), pk=match_id).first()
            if match is not None:  # (re-checked under the lock: its worker may have just finished it)
                who = f" ({match.claimed_by})" if match.claimed_by else ""
                _release(match, f"the worker running this match{who} stopped answering: its lease ran out")
                swept.append(match_id)
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS)
    lost = Match.objects.filter(status=Match.Status.QUEUED, enqueued_at__lt=cutoff).order_by("enqueued_at")
    for match_id in lost.values_list("pk", flat=True)[:SWEEP_BATCH]:
        # Conditional, so two sweepers at once send one message, not two.
        if Match.objects.filter(pk=match_id, status=Match.Status.QUEUED, enqueued_at__lt=cutoff).update(
            enqueued_at=now
        ):
            _enqueue(RUN_MATCH_TASK, match_id)
            swept.append(match_id)
    if swept:
        log.info("sweeper: sent %d matches again: %s", len(swept), swept[:20])
    return swept


def do_claim_version(version_id: int, worker: str = "", claim_token: str | None = None) -> BotVersion | None:
    """Claim a pending version for validation (like ``do_claim_match``): None when it is validated already or another
    live worker holds it. After MATCH_MAX_ATTEMPTS claims it is rejected, saying that the league could not run it."""
    now = timezone.now()
    token = secrets.token_hex(16)
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    if claim_token:
        free |= Q(claim_token=claim_token)
    claimed = BotVersion.objects.filter(free, pk=version_id, status=BotVersion.Status.PENDING).update(
        claim_token=token, lease_until=_lease_until(now), attempts=F("attempts") + 1
    )
    if claimed != 1:
        return None
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.attempts > settings.MATCH_MAX_ATTEMPTS:
        do_record_validation(
            version_id,
            False,
            f"The league could not validate this version after {settings.MATCH_MAX_ATTEMPTS} attempts: its workers "
            f"failed or stopped answering (the last: {version.validation_log or 'no answer'}). Please upload it again.",
            version.validation_stderr,
            claim_token=token,
        )
        return None
    return version


def do_claim_next_version(worker: str = "") -> BotVersion | None:
    """Claim the fairest due pending version (``fair_validation_order``), as ``do_claim_version`` does; None when there
    is none, or other workers took them first.

    Every upload sends one ``validate_version`` message, but the worker that receives it validates the fairest
    version, whichever that is: one user's burst of uploads cannot make another user's wait behind all of it."""
    for version_id in fair_validation_order(timezone.now(), CLAIM_NEXT_CANDIDATES):
        version = do_claim_version(version_id, worker)
        if version is not None:
            return version
    return None


def fair_validation_order(now: datetime, limit: int) -> list[int]:
    """The ids of up to ``limit`` pending versions a worker may claim now (free, due), fairest first.

    Each owner's versions take turns: an owner's versions pending or validated in the last hour are numbered in
    upload order, and the lowest number goes first (ties: the oldest upload). So everyone's first pending version
    comes before anyone's second, and an owner who has just had many validated waits behind one who has had none.
    The numbering runs over all of them before the claimable ones are picked, hence the subquery."""
    ops = connection.ops
    version, bot = ops.quote_name(BotVersion._meta.db_table), ops.quote_name(Bot._meta.db_table)
    sql = f"""
        SELECT id FROM (
            SELECT v.id, v.status, v.lease_until, v.enqueued_at, v.created,
                   ROW_NUMBER() OVER (PARTITION BY b.owner_id ORDER BY v.created, v.id) AS turn
            FROM {version} v JOIN {bot} b ON b.id = v.bot_id
            WHERE v.status = %s OR v.validated > %s
        ) ranked
        WHERE status = %s AND (lease_until IS NULL OR lease_until < %s) AND enqueued_at <= %s
        ORDER BY turn, created, id
        LIMIT %s
    """
    pending = BotVersion.Status.PENDING.value
    moment = ops.adapt_datetimefield_value(now)
    since = ops.adapt_datetimefield_value(now - HOUR)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pending, since, pending, moment, moment, limit])
        return [row[0] for row in cursor.fetchall()]


def do_renew_version_lease(version_id: int, claim_token: str) -> bool:
    return (
        BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING, claim_token=claim_token).update(
            lease_until=_lease_until(timezone.now())
        )
        == 1
    )


def do_release_version(version_id: int, error: str, claim_token: str) -> bool:
    """A validation failed for the infrastructure: validate it again after a back-off (the claim beyond
    MATCH_MAX_ATTEMPTS rejects it). False when the claim is not ``claim_token`` any more."""
    with transaction.atomic():
        version = (
            BotVersion.objects.select_for_update()
            .filter(pk=version_id, status=BotVersion.Status.PENDING, claim_token=claim_token)
            .first()
        )
        if version is None:
            return False
        delay = retry_delay(version.attempts)
        version.claim_token, version.lease_until = "", None
        version.enqueued_at = timezone.now() + timedelta(seconds=delay)
        version.validation_log = public_reason(f"Attempt {version.attempts} failed: {error}")
        version.save(update_fields=["claim_token", "lease_until", "enqueued_at", "validation_log"])
        _send_later(VALIDATE_VERSION_TASK, version_id, delay)
    return True


def do_resend_lost_validations() -> list[int]:
    """The sweeper's part for validations: a pending version whose worker died (lease ran out) or whose message is
    older than MATCH_RESEND_SECONDS is sent again (``do_claim_version`` makes a duplicate harmless)."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.MATCH_RESEND_SECONDS)
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    lost = Q(lease_until__lt=now, enqueued_at__lt=F("lease_until")) | (free & Q(enqueued_at__lt=cutoff))
    pending = BotVersion.objects.filter(lost, status=BotVersion.Status.PENDING)
    sent = []
    for version_id in pending.values_list("pk", flat=True)[:SWEEP_BATCH]:
        if BotVersion.objects.filter(lost, pk=version_id, status=BotVersion.Status.PENDING).update(enqueued_at=now):
            _enqueue(VALIDATE_VERSION_TASK, version_id)
            sent.append(version_id)
    return sent


@dataclass(frozen=True)
class SeatResult:
    rank: int
    score: float
    fault: str
    fault_detail: str
    stderr: str
    moves: int
    time_ms: int


SEAT_RESULT_FIELDS = ("rank", "score", "fault", "fault_detail", "stderr", "moves", "time_ms")


def do_record_match_result(match_id: int, result: dict[str, Any], claim_token: str | None = None) -> bool:
    """Record a played match — seats, replay, rating changes — in one transaction, exactly once.

    ``result`` is ``bots.runner.MatchResult.to_json()``. Returns False if the match was already recorded, or (with
    ``claim_token``) if this worker no longer holds the claim: it was presumed dead and the match is re-run."""
    with transaction.atomic():
        # One statement locks the match row and reads its seats, versions and bots (not the archives, up to 1 MiB a
        # seat, nor a replay: recording needs the bots and version numbers only).
        seats = list(
            Seat.objects.filter(match_id=match_id)
            .select_related("match", "bot_version__bot")
            .defer("bot_version__archive", "match__replay_data")
            .select_for_update(of=("match",))
            .order_by("number")
        )
        match = seats[0].match if seats else Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING or (claim_token is not None and match.claim_token != claim_token):
            return False
        for seat, data in zip(seats, result["seats"], strict=True):
            fault = data.get("fault") or {}
            seat.rank, seat.score = data["rank"], data["score"]
            seat.fault = fault.get("cause", "")
            seat.fault_detail = fault.get("detail", "")[:2000]
            seat.stderr = (data.get("stderr") or "")[-64 * 1024 :]
            seat.moves, seat.time_ms = data.get("moves", 0), data.get("time_ms", 0)
        update_rows(
            Seat, SEAT_RESULT_FIELDS, [[seat.pk, *(getattr(seat, f) for f in SEAT_RESULT_FIELDS)] for seat in seats]
        )
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.wall_ms = result.get("wall_ms")
        match.replay_data = Match.pack_replay(result["replay"])
        match.error = ""
        if changes_ratings(match) and distinct_bots(seats):
            _apply_ratings(match, seats)  # may move finished_at forward: see there
        match.save(update_fields=["status", "finished_at", "wall_ms", "replay_data", "error"])
        faulted = {seat.bot_version.bot_id for seat in seats if seat.fault}
        for bot_id in sorted(faulted):
            _pause_if_faulty(bot_id)
        _tournament_game_over(match)
    return True


def _tournament_game_over(match: Match) -> None:
    """A tournament game is finalized: its round may be complete (league/tournaments.py advances it, idempotently)."""
    if match.round_id is not None:
        _enqueue(ADVANCE_TOURNAMENT_TASK, match.round.tournament_id)


# Which finished matches change ratings. The record path asks ``changes_ratings``; ``recompute_ratings`` replays
# the matches ``rated_matches`` selects. The two must always agree: extend both together (e.g. rated tournaments).
def changes_ratings(match: Match) -> bool:
    if match.kind == Match.Kind.TOURNAMENT:  # a tournament's ``rated`` setting decides (docs/tournaments.md)
        return match.round_id is not None and match.round.tournament.rated
    return match.kind == Match.Kind.LADDER


def rated_matches() -> Q:
    return Q(kind=Match.Kind.LADDER) | Q(kind=Match.Kind.TOURNAMENT, round__tournament__rated=True)


def distinct_bots(seats: list[Seat]) -> bool:
    """The same bot twice at one table says nothing about its strength: such a match is not rated."""
    bots = [seat.bot_version.bot_id for seat in seats]
    return len(set(bots)) == len(bots)


def _apply_ratings(match: Match, seats: list[Seat]) -> None:
    bots = [seat.bot_version.bot for seat in seats]
    # Lock in a fixed order so two matches finishing at once never deadlock; the second waits and sees the first.
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot__in=bots).order_by("bot_id")}
    table = [locked.get(bot.pk) or Rating.objects.create(bot=bot) for bot in bots]
    # The history's order is the order of finished_at (recompute_ratings replays it so). Under the locks, make it
    # later than every one of these bots' previous rated matches, whatever the clocks of the worker machines say:
    # then the replay meets each bot's matches in the order their ratings were applied here.
    latest = max((rating.last_match_at for rating in table if rating.last_match_at), default=None)
    if latest is not None and match.finished_at <= latest:
        match.finished_at = latest + timedelta(microseconds=1)
    after = ratings.rate_match(
        [rating.state for rating in table],
        [ratings.SeatResult(rank=seat.rank, version=seat.bot_version.number) for seat in seats],
    )
    RatingChange.objects.bulk_create(
        RatingChange(match=match, bot_id=rating.bot_id, before=rating.elo, after=state.elo, variance=state.variance)
        for rating, state in zip(table, after, strict=True)
    )
    now = timezone.now()
    for rating, state in zip(table, after, strict=True):
        rating.set_state(state)
        rating.last_match_at, rating.updated = match.finished_at, now
    fields = [*Rating.STATE_FIELDS, "last_match_at", "updated"]
    update_rows(Rating, fields, [[rating.pk, *(getattr(rating, f) for f in fields)] for rating in table])


def _pause_if_faulty(bot_id: int) -> None:
    """Pause a bot that faulted in more than LADDER_FAULT_LIMIT of its last LADDER_FAULT_WINDOW matches."""
    bot = Bot.objects.get(pk=bot_id)
    if bot.paused_at is not None:
        return
    seats = Seat.objects.filter(bot_version__bot_id=bot_id, match__status=Match.Status.FINISHED)
    if bot.fault_window_start is not None:
        seats = seats.filter(match__finished_at__gte=bot.fault_window_start)
    window = list(
        seats.order_by("-match__finished_at", "-match_id").values_list("fault", "fault_detail", "match_id")[
            : settings.LADDER_FAULT_WINDOW
        ]
    )
    faults = [(cause, detail, match_id) for cause, detail, match_id in window if cause]
    if len(faults) <= settings.LADDER_FAULT_LIMIT:
        return
    causes = Counter(cause for cause, _detail, _match in faults)
    labels = dict(Seat.Fault.choices)
    summary = ", ".join(f"{labels.get(cause, cause)}: {count}" for cause, count in causes.most_common())
    cause, detail, match_id = faults[0]
    reason = (
        f"Paused automatically: it faulted in {len(faults)} of its last {len(window)} matches ({summary}); more than "
        f"{settings.LADDER_FAULT_LIMIT} in {settings.LADDER_FAULT_WINDOW} pauses a bot. The latest, in match "
        f"{match_id}: {labels.get(cause, cause)} — {detail[:300] or 'no detail'}. Upload a fixed version (it is "
        "scheduled as soon as it passes validation) or resume the bot from its page."
    )
    Bot.objects.filter(pk=bot_id, paused_at__isnull=True).update(paused_at=timezone.now(), paused_reason=reason)
    log.info("bot %s paused: %s", bot_id, reason)


def do_resume_bot(bot: Bot, user: AbstractBaseUser) -> Bot:
    """Its owner puts a paused or disabled bot back on the ladder; its earlier faults are forgiven."""
    _check_owner(bot, user)
    Bot.objects.filter(pk=bot.pk).update(
        is_active=True, paused_at=None, paused_reason="", fault_window_start=timezone.now()
    )
    bot.refresh_from_db()
    return bot


def do_disable_bot(bot: Bot, user: AbstractBaseUser) -> Bot:
    """Its owner takes a bot off the ladder (it keeps its rating and history; matches already queued still run)."""
    _check_owner(bot, user)
    Bot.objects.filter(pk=bot.pk).update(is_active=False)
    bot.refresh_from_db()
    return bot


def _check_owner(bot: Bot, user: AbstractBaseUser) -> None:
    if not user.is_authenticated or bot.owner_id != user.pk:
        raise ServiceError("only the bot's owner can do that", code="forbidden", status=403)


# ----- the ladder --------------------------------------------------------------------------------------------

IN_FLIGHT = (Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass(frozen=True)
class LadderConfig:
    """One game's ladder settings (``settings.LADDER_GAMES``, documented in docs/ratings.md), checked."""

    game: str
    table_sizes: tuple[int, ...]
    games_per_hour: int
    max_in_flight: int
    time_control: dict[str, int]
    matchmaking: str
    enabled: bool

    def policy(self, max_in_flight: int | None = None) -> pairing.Policy:
        return pairing.Policy(
            table_sizes=self.table_sizes,
            uncertainty=self.matchmaking == "uncertainty",
            max_in_flight=max_in_flight or self.max_in_flight,
            starve_seconds=settings.LADDER_STARVE_SECONDS,
        )


def ladder_config(game_id: str) -> LadderConfig:
    game = GAMES[game_id]
    entry = settings.LADDER_GAMES.get(game_id, {})
    allowed = range(game.min_players, game.max_players + 1)
    sizes = tuple(sorted(set(entry.get("table_sizes") or allowed)))
    if not all(isinstance(size, int) and size in allowed for size in sizes):
        raise ImproperlyConfigured(
            f"LADDER_GAMES[{game_id!r}]['table_sizes'] = {list(sizes)}: {game.title} is played by "
            f"{game.min_players} to {game.max_players} players"
        )
    time_control = dict(entry.get("time_control") or {})
    if set(time_control) - {"move_ms", "bank_ms"} or not all(
        isinstance(value, int) and value > 0 for value in time_control.values()
    ):
        raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}]['time_control'] takes positive move_ms and bank_ms")
    matchmaking = entry.get("matchmaking", "uncertainty")
    if matchmaking not in {"uncertainty", "random"}:
        raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}]['matchmaking'] is 'uncertainty' or 'random'")
    numbers = {"games_per_hour": entry.get("games_per_hour", 3600), "max_in_flight": entry.get("max_in_flight", 2)}
    for key, value in numbers.items():
        if not isinstance(value, int) or value < (0 if key == "games_per_hour" else 1):
            raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}][{key!r}] must be a whole number, not {value!r}")
    return LadderConfig(
        game=game_id,
        table_sizes=sizes,
        time_control=time_control,
        matchmaking=matchmaking,
        enabled=bool(entry.get("enabled", True)),
        **numbers,
    )


def do_schedule_ladder(rng: random.Random | None = None, games: list[str] | None = None) -> list[Match]:
    """Top up the games' ladder queues with new matches between ready bots (Celery beat calls this).

    Bounds: at most LADDER_WORKER_CAPACITY ladder matches queued or running over all games, LADDER_QUEUE_DEPTH per
    game, and each game's ``games_per_hour``. Free capacity is shared out one match per game in turn, starting
    from a random game, so one busy game cannot crowd out the others."""
    rng = rng or random.Random()
    now = timezone.now()
    configs = [config for config in (ladder_config(game_id) for game_id in games or GAMES) if config.enabled]
    ladder = Match.objects.filter(kind=Match.Kind.LADDER)
    in_flight = dict(
        ladder.filter(status__in=IN_FLIGHT).values_list("game").annotate(n=Count("id")).values_list("game", "n")
    )
    last_hour = dict(
        ladder.filter(created__gte=now - timedelta(hours=1), game__in=[config.game for config in configs])
        .values_list("game")
        .annotate(n=Count("id"))
        .values_list("game", "n")
    )
    # A game without enough bots for a table gets no share of the capacity.
    playable = dict(
        _ladder_bots([config.game for config in configs])
        .values_list("game")
        .annotate(n=Count("id"))
        .values_list("game", "n")
    )
    configs = [config for config in configs if playable.get(config.game, 0) >= min(config.table_sizes)]
    free = settings.LADDER_WORKER_CAPACITY - sum(in_flight.values())
    wants = {
        config.game: max(
            0,
            min(
                settings.LADDER_QUEUE_DEPTH - in_flight.get(config.game, 0),
                config.games_per_hour - last_hour.get(config.game, 0),
            ),
        )
        for config in configs
    }
    rng.shuffle(configs)
    shares = dict.fromkeys(wants, 0)
    while free > 0 and any(shares[game] < wants[game] for game in wants):
        for config in configs:
            if free > 0 and shares[config.game] < wants[config.game]:
                shares[config.game] += 1
                free -= 1
    created = []
    for config in configs:
        if shares[config.game]:
            created += _schedule_game(config, shares[config.game], rng, now)
    return created


def _schedule_game(config: LadderConfig, count: int, rng: random.Random, now: datetime) -> list[Match]:
    with transaction.atomic():
        # Locking the game's candidates serialises two schedulers (a duplicated beat): the second one waits and
        # then counts the first one's matches, so neither the queue bound nor a bot's in-flight cap is exceeded.
        eligible = _ladder_bots([config.game]).select_related("rating").select_for_update(of=("self",))
        bots = {bot.pk: bot for bot in eligible.order_by("id")}
        if not bots:
            return []
        versions: dict[int, BotVersion] = {}
        ready = BotVersion.objects.filter(bot_id__in=bots, status=BotVersion.Status.READY)
        # Never the archives (up to 1 MiB each): a seat needs the version's id, the rating its number.
        for version in ready.only("id", "bot_id", "number").order_by("bot_id", "-number"):
            versions.setdefault(version.bot_id, version)
        # From the (few) matches in flight to their seats: an index on each side, whatever the history's size.
        in_flight = Match.objects.filter(kind=Match.Kind.LADDER, status__in=IN_FLIGHT, game=config.game)
        busy = dict(
            Seat.objects.filter(match__in=in_flight.values("pk"))
            .values_list("bot_version__bot_id")
            .annotate(n=Count("match_id", distinct=True))
            .values_list("bot_version__bot_id", "n")
        )
        candidates = []
        for bot_id, version in versions.items():
            bot = bots[bot_id]
            rating = getattr(bot, "rating", None)
            state = rating.state if rating else ratings.BotRating()
            since = bot.last_scheduled or bot.created
            candidates.append(
                pairing.Candidate(
                    bot_id=bot_id,
                    version=version,
                    elo=state.elo,
                    games=state.games,
                    sigma=state.sigma,
                    seats={size: list(counts) for size, counts in (bot.ladder_seats or {}).items()},
                    in_flight=busy.get(bot_id, 0),
                    idle_seconds=max(0.0, (now - since).total_seconds()),
                )
            )
        if not candidates:
            return []
        # Nobody holds more than a fair share of the seats in flight; in a small league that share is larger.
        seats_in_flight = (sum(busy.values()) + count * max(config.table_sizes)) / len(candidates)
        policy = config.policy(max_in_flight=max(config.max_in_flight, math.ceil(seats_in_flight)))
        tables = pairing.plan_tables(candidates, count, policy, rng)
        created = [
            do_create_match(config.game, [c.version for c in table], time_control=config.time_control or None)
            for table in tables
        ]
        seated = {candidate.bot_id: candidate for table in tables for candidate in table}
        for bot_id, candidate in seated.items():
            bots[bot_id].ladder_seats = candidate.seats
            bots[bot_id].last_scheduled = now
        Bot.objects.bulk_update([bots[bot_id] for bot_id in seated], ["ladder_seats", "last_scheduled"])
    return created


def _ladder_bots(games: list[str]) -> QuerySet[Bot]:
    """The bots the ladder may schedule: on the ladder, not paused, with a ready version and a live owner."""
    return (
        Bot.objects.filter(game__in=games, is_active=True, paused_at__isnull=True)
        .filter(Q(owner__is_active=True) | Q(is_builtin=True))
        .filter(Exists(BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)))
    )


# ----- recomputing ratings -----------------------------------------------------------------------------------


@dataclass
class RecomputeReport:
    game: str
    matches: int = 0
    bots: int = 0
    changes: int = 0
    differences: list[str] = field(default_factory=list)
    repaired: int = 0


def replay_ratings(game_id: str) -> tuple[dict[int, ratings.BotRating], dict[int, datetime], dict, int]:
    """Every bot's rating from the game's match history alone: finished ladder matches in finish order.

    Returns (ratings by bot, last rated match time by bot, {(match, bot): (before, after, variance)}, matches)."""
    states: dict[int, ratings.BotRating] = {}
    last: dict[int, datetime] = {}
    changes: dict[tuple[int, int], tuple[float, float, float]] = {}
    matches = Match.objects.filter(rated_matches(), game=game_id, status=Match.Status.FINISHED)
    seats = (
        Seat.objects.filter(match__in=matches)
        .order_by("match__finished_at", "match_id", "number")
        .values_list("match_id", "bot_version__bot_id", "bot_version__number", "rank", "match__finished_at")
    )
    matches = 0

    def rate(table: list[tuple[int, int, int, int, datetime]]) -> None:
        nonlocal matches
        bots = [bot_id for _match, bot_id, _number, _rank, _at in table]
        if len(set(bots)) != len(bots):
            return
        before = [states.get(bot_id, ratings.BotRating()) for bot_id in bots]
        after = ratings.rate_match(before, [ratings.SeatResult(rank=rank, version=n) for _m, _b, n, rank, _a in table])
        for (match_id, bot_id, _number, _rank, finished_at), old, new in zip(table, before, after, strict=True):
            states[bot_id] = new
            last[bot_id] = finished_at
            changes[(match_id, bot_id)] = (old.elo, new.elo, new.variance)
        matches += 1

    table: list[tuple[int, int, int, int, datetime]] = []
    for row in seats.iterator(chunk_size=10_000):
        if table and row[0] != table[0][0]:
            rate(table)
            table = []
        table.append(row)
    if table:
        rate(table)
    return states, last, changes, matches


def do_recompute_ratings(games: list[str] | None = None, repair: bool = False) -> list[RecomputeReport]:
    """Replay each game's match history through ``ratings.rate_match`` and compare with what is stored, exactly.

    Every ``Rating`` and every ``RatingChange`` must equal the replay's, bit for bit. With ``repair``, ratings that
    differ are overwritten with the replay's (``RatingChange`` rows are history and are never edited)."""
    reports = []
    for game_id in games or list(GAMES):
        report = RecomputeReport(game=game_id)
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if repair:  # nobody records a match of this game while we compare and write
                stored = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot__game=game_id)}
            else:
                if outermost:
                    _snapshot()
                stored = {r.bot_id: r for r in Rating.objects.filter(bot__game=game_id)}
            states, last, expected, report.matches = replay_ratings(game_id)
            recorded = {
                (match_id, bot_id): (before, after, variance)
                for match_id, bot_id, before, after, variance in RatingChange.objects.filter(
                    match__game=game_id
                ).values_list("match_id", "bot_id", "before", "after", "variance")
            }
            report.changes = len(recorded)
            differences = report.differences
            for key in sorted(expected.keys() | recorded.keys()):
                want, have = expected.get(key), recorded.get(key)
                if want != have:
                    what = "missing" if have is None else "unexpected" if want is None else f"{have} != replay {want}"
                    differences.append(f"match {key[0]} bot {key[1]}: rating change {what}")
            bot_ids = sorted(set(stored) | set(states))
            report.bots = len(bot_ids)
            for bot_id in bot_ids:
                want_state, rating = states.get(bot_id, ratings.BotRating()), stored.get(bot_id)
                have_state = rating.state if rating else None
                want_last, have_last = last.get(bot_id), rating.last_match_at if rating else None
                if have_state == want_state and want_last == have_last:
                    continue
                if have_state is None:
                    differences.append(f"bot {bot_id}: no stored rating; the replay has {want_state}")
                    continue
                fields = [
                    f"{name} {getattr(have_state, name)!r} != replay {getattr(want_state, name)!r}"
                    for name in Rating.STATE_FIELDS
                    if getattr(have_state, name) != getattr(want_state, name)
                ]
                if want_last != have_last:
                    fields.append(f"last_match_at {have_last} != replay {want_last}")
                differences.append(f"bot {bot_id}: " + "; ".join(fields))
                if repair and rating is not None:
                    rating.set_state(want_state)
                    rating.last_match_at = want_last
                    rating.save()
                    report.repaired += 1
        reports.append(report)
    return reports


def _snapshot() -> None:
    """Read the whole comparison from one snapshot while matches keep being recorded (SQLite's is one anyway)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
