"""Bots and their versions (an upload each). Writes go through the league's services."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.urls import reverse

from league.core.game_choices import game_choices
from league.core.lease_models import Leased
from league.ratings import elo as ratings


class Bot(models.Model):
    """A bot: one owner, one game. It evolves by versions; its rating belongs to the bot, not to one version."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    game = models.CharField(max_length=40, choices=game_choices)
    name = models.SlugField(max_length=40, help_text="Letters, digits, - and _; unique per owner and game.")
    description = models.CharField(max_length=200, blank=True)
    is_builtin = models.BooleanField(default=False, help_text="One of the league's own built-in players.")
    is_remote = models.BooleanField(
        default=False, help_text="Played from its owner's machine, through a connection (docs/remote.md)."
    )
    is_active = models.BooleanField(default=True, help_text="Inactive bots are not scheduled on the ladder.")
    created = models.DateTimeField(auto_now_add=True)
    # Paused automatically when it faults too often (LADDER_FAULT_LIMIT of the last LADDER_FAULT_WINDOW matches);
    # a new ready version or its owner's "resume" clears it, and faults before ``fault_window_start`` are forgiven.
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_reason = models.TextField(blank=True)
    fault_window_start = models.DateTimeField(null=True, blank=True)
    # The ladder scheduler's bookkeeping: seats taken per table size ({"3": [n0, n1, n2]}) and the last scheduling.
    ladder_seats = models.JSONField(default=dict, blank=True)
    last_scheduled = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_name")]
        indexes = [models.Index(fields=["game", "is_active"], name="bot_game_active")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.owner.username}/{self.name}"

    def get_absolute_url(self) -> str:
        return reverse("bot", args=[self.pk])

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None

    @property
    def shown_elo(self) -> float:
        """The one Elo the league shows and orders by: the fitted one once the bot is fitted, else the online one
        (1500 before its first game). Select ``fitted`` and ``rating`` with the bot: this reads both."""
        for source in ("fitted", "rating"):
            try:
                return float(getattr(self, source).elo)
            except ObjectDoesNotExist:  # not fitted yet / no game yet
                continue
        return ratings.INITIAL_ELO

    def current_version(self) -> BotVersion | None:
        """The newest ready version: the one the ladder plays."""
        return self.versions.filter(status=BotVersion.Status.READY).order_by("-number").first()


class BotVersion(Leased):
    """One upload of a bot's code. The archive lives in the database so every worker machine can read it."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        """Uploaded; the validation smoke match has not finished yet."""
        READY = "ready", "ready"
        """Passed validation: plays on the ladder."""
        REJECTED = "rejected", "rejected"
        """Failed validation; ``validation_log`` says why."""
        RETIRED = "retired", "retired"
        """Was ready; a newer version has replaced it on the ladder (its matches and rating history stay)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # Exactly one of: the name of a built-in player, an uploaded archive (a normalised zip), or remote (its owner
    # runs it on their own machine and connects it: docs/remote.md).
    builtin = models.CharField(max_length=40, blank=True)
    remote = models.BooleanField(default=False, help_text="Played from its owner's machine (docs/remote.md).")
    archive = models.BinaryField(null=True, blank=True, editable=False)
    language = models.CharField(max_length=20, blank=True)
    archive_size = models.PositiveIntegerField(default=0)
    validation_log = models.TextField(blank=True)
    validation_stderr = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    validated = models.DateTimeField(null=True, blank=True)
    # (The validation's claim: ``Leased``, as a match's; league/core/leases.py.)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_unique_number")]
        ordering = ["bot", "-number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    @property
    def label(self) -> str:
        return f"{self.bot.owner.username}/{self.bot.name} v{self.number}"
