"""Bots and their versions: uploads, validation records, fair-use limits, the house bots, pausing and resuming."""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots.packaging import Package, PackagingError, package_upload
from bots.text import STDERR_MAX_CHARS, clean_text
from games.registry import GAMES, builtin_players
from league.accounts.services import require_verified_email
from league.bots.models import Bot, BotVersion
from league.bots.signals import version_ready
from league.core import outbox
from league.core.errors import (
    HOUR,
    BadUpload,
    DuplicateBotName,
    NotOwner,
    RemoteBotHasNoCode,
    TooManyBots,
    UnknownGame,
    UploadsRateLimited,
    hourly_retry_at,
)
from league.core.reasons import public_reason
from league.ratings.models import Rating

SYSTEM_USERNAME = "parlour"


# ----- bots --------------------------------------------------------------------------------------------------


def _package(data: bytes, filename: str) -> Package:
    try:
        return package_upload(data, filename)
    except PackagingError as error:
        raise BadUpload(reason=str(error)) from None


def do_create_bot(owner: User, game: str, name: str, data: bytes, filename: str, description: str = "") -> Bot:
    """A new bot with its first version, queued for validation. Nothing is stored if the upload is refused."""
    if game not in GAMES:
        raise UnknownGame(game=game)
    require_verified_email(owner)
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
        raise DuplicateBotName(game=game, name=name) from None
    return bot


# A remote version waits for its bot's first connection before its smoke game is due (league/remote/services.py).
AWAITING_CONNECTION = datetime(9999, 1, 1, tzinfo=UTC)


def do_create_remote_bot(owner: User, game: str, name: str, description: str = "") -> Bot:
    """A new bot played from its owner's machine (docs/remote.md): one remote version, pending until its smoke game,
    which is due when the bot first connects."""
    if game not in GAMES:
        raise UnknownGame(game=game)
    require_verified_email(owner)
    try:
        with transaction.atomic():
            _lock_user(owner)
            _check_fair_use(owner)
            bot = Bot.objects.create(owner=owner, game=game, name=name, description=description, is_remote=True)
            Rating.objects.create(bot=bot)
            BotVersion.objects.create(
                bot=bot, number=1, remote=True, language="remote", enqueued_at=AWAITING_CONNECTION
            )
    except IntegrityError:
        raise DuplicateBotName(game=game, name=name) from None
    return bot


def do_add_version(bot: Bot, data: bytes, filename: str) -> BotVersion:
    """Upload new code for ``bot``; the ladder keeps playing the previous ready version until this one is ready. A
    remote bot has no code: its owner changes the program on their own machine."""
    if bot.is_remote:
        raise RemoteBotHasNoCode(bot=str(bot))
    require_verified_email(bot.owner)
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
        bots = Bot.objects.filter(owner_id=owner.pk).count()
        limit = settings.FAIR_USE_BOTS_PER_USER
        if bots >= limit:
            raise TooManyBots(bots=bots, limit=limit)
    recent = BotVersion.objects.filter(bot__owner_id=owner.pk, created__gt=timezone.now() - HOUR).order_by("created")
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
        raise UploadsRateLimited(count=len(times), what=what, limit=limit, retry_at=retry_at)


def _create_version(bot: Bot, package: Package) -> BotVersion:
    number = (bot.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = BotVersion.objects.create(
        bot=bot,
        number=number,
        archive=package.archive,
        language=package.language,
        archive_size=len(package.archive),
    )
    outbox.enqueue(outbox.VALIDATE_VERSION_TASK, version.pk)
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
            # What the bot wrote (its log, a fault's detail quoting it) by bots.text's rule: a NUL must not leave the
            # version pending for ever on PostgreSQL.
            validation_log=clean_text(public_reason(log_text, limit=2000), 2000),
            validation_stderr=clean_text(stderr, STDERR_MAX_CHARS, keep="tail"),
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
            if BotVersion.objects.filter(pk=version_id, status=BotVersion.Status.READY).exists():
                # Its placement burst, in the same transaction: a version is never ready without one.
                version_ready.send(sender=BotVersion, version=version)
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
        raise NotOwner()
