"""Matches as people read them: the match index's filters and pages (finished matches, newest first), and each
seat's result in words ("won", "2nd of 3", "lost"), the result of the bot in focus first.

Which matches a user may see at all is the web layer's rule (league/site/visibility.py): these functions take the
visible matches as a queryset and narrow them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from league.bots.models import Bot
from league.play.models import Match, Seat, fault_label
from league.ratings.queries import ordinal
from league.ratings.rated import rated_matches

PAGE_SIZE = 25  # matches on one page of the index; the page never grows with the history

# A match list shows who sat where, never their code (an archive is up to 1 MiB a seat) nor their logs.
NOT_SHOWN = ("bot_version__archive", "bot_version__validation_log", "bot_version__validation_stderr")


def with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    """``matches`` with their seats, bots and owners, in seat order, and their tournament: a list in three queries."""
    seats = Seat.objects.select_related("bot_version__bot__owner").defer(*NOT_SHOWN).order_by("number")
    return matches.select_related("round__tournament").prefetch_related(Prefetch("seats", queryset=seats))


# ----- the index's filters -------------------------------------------------------------------------------------------

# A seat's result as the result filter reads it: won alone, shared first place, or a place behind the first.
_OTHER_FIRST = Seat.objects.filter(match_id=OuterRef("match_id"), rank=1).exclude(pk=OuterRef("pk"))
RESULTS: dict[str, Q] = {
    "won": Q(~Exists(_OTHER_FIRST), rank=1),
    "drew": Q(Exists(_OTHER_FIRST), rank=1),
    "lost": Q(rank__gt=1),
}


@dataclass(frozen=True)
class MatchFilters:
    """What the index is narrowed to; None: not narrowed. ``result`` (a key of RESULTS) reads ``bot``'s seats."""

    game: str | None = None
    bot: int | None = None
    owner: int | None = None
    result: str | None = None
    rated: bool | None = None
    tournament: int | None = None


def finished_matches(visible: QuerySet[Match], filters: MatchFilters) -> QuerySet[Match]:
    """The finished matches of ``visible`` that pass ``filters``, not yet ordered or paged (``page_of`` does both).
    A bot's or an owner's matches are found from their seats, without a join that would repeat a match with two
    seats of the same bot (a version test)."""
    matches = visible.filter(status=Match.Status.FINISHED)
    if filters.game is not None:
        matches = matches.filter(game=filters.game)
    if filters.bot is not None:
        seats = Seat.objects.filter(bot_version__bot_id=filters.bot)
        if filters.result is not None:
            seats = seats.filter(RESULTS[filters.result])
        matches = matches.filter(pk__in=seats.values("match_id"))
    if filters.owner is not None:
        owned = Seat.objects.filter(bot_version__bot__owner_id=filters.owner)
        matches = matches.filter(pk__in=owned.values("match_id"))
    if filters.rated is not None:
        matches = matches.filter(rated_matches()) if filters.rated else matches.exclude(rated_matches())
    if filters.tournament is not None:
        matches = matches.filter(round__tournament_id=filters.tournament)
    return matches


# ----- pages ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One page of matches, newest first, and where the pages beside it start: ``newer`` for ``?after=``, ``older``
    for ``?before=`` (None: there is none)."""

    matches: list[Match]
    newer: int | None
    older: int | None


def page_of(
    matches: QuerySet[Match], *, before: int | None = None, after: int | None = None, size: int = PAGE_SIZE
) -> Page:
    """The page of ``matches`` just older than match ``before``, just newer than match ``after``, or the newest.

    Pages by position (an id: ids grow as matches are created), not by number: each page is one range scan of the
    primary key however long the history is, with no COUNT(*), and a page stays put while new matches arrive at the
    head. A page newer than the newest full page is the newest page."""
    if after is not None:
        rows = list(with_seats(matches.filter(pk__gt=after)).order_by("id")[: size + 1])
        if len(rows) <= size:
            return page_of(matches, size=size)
        shown = rows[:size][::-1]
        return Page(shown, newer=shown[0].pk, older=shown[-1].pk if _has(matches, pk__lt=shown[-1].pk) else None)
    older_than = matches.filter(pk__lt=before) if before is not None else matches
    rows = list(with_seats(older_than).order_by("-id")[: size + 1])
    shown = rows[:size]
    newer = shown[0].pk if before is not None and shown and _has(matches, pk__gt=shown[0].pk) else None
    return Page(shown, newer=newer, older=shown[-1].pk if len(rows) > size else None)


def _has(matches: QuerySet[Match], **position: int) -> bool:
    return matches.filter(**position).exists()


# ----- results in words ----------------------------------------------------------------------------------------------


def result_words(rank: int | None, ranks: Sequence[int | None]) -> tuple[str, str]:
    """A seat's result among ``ranks`` (competition ranking: 1, 2, 2, 4), as words and as its kind, for the styles:
    ("won", "won"), ("drew", "drew"), ("shared 1st of 3", "drew"), ("lost", "lost") between two, ("2nd of 3",
    "placed") between the first and the last, ("3rd of 3", "lost"); ("", "") before the match has finished."""
    if rank is None:
        return "", ""
    players, sharing = len(ranks), sum(1 for other in ranks if other == rank)
    if rank == 1:
        if sharing == 1:
            return "won", "won"
        return ("drew", "drew") if sharing == players else (f"shared 1st of {players}", "drew")
    if players == 2:
        return "lost", "lost"
    last = rank + sharing - 1 == players
    return f"{'shared ' if sharing > 1 else ''}{ordinal(rank)} of {players}", "lost" if last else "placed"


@dataclass(frozen=True)
class SeatLine:
    """One seat of a match list's row: its bot and version, its result in words and its fault, if any."""

    seat: Seat
    result: str
    outcome: str  # "won", "drew", "placed", "lost" or "" (not finished): for the styles
    fault: str

    @property
    def bot(self) -> Bot:
        return self.seat.bot_version.bot

    @property
    def version(self) -> int:
        return self.seat.bot_version.number

    @property
    def seat_number(self) -> int:
        """Counted from 1, as people count (the protocol and the API count from 0)."""
        return self.seat.number + 1


@dataclass(frozen=True)
class MatchRow:
    """A match as a list shows it: the seats of the bot in focus first (none without a focus), then the others, in
    seat order."""

    match: Match
    focus: list[SeatLine] = field(default_factory=list)
    others: list[SeatLine] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.match.status == Match.Status.FINISHED


def match_rows(matches: Iterable[Match], focus: int | None = None) -> list[MatchRow]:
    """Rows of ``matches`` (loaded ``with_seats``), each seat's result in words; ``focus``, a bot's id, puts that
    bot's seats first (a bot's page, the index filtered by a bot)."""
    rows = []
    for match in matches:
        seats = list(match.seats.all())
        finished = match.status == Match.Status.FINISHED
        ranks = [seat.rank for seat in seats]
        lines = [
            SeatLine(seat, *(result_words(seat.rank, ranks) if finished else ("", "")), fault_text(seat))
            for seat in seats
        ]
        row = MatchRow(match)
        for line in lines:
            (row.focus if focus is not None and line.seat.bot_version.bot_id == focus else row.others).append(line)
        rows.append(row)
    return rows


def fault_text(seat: Seat) -> str:
    return fault_label(seat.fault) if seat.fault else ""
