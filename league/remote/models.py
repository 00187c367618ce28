"""A remote bot's token: what its owner's machine connects with. Only a hash is stored; the key is shown once."""

from __future__ import annotations

from django.db import models


class RemoteToken(models.Model):
    """The token of one remote bot: scoped to that bot alone, revocable. A bot has at most one live token (issuing a
    new one revokes the old)."""

    bot = models.ForeignKey("Bot", on_delete=models.CASCADE, related_name="remote_tokens")
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.bot}: {self.prefix}…"
