"""A league match being played, as its worker publishes it for spectators (league/live/watch.py, docs/live.md)."""

from __future__ import annotations

from django.db import models


class LiveMatch(models.Model):
    """The moves of a running match so far, written by its worker (throttled: ``LIVE_MATCH_INTERVAL_MS``).

    ``moves`` holds the replay's seat, action and auto flag of each decision: never the bots' notes or timings. The
    actions are never sent to anyone while the match runs (some would give a hand away): the web process rebuilds
    the state with the engine and shows its public view only. The row is deleted once the match is recorded."""

    match = models.OneToOneField("Match", on_delete=models.CASCADE, primary_key=True, related_name="live")
    moves = models.JSONField(default=list)
    move_count = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"live match {self.pk} ({self.move_count} moves)"
