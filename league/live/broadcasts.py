"""Parlour TV (docs/live.md, "Parlour TV"): the one game /live/ features, at a human pace, and what comes after it.

League games last a second or two, so /live/ would almost always be empty. It features instead, in this order:

1. a league match in play **worth watching**: still running ``LIVE_FEATURE_AFTER_SECONDS`` after its claim (slow
   bots: it is likely to last) and publishing moves (its ``LiveMatch`` row written in the last
   ``LIVE_STALE_SECONDS``); tournament games first, then the longest running. Watched through its event stream.
2. else the **programme**: for each game, its top-ranked bots' latest finished rated games (the more of the top
   ``TOP_BOTS`` at the table, the better; then the higher they rank; then the newest), ``PER_GAME`` of them, taken in
   turn across the games (newest first): each **replayed as a broadcast** from its stored replay, in the spectator's
   public view only (``broadcast_frames``).

``next_broadcast(after)`` is what follows the broadcast of match ``after`` (a person's page asks when one ends): a
live match worth watching if there is one (not the one just shown), else the programme's item after ``after``, round
and round. Cheap for a crowd: the programme is read in a few bounded queries per game and kept ``PROGRAMME_SECONDS``,
the live check in one and kept ``LIVE_CHECK_SECONDS``, per web process; a broadcast's frames are built once per
``FRAMES_SECONDS`` per process and may be cached by anyone (they never change).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import caches
from django.db.models import Case, Exists, IntegerField, OuterRef, Prefetch, Q, Value, When
from django.utils import timezone

from games.frames import ReplayError, frames
from games.registry import GAMES
from league.core.errors import NoSuchMatch
from league.core.time_ago import time_ago
from league.play import disclosure
from league.play.models import Match, Seat
from league.ratings.queries import leaderboard

__all__ = [
    "BROADCAST_FORMAT",
    "Broadcast",
    "broadcast_frames",
    "describe_top",
    "featured_live",
    "next_broadcast",
    "programme",
]

BROADCAST_FORMAT = "parlour-broadcast/1"
TOP_BOTS = 4  # a game's top-ranked bots whose games are shown
LOOKBACK = 30  # a game's latest rated games with one of them seated, among which the best are picked
PER_GAME = 2  # a game's broadcasts in the programme
PROGRAMME_SECONDS = 15
LIVE_CHECK_SECONDS = 2
FRAMES_SECONDS = 600
LIVE_FEATURE_AFTER_SECONDS = 3  # a league game lasts ~1.5 s: one still running after this is slow enough to watch
LIVE_STALE_SECONDS = 10  # a running match that has published nothing for this long is not shown (its worker died?)
CACHE = "pages"
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Broadcast:
    """One featured game: a replay of a finished match, or a league match being played."""

    kind: str  # "replay" or "live"
    match_id: int
    game: str
    title: str  # the game's
    about: str  # "the top two Love Letter bots", "a Love Letter tournament game (Cup, round 2)"
    seats: tuple[str, ...] = field(default_factory=tuple)  # the bots' labels, seat by seat
    finished_at: datetime | None = None

    def caption(self, now: datetime | None = None) -> str:
        """ "Replay: the top two Love Letter bots, 5 minutes ago" or "Live: a Love Letter ladder game"."""
        if self.kind == "live":
            return f"Live: {self.about}"
        when = f", {time_ago(self.finished_at, now)}" if self.finished_at is not None else ""
        return f"Replay: {self.about}{when}"


# ----- the programme of replays --------------------------------------------------------------------------------------
def describe_top(title: str, positions: list[int]) -> str:
    """How the ranked bots at a table are named: "the top two Love Letter bots", "Love Letter's top bot",
    "Love Letter's #2 and #4 bots". ``positions`` are their leaderboard positions (at least one)."""
    positions = sorted(positions)
    if len(positions) >= 2 and positions == list(range(1, len(positions) + 1)):
        return f"the top {NUMBERS.get(len(positions), str(len(positions)))} {title} bots"
    if positions == [1]:
        return f"{title}'s top bot"
    named = " and ".join(f"#{p}" for p in positions) if len(positions) <= 2 else ", ".join(f"#{p}" for p in positions)
    return f"{title}'s {named} bot{'s' if len(positions) > 1 else ''}"


def _candidates(game_id: str) -> list[Broadcast]:
    """``game_id``'s best broadcasts: its top bots' latest finished rated games that can be replayed (this engine's
    version, disclosed, some moves, no seat faulted), best first. Three queries."""
    game = GAMES[game_id]
    # Their places on the leaderboard as it lists them (1, 2, ...).
    top = {pk: place for place, pk in enumerate(leaderboard(game_id).values_list("pk", flat=True)[:TOP_BOTS], 1)}
    if not top:
        return []
    seated = Seat.objects.filter(match=OuterRef("pk"))
    matches = (
        disclosure.with_disclosure(
            Match.objects.filter(game=game_id, rated_seq__isnull=False, engine_version=game.version)
        )
        .filter(Exists(seated.filter(bot_version__bot_id__in=top)), Exists(seated.filter(moves__gt=0)))
        .exclude(Exists(seated.exclude(fault="")))
        .filter(Q(deal_in_play=False))  # disclosed: no other seating of its deal still to be played
        .defer("replay_data")
        .prefetch_related(Prefetch("seats", Seat.objects.select_related("bot_version__bot__owner").order_by("number")))
        .order_by("-rated_seq")[:LOOKBACK]
    )
    scored = []
    for order, match in enumerate(matches):
        seats = list(match.seats.all())
        positions = [top[s.bot_version.bot_id] for s in seats if s.bot_version.bot_id in top]
        broadcast = Broadcast(
            kind="replay",
            match_id=match.pk,
            game=game_id,
            title=game.title,
            about=describe_top(game.title, positions),
            seats=tuple(s.bot_version.label for s in seats),
            finished_at=match.finished_at,
        )
        scored.append(((-len(set(positions)), sum(positions), order), broadcast))
    return [broadcast for _, broadcast in sorted(scored, key=lambda pair: pair[0])[:PER_GAME]]


def _programme() -> list[Broadcast]:
    by_game = [picks for game_id in GAMES if (picks := _candidates(game_id))]
    # The games in turn, the one whose best pick is the newest first; then each game's second pick, and so on.
    by_game.sort(key=lambda picks: picks[0].finished_at.timestamp() if picks[0].finished_at else 0.0, reverse=True)
    return [picks[turn] for turn in range(PER_GAME) for picks in by_game if turn < len(picks)]


def programme() -> list[Broadcast]:
    """The replays /live/ rotates through, in order (kept ``PROGRAMME_SECONDS`` per web process)."""
    cache = caches[CACHE]
    found: list[Broadcast] | None = cache.get("live:programme")
    if found is None:
        found = _programme()
        cache.set("live:programme", found, PROGRAMME_SECONDS)
    return found


# ----- a league match in play ------------------------------------------------------------------------------------
def _featured_live(now: datetime) -> Broadcast | None:
    match = (
        Match.objects.filter(
            status=Match.Status.RUNNING,
            claimed_at__lte=now - timedelta(seconds=LIVE_FEATURE_AFTER_SECONDS),
            live__updated__gte=now - timedelta(seconds=LIVE_STALE_SECONDS),
            live__move_count__gt=0,
        )
        .annotate(
            tournament_first=Case(
                When(kind=Match.Kind.TOURNAMENT, then=Value(0)), default=Value(1), output_field=IntegerField()
            )
        )
        .select_related("round__tournament")
        .prefetch_related(Prefetch("seats", Seat.objects.select_related("bot_version__bot__owner").order_by("number")))
        .order_by("tournament_first", "claimed_at", "id")
        .first()
    )
    if match is None:
        return None
    title = GAMES[match.game].title if match.game in GAMES else match.game
    if match.round is not None:
        about = f"a {title} tournament game ({match.round.tournament.name}, round {match.round.number})"
    else:
        about = f"a {title} {match.get_kind_display()} game"
    seats = tuple(s.bot_version.label for s in match.seats.all())
    return Broadcast(kind="live", match_id=match.pk, game=match.game, title=title, about=about, seats=seats)


def featured_live() -> Broadcast | None:
    """The league match in play worth watching now, if any (kept ``LIVE_CHECK_SECONDS`` per web process)."""
    cache = caches[CACHE]
    found: tuple[Broadcast | None] | None = cache.get("live:featured")
    if found is None:
        found = (_featured_live(timezone.now()),)
        cache.set("live:featured", found, LIVE_CHECK_SECONDS)
    return found[0]


def next_broadcast(after: int | None = None) -> Broadcast | None:
    """What /live/ features after the broadcast of match ``after`` (None: a page just opened); None when there is
    nothing at all to show (no live match worth watching, no rated game that can be replayed)."""
    live = featured_live()
    if live is not None and live.match_id != after:
        return live
    items = programme()
    if not items:
        return None
    ids = [item.match_id for item in items]
    if after in ids:
        return items[(ids.index(after) + 1) % len(items)]
    return items[0]


# ----- a broadcast's frames ----------------------------------------------------------------------------------------
def _build_frames(match: Match) -> dict[str, Any]:
    replay = disclosure.public_replay(match)
    if replay is None:
        raise NoSuchMatch(match_id=match.pk)
    try:
        document = frames(replay, None)
    except ReplayError:
        raise NoSuchMatch(match_id=match.pk) from None
    steps = []
    for step in document["frames"]:
        shown = {key: step[key] for key in ("view", "patch", "drop") if key in step}
        move = step["move"]
        mover = {"seat": move["seat"], "auto": bool(move.get("auto"))} if move is not None else None
        steps.append({**shown, "lines": step["lines"], "move": mover, "to_move": step["to_move"]})
    outcome = document["outcome"] if document["over"] else None
    return {
        "format": BROADCAST_FORMAT,
        "match": match.pk,
        "game": document["game"],
        "title": document["title"],
        "players": document["players"],
        "seats": document["seats"],
        "over": document["over"],
        "frames": steps,
        "outcome": {"ranks": outcome["ranks"], "scores": outcome["scores"]} if outcome else None,
    }


def broadcast_frames(match_id: int) -> dict[str, Any]:
    """A finished match replayed as a broadcast: each step's **public** view (delta-coded like ``games.frames``), the
    engine's public narration, who moved and who is to move, and the result, which the page shows only after the
    last move. Never the seed, an action, a bot's note, a seat's view or any hand: nothing a spectator of the game
    being played could not see. A match whose replay is withheld (league.play.disclosure) or cannot be re-simulated
    is not found. Built once per ``FRAMES_SECONDS`` per web process."""
    cache = caches[CACHE]
    key = f"live:frames:{match_id}"
    document: dict[str, Any] | None = cache.get(key)
    if document is None:
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise NoSuchMatch(match_id=match_id)
        document = _build_frames(match)
        cache.set(key, document, FRAMES_SECONDS)
    return document
