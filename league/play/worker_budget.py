"""Worker time per owner: what the work an owner asks for (their versions' placement, their challenges) cost the
workers in the last hour, against FAIR_USE_WORKER_SECONDS_PER_HOUR (docs/decisions.md, "Time and worker budget").

Counted from the database, so every web process and worker sees the same: the recorded wall time (``Match.wall_ms``)
of the placement games of the owner's versions and of their challenges' games finished in the last hour, plus the
time so far of those running now (a slow series is counted while it plays, not only once it is recorded). Game
counts bound how many games an owner asks for; this bounds what they cost, so a slow bot buys slow service for its
owner and nobody else: over the budget, challenges (and tables) are refused with 429 and placement waits, and the
fair order between placing owners puts the one who spent least first.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.utils import timezone

from league.core.errors import HOUR, WorkerTimeRateLimited
from league.play.models import Match

log = logging.getLogger(__name__)

# The owner of a match's cost: the placing version's owner (placement), the challenger (challenges).
_PLACING_OWNER = "series__placing_version__bot__owner_id"
_CHALLENGER = "challenges__owner_id"


def budget_ms() -> int:
    return settings.FAIR_USE_WORKER_SECONDS_PER_HOUR * 1000


def _costs(owner_ids: Iterable[int], now: datetime) -> list[tuple[int, datetime, int]]:
    """(owner, when, ms) of every game of theirs that cost worker time in the hour before ``now``: finished games at
    their ``finished_at`` (a range scan of the ``finished_at`` index, the last hour only), and for each claim still
    playing (a series, or one game) the time since its claim or its last recorded game, dated ``now``."""
    ids = list(owner_ids)
    if not ids:
        return []
    since = now - HOUR
    costs: list[tuple[int, datetime, int]] = []
    playing: dict[str, tuple[int, datetime]] = {}  # claim token: (owner, since when it plays its current game)
    placement = Q(kind=Match.Kind.PLACEMENT, placing=True, **{f"{_PLACING_OWNER}__in": ids})
    challenge = Q(kind=Match.Kind.CHALLENGE, **{f"{_CHALLENGER}__in": ids})
    for owner_path, mine in ((_PLACING_OWNER, placement), (_CHALLENGER, challenge)):
        running = Match.objects.filter(mine, status=Match.Status.RUNNING, claimed_at__isnull=False)
        for owner, token, claimed in running.values_list(owner_path, "claim_token", "claimed_at"):
            playing[token] = (owner, claimed)
        finished = Match.objects.filter(mine, finished_at__gt=since, wall_ms__isnull=False)
        for owner, at, ms, token in finished.values_list(owner_path, "finished_at", "wall_ms", "claim_token"):
            costs.append((owner, at, ms))
            if token in playing and at > playing[token][1]:  # a series recorded game by game: counted from there
                playing[token] = (playing[token][0], at)
    for owner, started in playing.values():
        costs.append((owner, now, max(0, round((now - started).total_seconds() * 1000))))
    return costs


def spent_ms(owner_ids: Iterable[int], now: datetime | None = None) -> dict[int, int]:
    """Worker milliseconds each owner's placement and challenges cost in the last hour (0 for none)."""
    ids = list(owner_ids)
    spent = dict.fromkeys(ids, 0)
    for owner, _at, ms in _costs(ids, now or timezone.now()):
        spent[owner] += ms
    return spent


def free_at(owner_id: int, now: datetime | None = None) -> datetime | None:
    """None while the owner is under the budget; else when enough of the hour's costs will have aged out."""
    now = now or timezone.now()
    costs = sorted((at, ms) for _owner, at, ms in _costs([owner_id], now))
    used, limit = sum(ms for _at, ms in costs), budget_ms()
    if used < limit:
        return None
    for at, ms in costs:
        used -= ms
        if used < limit:
            return max(at + HOUR, now + timedelta(seconds=1))
    return now + HOUR  # (not reached: the running games' costs are dated now)


def spent_until(held: QuerySet[Match], kind: str, now: datetime | None = None) -> datetime | None:
    """(Just after a claim.) If the games ``held`` are placement or challenge games (``kind``) whose owner's worker
    time of the hour is spent, when it frees: the claimer puts them back to wait until then, their attempt not counted
    (the lanes and the sweeper take them up from then). A challenge accepted under the budget is so held to it too.
    Staff are exempt. Other games cost no query: the claim that just loaded them says their kind."""
    if kind == Match.Kind.PLACEMENT:
        owner_fields = (_PLACING_OWNER, "series__placing_version__bot__owner__is_staff")
    elif kind == Match.Kind.CHALLENGE:
        owner_fields = (_CHALLENGER, "challenges__owner__is_staff")
    else:
        return None
    row = held.values_list(*owner_fields).first()
    if row is None or row[0] is None or row[1]:
        return None
    retry_at = free_at(row[0], now)
    if retry_at is not None:
        log.info("owner %s: worker time of the hour spent; their games wait until %s", row[0], retry_at)
    return retry_at


def check_budget(owner: AbstractBaseUser, what: str) -> None:
    """Refuse (429, ``RateLimited``) work for ``owner`` while their worker time of the last hour is spent. Staff are
    exempt, as from the other fair-use limits (they seed and test the league)."""
    if getattr(owner, "is_staff", False):
        return
    retry_at = free_at(owner.pk)
    if retry_at is None:
        return
    raise WorkerTimeRateLimited(seconds=settings.FAIR_USE_WORKER_SECONDS_PER_HOUR, what=what, retry_at=retry_at)


__all__ = ["budget_ms", "check_budget", "free_at", "spent_ms", "spent_until"]
