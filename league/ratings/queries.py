"""Read-side queries shared by the pages and the API: each answers in a fixed, small number of SQL queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery, Window
from django.db.models.functions import Rank
from django_stubs_ext import WithAnnotations

from league.bots.models import Bot, BotVersion
from league.play.models import Match, Seat, fault_label
from league.ratings.models import FitSnapshot, FittedRating, Rating, RatingChange

# Leaderboard sort keys: (ORM field, descending unless reversed). Ties go to the higher fitted Elo, then the higher
# online Elo (which orders bots not fitted yet), then the older bot.
SORTS: dict[str, tuple[str, bool]] = {
    "elo": ("fitted__elo", True),
    "interval": ("fitted__sigma", False),  # the narrowest interval first
    "games": ("rating__games", True),
    "wins": ("rating__wins", True),
    "last": ("rating__last_match_at", True),
    "name": ("name", False),
}


def leaderboard(game: str, sort: str = "elo", reverse: bool = False) -> QuerySet[Bot]:
    """The ranked bots of ``game``: on the ladder (active), with a ready version and at least one rated game; best
    fitted Elo first unless sorted otherwise (bots not fitted yet after them, by online Elo). A bot still being
    validated, rejected, or not yet played is not ranked: a 1500 it never earned would sit above bots that have
    played (``not_ranked`` lists the new ones apart).

    Each bot carries ``fitted`` (its ``FittedRating``; none before its first fit), ``position`` (its rank among the
    ranked bots alone, ties shared: the window runs after the WHERE) and ``newest_version`` (its newest ready
    version)."""
    field, descending = SORTS.get(sort, SORTS["elo"])
    descending = descending != reverse
    newest = BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY).order_by("-number")
    order = F(field).desc(nulls_last=True) if descending else F(field).asc(nulls_last=True)
    if field == "fitted__elo":  # bots not fitted yet by online Elo, in the same direction
        ties = [order, "-rating__elo" if descending else "rating__elo", "id"]
    else:
        ties = [order, F("fitted__elo").desc(nulls_last=True), "-rating__elo", "id"]
    return (
        Bot.objects.filter(game=game, is_active=True, rating__games__gt=0)
        .filter(Exists(_ready_versions()))
        .select_related("owner", "rating", "fitted")
        .annotate(
            position=Window(Rank(), order_by=[F("fitted__elo").desc(nulls_last=True), F("rating__elo").desc()]),
            newest_version=Subquery(newest.values("number")[:1]),
        )
        .order_by(*ties)
    )


NOT_RANKED_SHOWN = 50  # the newest of them; a ladder has few at a time


def not_ranked(game: str) -> list[Bot]:
    """Bots of ``game`` on the ladder that are ready but have not played a rated game yet, newest first: listed apart
    from the leaderboard, as "new". Bots being validated or rejected are not listed (their owners see them on their
    own pages)."""
    return list(
        Bot.objects.filter(game=game, is_active=True)
        .filter(Q(rating__isnull=True) | Q(rating__games=0))
        .filter(Exists(_ready_versions()))
        .select_related("owner")
        .order_by("-id")[:NOT_RANKED_SHOWN]
    )


def _ready_versions() -> QuerySet[BotVersion]:
    return BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)


def with_total(bots: QuerySet[Bot]) -> QuerySet[Bot]:
    """``bots`` (from ``leaderboard``), each carrying ``total``: the number of rows of the whole list. A window, like
    the rank, so one LIMIT/OFFSET query brings a page and the count a paginator needs."""
    return bots.annotate(total=Window(Count("pk")))


@dataclass
class BoardRow:
    """One leaderboard line, the same for the page and the API."""

    position: int
    bot: Bot
    rating: Rating
    fitted: FittedRating | None  # None before the game's first fit that saw this bot
    provisional: bool

    @property
    def rank_range(self) -> str:
        """For example "2nd to 5th" (with an en dash); "" when not fitted, or off the ladder at the fit."""
        fitted = self.fitted
        if fitted is None or not fitted.rank:
            return ""
        if fitted.rank_low == fitted.rank_high:
            return ordinal(fitted.rank_low)
        return f"{ordinal(fitted.rank_low)}\u2013{ordinal(fitted.rank_high)}"

    @property
    def paused(self) -> bool:
        return self.bot.paused_at is not None

    @property
    def win_percent(self) -> float | None:
        return 100.0 * self.rating.wins / self.rating.games if self.rating.games else None


def board_rows(bots: Any) -> list[BoardRow]:
    """Rows for bots from ``leaderboard`` (a page of them, or all)."""
    rows = []
    for bot in bots:
        rating = bot.rating
        # Provisional while few games since the newest version, and also once a newer version is ready but has
        # not played yet (its first rated match will reset the count).
        provisional = rating.provisional or (bot.newest_version or 0) > rating.version
        rows.append(BoardRow(bot.position, bot, rating, getattr(bot, "fitted", None), provisional))
    return rows


class Change(NamedTuple):
    match_id: int
    before: float
    after: float
    variance: float
    created: datetime


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, …"""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class FitPoint(NamedTuple):
    at: datetime
    elo: float
    low: float
    high: float
    games: int
    version: int


