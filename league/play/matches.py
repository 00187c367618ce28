"""Matches: creating them, and the claims (leases) by which workers play them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.registry import GAMES
from league.bots.models import BotVersion
from league.core import leases, outbox
from league.play import worker_budget
from league.play.models import Match, Seat


def do_create_match(
    game: str,
    versions: list[BotVersion],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    kind: str = Match.Kind.LADDER,
    time_control: dict[str, int] | None = None,
) -> Match:
    """A queued match with ``versions`` in seat order; ``run_match`` is enqueued when the transaction commits."""
    spec = GAMES[game]
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            kind=kind,
            options=options or {},
            engine_version=spec.version,
            seed=secrets.randbits(31) if seed is None else seed,
            time_control=time_control or {},
        )
        Seat.objects.bulk_create(
            Seat(match=match, number=number, bot_version=version) for number, version in enumerate(versions)
        )
        outbox.enqueue(outbox.RUN_MATCH_TASK, match.pk)
    return match


# ----- claims: which worker runs a match, and for how long -----------------------------------
# A claim is a lease (league/core/leases.py, the same rules for every kind of queued work): matches wait
# ``queued`` and are held ``running``.


class _Matches(leases.Queue[Match]):
    model = Match
    task = outbox.RUN_MATCH_TASK
    noun, plural, working = "match", "matches", "running"

    def waiting(self) -> Q:
        return Q(status=Match.Status.QUEUED)

    def holding(self) -> Q:
        return Q(status=Match.Status.RUNNING)

    def lapsed(self, now: datetime) -> Q:
        # (or, claimed before leases existed, claimed longer than a lease ago)
        stale = now - timedelta(seconds=settings.MATCH_STALE_SECONDS)
        return self.holding() & (Q(lease_until__lt=now) | Q(lease_until__isnull=True, claimed_at__lt=stale))

    def claimed_fields(self, now: datetime, worker: str) -> dict[str, Any]:
        return {"status": Match.Status.RUNNING, "claimed_by": worker[:200], "claimed_at": now}

    def waiting_fields(self) -> dict[str, Any]:
        return {"status": Match.Status.QUEUED, "claimed_by": "", "claimed_at": None}

    def noted(self, row: Match, error: str) -> dict[str, Any]:
        return {"error": error[-2000:]}

    def last_error(self, row: Match) -> str:
        return row.error

    def end(self, row: Match, reason: str) -> None:
        row.status, row.finished_at, row.error = Match.Status.FAILED, timezone.now(), reason[-2000:]
        row.claim_token, row.lease_until = "", None
        row.save(update_fields=["status", "finished_at", "error", "claim_token", "lease_until"])
        tournament_game_over(row)


MATCHES = _Matches()


@dataclass(frozen=True)
class ClaimedSeat:
    """One seat of a claimed match, as the worker needs it: which version sits there (not its archive: up to 1 MiB,
    fetched by the worker only on its machine's first sight of the version) and who it is."""

    number: int
    version_id: int
    label: str
    builtin: str  # the built-in player's name; "" for an uploaded bot
    remote_bot: int | None = None  # the bot's id when the version is remote (played from its owner's machine)


@dataclass(frozen=True)
class ClaimedGame:
    match_id: int
    seed: int
    options: dict[str, Any]
    attempts: int  # this claim's attempt at the game


@dataclass(frozen=True)
class ClaimedSeries:
    """What a worker holds under ``claim_token`` until ``lease_until`` (renewed while it plays): the games of a series
    still to play, in play order, or a lone match — a series of one (``series_id`` None) — and the seats they share."""

    series_id: int | None
    claim_token: str
    claimed_by: str
    claimed_at: datetime
    lease_until: datetime
    game: str
    time_control: dict[str, int]
    games: tuple[ClaimedGame, ...]
    seats: tuple[ClaimedSeat, ...]

    @property
    def attempts(self) -> int:
        """Which attempt this is (at the most tried of its games)."""
        return max(game.attempts for game in self.games)

    @property
    def match_ids(self) -> list[int]:
        return [game.match_id for game in self.games]


def claim_games(
    which: Q, worker: str = "", claim_token: str | None = None, series_id: int | None = None
) -> ClaimedSeries | None:
    """The one claim of games to play (a lone match, or a series' games still to play: ``series_id``): one UPDATE,
    one token (``leases.claim``). None when there is nothing to play: nothing was claimable, a game claimed beyond
    MATCH_MAX_ATTEMPTS fails instead, and a placement or challenge game whose owner's worker time is spent goes back
    to wait (``worker_budget``; not for ``claim_token``, this worker's own retry)."""
    claim = leases.claim(MATCHES, which, worker, claim_token)
    if not claim.claimed:
        return None
    mine = Match.objects.filter(which, status=Match.Status.RUNNING, claim_token=claim.token)
    # One query for the games and what the worker needs to play them: their seats, versions, bots and owners (not the
    # archives: up to 1 MiB a seat, unpacked once per machine).
    seats = list(
        Seat.objects.filter(match__in=mine.values("pk"))
        .select_related("match", "bot_version__bot__owner")
        .defer("bot_version__archive", "match__replay_data")
        .order_by("match_id", "number")
    )
    if not seats:
        return None
    matches = list({seat.match_id: seat.match for seat in seats}.values())
    if claim_token is None:
        retry_at = worker_budget.spent_until(mine, matches[0].kind)
        if retry_at is not None:
            leases.requeue_untried(MATCHES, mine, retry_at)
            return None
    playable = [match for match in matches if not leases.gave_up(MATCHES, match)]
    if not playable:
        return None
    first = playable[0]
    return ClaimedSeries(
        series_id=series_id,
        claim_token=claim.token,
        claimed_by=worker[:200],
        claimed_at=claim.at,
        lease_until=claim.lease_until,
        game=first.game,
        time_control=dict(first.time_control),
        games=tuple(ClaimedGame(match.pk, match.seed, dict(match.options), match.attempts) for match in playable),
        seats=tuple(
            ClaimedSeat(
                seat.number,
                seat.bot_version_id,
                seat.bot_version.label,
                seat.bot_version.builtin,
                seat.bot_version.bot_id if seat.bot_version.remote else None,
            )
            for seat in seats
            if seat.match_id == first.pk
        ),
    )


def do_claim_match(match_id: int, worker: str = "", claim_token: str | None = None) -> ClaimedSeries | None:
    """Claim one match for this worker, a series of one (``claim_games``); None when there is nothing for it to do.

    The match must be queued, or running under a lease that ran out (its worker died), or held under ``claim_token``
    (this worker's own retry). Every claim counts as an attempt; a claim beyond MATCH_MAX_ATTEMPTS fails the match,
    with the last reason, instead."""
    return claim_games(Q(pk=match_id), worker, claim_token)


# How many of the longest-waiting due matches ``do_claim_next_match`` tries before giving up (others may take them).
CLAIM_NEXT_CANDIDATES = 4


def do_claim_next_match(worker: str = "") -> ClaimedSeries | None:
    """Claim the queued match that has waited longest and is due (not backing off after a failure), as
    ``do_claim_match`` does; None when there is none, or other workers took them first.

    A worker that has just played a match claims its next one here, without waiting for that match's own message:
    the message then finds nothing to claim (docs/decisions.md, "A worker plays on")."""
    # (A series' games are claimed together, by league.play.series: never one by one here.)
    due = Match.objects.filter(
        status=Match.Status.QUEUED, enqueued_at__lte=timezone.now(), series__isnull=True
    ).order_by("enqueued_at", "pk")
    for match_id in due.values_list("pk", flat=True)[:CLAIM_NEXT_CANDIDATES]:
        match = do_claim_match(match_id, worker)
        if match is not None:
            return match
    return None


def do_renew_lease(match_id: int, claim_token: str) -> bool:
    """Extend this worker's lease on a match it is playing; False when the claim is no longer its own."""
    return leases.renew(MATCHES, Q(pk=match_id), claim_token) == 1


def do_renew_claim(claimed: ClaimedSeries) -> bool:
    """Extend this worker's lease on the games it claimed; False when it holds none of them any more."""
    return bool(leases.renew(MATCHES, Q(pk__in=claimed.match_ids), claimed.claim_token))


def do_release_match(match_id: int, error: str, claim_token: str | None = None) -> Match:
    """An attempt failed for a reason outside the bots (infrastructure): queue the match again after a back-off
    (``leases.retry_delay``), or fail it for good after MATCH_MAX_ATTEMPTS. Nothing happens if the claim is not
    ``claim_token`` any more (when given) or the match is not running. Returns the match as it is now."""
    leases.release(MATCHES, match_id, error, claim_token)
    return Match.objects.get(pk=match_id)


def do_fail_match(match_id: int, reason: str, claim_token: str | None = None) -> bool:
    """Fail a running match at once, with the reason (not retried: a bug, or attempts exhausted). False when the
    claim is not ``claim_token`` any more (when given) or the match is not running."""
    return leases.fail(MATCHES, match_id, reason, claim_token)


def do_requeue_stale_matches() -> list[int]:
    """The sweeper's round for matches (``leases.sweep``): a running match whose lease ran out (its worker died:
    killed, out of memory, machine gone) is queued again after the back-off, or failed after MATCH_MAX_ATTEMPTS; a
    queued match whose last message is older than MATCH_RESEND_SECONDS is sent again (the broker may have lost it).
    Returns the ids of the matches re-queued or sent again."""
    return leases.sweep(MATCHES)


def tournament_game_over(match: Match) -> None:
    """A tournament game is finalized: its round may be complete (league.tournaments.services advances it,
    idempotently)."""
    if match.round is not None:
        outbox.enqueue(outbox.ADVANCE_TOURNAMENT_TASK, match.round.tournament_id)
