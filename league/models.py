"""The league's records. Writes go through ``league.services``; nothing else saves these models."""

from __future__ import annotations

import json
import zlib
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from games.registry import GAMES


def game_choices() -> list[tuple[str, str]]:
    return [(game_id, GAMES[game_id].title) for game_id in GAMES]


class Bot(models.Model):
    """A bot: one owner, one game. It evolves by versions; its rating belongs to the bot, not to one version."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    game = models.CharField(max_length=40, choices=game_choices)
    name = models.SlugField(max_length=40, help_text="Letters, digits, - and _; unique per owner and game.")
    description = models.CharField(max_length=200, blank=True)
    is_builtin = models.BooleanField(default=False, help_text="One of the league's own built-in players.")
    is_active = models.BooleanField(default=True, help_text="Inactive bots are not scheduled on the ladder.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_name")]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.owner.username}/{self.name}"

    def get_absolute_url(self) -> str:
        return reverse("bot", args=[self.pk])

    def current_version(self) -> BotVersion | None:
        """The newest ready version: the one the ladder plays."""
        return self.versions.filter(status=BotVersion.Status.READY).order_by("-number").first()


class BotVersion(models.Model):
    """One upload of a bot's code. The archive lives in the database so every worker machine can read it."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        """Uploaded; the validation smoke match has not finished yet."""
        READY = "ready", "ready"
        """Passed validation: plays on the ladder."""
        REJECTED = "rejected", "rejected"
        """Failed validation; ``validation_log`` says why."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # Exactly one of: the name of a built-in player, or an uploaded archive (a normalised zip).
    builtin = models.CharField(max_length=40, blank=True)
    archive = models.BinaryField(null=True, blank=True, editable=False)
    language = models.CharField(max_length=20, blank=True)
    archive_size = models.PositiveIntegerField(default=0)
    validation_log = models.TextField(blank=True)
    validation_stderr = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    validated = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_unique_number")]
        ordering = ["bot", "-number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    @property
    def label(self) -> str:
        return f"{self.bot.owner.username}/{self.bot.name} v{self.number}"


class Match(models.Model):
    """One game between seats of bot versions, run once by a worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        """Created and sent to the queue; no worker has claimed it yet."""
        RUNNING = "running", "running"
        """Claimed by a worker (``claimed_at``); re-queued if the worker dies."""
        FINISHED = "finished", "finished"
        """Played; seats, replay and rating changes are recorded."""
        FAILED = "failed", "failed"
        """Could not be played after ``MATCH_MAX_ATTEMPTS`` attempts; ``error`` says why."""

        @classmethod
        def finalized(cls) -> set[str]:
            return {cls.FINISHED, cls.FAILED}

    class Kind(models.TextChoices):
        LADDER = "ladder", "ladder"
        CHALLENGE = "challenge", "challenge"

    game = models.CharField(max_length=40, choices=game_choices)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.LADDER)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    engine_version = models.CharField(max_length=20)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    wall_ms = models.PositiveIntegerField(null=True, blank=True)
    replay_data = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()

    @property
    def replay(self) -> dict[str, Any] | None:
        if self.replay_data is None:
            return None
        return json.loads(zlib.decompress(bytes(self.replay_data)))

    @staticmethod
    def pack_replay(replay: dict[str, Any]) -> bytes:
        return zlib.compress(json.dumps(replay, separators=(",", ":")).encode(), 6)


class Seat(models.Model):
    """One seat of a match: who sat there and how it ended. A fault is kept apart from the rank (its cause)."""

    class Fault(models.TextChoices):
        STARTUP = "startup", "did not start"
        TIMEOUT = "timeout", "ran out of time"
        CRASH = "crash", "crashed"
        EXIT = "exit", "exited early"
        MALFORMED = "malformed", "sent malformed output"
        OVERSIZED = "oversized", "sent too much output"
        ILLEGAL = "illegal", "played an illegal action"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    fault = models.CharField(max_length=10, choices=Fault.choices, blank=True)
    fault_detail = models.TextField(blank=True)
    stderr = models.TextField(blank=True, help_text="The bot's log; shown to its owner only.")
    moves = models.PositiveIntegerField(default=0)
    time_ms = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number")]
        ordering = ["match", "number"]

    def __str__(self) -> str:
        return f"{self.match} seat {self.number}"


class Rating(models.Model):
    """A bot's current Elo in its game. Changed only by appending ``RatingChange`` rows, in match order."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="rating")
    elo = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    # Games since the bot's newest version went live: while few, K is higher (the bot is provisional).
    games_since_version = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.bot}: {self.elo:.0f}"


class RatingChange(models.Model):
    """One bot's Elo before and after one match. Immutable: ratings are audited and recomputed from these."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "bot"], name="rating_change_once")]
        ordering = ["id"]

    @property
    def delta(self) -> float:
        return self.after - self.before


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
