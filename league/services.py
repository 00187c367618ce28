"""Every write to the league goes through a ``do_<verb>_<noun>`` function here. Views, the API and tasks call them.

Tasks are enqueued by name after the transaction commits (saleor/sentry style), so a worker never sees a row that
is not there yet; the league never imports ``workers``.
"""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from bots.packaging import Package, PackagingError, package_upload
from games.registry import GAMES, builtin_players
from league import pairing, ratings
from league.models import ApiToken, Bot, BotVersion, Match, Rating, RatingChange, Seat

log = logging.getLogger(__name__)

SYSTEM_USERNAME = "parlour"
RUN_MATCH_TASK = "parlour.run_match"
VALIDATE_VERSION_TASK = "parlour.validate_version"


class ServiceError(Exception):
    """A request the league refuses: a machine-readable ``code``, a message for people, and an HTTP status."""

    def __init__(self, message: str, code: str = "invalid", status: int = 400) -> None:
        super().__init__(message)
        self.message, self.code, self.status = message, code, status


def _enqueue(task_name: str, object_id: int) -> None:
    transaction.on_commit(lambda: current_app.send_task(task_name, args=[object_id]))


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
    package = _package(data, filename)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, game=game, name=name, description=description)
            Rating.objects.create(bot=bot)
            _create_version(bot, package)
    except IntegrityError:
        raise ServiceError(f"you already have a {game} bot called {name!r}", code="duplicate", status=409) from None
    return bot


def do_add_version(bot: Bot, data: bytes, filename: str) -> BotVersion:
    """Upload new code for ``bot``; the ladder keeps playing the previous ready version until this one is ready."""
    package = _package(data, filename)
    with transaction.atomic():
        Bot.objects.select_for_update().get(pk=bot.pk)  # serialises version numbers per bot
        return _create_version(bot, package)


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


def do_claim_version(version_id: int) -> BotVersion | None:
    """The version to validate, or None when it is not pending (already validated by another delivery)."""
    return BotVersion.objects.select_related("bot").filter(pk=version_id, status=BotVersion.Status.PENDING).first()


def do_record_validation(version_id: int, accepted: bool, log_text: str, stderr: str) -> bool:
    """Record a validation result once; False when another delivery recorded it first."""
    status = BotVersion.Status.READY if accepted else BotVersion.Status.REJECTED
    with transaction.atomic():
        updated = BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.PENDING).update(
            status=status,
            validation_log=log_text,
            validation_stderr=stderr[-64 * 1024 :],
            validated=timezone.now(),
        )
        if updated and accepted:
            # A new version is provisional again: its rating moves faster until it has settled.
            Rating.objects.filter(bot__versions__pk=version_id).update(games_since_version=0)
    return bool(updated)


def do_register_builtin_bots(games: list[str] | None = None) -> list[Bot]:
    """The house bots of every game (or of ``games``): ready bots of the built-in players, owned by the system user,
    enough of them to fill the game's largest table (``random``, ``heuristic``, ``random-2``, ...). Idempotent."""
    owner, _ = User.objects.get_or_create(username=SYSTEM_USERNAME, defaults={"is_active": False})
    created = []
    for game_id in games or list(GAMES):
        for name, player_name in _house_roster(game_id):
            player = builtin_players(game_id)[player_name]
            with transaction.atomic():
                bot, is_new = Bot.objects.get_or_create(
                    owner=owner,
                    game=game_id,
                    name=name,
                    defaults={"is_builtin": True, "description": player.description},
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
            if is_new:
                created.append(bot)
    return created


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
        )
        Seat.objects.bulk_create(
            Seat(match=match, number=number, bot_version=version) for number, version in enumerate(versions)
        )
        _enqueue(RUN_MATCH_TASK, match.pk)
    return match


def do_claim_match(match_id: int) -> Match | None:
    """Claim a queued match for this worker: one conditional UPDATE, so exactly one of two deliveries wins."""
    claimed = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, claimed_at=timezone.now(), attempts=F("attempts") + 1
    )
    if claimed != 1:
        return None
    return Match.objects.get(pk=match_id)


