"""Tournaments as the pages and the API read them, and the records the services advance them from.

``TournamentRecords`` loads one tournament's entries, rounds and games in a few queries, whatever its size; the
standings are computed from them (``standings``); ``describe_tournament`` is what a page or the API shows. The
writes are in ``league.tournaments.services``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet, Sum

from games.registry import GAMES
from league.play.models import Match, Seat
from league.ratings import caching
from league.tournaments import formats as tf
from league.tournaments.models import Entry, Round, Tournament


@dataclass
class TournamentRecords:
    """One tournament's records, loaded once per advance or page (a few queries however big it is)."""

    tournament: Tournament
    settings: tf.Settings
    min_players: int
    entries: dict[int, Entry]
    by_version: dict[int, int]
    rounds: list[Round]
    matches: dict[int, list[Match]] = field(default_factory=lambda: defaultdict(list))  # by round id

    @classmethod
    def load(cls, tournament: Tournament) -> TournamentRecords:
        spec = GAMES[tournament.game]
        checked = tf.parse_settings(tournament.settings, tournament.format, spec.min_players, spec.max_players)
        entries = {entry.pk: entry for entry in tournament.entries.select_related("bot__owner", "bot_version")}
        context = cls(
            tournament=tournament,
            settings=checked,
            min_players=spec.min_players,
            entries=entries,
            by_version={entry.bot_version_id: entry.pk for entry in entries.values() if entry.bot_version_id},
            rounds=list(tournament.rounds.order_by("number")),
        )
        for match in tournament_matches(round__tournament=tournament):
            if match.round_id is not None:  # (every one of them: they were selected by their round)
                context.matches[match.round_id].append(match)
        return context

    def add_matches(self, round_: Round, ids: list[int]) -> None:
        if ids:
            self.matches[round_.pk].extend(tournament_matches(pk__in=ids))

    @property
    def seeded(self) -> list[int]:
        return [e.pk for e in sorted(self.entries.values(), key=lambda e: (e.seed or 0, e.pk))]

    def forfeited(self) -> set[int]:
        return {entry_id for entry_id, entry in self.entries.items() if entry.forfeited}

    def entry_of(self, seat: Seat) -> int:
        return self.by_version[seat.bot_version_id]

    def ranks(self, match: Match) -> dict[int, int]:
        """A finished game's rank of each entrant at its table (every seat of a finished game has one)."""
        return {self.entry_of(seat): seat.rank for seat in match.seats.all() if seat.rank is not None}

    def table_matches(self, round_: Round) -> dict[int, list[Match]]:
        """The round's matches by table index (each entrant sits at one table per round)."""
        where = {entry: index for index, table in enumerate(round_.plan["tables"]) for entry in table["entries"]}
        tables: dict[int, list[Match]] = defaultdict(list)
        for match in self.matches.get(round_.pk, []):
            seats = list(match.seats.all())
            tables[where[self.entry_of(seats[0])]].append(match)
        return tables

    def weight(self, match: Match) -> float:
        return 1 / len(match.seats.all()) if self.settings.duplicate else 1.0

    def played(self) -> list[tf.Played]:
        results = []
        for round_ in self.rounds:
            tables = round_.plan.get("tables", [])
            for index, matches in self.table_matches(round_).items():
                for match in matches:
                    if match.status != Match.Status.FINISHED:
                        continue
                    ranks = self.ranks(match)
                    results.append(
                        tf.Played(round_.number, index, len(tables[index]["entries"]), ranks, self.weight(match))
                    )
            for index, table in enumerate(tables):
                if table.get("walkover"):
                    left = [e for e in table["entries"] if e not in table.get("absent", [])]
                    if left:
                        results.append(
                            tf.Played(
                                round_.number,
                                index,
                                len(table["entries"]),
                                dict.fromkeys(left, 1),
                                weight=table.get("games") or 1,
                                walkover=True,
                            )
                        )
        return results

    def seat_counts(self) -> Counter[tuple[int, int]]:
        counts: Counter[tuple[int, int]] = Counter()
        for matches in self.matches.values():
            for match in matches:
                for seat in match.seats.all():
                    counts[(self.entry_of(seat), seat.number)] += 1
        return counts


def tournament_matches(**where: Any) -> QuerySet[Match]:
    seats = Seat.objects.order_by("number").only("match_id", "number", "bot_version_id", "rank", "fault")
    return (
        Match.objects.filter(**where)
        .only("id", "round_id", "status", "seed", "finished_at", "created")
        .prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("id")
    )


# ----- standings ----------------------------------------------------------------------------------------------


def _bye_points(context: TournamentRecords) -> dict[int, float]:
    if context.tournament.format != Tournament.Format.SWISS:
        return {}
    points: dict[int, float] = {}
    for round_ in context.rounds:
        if round_.status != Round.Status.PENDING:
            for entry in round_.plan.get("byes", []):
                points[entry] = points.get(entry, 0) + context.settings.bye_points * context.settings.games_per_pairing
    return dict(points)


def _reached(context: TournamentRecords) -> dict[int, tuple[int, float]]:
    """Knockout: each entrant's furthest round (one past the final for the champion) and its points there."""
    reached: dict[int, tuple[int, float]] = {}
    for round_ in context.rounds:
        if round_.status == Round.Status.PENDING:
            continue
        for entry in round_.plan.get("byes", []):
            reached[entry] = (round_.number, 0.0)
        for table in round_.plan.get("tables", []):
            points = table.get("points", {})
            for entry in table["entries"]:
                reached[entry] = (round_.number, points.get(str(entry), 0.0))
            if "order" in table:  # the final: the champion one round further, the others by their place
                champion = table["order"][0]
                reached[champion] = (round_.number + 1, points.get(str(champion), 0.0))
    return reached


