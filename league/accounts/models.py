"""Accounts: API tokens and proved e-mail addresses."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A named API token. Only a hash is stored; the key is shown to its user once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.user}: {self.name} ({self.prefix}…)"


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


class Guest(models.Model):
    """An account made for someone who sat at a table without signing up (league/accounts/guests.py). A guest may only
    play; it and its tables are deleted GUEST_HOURS after it was made."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="guest"
    )
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"guest {self.user}"
