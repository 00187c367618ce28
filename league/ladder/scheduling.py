"""The ladder: each game's settings, and topping up the queues with new matches between ready bots."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from games.registry import GAMES
from league.bots import presence
from league.bots.models import Bot, BotVersion
from league.ladder import pairing, settling
from league.play.matches import do_create_match
from league.play.models import Match, Seat
from league.play.series import do_create_series
from league.ratings import elo as ratings
from league.ratings import fits

# ----- the ladder --------------------------------------------------------------------------------------------

IN_FLIGHT = (Match.Status.QUEUED, Match.Status.RUNNING)
# "settle" (the default): games where the fitted order is least certain, after placement (league/ladder/settling.py);
# "uncertainty": today's rating-near pairing (league/ladder/pairing.py); "random": random tables.
MATCHMAKING = {"settle", "uncertainty", "random"}


@dataclass(frozen=True)
class LadderConfig:
    """One game's ladder settings (``settings.LADDER_GAMES``, documented in docs/ratings.md), checked."""

    game: str
    table_sizes: tuple[int, ...]
    games_per_hour: int
    max_in_flight: int
    time_control: dict[str, int]
    matchmaking: str
    enabled: bool
    series: int = 1  # games per table, played in a row by the same processes (league/play/series.py)

    def policy(self, max_in_flight: int | None = None) -> pairing.Policy:
        return pairing.Policy(
            table_sizes=self.table_sizes,
            # "settle" plans placement tables as "uncertainty" does (league/ladder/settling.py).
            uncertainty=self.matchmaking in {"settle", "uncertainty"},
            max_in_flight=max_in_flight or self.max_in_flight,
            starve_seconds=settings.LADDER_STARVE_SECONDS,
        )


def ladder_config(game_id: str) -> LadderConfig:
    game = GAMES[game_id]
    entry = settings.LADDER_GAMES.get(game_id, {})
    allowed = range(game.min_players, game.max_players + 1)
    sizes = tuple(sorted(set(entry.get("table_sizes") or allowed)))
    if not all(isinstance(size, int) and size in allowed for size in sizes):
        raise ImproperlyConfigured(
            f"LADDER_GAMES[{game_id!r}]['table_sizes'] = {list(sizes)}: {game.title} is played by "
            f"{game.min_players} to {game.max_players} players"
        )
    time_control = dict(entry.get("time_control") or {})
    if set(time_control) - {"move_ms", "bank_ms"} or not all(
        isinstance(value, int) and value > 0 for value in time_control.values()
    ):
        raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}]['time_control'] takes positive move_ms and bank_ms")
    matchmaking = entry.get("matchmaking", "settle")
    if matchmaking not in MATCHMAKING:
        raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}]['matchmaking'] is one of {sorted(MATCHMAKING)}")
    numbers = {
        "games_per_hour": entry.get("games_per_hour", 3600),
        "max_in_flight": entry.get("max_in_flight", 2),
        "series": entry.get("series", 1),
    }
    for key, value in numbers.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if key == "games_per_hour" else 1):
            raise ImproperlyConfigured(f"LADDER_GAMES[{game_id!r}][{key!r}] must be a whole number, not {value!r}")
    if matchmaking == "random":
        # A random table played k times in a row gives the ratings k games of one random draw: measured, the order
        # settled later (tests/league/ratings/test_convergence.py; docs/ratings.md). Tables chosen for what they teach
        # ("settle", "uncertainty") are worth the repeat, and converged no later.
        numbers["series"] = 1
    return LadderConfig(
        game=game_id,
        table_sizes=sizes,
        time_control=time_control,
        matchmaking=matchmaking,
        enabled=bool(entry.get("enabled", True)),
        **numbers,
    )


def do_schedule_ladder(rng: random.Random | None = None, games: list[str] | None = None) -> list[Match]:
    """Top up the games' ladder queues with new matches between ready bots (Celery beat calls this).

    Bounds: at most LADDER_WORKER_CAPACITY ladder matches queued or running over all games, LADDER_QUEUE_DEPTH per
    game, and each game's ``games_per_hour``. Free capacity is shared out one match per game in turn, starting
    from a random game, so one busy game cannot crowd out the others."""
    rng = rng or random.Random()
    now = timezone.now()
    configs = [config for config in (ladder_config(game_id) for game_id in games or GAMES) if config.enabled]
    ladder = Match.objects.filter(kind=Match.Kind.LADDER)
    # In flight: tables, not games (a series is one table playing several games in a row).
    in_flight = dict(
        ladder.filter(status__in=IN_FLIGHT)
        .values_list("game")
        .annotate(n=Count("series", distinct=True) + Count("id", filter=Q(series__isnull=True)))
        .values_list("game", "n")
    )
    last_hour = dict(
        ladder.filter(created__gte=now - timedelta(hours=1), game__in=[config.game for config in configs])
        .values_list("game")
        .annotate(n=Count("id"))
        .values_list("game", "n")
    )
    # A game without enough bots for a table gets no share of the capacity: counted as seats a table can fill, one
    # per owner and every built-in player (one owner's bots never meet: league/ladder/pairing.py).
    playable = dict(
        ladder_bots([config.game for config in configs])
        .values_list("game")
        .annotate(n=Count("owner", distinct=True, filter=Q(is_builtin=False)) + Count("id", filter=Q(is_builtin=True)))
        .values_list("game", "n")
    )
    configs = [config for config in configs if playable.get(config.game, 0) >= min(config.table_sizes)]
    free = settings.LADDER_WORKER_CAPACITY - sum(in_flight.values())
    wants = {
        config.game: max(
            0,
            min(
                settings.LADDER_QUEUE_DEPTH - in_flight.get(config.game, 0),
                (config.games_per_hour - last_hour.get(config.game, 0)) // config.series,
            ),
        )
        for config in configs
    }
    rng.shuffle(configs)
    shares = dict.fromkeys(wants, 0)
    while free > 0 and any(shares[game] < wants[game] for game in wants):
        for config in configs:
            if free > 0 and shares[config.game] < wants[config.game]:
                shares[config.game] += 1
                free -= 1
    created = []
    for config in configs:
        if shares[config.game]:
            created += _schedule_game(config, shares[config.game], rng, now)
    return created


