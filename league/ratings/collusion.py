"""Collusion, detected: pairs of bots whose head-to-head results are improbable under the fitted ratings
(docs/security.md, Collusion). Read-only; the admin lists them (league/admin.py, ``/admin/league/match/collusion/``).

Two owners who agree that one bot throws its games to the other leave a trace the ratings cannot explain: the pair's
results against each other are far from what their fitted Elo (``league.ratings.fitting``, fitted over every rated game,
theirs included) predicts. For each game:

- **Bounded**: the last ``RECENT_MATCHES`` finished rated matches (``rated.rated_matches``); a pair is tested if
  it met in at least ``MIN_GAMES`` of them. Every two seats of a match are one head-to-head result for the pair (1
  to the better rank, ½ each for a tie), as the fit counts them.
- **Expected**: bot a beats b with p = 1 / (1 + 10^((r_b - r_a)/400)) from their current fitted Elo.
- **Test**: an exact two-sided binomial test of a's points (ties count half, rounded to whole points) over the
  pair's n games against p (scipy.stats.binomtest): two-sided, since either bot may be the one that throws.
- **Many pairs at once**: with m pairs tested, some p-value is small by chance; a pair is *improbable* when its
  p-value times m (Bonferroni, ``adjusted``) is below ``ALPHA``. The list shows the most improbable first, flagged
  or not; a flag is a reason to read the games (``match_ids``), not a verdict.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from scipy.stats import binomtest

from games.registry import GAMES
from league.bots.models import Bot
from league.play.models import Match, Seat
from league.ratings.models import FittedRating
from league.ratings.rated import rated_matches

RECENT_MATCHES = 5000  # per game: the newest rated matches read
MIN_GAMES = 10  # head-to-head games a pair needs to be tested (fewer say too little)
ALPHA = 0.01  # family-wise: the chance that any honest pair of the list is flagged
LIMIT = 50  # rows listed
MATCH_LINKS = 100  # the newest games of a pair linked from its row


@dataclass
class PairTest:
    """One pair's head-to-head record against its expectation (``first`` is the bot with the smaller id)."""

    game: str
    first: int
    second: int
    games: int = 0
    points: float = 0.0  # ``first``'s points against ``second``
    expected: float = 0.0  # ``first``'s expected points (the sum of p over their games)
    p_value: float = 1.0
    adjusted: float = 1.0  # p_value times the number of pairs tested, at most 1
    match_ids: list[int] = field(default_factory=list)  # newest first, at most MATCH_LINKS
    bots: tuple[Bot | None, Bot | None] = (None, None)

    @property
    def improbable(self) -> bool:
        return self.adjusted < ALPHA

    @property
    def observed_share(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def expected_share(self) -> float:
        return self.expected / self.games if self.games else 0.0


def win_probability(elo: float, other_elo: float) -> float:
    """The chance that a bot of ``elo`` beats one of ``other_elo`` (the fitted model, league/ratings/fitting.py)."""
    return 1.0 / (1.0 + math.pow(10.0, (other_elo - elo) / 400.0))


def head_to_head(tables: dict[int, list[tuple[int, int]]], elo: dict[int, float], game: str) -> list[PairTest]:
    """The pairs' records from ``tables`` ({match id: [(bot id, rank), ...]}, newest match first), for the bots
    with a fitted Elo; not yet tested."""
    pairs: dict[tuple[int, int], PairTest] = {}
    for match_id, seats in tables.items():
        for (a, rank_a), (b, rank_b) in combinations(sorted(seats), 2):
            if a == b or a not in elo or b not in elo:
                continue
            pair = pairs.get((a, b))
            if pair is None:
                pair = pairs[(a, b)] = PairTest(game=game, first=a, second=b)
            pair.games += 1
            pair.points += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
            pair.expected += win_probability(elo[a], elo[b])
            if len(pair.match_ids) < MATCH_LINKS:
                pair.match_ids.append(match_id)
    return list(pairs.values())


def tested_pairs(pairs: list[PairTest], min_games: int = MIN_GAMES) -> list[PairTest]:
    """The pairs with at least ``min_games`` games, each tested (``p_value``, ``adjusted``), most improbable
    first."""
    tested = [pair for pair in pairs if pair.games >= min_games]
    for pair in tested:
        # Their current fitted Elo gives one p for all their games: the mean is what the sum of p's gave.
        p = min(max(pair.expected / pair.games, 1e-12), 1 - 1e-12)
        pair.p_value = float(binomtest(round(pair.points), pair.games, p).pvalue)
    for pair in tested:
        pair.adjusted = min(1.0, pair.p_value * len(tested))
    return sorted(tested, key=lambda pair: (pair.p_value, -pair.games, pair.first, pair.second))


@dataclass(frozen=True)
class Screening:
    pairs: list[PairTest]  # the most improbable first, at most ``limit``
    tested: int  # pairs tested (the Bonferroni factor)


def improbable_pairs(
    games: list[str] | None = None,
    recent: int = RECENT_MATCHES,
    min_games: int = MIN_GAMES,
    limit: int = LIMIT,
) -> Screening:
    """The ``limit`` most improbable pairs of the games' recent rated matches (every game by default), tested
    together (the Bonferroni factor counts every pair of every game)."""
    pairs: list[PairTest] = []
    for game in games or list(GAMES):
        recent_ids = list(
            Match.objects.filter(rated_matches(), game=game, status=Match.Status.FINISHED)
            .order_by("-rated_seq", "-id")
            .values_list("id", flat=True)[:recent]
        )
        tables: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for match_id in recent_ids:
            tables[match_id] = []  # newest first, as the links show them
        seats = Seat.objects.filter(match_id__in=recent_ids, rank__isnull=False)
        for match_id, bot_id, rank in seats.values_list("match_id", "bot_version__bot_id", "rank"):
            if rank is not None:  # (filtered above; the type does not know it)
                tables[match_id].append((bot_id, rank))
        elo = dict(FittedRating.objects.filter(bot__game=game).values_list("bot_id", "elo"))
        pairs += head_to_head(tables, elo, game)
    tested = tested_pairs(pairs, min_games)
    listed = tested[:limit]
    bots = Bot.objects.select_related("owner").in_bulk({bot for pair in listed for bot in (pair.first, pair.second)})
    for pair in listed:
        pair.bots = (bots.get(pair.first), bots.get(pair.second))
    return Screening(pairs=listed, tested=len(tested))
