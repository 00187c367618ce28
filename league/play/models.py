"""Matches, their series and their seats. Writes go through the league's services."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.urls import reverse

from bots.results import FaultCause
from league.core.game_choices import game_choices
from league.core.lease_models import Leased
from league.core.replay_data import pack_replay, unpack_replay


class Match(Leased):
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
        TOURNAMENT = "tournament", "tournament"
        """A game of a tournament round (``round``); it changes Elo only if its tournament is ``rated``."""
        PLACEMENT = "placement", "placement"
        """A rated game of a new version's placement burst (league/ladder/placement.py); rated like the ladder."""

    game = models.CharField(max_length=40, choices=game_choices)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.LADDER)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    engine_version = models.CharField(max_length=20)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    # The claim is ``Leased``'s (league/core/leases.py): a result is recorded only under the token it claimed
    # with, so a worker that lost its claim (presumed dead, the match re-run elsewhere) cannot overwrite the re-run.
    # Also when and by which worker (host and process) it was claimed.
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True, editable=False, help_text="worker host and process")
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    wall_ms = models.PositiveIntegerField(null=True, blank=True)
    replay_data = models.BinaryField(null=True, blank=True, editable=False)
    # When the bots' logs (seats' stderr, the notes on moves) were deleted, LOG_RETENTION_DAYS after the match
    # (league.play.retention.do_delete_old_logs); the replay's moves and outcome stay.
    logs_deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The ladder's time control for this match ({"move_ms", "bank_ms"}); empty: the runtime's defaults for the game.
    time_control = models.JSONField(default=dict, blank=True)
    # Tournament games only (league/tournaments/services.py). PROTECT: a tournament that has played keeps its history.
    round = models.ForeignKey(
        "Round", on_delete=models.PROTECT, null=True, blank=True, related_name="matches", editable=False
    )
    # The series this game belongs to: played with its other games by the same bot processes, recorded as they
    # finish, in batches (league/play/series.py). None: a single match.
    series = models.ForeignKey(
        "MatchSeries", on_delete=models.SET_NULL, null=True, blank=True, related_name="matches", editable=False
    )
    # Claimed before ordinary ladder games (a placement burst): the claim order's priority lane.
    placing = models.BooleanField(default=False, editable=False)
    # A rated match's place in its game's recorded order (1, 2, ...), set in the recording transaction under the
    # game's ``RatedSequence`` row lock, so a game's numbers commit in order: the fitted Elo's incremental refit
    # reads the matches after the last number it saw (league/ratings/fits.py). None: not rated (or not finished).
    rated_seq = models.BigIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created"]
        verbose_name_plural = "matches"
        indexes = [
            # The scheduler's counts: ladder matches in flight, and created in the last hour, per game.
            models.Index(fields=["kind", "status", "game"], name="match_kind_status_game"),
            models.Index(fields=["game", "kind", "created"], name="match_game_kind_created"),
            # The retention task's next batch: the oldest finished matches whose logs are still kept (only those,
            # so it does not step over the ever longer history of matches already cleaned).
            models.Index(
                fields=["finished_at"], condition=models.Q(logs_deleted_at__isnull=True), name="match_logs_kept"
            ),
            # The incremental refit's read: a game's rated matches after a recorded-order number.
            models.Index(fields=["game", "rated_seq"], name="match_game_rated_seq"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()

    @property
    def replay(self) -> dict[str, Any] | None:
        return unpack_replay(self.replay_data)

    pack_replay = staticmethod(pack_replay)


class MatchSeries(models.Model):
    """Games a worker plays in a row with the same bot processes (the same versions in the same seats, each game its
    own seed) and records as they finish, in batches. A fault ends it: its unplayed games go to a new series, played
    by fresh processes (league/play/series.py; docs/decisions.md, "Series")."""

    game = models.CharField(max_length=40, choices=game_choices)
    created = models.DateTimeField(auto_now_add=True)
    # The version whose placement burst this series is part of (league/ladder/placement.py); None otherwise.
    placing_version = models.ForeignKey(
        "BotVersion", on_delete=models.CASCADE, null=True, blank=True, related_name="placement_series"
    )

    class Meta:
        verbose_name_plural = "match series"

    def __str__(self) -> str:
        return f"series {self.pk} ({self.game})"


# A seat's fault: the runner's causes (one enum, bots.results.FaultCause), stored and published by their values.
FAULT_CHOICES = [(cause.value, cause.label) for cause in FaultCause]
FAULT_LABELS = dict(FAULT_CHOICES)


def fault_label(cause: str) -> str:
    """A stored fault cause for people ("ran out of time")."""
    return FAULT_LABELS.get(cause, cause)


class Seat(models.Model):
    """One seat of a match: who sat there and how it ended. A fault is kept apart from the rank (its cause)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey("BotVersion", on_delete=models.PROTECT, related_name="seats")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    fault = models.CharField(max_length=10, choices=FAULT_CHOICES, blank=True)
    fault_detail = models.TextField(blank=True)
    stderr = models.TextField(blank=True, help_text="The bot's log; shown to its owner only.")
    moves = models.PositiveIntegerField(default=0)
    time_ms = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number")]
        ordering = ["match", "number"]

    def __str__(self) -> str:
        return f"{self.match} seat {self.number}"
