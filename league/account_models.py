"""Which e-mail address each user has proved they read (league/services/accounts.py, docs/security.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class VerifiedEmail(models.Model):
    """The address a user followed a verification link for, and when. A user whose current e-mail is not the one
    recorded here (none yet, or changed since) is unverified: with REQUIRE_EMAIL_VERIFICATION on, they cannot upload."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="verified_email"
    )
    email = models.EmailField(max_length=254, blank=True)
    verified_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user}: {self.email or '(no address)'}"
