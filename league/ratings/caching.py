"""Caches of the busiest pages' expensive parts, keyed on a fingerprint of the data they show.

A key holds a fingerprint of what the cached value was computed from, read by one cheap query before the value
itself: when a match of the game finishes, a bot is created, paused, resumed or taken off the ladder, or a version is
accepted, the fingerprint changes and the next request computes afresh. So a page never misses a result that another
page already reported finished, and no write path has to tell anyone to forget anything: a per-process cache
(LocMem) is as correct as a shared one. Old entries simply expire (``CACHES["pages"]``: a minute).

The fingerprints count as well as take maxima: a timestamp alone could miss the later commit of an earlier-stamped
write (two matches of one game recorded at once); a match leaving the set of queued and running matches cannot be
missed. Not covered, so seen within the minute of expiry: ``recompute_ratings --repair`` rewriting ratings, and
edits in the Django admin.

A bot page's recent matches are keyed on their ids and statuses, read in one query of 20 rows: a new match is a new
id, and a match's ranks and faults are written in the transaction that makes it finished.

Only data and visitor-independent HTML are cached: the navigation bar and the owner's buttons are rendered per
request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.core.cache import caches
from django.db import connection

from league.bots.models import Bot
from league.play.models import Match
from league.ratings.models import RatingFit

ALIAS = "pages"
T = TypeVar("T")

_IN_FLIGHT = (Match.Status.QUEUED.value, Match.Status.RUNNING.value)


def board_fingerprint(game: str | None) -> str:
    """What the leaderboard of ``game`` (of every game: None) shows, as a short digest: one query over three small,
    indexed sets.

    The game's bots (a new bot adds one and its id; a pause stamps ``paused_at``; a resume or an accepted version stamps
    ``fault_window_start``, and a resume clears a pause or counts one more active bot; taking a bot off the ladder
    counts one fewer), its queued and running matches (every recorded result takes one away: their count and sum of
    ids change, since a new match's id is larger than any old one's) and its latest finish. Who is ranked (a ready
    version and a rated game) and who is listed as new (ready, no rated game) change only with an accepted version or
    a finished match, both seen here; a rejected or pending version changes neither list. The fitted Elo changes
    with a new fit: the game's newest fit id."""
    bots, matches, fits = Bot._meta.db_table, Match._meta.db_table, RatingFit._meta.db_table
    where, args = ("game = %s AND ", [game]) if game is not None else ("", [])
    sql = (
        "SELECT b.n, b.ids, b.active, b.paused, b.last_paused, b.forgiven, m.n, m.ids, f.last, r.fit FROM "
        "(SELECT count(*) AS n, sum(id) AS ids, sum(CASE WHEN is_active THEN 1 ELSE 0 END) AS active, "
        "count(paused_at) AS paused, max(paused_at) AS last_paused, max(fault_window_start) AS forgiven "
        f"FROM {bots} WHERE {where}1 = 1) b, "
        f"(SELECT count(*) AS n, sum(id) AS ids FROM {matches} WHERE {where}status IN (%s, %s)) m, "
        f"(SELECT max(finished_at) AS last FROM {matches} WHERE {where}status = %s) f, "
        f"(SELECT max(id) AS fit FROM {fits} WHERE {where}1 = 1) r"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*args, *args, *_IN_FLIGHT, *args, Match.Status.FINISHED.value, *args])
        row = cursor.fetchone()
    return hashlib.blake2b(repr(row).encode(), digest_size=12).hexdigest()


def digest(data: object) -> str:
    """A short digest of ``data``'s ``repr``, for a fingerprint too long to put in a key as it is."""
    return hashlib.blake2b(repr(data).encode(), digest_size=12).hexdigest()


def cached(key: str, compute: Callable[[], T], timeout: int | None = None) -> T:
    """The value cached under ``key`` (which must contain a fingerprint), computed and stored on a miss."""
    cache = caches[ALIAS]
    value: Any = cache.get(key)
    if value is None:
        value = compute()
        if timeout is None:
            cache.set(key, value)
        else:
            cache.set(key, value, timeout)
    return cast(T, value)  # what compute() gave for this key
