"""Watching a league match live (issue 23, docs/live.md): what its worker publishes, and what a spectator is sent.

The worker (workers/live.py) writes the moves played so far to the match's ``LiveMatch`` row, throttled. A spectator
never gets those moves: the state is rebuilt from them with the engine and only its **public view** and the engine's
public narration are sent, as to a spectator at a people's table (league.tables.services). Never the seed, the
hands, the bots' notes or timings; once the match is over the page sends the spectator to the match's page, where
league.play.disclosure decides when the replay (the deal) may be shown.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.db.models import Case, F, IntegerField, Prefetch, QuerySet, Value, When

from games.base import IllegalAction
from games.registry import get_game
from league.core import changes
from league.live.models import LiveMatch
from league.play.models import Match, Seat

log = logging.getLogger(__name__)
LIVE_SHOWN = 50  # running matches listed on /live/

__all__ = [
    "LIVE_SHOWN",
    "LiveView",
    "do_clear",
    "do_publish",
    "fingerprint",
    "live_matches",
    "match_view",
    "public_moves",
]


def public_moves(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What is stored of the replay's moves: who, what, auto-played? (No notes: a bot's note may name its hand.)"""
    return [{"seat": move["seat"], "action": move["action"], "auto": move["auto"]} for move in moves]


def do_publish(match_id: int, moves: list[dict[str, Any]]) -> None:
    """Store the moves of a running match so far (one UPDATE, an INSERT the first time), and say so to its watchers."""
    stored = public_moves(moves)
    updated = LiveMatch.objects.filter(match_id=match_id).update(moves=stored, move_count=len(stored))
    if not updated:
        LiveMatch.objects.update_or_create(match_id=match_id, defaults={"moves": stored, "move_count": len(stored)})
    # The change carries the moves: the web processes' hubs build the new view without reading the row.
    changes.publish("match", match_id, data={"status": Match.Status.RUNNING.value, "moves": stored})


def do_clear(*match_ids: int) -> None:
    """The matches are recorded (or given back): their replays replace the live moves. One DELETE for them all; their
    watchers are told (the match is over, or queued again)."""
    LiveMatch.objects.filter(match_id__in=match_ids).delete()
    changes.publish("match", *match_ids)


def fingerprint(match_id: int) -> tuple[Any, ...] | None:
    """What changes when a spectator's view changes (the event stream's cheap poll); None for no such match."""
    row = Match.objects.filter(pk=match_id).values_list("status", "live__move_count").first()
    return tuple(row) if row is not None else None


def published_fingerprint(published: dict[str, Any]) -> tuple[Any, ...] | None:
    """The fingerprint of the row a published change describes (``do_publish``'s), as ``fingerprint`` would read
    it; None when the message is not one of those."""
    moves, status = published.get("moves"), published.get("status")
    if not isinstance(moves, list) or status != Match.Status.RUNNING.value:
        return None
    return (status, len(moves))


def _seats(match: Match) -> list[dict[str, Any]]:
    seats = Seat.objects.filter(match=match).select_related("bot_version__bot__owner").order_by("number")
    return [{"kind": "bot", "label": s.bot_version.label, "bot_id": s.bot_version.bot_id} for s in seats]


def match_view(match: Match) -> dict[str, Any]:
    """A spectator's view of ``match`` now: while it runs, the public view after the moves published so far and the
    public narration; otherwise only its status and a message. The same keys as a spectator's view of a table, so
    the table's page script draws it."""
    view = _fixed_view(match)
    if match.status != Match.Status.RUNNING:
        return view
    live = LiveMatch.objects.filter(match=match).first()
    played = _Played(match, view["players"])
    played.follow(live.moves if live is not None else [])
    return played.view(view)


def _fixed_view(match: Match) -> dict[str, Any]:
    """The part of a spectator's view that no move changes."""
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
    return view


class _Played:
    """A running match's engine state after its published moves, kept so that more moves cost only their own
    application."""

    def __init__(self, match: Match, players: int) -> None:
        self.match, self.players = match, players
        self._start()

    def _start(self) -> None:
        self.state = get_game(self.match.game).new_state(self.players, self.match.seed, self.match.options)
        self.moves: list[dict[str, Any]] = []
        self.narration: list[str] = []

    def follow(self, moves: list[dict[str, Any]]) -> None:
        """Bring the state to ``moves``: only the new ones if the known ones are their start, else from the start."""
        if moves[: len(self.moves)] != self.moves:
            self._start()
        try:
            for move in moves[len(self.moves) :]:
                self.narration += self.state.apply(move["action"])
                self.moves.append(move)
        except (IllegalAction, KeyError, TypeError, ValueError):  # moves of another engine version: never a 500
            log.warning("match %s: its live moves do not replay; shown from the start", self.match.pk)
            self._start()

    def view(self, fixed: dict[str, Any]) -> dict[str, Any]:
        return {
            **fixed,
            "move_count": len(self.moves),
            "to_move": self.state.to_move(),
            "narration": list(self.narration),
            "public": self.state.public_view(),
        }


class LiveView:
    """One match's spectator view as a web process's stream hub builds it change after change (league/site/stream_hub.py
    keeps one per watched match): the match's fixed part is read once per attempt and each change reads only the
    status and the live moves, then applies the new moves to the kept state. A game of n moves costs n applications
    in all instead of n²/2, and one query a change instead of three. The same view as ``match_view``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # two versions' builds may overlap: they take turns with the kept state
        self._attempt: tuple[Any, ...] | None = None
        self._fixed: dict[str, Any] = {}
        self._played: _Played | None = None

    def build(self, match_id: int, published: dict[str, Any] | None = None) -> tuple[dict[str, Any], str]:
        """The view now and the match's status (raises Match.DoesNotExist if it is gone). ``published``: the moves
        a change carried (``do_publish``): while the match runs as this view last read it, they replace the read."""
        with self._lock:
            running = self._attempt is not None and self._attempt[0] == Match.Status.RUNNING
            if published is not None and running and published_fingerprint(published) is not None:
                assert self._played is not None and self._attempt is not None
                self._played.follow(published["moves"])
                return self._played.view(self._fixed), self._attempt[0]
            row = Match.objects.filter(pk=match_id).values("status", "attempts", "live__moves").first()
            if row is None:
                raise Match.DoesNotExist(match_id)
            attempt = (row["status"], row["attempts"])
            if attempt != self._attempt or row["status"] != Match.Status.RUNNING:
                match = Match.objects.get(pk=match_id)
                self._attempt, self._played = (match.status, match.attempts), None
                self._fixed = _fixed_view(match)
                if match.status != Match.Status.RUNNING:
                    return self._fixed, match.status
                self._played = _Played(match, self._fixed["players"])
            assert self._played is not None
            self._played.follow(row["live__moves"] or [])
            return self._played.view(self._fixed), row["status"]


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
