"""The live publisher: a running match's moves, written for spectators as they are played (docs/live.md).

``bots.runner`` calls the observer after every decision on the match's own thread; this one writes at most every
``LIVE_MATCH_INTERVAL_MS`` (one small UPDATE), so a fast game costs a few writes a second and a slow one (bots that
think) one write per move. It never raises: a database that blinks costs the spectators a frame, never the match.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import Error  # any database error, InterfaceError included (it is no DatabaseError)

from league.live import watch

log = logging.getLogger(__name__)
# Each publish rewrites the whole move list (a few KiB for our games' ~40-200 decisions): past this many a game's
# spectators keep its last frame rather than the worker writing ever larger rows (the engines allow 20,000).
LIVE_MOVES_MAX = 2_000


@dataclass
class Throttle:
    """When the next write may be: one per publisher, or one shared by the games of a series."""

    interval: float  # seconds
    next_at: float = 0.0


class LivePublisher:
    """``bots.runner.MoveObserver`` for one match: publishes its moves, throttled."""

    def __init__(self, match_id: int, interval_ms: int | None = None, throttle: Throttle | None = None) -> None:
        self.match_id = match_id
        interval = (settings.LIVE_MATCH_INTERVAL_MS if interval_ms is None else interval_ms) / 1000
        self.throttle = throttle or Throttle(interval)
        self.published = -1
        self.writes = 0
        self.failed = False

    def __call__(self, moves: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        throttle = self.throttle
        if now < throttle.next_at or len(moves) == self.published or len(moves) > LIVE_MOVES_MAX:
            return
        throttle.next_at = now + throttle.interval
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
    return series_publishers([match_id])[0]


def series_publishers(match_ids: list[int]) -> list[LivePublisher | None]:
    """The publishers of a series' games, in play order, sharing one throttle: the series writes at most every
    LIVE_MATCH_INTERVAL_MS, not once per game (a short game of a series lasts a few ms, and a write per game would
    cost more than the game: about one write in 25 games of Love Letter is shown)."""
    if settings.LIVE_MATCH_INTERVAL_MS <= 0:
        return [None for _ in match_ids]
    throttle = Throttle(settings.LIVE_MATCH_INTERVAL_MS / 1000)
    return [LivePublisher(match_id, throttle=throttle) for match_id in match_ids]


def clear(*match_ids: int) -> None:
    """Drop the live moves of recorded (or given back) matches, in one statement; best effort, as publishing is."""
    try:
        watch.do_clear(*match_ids)
    except Error as error:
        log.warning("matches %s: live moves not cleared: %s", match_ids, error)
