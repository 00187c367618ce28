"""The live publisher: a running match's moves, written for spectators as they are played (docs/live.md).

``bots.runner`` calls the observer after every decision on the match's own thread; this one writes at most every
``LIVE_MATCH_INTERVAL_MS`` (one small UPDATE), so a fast game costs a few writes a second and a slow one (bots that
think) one write per move. It never raises: a database that blinks costs the spectators a frame, never the match.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import Error  # any database error, InterfaceError included (it is no DatabaseError)

from league.services import watch

log = logging.getLogger(__name__)
# Each publish rewrites the whole move list (a few KiB for our games' ~40-200 decisions): past this many a game's
# spectators keep its last frame rather than the worker writing ever larger rows (the engines allow 20,000).
LIVE_MOVES_MAX = 2_000


class LivePublisher:
    """``bots.runner.MoveObserver`` for one match: publishes its moves, throttled."""

    def __init__(self, match_id: int, interval_ms: int | None = None) -> None:
        self.match_id = match_id
        self.interval = (settings.LIVE_MATCH_INTERVAL_MS if interval_ms is None else interval_ms) / 1000
        self.next_at = 0.0
        self.published = -1
        self.writes = 0
        self.failed = False

    def __call__(self, moves: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        if now < self.next_at or len(moves) == self.published or len(moves) > LIVE_MOVES_MAX:
            return
        self.next_at = now + self.interval
        try:
            watch.do_publish(self.match_id, moves)
        except Error as error:
            if not self.failed:  # once per match: the log must not fill up with one blink's echoes
                log.warning("match %s: live moves not published: %s", self.match_id, error)
            self.failed = True
            return
        self.published = len(moves)
        self.writes += 1


def publisher(match_id: int) -> LivePublisher | None:
    """The match's publisher, or None when live publishing is off (``LIVE_MATCH_INTERVAL_MS`` = 0)."""
    return LivePublisher(match_id) if settings.LIVE_MATCH_INTERVAL_MS > 0 else None


def clear(match_id: int) -> None:
    """Drop the live moves of a recorded (or given back) match; best effort, as publishing is."""
    try:
        watch.do_clear(match_id)
    except Error as error:
        log.warning("match %s: live moves not cleared: %s", match_id, error)
