"""Challenges and version tests (league/challenges/services.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from league.core.game_choices import game_choices

if TYPE_CHECKING:
    from league.play.models import Match


class Challenge(models.Model):
    """Unrated games an owner asked for: their bot against chosen bots, or a version test (a new version against
    the previous one). Its games are ``Match`` rows of kind CHALLENGE; see league/challenges/services.py."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", "challenge"
        """The owner's bot against bots they chose."""
        VERSION_TEST = "version_test", "version test"
        """The owner's newest version against the previous one (``opponents[0]``), other seats filled by a field."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.CHALLENGE)
    game = models.CharField(max_length=40, choices=game_choices)
    # The challenger (a version of one of the owner's bots) and the other seats' versions, in the table's order
    # before rotation. A list of BotVersion ids: the same opponent may sit twice.
    version = models.ForeignKey("BotVersion", on_delete=models.PROTECT, related_name="challenges")
    opponents = models.JSONField(default=list)
    games = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    matches: models.ManyToManyField[Match, Any] = models.ManyToManyField("Match", related_name="challenges", blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner", "created"], name="challenge_owner_created")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("challenge", args=[self.pk])
