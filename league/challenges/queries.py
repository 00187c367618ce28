"""Challenges and version tests as their owner reads them: the list, and each one's results so far."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from bots.authoring.sprt import SPRT, Estimate, Tally, elo_estimate
from league.bots.models import Bot, BotVersion
from league.challenges.models import Challenge
from league.core.errors import HOUR
from league.play.models import Match, Seat

# The version test's sequential test (fishtest's default bounds): shown with its results, never used to stop early.
VERSION_TEST_SPRT = SPRT(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05)
PLAYED = (BotVersion.Status.READY, BotVersion.Status.RETIRED)  # versions that passed validation


def previous_version(bot: Bot, version: BotVersion) -> BotVersion | None:
    """The newest version before ``version`` that passed validation: what a version test compares against."""
    return bot.versions.filter(number__lt=version.number, status__in=PLAYED).order_by("-number").first()


# ----- results ------------------------------------------------------------------------------------------------------


def challenges_for(user: AbstractBaseUser) -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(owner_id=user.pk)
        .select_related("version__bot__owner", "owner")
        .annotate(
            finished=Count("matches", filter=Q(matches__status=Match.Status.FINISHED)),
            failed=Count("matches", filter=Q(matches__status=Match.Status.FAILED)),
        )
    )


@dataclass
class OpponentRow:
    """The owner's seat against one opponent version: results from the owner's side."""

    version: BotVersion
    seats: int  # how many of the table's seats it holds
    tally: Tally = field(default_factory=Tally)

    @property
    def estimate(self) -> Estimate | None:
        return elo_estimate(self.tally.wins, self.tally.draws, self.tally.losses)

    @property
    def score_percent(self) -> float | None:
        return None if self.tally.score is None else self.tally.score * 100


@dataclass
class Report:
    challenge: Challenge
    versions: dict[int, BotVersion]
    rows: list[OpponentRow]
    finished: int = 0
    failed: int = 0
    in_flight: int = 0
    faults: int = 0  # the owner's seat faulted
    time_ms: int = 0
    moves: int = 0
    matches: list[Match] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.in_flight == 0

    @property
    def status(self) -> str:
        return "finished" if self.done else "running"

    @property
    def sprt(self) -> dict[str, object] | None:
        """For a version test: the sequential test's state on the games so far (new version against the old)."""
        if self.challenge.kind != Challenge.Kind.VERSION_TEST or not self.rows:
            return None
        tally = self.rows[0].tally
        test = VERSION_TEST_SPRT
        verdict = test.verdict(tally.wins, tally.draws, tally.losses) if tally.games else None
        return {
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "llr": round(test.llr(tally.wins, tally.draws, tally.losses), 3),
            "lower": round(test.lower, 3),
            "upper": round(test.upper, 3),
            "verdict": verdict,
            "conclusion": _conclusion(verdict, tally.games),
        }


def _conclusion(verdict: str | None, games: int) -> str:
    test = VERSION_TEST_SPRT
    if verdict == "H1":
        return f"H1 accepted after {games} games: the new version is stronger (by about {test.elo1:g} Elo or more)"
    if verdict == "H0":
        return f"H0 accepted after {games} games: the new version is not stronger than the previous one"
    return (
        f"No verdict after {games} games: the evidence is not yet strong enough either way "
        "(python -m bots compare keeps playing until it is)"
    )


def challenge_report(challenge: Challenge) -> Report:
    """The challenge's results so far: one row per distinct opponent version, in table order."""
    ids = [challenge.version_id, *challenge.opponents]
    versions = {v.pk: v for v in BotVersion.objects.select_related("bot__owner").filter(pk__in=set(ids))}
    rows: dict[int, OpponentRow] = {}
    for version_id in challenge.opponents:
        if version_id in rows:
            rows[version_id].seats += 1
        else:
            rows[version_id] = OpponentRow(versions[version_id], 1)
    # Seats without the (possibly long) stderr: the results need ranks and faults only.
    without_stderr = Prefetch("seats", queryset=Seat.objects.defer("stderr").order_by("number"))
    matches = list(challenge.matches.order_by("id").prefetch_related(without_stderr))
    result = Report(challenge, versions, list(rows.values()), matches=matches)
    for match in matches:
        if match.status == Match.Status.FINISHED:
            result.finished += 1
        elif match.status == Match.Status.FAILED:
            result.failed += 1
            continue
        else:
            result.in_flight += 1
            continue
        seats = list(match.seats.all())
        mine = next(seat for seat in seats if seat.bot_version_id == challenge.version_id)
        result.faults += bool(mine.fault)
        result.time_ms += mine.time_ms
        result.moves += mine.moves
        for seat in seats:
            if seat is mine or seat.rank is None or mine.rank is None:
                continue
            rows[seat.bot_version_id].tally.add_ranks(mine.rank, seat.rank)
    return result


def games_in_last_hour(user: AbstractBaseUser) -> int:
    since = timezone.now() - HOUR
    return Challenge.objects.filter(owner_id=user.pk, created__gt=since).aggregate(n=Sum("games"))["n"] or 0
