"""API tokens: created with a key shown once, stored as its hash, revoked by their owner."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import AbstractBaseUser, User

from league.accounts.guests import is_guest
from league.accounts.models import ApiToken
from league.core.errors import GuestsOnlyPlay, NoSuchToken, TokenNameMissing


def hash_token(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def do_create_token(user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its key; the key is not stored and cannot be shown again. Guests may not have one."""
    if is_guest(user):
        raise GuestsOnlyPlay()
    name = name.strip()
    if not name:
        raise TokenNameMissing()
    key = "plr_" + secrets.token_urlsafe(30)
    token = ApiToken.objects.create(user=user, name=name[:60], prefix=key[:10], key_hash=hash_token(key))
    return token, key


def do_revoke_token(user: AbstractBaseUser, token_id: int) -> None:
    deleted, _ = ApiToken.objects.filter(user_id=user.pk, pk=token_id).delete()
    if not deleted:
        raise NoSuchToken()