def _schedule_game(config: LadderConfig, count: int, rng: random.Random, now: datetime) -> list[Match]:
    with transaction.atomic():
        # Locking the game's candidates serialises two schedulers (a duplicated beat): the second one waits and
        # then counts the first one's matches, so neither the queue bound nor a bot's in-flight cap is exceeded.
        eligible = ladder_bots([config.game]).select_related("rating", "fitted").select_for_update(of=("self",))
        bots = {bot.pk: bot for bot in eligible.order_by("id")}
        if not bots:
            return []
        versions: dict[int, BotVersion] = {}
        ready = BotVersion.objects.filter(bot_id__in=bots, status=BotVersion.Status.READY)
        # Never the archives (up to 1 MiB each): a seat needs the version's id, the rating its number.
        for version in ready.only("id", "bot_id", "number").order_by("bot_id", "-number"):
            versions.setdefault(version.bot_id, version)
        # From the (few) matches in flight to their seats: an index on each side, whatever the history's size.
        in_flight = Match.objects.filter(kind=Match.Kind.LADDER, status__in=IN_FLIGHT, game=config.game)
        busy = dict(  # tables in flight per bot (a series is one)
            Seat.objects.filter(match__in=in_flight.values("pk"))
            .values_list("bot_version__bot_id")
            .annotate(
                n=Count("match__series", distinct=True)
                + Count("match_id", filter=Q(match__series__isnull=True), distinct=True)
            )
            .values_list("bot_version__bot_id", "n")
        )
        candidates = []
        settle = config.matchmaking == "settle"
        for bot_id, version in versions.items():
            bot = bots[bot_id]
            rating = getattr(bot, "rating", None)
            state = rating.state if rating else ratings.BotRating()
            since = bot.last_scheduled or bot.created
            # Settling ranks by the fitted Elo of the version that will play; before its fit, the online one.
            fitted = getattr(bot, "fitted", None) if settle else None
            if fitted is not None and fitted.version_id != version.pk:
                fitted = None
            candidates.append(
                pairing.Candidate(
                    bot_id=bot_id,
                    version=version,
                    elo=fitted.elo if fitted else state.elo,
                    # Settling: a new version is placed again (its games so far say little about it).
                    games=state.games_since_version if settle else state.games,
                    sigma=fitted.sigma if fitted else state.sigma,
                    seats={size: list(counts) for size, counts in (bot.ladder_seats or {}).items()},
                    in_flight=busy.get(bot_id, 0),
                    idle_seconds=max(0.0, (now - since).total_seconds()),
                    owner=None
                    if bot.is_builtin
                    else bot.owner_id,  # one owner's bots never meet (league/ladder/pairing.py)
                )
            )
        if not candidates:
            return []
        # Nobody holds more than a fair share of the seats in flight; in a small league that share is larger.
        seats_in_flight = (sum(busy.values()) + count * max(config.table_sizes)) / len(candidates)
        policy = config.policy(max_in_flight=max(config.max_in_flight, math.ceil(seats_in_flight)))
        if settle:
            tables = settling.plan_settling_tables(candidates, fits.together_of(config.game), count, policy, rng)
        else:
            tables = pairing.plan_tables(candidates, count, policy, rng)
        created = [_create_table(config, [c.version for c in table], rng) for table in tables]
        seated = {candidate.bot_id: candidate for table in tables for candidate in table}
        for bot_id, candidate in seated.items():
            bots[bot_id].ladder_seats = candidate.seats
            bots[bot_id].last_scheduled = now
        Bot.objects.bulk_update([bots[bot_id] for bot_id in seated], ["ladder_seats", "last_scheduled"])
    return created


def _create_table(config: LadderConfig, versions: list[BotVersion], rng: random.Random) -> Match:
    """One ladder table: a match, or a series of ``config.series`` games (distinct seeds) on the same processes;
    returns its (first) match."""
    time_control = config.time_control or None
    if config.series <= 1:
        return do_create_match(config.game, versions, time_control=time_control)
    seeds = rng.sample(range(1, 2**31), config.series)
    series = do_create_series(config.game, versions, seeds, time_control=time_control)
    return series.matches.earliest("pk")


def ladder_bots(games: list[str]) -> QuerySet[Bot]:
    """The bots the ladder may schedule: on the ladder, not paused, with a ready version and a live owner, and
    connected if remote (docs/remote.md: an offline remote bot is not scheduled)."""
    bots = (
        Bot.objects.filter(game__in=games, is_active=True, paused_at__isnull=True)
        .filter(Q(owner__is_active=True) | Q(is_builtin=True))
        .filter(Exists(BotVersion.objects.filter(bot=OuterRef("pk"), status=BotVersion.Status.READY)))
    )
    offline = presence.offline_remote_bots(games)
    return bots.exclude(pk__in=offline) if offline else bots
