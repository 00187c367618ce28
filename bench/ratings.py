"""Fitted Elo against online Elo: how soon the ladder finds the true order, how honest the intervals are, and how
fast a refit is at 10,000 bots and 1,000,000 games (docs/ratings.md, Fitted Elo; docs/benchmarks.md, section 7).

    .venv/bin/python bench/ratings.py [--quick] [--leagues 10] [--cap 6000] [--series 1 12] [--order-only]
                                      [--results FILE]

Everything drives the real code, no copy: ``league.ratings.fitting`` (fit, rank ranges) with ``league.ladder.settling``
(its matchmaking), and today's ``league.ratings.elo.rate_match`` with ``league.ladder.pairing.plan_tables``.

- **Order**: 16 bots 60 Elo apart (the true ratings, centred on 1500). Matches are planned two at a time (a queue
  of depth 2, ``max_in_flight`` 2), played from the Elo model — a table's ranking is a Plackett-Luce draw with
  strengths 10^(r/400), an exponential race, so every pair at the table keeps the Elo probability — then recorded
  (fitted: refit warm-started from the last fit; online: ``rate_match``). Every 20 matches the order is checked:
  the figure is the first check from which the order holds at every later check up to ``--cap`` matches; "never"
  if there is none. Median over leagues (seeds 0..), 2-player and 4-player tables. ``--series n``: every planned
  table is played ``n`` times in a row by the same bots before the ratings change (a ladder series, as the workers
  record it: one transaction, then the refit), each game counted as a match.
- **Calibration**: leagues of 100 bots with true ratings from N(1500, 200²); 50 rounds of random tables, so each
  bot plays exactly 50 matches; the share of bots whose 95% interval holds its (centred) true rating.
- **Scale**: 10,000 bots, 1,000,000 two-player games between random opponents, aggregated by ``pair_counts``; one
  fit from cold, then one more game and a refit warm-started from the first: seconds, Newton iterations, and the
  peak memory traced during the fit. The propagated sigma (used above 2,000 bots) is compared with the exact one on
  2,000 bots.

The last line is ``ratings: fitted <matches> online <matches|never>`` for the 16-bot two-player case.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, record
from league.ladder.pairing import Candidate, Policy, plan_tables
from league.ladder.settling import plan_settling_tables
from league.ratings import fitting
from league.ratings.elo import BotRating, RatedSeat, rate_match

BOTS, GAP, CHECK_EVERY, TABLES_PER_ROUND = 16, 60.0, 20, 2
Result = tuple[list[int], list[int]]


def true_ratings(bots: int = BOTS, gap: float = GAP) -> np.ndarray:
    return 1500.0 + gap * (np.arange(bots) - (bots - 1) / 2)


def play(seats: Sequence[int], truth: np.ndarray, rng: np.random.Generator) -> list[int]:
    """Ranks (1 = best) from a Plackett-Luce exponential race: P(i ahead of j) is the Elo expectation for every pair."""
    finish = rng.exponential(1.0 / 10 ** (truth[list(seats)] / 400.0))
    ranks = np.empty(len(seats), dtype=np.int64)
    ranks[np.argsort(finish)] = np.arange(1, len(seats) + 1)
    return [int(r) for r in ranks]


def in_order(ratings: Sequence[float]) -> bool:
    return all(ratings[i] < ratings[i + 1] for i in range(len(ratings) - 1))  # truth is increasing by index


def settled_at(checks: list[tuple[int, bool]]) -> int | None:
    """The first check from which the order holds at that check and every later one."""
    reached = None
    for matches, ok in checks:
        if not ok:
            reached = None
        elif reached is None:
            reached = matches
    return reached


def run_league(method: str, players: int, seed: int, cap: int, series: int = 1) -> int | None:
    truth = true_ratings()
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    policy = Policy(table_sizes=(players,))
    candidates = [Candidate(bot_id=i, version=None) for i in range(BOTS)]
    played = [0] * BOTS
    states = [BotRating() for _ in range(BOTS)]
    counts = fitting.pair_counts([], BOTS)
    last: fitting.Fit | None = None
    checks: list[tuple[int, bool]] = []
    matches = 0
    while matches < cap:
        if method == "fitted":
            tables = plan_settling_tables(candidates, counts.together(), TABLES_PER_ROUND, policy, pyrng)
        else:
            tables = plan_tables(candidates, TABLES_PER_ROUND, policy, pyrng)
        results: list[Result] = []
        for table in tables:
            seats = [c.bot_id for c in table]
            for _game in range(series):
                ranks = play(seats, truth, rng)
                results.append((seats, ranks))
                if method == "online":
                    after = rate_match([states[b] for b in seats], [RatedSeat(rank=r, version=0) for r in ranks])
                    for bot, state in zip(seats, after, strict=True):
                        states[bot] = state
                for bot in seats:
                    played[bot] += 1
        if method == "fitted":
            counts = fitting.pair_counts(results, BOTS, counts)
            last = fitting.fit(counts, warm_start=last)
            ratings, sigmas = last.ratings, last.sigmas
        else:
            ratings = np.array([s.elo for s in states])
            sigmas = np.array([s.sigma for s in states])
        for c in candidates:
            c.elo, c.sigma, c.games = float(ratings[c.bot_id]), float(sigmas[c.bot_id]), played[c.bot_id]
            c.in_flight = 0  # the round's matches are finished
            c.idle_seconds += 1.0  # a round is a second: waiting counts as in the league (plan resets the players)
        before = matches
        matches += len(tables) * series
        if matches // CHECK_EVERY > before // CHECK_EVERY:
            checks.append((matches // CHECK_EVERY * CHECK_EVERY, in_order(list(ratings))))
    return settled_at(checks)


def order_figures(players: int, leagues: int, cap: int, results: str | None, series: int = 1) -> dict[str, str]:
    figures = {}
    for method in ("fitted", "online"):
        started = time.perf_counter()
        reached = [run_league(method, players, seed, cap, series) for seed in range(leagues)]
        never = sum(r is None for r in reached)
        # A league that never settles counts as later than any that did: the median is "never" if half never did.
        ordered = sorted(reached, key=lambda r: (r is None, r or 0))
        middle = ordered[(len(ordered) - 1) // 2]
        figure = "never" if middle is None else str(middle)
        figures[method] = figure
        print(
            f"  {players} players, {method:6}, series of {series:>2}: median {figure:>5} matches "
            f"({never} of {leagues} not within {cap}); "
            f"each: {[r if r is not None else '-' for r in reached]}  [{time.perf_counter() - started:.0f} s]"
        )
        label = f"order {players}p {method} median" + (f" (series of {series})" if series > 1 else "")
        record(results, "ratings", label, figure, "matches", f"{leagues} leagues")
    return figures


def calibration(players: int, leagues: int, rounds: int = 50, bots: int = 100) -> float:
    held = total = 0
    for seed in range(leagues):
        rng = np.random.default_rng(1000 + seed)
        truth = rng.normal(1500, 200, bots)
        results: list[Result] = []
        for _ in range(rounds):
            order = rng.permutation(bots)
            for start in range(0, bots - players + 1, players):
                seats = [int(b) for b in order[start : start + players]]
                results.append((seats, play(seats, truth, rng)))
        result = fitting.fit(fitting.pair_counts(results, bots))
        centred = truth - truth.mean() + 1500.0
        held += int(np.sum(np.abs(result.ratings - centred) <= fitting.Z95 * result.sigmas))
        total += bots
    return held / total


def timed(call: Callable[[], fitting.Fit]) -> tuple[fitting.Fit, float, float]:
    tracemalloc.start()
    started = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def synthetic(bots: int, games: int, seed: int) -> tuple[np.ndarray, list[Result]]:
    rng = np.random.default_rng(seed)
    truth = rng.normal(1500, 200, bots)
    a = rng.integers(0, bots, games)
    b = (a + rng.integers(1, bots, games)) % bots
    wins = rng.random(games) < 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
    return truth, [
        ([x, y], [1, 2] if w else [2, 1]) for x, y, w in zip(a.tolist(), b.tolist(), wins.tolist(), strict=True)
    ]


def scale(bots: int, games: int, results_file: str | None) -> None:
    truth, results = synthetic(bots, games, seed=7)
    started = time.perf_counter()
    counts = fitting.pair_counts(results, bots)
    aggregate = time.perf_counter() - started
    del results
    cold, cold_s, cold_mb = timed(lambda: fitting.fit(counts))
    counts = fitting.pair_counts([([3, 5], [1, 2])], bots, counts)
    warm, warm_s, warm_mb = timed(lambda: fitting.fit(counts, warm_start=cold))
    centred = truth - truth.mean() + 1500.0
    covered = float(np.mean(np.abs(cold.ratings - centred) <= fitting.Z95 * cold.sigmas))
    print(f"  {bots:,} bots, {games:,} games ({len(counts.first):,} pairs); aggregating the results {aggregate:.1f} s")
    print(f"  cold fit: {cold_s:.1f} s, {cold.iterations} iterations, peak {cold_mb:.0f} MiB traced")
    print(f"  one more game, warm fit: {warm_s:.1f} s, {warm.iterations} iterations, peak {warm_mb:.0f} MiB traced")
    print(
        f"  95% intervals (propagated sigma) hold the truth for {covered:.1%}; "
        f"median sigma {np.median(cold.sigmas):.0f}"
    )
    for figure, value, unit in (
        ("scale cold fit", round(cold_s, 2), "s"),
        ("scale warm refit", round(warm_s, 2), "s"),
        ("scale peak memory", round(max(cold_mb, warm_mb)), "MiB"),
        ("scale coverage", round(covered, 4), ""),
    ):
        record(results_file, "ratings", figure, value, unit, f"{bots} bots, {games} games")


def approximation(bots: int, games: int) -> None:
    """The propagated sigma (large leagues) against the exact one, on the same league."""
    _truth, results = synthetic(bots, games, seed=11)
    counts = fitting.pair_counts(results, bots)
    exact = fitting.fit(counts)
    approx = fitting.fit(counts, warm_start=exact, dense_limit=0)
    ratio = approx.sigmas / exact.sigmas
    print(
        f"  propagated / exact sigma at {bots:,} bots, {games:,} games: median {np.median(ratio):.3f}, "
        f"5%-95% {np.quantile(ratio, 0.05):.3f}-{np.quantile(ratio, 0.95):.3f}"
    )


def fit_figures(quick: bool, results: str | None) -> None:
    """The intervals' calibration and the fit's cost at scale."""
    print("Calibration: share of 95% intervals holding the true rating after 50 matches each (100-bot leagues)")
    for players in (2, 4):
        share = calibration(players, 4 if quick else 20)
        print(f"  {players} players: {share:.1%}")
        record(results, "ratings", f"calibration {players}p", round(share, 4))
    print("Scale")
    if quick:
        scale(1_000, 100_000, results)
    else:
        scale(10_000, 1_000_000, results)
        approximation(2_000, 200_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 leagues, smaller calibration and scale")
    parser.add_argument("--leagues", type=int)
    parser.add_argument("--cap", type=int, help="matches per league (default 6000, quick 4000)")
    parser.add_argument("--series", type=int, nargs="+", default=[1], help="games per table in the order runs")
    parser.add_argument("--order-only", action="store_true", help="only the order runs")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    leagues = args.leagues or (3 if args.quick else 10)
    cap = args.cap or (4000 if args.quick else 6000)
    print(machine())
    if not args.order_only:
        fit_figures(args.quick, args.results)
    print(f"Order: {BOTS} bots {GAP:.0f} Elo apart, checked every {CHECK_EVERY} matches, median of {leagues} leagues")
    for series in args.series:
        figures = {players: order_figures(players, leagues, cap, args.results, series) for players in (4, 2)}
        print(f"ratings: fitted {figures[2]['fitted']} online {figures[2]['online']} (series of {series})")


if __name__ == "__main__":
    main()