def fit_history(bot: Bot) -> list[FitPoint]:
    """``bot``'s fitted Elo over time (one point per fit that moved it), oldest first: one query, plain tuples."""
    rows = FitSnapshot.objects.filter(bot=bot).order_by("id")
    return [FitPoint(*row) for row in rows.values_list("at", "elo", "low", "high", "games", "version")]


def rating_history(bot: Bot) -> list[Change]:
    """Every rating change of ``bot``, oldest first: one query, plain tuples (a busy bot has thousands)."""
    rows = RatingChange.objects.filter(bot=bot).order_by("id")
    return [Change(*row) for row in rows.values_list("match_id", "before", "after", "variance", "created")]


@dataclass
class HeadToHead:
    opponent_id: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    last_match: datetime | None

    @property
    def score_percent(self) -> float:
        """Pair points per game (win 1, draw ½), as a percentage: the Elo sense of a result."""
        return 100.0 * (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def head_to_head(bot: Bot) -> list[HeadToHead]:
    """``bot``'s results against each opponent it has met in finished matches, by pairs of seats (most met first).

    In a multiplayer match every other seat is one opponent: a better rank is a win against it, an equal rank a
    draw. One query, written to start from ``bot``'s own seats (its version, then its seats, then the other seats of
    those matches), which both PostgreSQL and SQLite then follow by index; the pair of ``bot`` with itself comes
    back too and is dropped here."""
    theirs = "match__seats__"
    rows = (
        Seat.objects.filter(bot_version__bot=bot, match__status=Match.Status.FINISHED)
        .values(
            opponent=F(theirs + "bot_version__bot_id"),
            opponent_name=F(theirs + "bot_version__bot__name"),
            opponent_owner=F(theirs + "bot_version__bot__owner__username"),
        )
        .annotate(
            games=Count("id"),
            wins=Count("id", filter=Q(rank__lt=F(theirs + "rank"))),
            draws=Count("id", filter=Q(rank=F(theirs + "rank"))),
            losses=Count("id", filter=Q(rank__gt=F(theirs + "rank"))),
            last_match=Max("match__finished_at"),
        )
        .order_by("-games", "opponent")
    )
    return [
        HeadToHead(
            opponent_id=row["opponent"],
            name=f"{row['opponent_owner']}/{row['opponent_name']}",
            games=row["games"],
            wins=row["wins"],
            draws=row["draws"],
            losses=row["losses"],
            last_match=row["last_match"],
        )
        for row in rows
        if row["opponent"] != bot.pk
    ]


def fault_counts(bot: Bot) -> list[tuple[str, str, int]]:
    """(cause, its description, count) of ``bot``'s faults in finished matches, most frequent first."""
    rows = (
        Seat.objects.filter(bot_version__bot=bot, match__status=Match.Status.FINISHED)
        .exclude(fault="")
        .values_list("fault")
        .annotate(n=Count("id"))
        .order_by("-n", "fault")
    )
    return [(cause, fault_label(cause), n) for cause, n in rows]


class VersionGames(TypedDict):
    games: int


def versions_with_games(bot: Bot) -> QuerySet[WithAnnotations[BotVersion, VersionGames]]:
    """``bot``'s versions, newest first, each with ``games``: its finished matches."""
    return (
        BotVersion.objects.filter(bot=bot)
        .defer("archive")
        .annotate(games=Count("seats", filter=Q(seats__match__status=Match.Status.FINISHED)))
        .order_by("-number")
    )
