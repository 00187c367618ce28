"""Placement: a newly validated version plays a burst of rated games at once, so its author sees a rank within a
minute (docs/decisions.md, "Placement").

The burst is PLACEMENT_GAMES games in series of SERIES_GAMES (each series one table, played by the same bot processes:
league/play/series.py). The tables cycle through the game's ladder table sizes; their opponents are spread over
the whole leaderboard (stratified by position: every series takes a different slice, so the burst meets the top, the
middle and the bottom), and the new version's seat rotates from series to series. Its games are ``placement`` matches
(rated like the ladder's) claimed in placement's lane (``series.fair_series_order``): before ordinary ladder games,
owners taking turns, tournaments never held up.

The burst never seats two bots of one owner at a table (neither the new version with its owner's other bots nor
two opponents of one owner): a rated game between them could be rigged (docs/ratings.md, "One owner's bots never
meet").
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q

from league.bots.models import Bot, BotVersion
from league.ladder.scheduling import ladder_bots, ladder_config
from league.play.models import Match, MatchSeries
from league.play.series import do_create_series
from league.ratings import fits


@dataclass(frozen=True)
class Placement:
    """A version's placement so far: games finished of those planned, and its bot's rank on the leaderboard (None
    while unrated)."""

    version: int
    played: int
    planned: int
    rank: int | None

    @property
    def done(self) -> bool:
        return self.played >= self.planned

    def to_json(self) -> dict[str, int | None]:
        return {"version": self.version, "played": self.played, "planned": self.planned, "rank": self.rank}


def do_start_placement(version: BotVersion, rng: random.Random | None = None) -> list[int]:
    """Create the placement burst of ``version`` (just validated, ready); returns the ids of its series. Nothing when
    PLACEMENT_GAMES is 0, the game's ladder is off, its owner took the bot off the ladder, or nobody is there to
    play against."""
    rng = rng or random.Random()
    bot = version.bot
    config = ladder_config(bot.game)
    if settings.PLACEMENT_GAMES <= 0 or not config.enabled or not bot.is_active:
        return []
    ladder = ladder_bots([bot.game]).exclude(pk=bot.pk)
    if not bot.is_builtin:  # its owner's other bots are never its opponents (a rated game they could rig)
        ladder = ladder.exclude(owner_id=bot.owner_id, is_builtin=False)
    others = list(ladder.select_related("rating").order_by("-rating__elo", "id"))
    if not others:
        return []
    newest: dict[int, BotVersion] = {}
    ready = BotVersion.objects.filter(bot__in=others, status=BotVersion.Status.READY).only("id", "bot_id", "number")
    for candidate in ready.order_by("bot_id", "-number"):
        newest.setdefault(candidate.bot_id, candidate)
    board = [newest[other.pk] for other in others if other.pk in newest]
    owners = {other.pk: None if other.is_builtin else other.owner_id for other in others}
    room = owner_count(board, owners)  # the most opponents one table can take: one per owner, every built-in
    sizes = [size for size in config.table_sizes if size - 1 <= room] or [min(config.table_sizes)]
    if sizes[0] - 1 > room:
        return []
    per_series = max(1, settings.SERIES_GAMES)
    count = math.ceil(settings.PLACEMENT_GAMES / per_series)
    seeds = rng.sample(range(1, 2**31), settings.PLACEMENT_GAMES)
    created = []
    taken = 0
    at_size: dict[int, int] = {}
    for index in range(count):
        size = sizes[index % len(sizes)]
        opponents = spread(board, size - 1, index, count, owners)
        seat = at_size.get(size, 0) % size  # its seat rotates at each table size
        at_size[size] = at_size.get(size, 0) + 1
        versions = [*opponents[:seat], version, *opponents[seat:]]
        games = seeds[taken : taken + per_series]
        taken += len(games)
        series = do_create_series(
            bot.game,
            versions,
            games,
            kind=Match.Kind.PLACEMENT,
            time_control=config.time_control or None,
            placing_version=version,
            placing=True,
        )
        created.append(series.pk)
    return created


def spread(
    board: list[BotVersion], seats: int, index: int, count: int, owners: Mapping[int, int | None] | None = None
) -> list[BotVersion]:
    """``seats`` opponents for series ``index`` of ``count``, from ``board`` (best first): the board is cut into
    ``count * seats`` strata and this series takes one in every ``count``, shifted by ``index``, so that the burst
    as a whole meets every part of the leaderboard and one table never holds two from the same part. ``owners``
    maps a bot id to its owner's id (None: a built-in player): a table never holds two bots of one owner (the
    board must have at least ``seats`` owners, ``owner_count``)."""
    owners = owners or {}
    strata = count * seats
    picks = []
    for k in range(seats):
        stratum = k * count + index
        position = min(len(board) - 1, (2 * stratum + 1) * len(board) // (2 * strata))
        picks.append(position)
    chosen: list[BotVersion] = []
    for position in picks:  # (a small board: skip to the next unchosen bot rather than seat one twice)
        while board[position] in chosen or _owner_taken(board[position], chosen, owners):
            position = (position + 1) % len(board)
        chosen.append(board[position])
    return chosen


def _owner_taken(version: BotVersion, chosen: list[BotVersion], owners: Mapping[int, int | None]) -> bool:
    if not owners:
        return False
    owner = owners.get(version.bot_id)
    return owner is not None and any(owners.get(other.bot_id) == owner for other in chosen)


def owner_count(board: list[BotVersion], owners: Mapping[int, int | None]) -> int:
    """How many of ``board`` can sit at one table: one bot per owner, and every built-in player."""
    keys = [owners.get(version.bot_id) for version in board]
    return len({key for key in keys if key is not None}) + keys.count(None)


def placement_progress(bot: Bot) -> Placement | None:
    """The placement of ``bot``'s newest version that has one (None: no burst, e.g. a built-in bot)."""
    counts = (
        Match.objects.filter(series__placing_version__bot=bot)
        .values("series__placing_version_id", "series__placing_version__number")
        .annotate(planned=Count("id"), played=Count("id", filter=Q(status=Match.Status.FINISHED)))
        .order_by("-series__placing_version__number")
        .first()
    )
    if counts is None:
        return None
    return Placement(
        version=counts["series__placing_version__number"],
        played=counts["played"],
        planned=counts["planned"],
        rank=leaderboard_rank(bot),
    )


