"""Remote bots' writes: a remote bot created, its token issued and revoked, a token checked (docs/remote.md)."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import AWAITING_CONNECTION
from league.core import outbox
from league.core.errors import HOUR, NotOwner, NotRemoteBot, RemoteTokenInvalid
from league.remote.channels import drops_since, forget_tokens, remember_token
from league.remote.models import RemoteToken

__all__ = [
    "authenticate",
    "do_connected",
    "do_issue_remote_token",
    "do_revoke_remote_token",
    "hash_key",
]

KEY_PREFIX = "prb_"
KEY_MAX_CHARS = 100


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def do_issue_remote_token(bot: Bot, user: AbstractBaseUser) -> tuple[RemoteToken, str]:
    """A new token for ``bot`` and its key (shown once, stored as a hash); the bot's older tokens stop working."""
    _check_remote(bot, user)
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    with transaction.atomic():
        _revoke(bot)
        token = RemoteToken.objects.create(bot=bot, prefix=key[:10], key_hash=hash_key(key))
    return token, key


def do_revoke_remote_token(bot: Bot, user: AbstractBaseUser) -> int:
    """Revoke the bot's tokens: its connection is refused from its next request on. How many were live."""
    _check_remote(bot, user)
    return _revoke(bot)


def _revoke(bot: Bot) -> int:
    live = RemoteToken.objects.filter(bot=bot, revoked__isnull=True)
    hashes = list(live.values_list("key_hash", flat=True))
    revoked = live.update(revoked=timezone.now())
    # Once committed: a request before the commit would read the token still live and remember it again.
    transaction.on_commit(lambda: forget_tokens(hashes))
    return revoked


def authenticate(key: str) -> int:
    """The bot a live token belongs to; ``RemoteTokenInvalid`` otherwise."""
    if not key.startswith(KEY_PREFIX) or len(key) > KEY_MAX_CHARS:
        raise RemoteTokenInvalid()
    bot_id = (
        RemoteToken.objects.filter(key_hash=hash_key(key), revoked__isnull=True, bot__owner__is_active=True)
        .values_list("bot_id", flat=True)
        .first()
    )
    if bot_id is None:
        raise RemoteTokenInvalid()
    remember_token(hash_key(key), bot_id)
    return int(bot_id)


def do_connected(bot_id: int) -> bool:
    """The bot connected: a bot that keeps dropping its connection is paused (as a faulty one is), and its remote
    version waiting for a connection is due for its smoke game now, once (True when sent now)."""
    _pause_if_dropping(bot_id)
    waiting = BotVersion.objects.filter(
        bot_id=bot_id, remote=True, status=BotVersion.Status.PENDING, enqueued_at=AWAITING_CONNECTION
    )
    with transaction.atomic():
        version_id = waiting.select_for_update().values_list("pk", flat=True).first()
        if version_id is None:
            return False
        BotVersion.objects.filter(pk=version_id).update(enqueued_at=timezone.now())
        outbox.enqueue(outbox.VALIDATE_VERSION_TASK, version_id)
    return True


def _pause_if_dropping(bot_id: int) -> None:
    """More than REMOTE_DROPS_PER_HOUR dropped connections in the last hour (since its owner last resumed it)
    pause the bot until its owner resumes it."""
    bot = Bot.objects.only("paused_at", "fault_window_start").get(pk=bot_id)
    if bot.paused_at is not None:
        return
    now = timezone.now()
    since = max(now - HOUR, bot.fault_window_start or now - HOUR)
    drops = drops_since(bot_id, since.timestamp())
    limit = int(settings.REMOTE_DROPS_PER_HOUR)
    if drops <= limit:
        return
    reason = (
        f"Paused automatically: its connection dropped {drops} times in the last hour; more than {limit} pauses a "
        "remote bot, as faults do. Check its network and resume it from its page."
    )
    Bot.objects.filter(pk=bot_id, paused_at__isnull=True).update(paused_at=now, paused_reason=reason)


def _check_remote(bot: Bot, user: AbstractBaseUser) -> None:
    if not user.is_authenticated or bot.owner_id != user.pk:
        raise NotOwner()
    if not bot.versions.filter(remote=True).exists():
        raise NotRemoteBot(bot=str(bot))
