"""What happens to matches that later features act on, without play importing them (league/apps.py connects them)."""

from __future__ import annotations

from django.dispatch import Signal

# Games of a series have just been recorded; sent inside the recording transaction with ``series_id`` (the ladder
# checks whether a placement burst is over).
series_recorded = Signal()