def do_release_match(match_id: int, error: str) -> Match:
    """An attempt failed for a reason outside the bots (infrastructure): queue it again, or fail it for good."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            return match
        match.error = error[-2000:]
        if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
            match.status = Match.Status.FAILED
            match.finished_at = timezone.now()
        else:
            match.status = Match.Status.QUEUED
            match.claimed_at = None
            _enqueue(RUN_MATCH_TASK, match.pk)
        match.save(update_fields=["status", "error", "finished_at", "claimed_at"])
    return match


def do_requeue_stale_matches() -> list[int]:
    """Matches whose worker died mid-game (claimed too long ago) go back to the queue, or fail after enough tries."""
    cutoff = timezone.now() - timedelta(seconds=settings.MATCH_STALE_SECONDS)
    stale = list(Match.objects.filter(status=Match.Status.RUNNING, claimed_at__lt=cutoff).values_list("pk", flat=True))
    for match_id in stale:
        do_release_match(match_id, "the worker running this match stopped answering")
    return stale


@dataclass(frozen=True)
class SeatResult:
    rank: int
    score: float
    fault: str
    fault_detail: str
    stderr: str
    moves: int
    time_ms: int


def do_record_match_result(match_id: int, result: dict[str, Any]) -> bool:
    """Record a played match — seats, replay, rating changes — in one transaction, exactly once.

    ``result`` is ``bots.runner.MatchResult.to_json()``. Returns False if the match was already recorded."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            return False
        seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
        for seat, data in zip(seats, result["seats"], strict=True):
            fault = data.get("fault") or {}
            seat.rank, seat.score = data["rank"], data["score"]
            seat.fault = fault.get("cause", "")
            seat.fault_detail = fault.get("detail", "")[:2000]
            seat.stderr = (data.get("stderr") or "")[-64 * 1024 :]
            seat.moves, seat.time_ms = data.get("moves", 0), data.get("time_ms", 0)
        Seat.objects.bulk_update(seats, ["rank", "score", "fault", "fault_detail", "stderr", "moves", "time_ms"])
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.wall_ms = result.get("wall_ms")
        match.replay_data = Match.pack_replay(result["replay"])
        match.error = ""
        match.save(update_fields=["status", "finished_at", "wall_ms", "replay_data", "error"])
        if match.kind == Match.Kind.LADDER:
            _apply_ratings(match, seats)
    return True


def _apply_ratings(match: Match, seats: list[Seat]) -> None:
    bots = [seat.bot_version.bot for seat in seats]
    if len({bot.pk for bot in bots}) != len(bots):
        return  # the same bot twice at one table says nothing about its strength
    # Lock in a fixed order so two matches finishing at once never deadlock; the second waits and sees the first.
    locked = {r.bot_id: r for r in Rating.objects.select_for_update().filter(bot__in=bots).order_by("bot_id")}
    table = [locked.get(bot.pk) or Rating.objects.create(bot=bot) for bot in bots]
    deltas = ratings.elo_deltas(
        [rating.elo for rating in table],
        [seat.rank for seat in seats],
        [ratings.k_factor(rating.games_since_version) for rating in table],
    )
    for seat, rating, delta in zip(seats, table, deltas, strict=True):
        RatingChange.objects.create(match=match, bot=rating.bot, before=rating.elo, after=rating.elo + delta)
        rating.elo += delta
        rating.games += 1
        rating.games_since_version += 1
        rating.wins += 1 if seat.rank == 1 else 0
        rating.save(update_fields=["elo", "games", "games_since_version", "wins", "updated"])


# ----- the ladder --------------------------------------------------------------------------------------------


def do_schedule_ladder(rng: random.Random | None = None) -> list[Match]:
    """Top up every game's ladder queue with new matches between ready bots (Celery beat calls this)."""
    rng = rng or random.Random()
    created = []
    for game_id in GAMES:
        game = GAMES[game_id]
        waiting = Match.objects.filter(
            game=game_id, kind=Match.Kind.LADDER, status__in=[Match.Status.QUEUED, Match.Status.RUNNING]
        ).count()
        candidates = _ladder_candidates(game_id)
        by_id = {candidate.bot_id: candidate for candidate in candidates}
        for _ in range(max(0, settings.LADDER_QUEUE_DEPTH - waiting)):
            table = pairing.pick_table(candidates, game.min_players, game.max_players, rng)
            if table is None:
                break
            created.append(do_create_match(game_id, [by_id[bot_id].version for bot_id in table]))
            for bot_id in table:
                by_id[bot_id].games += 1  # so the next table of this round prefers someone else
    return created


def _ladder_candidates(game_id: str) -> list[pairing.Candidate]:
    candidates = []
    bots = (
        Bot.objects.filter(game=game_id, is_active=True, versions__status=BotVersion.Status.READY)
        .filter(Q(owner__is_active=True) | Q(is_builtin=True))
        .select_related("rating", "owner")
        .distinct()
    )
    for bot in bots:
        version = bot.current_version()
        if version is not None:
            rating = getattr(bot, "rating", None)
            candidates.append(
                pairing.Candidate(
                    bot_id=bot.pk,
                    version=version,
                    elo=rating.elo if rating else ratings.INITIAL_ELO,
                    games=rating.games if rating else 0,
                )
            )
    return candidates
