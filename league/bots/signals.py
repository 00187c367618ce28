"""What happens to bots that later features act on, without bots importing them (league/apps.py connects them)."""

from __future__ import annotations

from django.dispatch import Signal

# A version has just become its bot's ready version; sent inside the validation's transaction with ``version``, so
# what a receiver writes (the ladder's placement burst) commits with it or not at all.
version_ready = Signal()
