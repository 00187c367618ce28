"""Tournaments, their entries and rounds (league/tournaments/services.py runs them; docs/tournaments.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from league.core.game_choices import game_choices


class Tournament(models.Model):
    """A tournament staff run: a game, a format, settings, entrants pinned at the start, rounds of matches."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss"
        KNOCKOUT = "knockout", "single elimination"

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        """Being set up: entrants and settings may change; nothing is played."""
        RUNNING = "running", "running"
        """Started: versions are pinned and rounds are played (unless ``paused``)."""
        FINISHED = "finished", "finished"
        """Every round is played; the standings are final."""
        CANCELLED = "cancelled", "cancelled"
        """Stopped by staff; its queued matches were withdrawn, the games played stay on record."""

        @classmethod
        def finalized(cls) -> set[str]:
            return {cls.FINISHED, cls.CANCELLED}

    game = models.CharField(max_length=40, choices=game_choices)
    name = models.CharField(max_length=100)
    format = models.CharField(max_length=12, choices=Format.choices)
    # Before the ``settings`` field: below it, that name in this class body is the field, not django.conf's.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Checked by league.tournaments.formats.parse_settings and stored with every default filled in.
    settings = models.JSONField(default=dict, blank=True)
    # Whether its games change ladder Elo; fixed at the start (recompute_ratings replays rated tournament games).
    rated = models.BooleanField(default=False)
    # A rated tournament takes one bot per owner (built-in players aside) unless staff allow it here: two bots of
    # one owner could rig the rated games between them (league/tournaments/services.py, check_owners).
    allow_same_owner = models.BooleanField(
        "one owner's bots may meet (rated)",
        default=False,
        help_text="Rated tournaments only: let one owner enter several bots; their games against each other then "
        "change Elo too. Off: a second bot of the same owner is refused.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True)
    paused = models.BooleanField(default=False, help_text="A paused tournament starts no new games.")
    seed = models.BigIntegerField(help_text="Fixes the schedule and every game's deal.")
    created = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The expected number of rounds (fixed for round robin and Swiss; a knockout's from its bracket).
    planned_rounds = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()


class Entry(models.Model):
    """One bot in one tournament, with the version it plays (pinned at the start) and its standing."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey("Bot", on_delete=models.PROTECT, related_name="tournament_entries")
    # Chosen by staff in a draft, or pinned at the start to the bot's newest ready version.
    bot_version = models.ForeignKey(
        "BotVersion", on_delete=models.PROTECT, null=True, blank=True, related_name="tournament_entries"
    )
    seed = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = highest Elo at the start.")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(default=0.0)
    games = models.FloatField(default=0.0)
    tiebreaks = models.JSONField(default=dict, blank=True)
    forfeited = models.BooleanField(default=False)
    forfeit_reason = models.TextField(blank=True)
    eliminated_in = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Knockout: the round lost.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot"], name="entry_unique_bot")]
        ordering = ["tournament", "position", "seed", "id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.tournament}: {self.bot}"


class Round(models.Model):
    """One round of a tournament: its tables (``plan``) and, through ``Match.round``, their games."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        """Scheduled (a round robin plans every round at the start); no game created yet."""
        RUNNING = "running", "running"
        """Its games are created and being played."""
        FINISHED = "finished", "finished"
        """Every game of every table is finalized (and, in a knockout, every series decided)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    # {"tables": [{"entries": [entry ids], "absent": [...], "offline": [...], "walkover": bool, "games": n,
    #  "advancers": [...]}], "byes": [entry ids], "bracket": [[entry ids], ...] (knockout)}; "offline": the absent
    #  that were remote bots not connected when the table's games were made
    plan = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")]
        ordering = ["tournament", "number"]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"
