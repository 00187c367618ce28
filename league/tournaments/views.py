"""Tournament pages: the list, and one tournament with its standings, progress, rounds and (knockouts) bracket.

Read-only and usable without JavaScript: the bracket is inline SVG laid out here, the rounds are <details>."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse

from games.registry import GAMES
from league.core import cache_headers
from league.ratings import caching
from league.site import parts, visibility
from league.tournaments import formats as tf
from league.tournaments.models import Entry, Round, Tournament
from league.tournaments.queries import RoundView, describe_tournament, live_fingerprint

LIVE_SECONDS = 5  # a running tournament's page asks for its standings this often


def tournament_list(request: HttpRequest) -> HttpResponse:
    found = (
        visibility.tournaments(request.user)
        .annotate(
            entrants=Count("entries", distinct=True),
            rounds_started=Count("rounds", filter=~Q(rounds__status=Round.Status.PENDING), distinct=True),
        )
        .order_by("-created", "-id")
    )
    listed = list(found[:200])
    winners = {
        entry.tournament_id: entry
        for entry in Entry.objects.filter(
            tournament__in=[t for t in listed if t.status == Tournament.Status.FINISHED], position=1
        ).select_related("bot__owner")
    }
    for tournament in listed:
        tournament.winner = winners.get(tournament.pk)  # type: ignore[attr-defined]  # for the template
    sections = [
        ("Running", [t for t in listed if t.status == Tournament.Status.RUNNING]),
        ("Drafts", [t for t in listed if t.status == Tournament.Status.DRAFT]),
        ("Finished", [t for t in listed if t.status == Tournament.Status.FINISHED]),
        ("Cancelled", [t for t in listed if t.status == Tournament.Status.CANCELLED]),
    ]
    return render(request, "league/tournament_list.html", {"sections": [s for s in sections if s[1]]})


def tournament_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(visibility.tournaments(request.user), pk=pk)
    context = {
        "tournament": tournament,
        "game": GAMES[tournament.game],
        "settings_summary": _summary(tournament),
        "staff": request.user.is_staff,
        "live": _live_standings(tournament),
    }
    return render(request, "league/tournament.html", context)


def tournament_standings(request: HttpRequest, pk: int) -> HttpResponse:
    """The tournament page's live part alone (status, progress, bracket, standings, rounds): what htmx asks for
    every few seconds while the tournament runs; 204 if the asker has seen it already."""
    tournament = get_object_or_404(visibility.tournaments(request.user), pk=pk)
    return cache_headers.no_store(parts.fragment(request, _live_standings(tournament)))


def _live_standings(tournament: Tournament) -> parts.Region:
    """The same for every visitor: rendered once per fingerprint of what it shows (a poll that finds nothing new
    costs the fingerprint's three queries, not the standings' computation)."""
    key = f"tournament-live:{tournament.pk}:{live_fingerprint(tournament)}"
    return parts.region(
        "tournament-live",
        reverse("tournament-standings", args=[tournament.pk]),
        caching.cached(key, lambda: _render_standings(tournament)),
        seconds=LIVE_SECONDS,
        settled=tournament.status != Tournament.Status.RUNNING,
    )


def _render_standings(tournament: Tournament) -> str:
    view = describe_tournament(tournament)
    rounds, entries = view.rounds, view.entries
    names = tf.TIEBREAKS[tournament.format]
    for entry in entries:
        entry.tiebreak_values = [entry.tiebreaks.get(name) for name in names]  # type: ignore[attr-defined]  # for the template
    context = {
        "tournament": tournament,
        "entries": entries,
        "tiebreaks": [(tf.TIEBREAK_LABELS[name], tf.TIEBREAK_HELP[name]) for name in names],
        "rounds": rounds,
        "current": next((view for view in rounds if view.round.status == Round.Status.RUNNING), None),
        "progress": view.progress,
        "bracket": bracket_layout(tournament, rounds) if tournament.format == Tournament.Format.KNOCKOUT else None,
    }
    return render_to_string("league/_tournament_live.html", context)


def _summary(tournament: Tournament) -> list[str]:
    s = tournament.settings or {}
    said = [f"tables of {s.get('table_size')}"]
    if tournament.format == Tournament.Format.KNOCKOUT:
        said.append(f"best of {s.get('best_of', 1)}")
        if s.get("table_size", 2) > 2:
            said.append(f"top {s.get('advance')} of each table go through")
    else:
        games = s.get("games_per_pairing", 1)
        said.append(f"{games} game{'s' if games != 1 else ''} per table each round")
    if tournament.format == Tournament.Format.SWISS:
        said.append(f"{tournament.planned_rounds or s.get('rounds') or 'log2(n)'} rounds")
    if s.get("duplicate"):
        said.append("duplicate (every deal under every seat rotation)")
    if time := s.get("time_control"):
        said.append(" + ".join(f"{key.removesuffix('_ms')} {value} ms" for key, value in time.items()))
    if s.get("forfeit_after"):
        said.append(f"forfeit after {s['forfeit_after']} faults in a row")
    said.append("rated" if tournament.rated else "unrated (ladder Elo unchanged)")
    return said


# ----- the bracket --------------------------------------------------------------------------------------------

COLUMN, GAP, LINE, PAD, SPACING = 210, 46, 18, 6, 14


@dataclass
class Box:
    x: float
    y: float
    height: float
    lines: list[dict[str, Any]] = field(default_factory=list)  # {"text", "points", "through", "out", "url"}
    placeholder: bool = False
    title: str = ""

    @property
    def centre(self) -> float:
        return self.y + self.height / 2

    @property
    def width(self) -> int:
        return COLUMN


@dataclass
class Bracket:
    width: float
    height: float
    boxes: list[Box]
    paths: list[str]
    headings: list[tuple[float, str]]


def bracket_layout(tournament: Tournament, rounds: list[RoundView]) -> Bracket | None:
    """Boxes (one per table or bye) in columns by round, each centred on the boxes it was fed from, and elbow lines
    from every box to the box its survivors went to. A two-player bracket also shows the rounds still to come."""
    if not rounds:
        return None
    entries = {entry.pk: entry for view in rounds for table in view.tables for entry in table.entries}
    entries.update({entry.pk: entry for view in rounds for entry in view.byes})
    columns: list[list[tuple[Box, set[int], set[int]]]] = []  # per round: (box, its entrants, who went through)
    for view in rounds:
        plan = view.round.plan
        tables = iter(view.tables)
        column = []
        for group in plan.get("bracket") or [t["entries"] for t in plan["tables"]]:
            if len(group) == 1:
                entry = entries[group[0]]
                lines = [
                    {
                        "text": _label(entry),
                        "points": "bye",
                        "through": True,
                        "out": False,
                        "url": entry.bot.get_absolute_url(),
                    }
                ]
                column.append((Box(0, 0, 0, lines, title="bye"), {group[0]}, {group[0]}))
                continue
            table = next(tables)
            through = set(table.advancers)
            lines = [
                {
                    "text": _label(entry),
                    "points": _points(table.points.get(entry.pk), table.scored),
                    "through": entry.pk in through,
                    "out": bool(through) and entry.pk not in through,
                    "url": entry.bot.get_absolute_url(),
                }
                for entry in table.entries
            ]
            column.append((Box(0, 0, 0, lines, title=f"table {table.number}"), set(group), through))
        columns.append(column)
    if tournament.settings.get("table_size") == 2:  # the rounds to come: winners of neighbouring boxes meet
        while len(columns) < tournament.planned_rounds and len(columns[-1]) > 1:
            previous = columns[-1]
            columns.append(
                [
                    (Box(0, 0, 0, [{"text": "", "points": ""}] * 2, placeholder=True), set(), set())
                    for _ in range((len(previous) + 1) // 2)
                ]
            )
    # Lay out: the first column stacked; later boxes centred on their sources, pushed down where they would overlap.
    paths: list[str] = []
    headings: list[tuple[float, str]] = []
    for index, column in enumerate(columns):
        x = index * (COLUMN + GAP)
        headings.append((x, _heading(index, max(len(columns), tournament.planned_rounds), tournament)))
        bottom = 24.0
        for position, (box, members, _through) in enumerate(column):
            box.x = x
            box.height = PAD * 2 + LINE * len(box.lines)
            box.lines = [{**line, "y": PAD + LINE * (i + 1) - 5} for i, line in enumerate(box.lines)]
            if index == 0:
                sources = []
            elif box.placeholder:
                sources = [b for b, _m, _t in columns[index - 1][2 * position : 2 * position + 2]]
            else:
                sources = [b for b, _m, t in columns[index - 1] if t & members]
            want = (sum(b.centre for b in sources) / len(sources) - box.height / 2) if sources else bottom
            box.y = max(want, bottom)
            bottom = box.y + box.height + SPACING
            for source in sources:
                start_x, start_y = source.x + COLUMN, source.centre
                middle = start_x + GAP / 2
                paths.append(f"M{start_x:.0f} {start_y:.0f}H{middle:.0f}V{box.centre:.0f}H{x:.0f}")
    boxes = [box for column in columns for box, _m, _t in column]
    width = len(columns) * (COLUMN + GAP) - GAP + 2
    height = max(box.y + box.height for box in boxes) + 4
    return Bracket(width=width, height=height, boxes=boxes, paths=paths, headings=headings)


def _label(entry: Entry) -> str:
    name = f"{entry.bot.owner.username}/{entry.bot.name}"
    if len(name) > 22:
        name = name[:21] + "…"
    return f"{entry.seed}. {name}" if entry.seed else name


def _points(value: float | None, played: bool) -> str:
    if not played or value is None:
        return ""
    return f"{value:g}"


def _heading(index: int, count: int, tournament: Tournament) -> str:
    remaining = count - index
    if tournament.settings.get("table_size") == 2:
        named = {1: "Final", 2: "Semi-finals", 3: "Quarter-finals"}
        if remaining in named:
            return named[remaining]
    elif remaining == 1:
        return "Final"
    return f"Round {index + 1}"
