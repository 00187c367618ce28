"""Accounts: the e-mail verification that uploading may require, and what a new password ends (docs/security.md,
"Accounts, headers and deployment")."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.core import signing
from django.utils import timezone

from league.accounts.guests import is_guest
from league.accounts.models import ApiToken, VerifiedEmail
from league.core.errors import (
    EmailUnverified,
    GuestsOnlyPlay,
    ServiceError,
    VerificationExpired,
    VerificationForOldAddress,
    VerificationInvalid,
)

VERIFY_SALT = "parlour.verify-email"  # a signature made for another purpose never passes as a verification link


# ----- e-mail verification -------------------------------------------------------------------------------------


def is_email_verified(user: AbstractBaseUser) -> bool:
    """The user followed a verification link for the address they have now."""
    email = getattr(user, "email", "")
    return VerifiedEmail.objects.filter(user_id=user.pk, email__iexact=email).exists()


def upload_refusal(user: AbstractBaseUser) -> ServiceError | None:
    """Why ``user`` may not upload a bot now, or None: a guest may only play (403 ``forbidden``); with
    REQUIRE_EMAIL_VERIFICATION on, an address not verified yet (403 ``email_unverified``). Staff are exempt from the
    verification (an operator's accounts come from `createsuperuser` or the admin, with no mail step)."""
    if is_guest(user):
        return GuestsOnlyPlay()
    if not settings.REQUIRE_EMAIL_VERIFICATION or getattr(user, "is_staff", False) or is_email_verified(user):
        return None
    return EmailUnverified()


def may_upload(user: AbstractBaseUser) -> bool:
    return upload_refusal(user) is None


def require_verified_email(user: AbstractBaseUser) -> None:
    """Refuses an upload ``upload_refusal`` refuses."""
    refusal = upload_refusal(user)
    if refusal is not None:
        raise refusal


def verification_key(user: User) -> str:
    """A signed, timestamped key for the user's current address: it stops working after EMAIL_VERIFICATION_TIMEOUT
    seconds, and for any other address (an address changed since the mail was sent)."""
    return signing.dumps({"user": user.pk, "email": user.email}, salt=VERIFY_SALT, compress=True)


def do_verify_email(key: str) -> User:
    """Records the address ``key`` was made for as verified, and returns its user."""
    try:
        payload: Any = signing.loads(key, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFICATION_TIMEOUT)
    except signing.SignatureExpired:
        raise VerificationExpired() from None
    except signing.BadSignature:
        raise VerificationInvalid() from None
    user = User.objects.filter(pk=payload.get("user"), is_active=True).first()
    if user is None or not user.email or user.email.lower() != str(payload.get("email", "")).lower():
        raise VerificationForOldAddress()
    VerifiedEmail.objects.update_or_create(user=user, defaults={"email": user.email, "verified_at": timezone.now()})
    return user


# ----- a new password ends every other way in ------------------------------------------------------------------


def do_revoke_api_tokens(user: AbstractBaseUser) -> int:
    """Deletes every API token of ``user``; how many there were."""
    deleted, _ = ApiToken.objects.filter(user_id=user.pk).delete()
    return deleted


def revoke_tokens_on_new_password(sender: type[User], instance: User, created: bool, **kwargs: Any) -> None:
    """post_save of User: a password set by ``set_password`` (change, reset, the admin's form, `changepassword`)
    revokes the user's API tokens. Sessions need nothing: each carries a hash of the password, and Django ends those
    whose hash no longer matches. ``_password`` is the raw password ``set_password`` keeps until the save; Django
    clears it for a hasher upgrade at log-in, which is not a new password."""
    if not created and getattr(instance, "_password", None) is not None:
        do_revoke_api_tokens(instance)