def standings(context: TournamentRecords) -> list[tf.Standing]:
    infos = [tf.EntryInfo(e.pk, e.seed or 0, e.forfeited) for e in context.entries.values()]
    reached = _reached(context) if context.tournament.format == Tournament.Format.KNOCKOUT else None
    return tf.standings(context.tournament.format, infos, context.played(), _bye_points(context), reached)


# ----- reading (pages and API) --------------------------------------------------------------------------------


@dataclass
class TableView:
    number: int
    entries: list[Entry]
    matches: list[Match]
    points: dict[int, float]
    advancers: list[int]
    absent: list[int]  # not seated: forfeited, or (``offline``) a remote bot not connected when the games were made
    offline: list[int]
    walkover: bool

    @property
    def scored(self) -> bool:
        return self.walkover or any(match.status == Match.Status.FINISHED for match in self.matches)

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "entry": entry,
                "points": self.points.get(entry.pk) if self.scored else None,
                "through": entry.pk in self.advancers,
                "absent": entry.pk in self.absent,
                "offline": entry.pk in self.offline,
            }
            for entry in self.entries
        ]


@dataclass
class RoundView:
    round: Round
    tables: list[TableView]
    byes: list[Entry]
    finalized: int
    total: int


@dataclass
class TournamentView:
    entries: list[Entry]  # in standing order; a running tournament's standings as of now
    rounds: list[RoundView]
    progress: int


def describe_tournament(tournament: Tournament) -> TournamentView:
    """What the page and the API show: live standings, every round with its tables and games, the progress."""
    context = TournamentRecords.load(tournament)
    if tournament.status == Tournament.Status.RUNNING:
        for row in standings(context):
            entry = context.entries[row.entry]
            entry.position, entry.score, entry.games, entry.tiebreaks = (
                row.position,
                row.score,
                row.games,
                row.tiebreaks,
            )
    entries = sorted(context.entries.values(), key=lambda e: (e.position or 10**6, e.seed or 0, e.pk))
    rounds = _describe_rounds(context)
    return TournamentView(entries=entries, rounds=rounds, progress=tournament_progress(tournament, rounds))


def _describe_rounds(context: TournamentRecords) -> list[RoundView]:
    views = []
    for round_ in context.rounds:
        tables = context.table_matches(round_)
        table_views = []
        for index, table in enumerate(round_.plan.get("tables", [])):
            matches = tables.get(index, [])
            points: dict[int, float] = {}
            for match in matches:
                if match.status == Match.Status.FINISHED:
                    for entry, value in tf.game_points(len(table["entries"]), context.ranks(match)).items():
                        points[entry] = points.get(entry, 0) + value * context.weight(match)
            table_views.append(
                TableView(
                    number=index + 1,
                    entries=[context.entries[e] for e in table["entries"]],
                    matches=matches,
                    points={e: round(points.get(e, 0), 3) for e in table["entries"]},
                    advancers=list(table.get("advancers", [])),
                    absent=list(table.get("absent", [])),
                    offline=list(table.get("offline", [])),
                    walkover=bool(table.get("walkover")),
                )
            )
        all_matches = context.matches.get(round_.pk, [])
        views.append(
            RoundView(
                round=round_,
                tables=table_views,
                byes=[context.entries[e] for e in round_.plan.get("byes", [])],
                finalized=sum(1 for m in all_matches if m.is_finalized()),
                total=len(all_matches),
            )
        )
    return views


def tournament_progress(tournament: Tournament, rounds: Sequence[RoundView]) -> int:
    """Percent done: finished rounds, plus the share of the current round's games that are finalized."""
    if tournament.status == Tournament.Status.FINISHED:
        return 100
    if not tournament.planned_rounds or not rounds:
        return 0
    done = sum(1.0 for view in rounds if view.round.status == Round.Status.FINISHED)
    current = next((view for view in rounds if view.round.status == Round.Status.RUNNING), None)
    if current is not None and current.total:
        done += current.finalized / current.total
    return min(99, int(100 * done / max(tournament.planned_rounds, len(rounds))))


def live_fingerprint(tournament: Tournament) -> str:
    """What the tournament page's live part shows, as a short digest, in three small queries: its rounds (status
    and plan: drawn tables, advancers), its entries' stored standing, and its games by status, counted and summed
    by id (a game that changes status moves its id from one sum to another; its ranks and faults are written with
    its FINISHED), with the tournament's own row. describe_tournament reads every game's seats: this is what a poll
    costs when nothing changed."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number").values_list("id", "status", "plan"))
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .order_by("id")
        .values_list("id", "bot_version_id", "position", "score", "games", "forfeited", "eliminated_in", "tiebreaks")
    )
    games = Match.objects.filter(round__tournament=tournament).aggregate(
        **{f"{status}_n": Count("id", filter=Q(status=status)) for status in Match.Status.values},
        **{f"{status}_ids": Sum("id", filter=Q(status=status)) for status in Match.Status.values},
    )
    own = (tournament.status, tournament.paused, tournament.planned_rounds, tournament.finished_at, tournament.settings)
    return caching.digest((own, rounds, entries, sorted(games.items())))
