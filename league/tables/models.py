"""A person's table: a game in the browser against the league's bots (league/tables/services.py, docs/tables.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from league.core.lease_models import Leased
from league.core.replay_data import unpack_replay

if TYPE_CHECKING:
    from league.bots.models import Bot


class Table(Leased):
    """One game a person plays against bots and built-in players. Unrated: it never touches a rating.

    ``seats`` lists who sits where, in seat order: ``{"kind": "person" | "bot" | "builtin", "label": ...,
    "version_id": ..., "bot_id": ..., "builtin": ...}``. The worker that plays it (``parlour.play_table``) writes
    ``moves`` (the replay's seat, action and auto flag, no timings nor notes) after every decision; the person's
    action goes through ``pending``/``pending_index`` (written by the API, taken by the worker)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        """Created; waits for a worker and a free place (HUMAN_TABLES_MAX tables at once)."""
        RUNNING = "running", "running"
        """A worker plays it: the bots are running and the person is asked for each of their decisions."""
        FINISHED = "finished", "finished"
        """Played to the end; ``result`` and the replay are recorded."""
        FAILED = "failed", "failed"
        """Could not be played (the infrastructure), or abandoned when its worker died mid-game; ``error`` says why."""
        CANCELLED = "cancelled", "cancelled"
        """Never started: its person cancelled it while queued, or a bot at it could no longer be seated (``error``
        says which)."""

        @classmethod
        def finalized(cls) -> set[str]:
            return {cls.FINISHED, cls.FAILED, cls.CANCELLED}

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tables")
    game = models.CharField(max_length=40)
    players = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    options = models.JSONField(default=dict, blank=True)
    engine_version = models.CharField(max_length=20)
    seats = models.JSONField(default=list)
    person_seat = models.PositiveSmallIntegerField()
    bots: models.ManyToManyField[Bot, Any] = models.ManyToManyField("Bot", related_name="tables", blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    moves = models.JSONField(default=list, blank=True)
    move_count = models.PositiveIntegerField(default=0)
    pending = models.JSONField(null=True, blank=True)
    pending_index = models.PositiveIntegerField(null=True, blank=True)
    clock_seconds = models.PositiveIntegerField()
    deadline = models.DateTimeField(null=True, blank=True, help_text="When the person's current decision's clock ends.")
    # The claim (``Leased``; league/core/leases.py): a running table whose lease ran out lost its worker, and is
    # queued again or ended so that it does not hold one of the HUMAN_TABLES_MAX places forever.
    # The person's clock ran out, or they resigned: they forfeited, and the built-in random player plays their seat to
    # the end.
    forfeited_at = models.DateTimeField(null=True, blank=True)
    resigned = models.BooleanField(default=False, help_text="The person resigned (rather than running out of time).")
    result = models.JSONField(default=dict, blank=True)
    replay_data = models.BinaryField(null=True, blank=True, editable=False)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner", "created"], name="table_owner_created")]

    def __str__(self) -> str:
        return f"table {self.pk} ({self.game})"

    def get_absolute_url(self) -> str:
        return reverse("table", args=[self.pk])

    def is_finalized(self) -> bool:
        return self.status in self.Status.finalized()

    @property
    def replay(self) -> dict[str, Any] | None:
        return unpack_replay(self.replay_data)
