"""Watching a league match live (issue 23, docs/live.md): what its worker publishes, and what a spectator is sent.

The worker (workers/live.py) writes the moves played so far to the match's ``LiveMatch`` row, throttled. A spectator
never gets those moves: the state is rebuilt from them with the engine and only its **public view** and the engine's
public narration are sent, as to a spectator at a people's table (league.services.tables). Never the seed, the
hands, the bots' notes or timings; once the match is over the page sends the spectator to the match's page, where
league.disclosure decides when the replay (the deal) may be shown.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import Case, F, IntegerField, Prefetch, QuerySet, Value, When

from games.base import IllegalAction
from games.registry import get_game
from league.models import LiveMatch, Match, Seat
from league.services import changes

log = logging.getLogger(__name__)
LIVE_SHOWN = 50  # running matches listed on /live/

__all__ = ["LIVE_SHOWN", "do_clear", "do_publish", "fingerprint", "live_matches", "match_view", "public_moves"]


def public_moves(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What is stored of the replay's moves: who, what, auto-played? (No notes: a bot's note may name its hand.)"""
    return [{"seat": move["seat"], "action": move["action"], "auto": move["auto"]} for move in moves]


def do_publish(match_id: int, moves: list[dict[str, Any]]) -> None:
    """Store the moves of a running match so far (one UPDATE, an INSERT the first time), and say so to its watchers."""
    stored = public_moves(moves)
    updated = LiveMatch.objects.filter(match_id=match_id).update(moves=stored, move_count=len(stored))
    if not updated:
        LiveMatch.objects.update_or_create(match_id=match_id, defaults={"moves": stored, "move_count": len(stored)})
    changes.publish("match", match_id)


def do_clear(*match_ids: int) -> None:
    """The matches are recorded (or given back): their replays replace the live moves. One DELETE for them all; their
    watchers are told (the match is over, or queued again)."""
    LiveMatch.objects.filter(match_id__in=match_ids).delete()
    changes.publish("match", *match_ids)


def fingerprint(match_id: int) -> tuple[Any, ...] | None:
    """What changes when a spectator's view changes (the event stream's cheap poll); None for no such match."""
    row = Match.objects.filter(pk=match_id).values_list("status", "live__move_count").first()
    return tuple(row) if row is not None else None


def _seats(match: Match) -> list[dict[str, Any]]:
    seats = Seat.objects.filter(match=match).select_related("bot_version__bot__owner").order_by("number")
    return [{"kind": "bot", "label": s.bot_version.label, "bot_id": s.bot_version.bot_id} for s in seats]


def match_view(match: Match) -> dict[str, Any]:
    """A spectator's view of ``match`` now: while it runs, the public view after the moves published so far and the
    public narration; otherwise only its status and a message. The same keys as a spectator's view of a table, so
    the table's page script draws it."""
    seats = _seats(match)
    view: dict[str, Any] = {
        "id": match.pk,
        "kind": match.kind,
        "game": match.game,
        "status": match.status,
        "players": len(seats),
        "seats": seats,
        "person_seat": None,
        "move_count": 0,
        "to_move": None,
        "narration": [],
        "role": "spectator",
        "clock_left": None,
        "match_url": match.get_absolute_url(),
    }
    if match.status == Match.Status.QUEUED:
        view["message"] = "This match waits for a worker: it starts by itself."
    elif match.status == Match.Status.FINISHED:
        view["message"] = "This match is over: its result (and, once its deal is no longer in play, its replay) is on"
        view["message"] += " its page."
    elif match.status == Match.Status.FAILED:
        view["message"] = "This match could not be played."
    if match.status != Match.Status.RUNNING:
        return view
    live = LiveMatch.objects.filter(match=match).first()
    moves = live.moves if live is not None else []
    state = get_game(match.game).new_state(len(seats), match.seed, match.options)
    narration: list[str] = []
    try:
        for move in moves:
            narration += state.apply(move["action"])
    except (IllegalAction, KeyError, TypeError, ValueError):  # moves of another engine version: never a 500
        log.warning("match %s: its live moves do not replay; shown from the start", match.pk)
        state, narration, moves = get_game(match.game).new_state(len(seats), match.seed, match.options), [], []
    view.update(move_count=len(moves), to_move=state.to_move(), narration=narration, public=state.public_view())
    return view


def live_matches() -> QuerySet[Match]:
    """Running league matches: tournament games first, then the longest running (a long game is worth watching)."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("bot_version__bot__owner").order_by("number"))
    return (
        Match.objects.filter(status=Match.Status.RUNNING)
        .annotate(
            tournament_first=Case(
                When(kind=Match.Kind.TOURNAMENT, then=Value(0)), default=Value(1), output_field=IntegerField()
            ),
            live_moves=F("live__move_count"),
        )
        .select_related("round__tournament")
        .prefetch_related(seats)
        .order_by("tournament_first", "claimed_at", "id")[:LIVE_SHOWN]
    )