def leaderboard_rank(bot: Bot) -> int | None:
    """The bot's position on its game's leaderboard (1 = best; ties share), None while it has no rated game."""
    rating = getattr(bot, "rating", None)
    if rating is None or rating.games == 0 or not bot.is_active:
        return None
    # Counts as league.ratings.queries.leaderboard ranks: ranked bots (active, ready, rated) with a better Elo.
    better = (
        Bot.objects.filter(game=bot.game, is_active=True, rating__games__gt=0, rating__elo__gt=rating.elo)
        .filter(versions__status=BotVersion.Status.READY)
        .distinct()
        .count()
    )
    return better + 1


def placement_finished(version_id: int) -> bool:
    """Whether every game of the version's burst is finalized (finished or failed)."""
    return not Match.objects.filter(
        series__placing_version_id=version_id, status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
    ).exists()


def on_series_recorded(series_id: int, **_: object) -> None:
    """(In the recording transaction; ``play.signals.series_recorded``.) The last game of a placement burst: its hook
    runs once that commits."""
    placing = MatchSeries.objects.filter(pk=series_id).values_list("placing_version_id", "game").first()
    if placing is None or placing[0] is None:
        return
    version_id, game = placing
    if placement_finished(version_id):
        transaction.on_commit(lambda: after_placement(game))


def on_version_ready(version: BotVersion, **_: object) -> None:
    """(In the validation's transaction; ``bots.signals.version_ready``.) A version is never ready without its
    placement burst."""
    do_start_placement(version)


def after_placement(game_id: str) -> None:
    """Called once a version's placement burst is over (on commit of its last game): refit ``game_id`` now rather
    than at the next beat, so the placed version's fitted Elo and rank range show at once."""
    fits.request_refit(game_id)


__all__ = [
    "Placement",
    "after_placement",
    "do_start_placement",
    "leaderboard_rank",
    "on_series_recorded",
    "on_version_ready",
    "owner_count",
    "placement_finished",
    "placement_progress",
    "spread",
]
