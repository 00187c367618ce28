"""Remote bots' writes: a remote bot created, its token issued and revoked, a token checked (docs/remote.md)."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from league.bots.models import Bot, BotVersion
from league.bots.services import AWAITING_CONNECTION
from league.core import outbox
from league.core.errors import NotOwner, NotRemoteBot, RemoteTokenInvalid
from league.remote.models import RemoteToken

__all__ = [
    "authenticate",
    "do_connected",
    "do_issue_remote_token",
    "do_revoke_remote_token",
    "hash_key",
]

KEY_PREFIX = "prb_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def do_issue_remote_token(bot: Bot, user: AbstractBaseUser) -> tuple[RemoteToken, str]:
    """A new token for ``bot`` and its key (shown once, stored as a hash); the bot's older tokens stop working."""
    _check_remote(bot, user)
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    with transaction.atomic():
        RemoteToken.objects.filter(bot=bot, revoked__isnull=True).update(revoked=timezone.now())
        token = RemoteToken.objects.create(bot=bot, prefix=key[:10], key_hash=hash_key(key))
    return token, key


def do_revoke_remote_token(bot: Bot, user: AbstractBaseUser) -> int:
    """Revoke the bot's tokens: its connection is refused from its next request on. How many were live."""
    _check_remote(bot, user)
    return RemoteToken.objects.filter(bot=bot, revoked__isnull=True).update(revoked=timezone.now())


def authenticate(key: str) -> int:
    """The bot a live token belongs to; ``RemoteTokenInvalid`` otherwise."""
    if not key.startswith(KEY_PREFIX) or len(key) > 100:
        raise RemoteTokenInvalid()
    bot_id = (
        RemoteToken.objects.filter(key_hash=hash_key(key), revoked__isnull=True, bot__owner__is_active=True)
        .values_list("bot_id", flat=True)
        .first()
    )
    if bot_id is None:
        raise RemoteTokenInvalid()
    return int(bot_id)


def do_connected(bot_id: int) -> bool:
    """The bot connected: its remote version waiting for a connection is due for its smoke game now, once (True
    when sent now)."""
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


def _check_remote(bot: Bot, user: AbstractBaseUser) -> None:
    if not user.is_authenticated or bot.owner_id != user.pk:
        raise NotOwner()
    if not bot.versions.filter(remote=True).exists():
        raise NotRemoteBot(bot=str(bot))
