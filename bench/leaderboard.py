"""The ladder's pages with a big league: SQL queries per page and latency, with 1,000 bots and 100,000 matches.

    .venv/bin/python bench/leaderboard.py [--bots 1000] [--matches 100000] [--samples 20] [--database postgres]
                                          [--results FILE] [--keep]

Fills a throwaway database — PostgreSQL ``parlour_bench_leaderboard_<pid>`` (created, migrated, dropped at the end) or,
with ``--database sqlite``, a temporary SQLite file — quickly, with ``bulk_create``: ``--bots`` bots of one game
(Love Letter: the worst case for its leaderboard) owned by 5 bots per user, each with a ready version, and
``--matches`` finished ladder matches of 2 to 4 seats over a month, one in twenty seats faulted. The outcomes are
drawn from each bot's hidden strength, and every match is rated through ``league.ratings.elo.rate_match`` in finish
order as the league does, so ratings, rating changes and sparklines are real (``recompute_ratings --check`` accepts the
database; it is timed too).

Then, in process with the Django test client (no web server): each page's and API call's SQL query count, and its
latency (median and p95 of ``--samples`` requests, after one warm-up): the leaderboard in three sorts and on a later
page, the leaderboard API (every row), the busiest bot's page and its rating history and head-to-head APIs; and one
run of the ladder scheduler. Before them, the fitted Elo's ``refit_game`` through the database, cold then warm.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import machine, median, quantile, record, table

DB_NAME = f"parlour_bench_leaderboard_{os.getpid()}"  # two runs at once must not drop each other's database
GAME = "love_letter"
BATCH = 5000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--database", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards (and say where)")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="parlour-bench-leaderboard-")
    if args.database == "postgres":
        infra.create_database(DB_NAME)
        url = infra.database_url(DB_NAME)
    else:
        url = f"sqlite:///{scratch}/leaderboard.sqlite3"
    os.environ.update(
        {
            "DATABASE_URL": url,
            "PARLOUR_VAR_DIR": scratch,
            "SECRET_KEY": "bench-only-not-a-secret",
            "DEBUG": "0",
            "LADDER_ENABLED": "false",
            "DJANGO_SETTINGS_MODULE": "parlour.settings",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    # In process, static files come from the source folders (production serves collected, hashed ones), and the
    # connection stays open between requests (as CONN_MAX_AGE keeps it in production) so queries can be counted.
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    plain = "django.contrib.staticfiles.storage.StaticFilesStorage"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": plain}}
    settings.WHITENOISE_USE_FINDERS = True
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        call_command("migrate", verbosity=0)
        print(f"{machine()}\n{args.database} ({url}): {args.bots:,} bots, {args.matches:,} matches")
        started = time.perf_counter()
        busiest = fill(args.bots, args.matches, random.Random(1))
        from django.db import connection

        with connection.cursor() as cursor:  # fresh statistics, as autovacuum keeps them in a running league
            cursor.execute("ANALYZE")
        print(f"filled in {time.perf_counter() - started:.0f} s")
        measure(args, busiest)
    finally:
        from django.db import connections

        connections.close_all()
        if args.database == "postgres" and not args.keep:
            infra.drop_database(DB_NAME)
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


def fill(bots: int, matches: int, rng: random.Random) -> int:
    """Users, bots, versions, matches, seats, rating changes and ratings; returns the busiest bot's id."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from bots.results import FaultCause
    from league.bots.models import Bot, BotVersion
    from league.play.models import Match, Seat
    from league.ratings import elo as ratings
    from league.ratings.models import RatedSequence, Rating, RatingChange

    users = User.objects.bulk_create(User(username=f"author{n}") for n in range(math.ceil(bots / 5)))
    league = Bot.objects.bulk_create(
        Bot(owner=users[n // 5], game=GAME, name=f"bot{n}", is_builtin=False) for n in range(bots)
    )
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=1, builtin="random", language="builtin", status=BotVersion.Status.READY)
        for bot in league
    )
    strength = [rng.gauss(1500, 250) for _ in league]
    states = [ratings.BotRating() for _ in league]
    last = [None] * bots
    scale = 400 / math.log(10)
    faults = [cause.value for cause in FaultCause]
    end = timezone.now() - timedelta(hours=3)  # outside the ladder's games-per-hour window
    step = timedelta(days=30) / matches
    for start in range(0, matches, BATCH):
        count = min(BATCH, matches - start)
        tables, stamps = [], []
        for n in range(start, start + count):
            tables.append(rng.sample(range(bots), rng.choice([2, 2, 3, 4])))
            stamps.append(end - (matches - n) * step)
        created = Match.objects.bulk_create(
            Match(
                game=GAME,
                kind=Match.Kind.LADDER,
                seed=rng.getrandbits(31),
                engine_version="1",
                status=Match.Status.FINISHED,
                attempts=1,
                finished_at=stamp,
                wall_ms=rng.randint(200, 4000),
                rated_seq=n,  # recorded in finish order, as the league numbers them
            )
            for n, stamp in enumerate(stamps, start=start + 1)
        )
        seats, changes = [], []
        for match, table_, stamp in zip(created, tables, stamps, strict=True):
            performance = [strength[b] - scale * math.log(-math.log(rng.random())) for b in table_]
            faulted = [rng.random() < 0.05 for _ in table_]
            keys = [(not f, p) for f, p in zip(faulted, performance, strict=True)]
            ranks = [1 + sum(1 for other in keys if other > key) for key in keys]
            after = ratings.rate_match([states[b] for b in table_], [ratings.RatedSeat(r, 1) for r in ranks])
            for number, (b, rank, bad, state) in enumerate(zip(table_, ranks, faulted, after, strict=True)):
                seats.append(
                    Seat(
                        match=match,
                        number=number,
                        bot_version=versions[b],
                        rank=rank,
                        score=float(len(table_) - rank),
                        fault=rng.choice(faults) if bad else "",
                        fault_detail="benchmark fault" if bad else "",
                        moves=rng.randint(5, 40),
                        time_ms=rng.randint(10, 3000),
                    )
                )
                changes.append(
                    RatingChange(
                        match=match, bot=league[b], before=states[b].elo, after=state.elo, variance=state.variance
                    )
                )
                states[b], last[b] = state, stamp
        Seat.objects.bulk_create(seats, batch_size=BATCH)
        RatingChange.objects.bulk_create(changes, batch_size=BATCH)
        Match.objects.filter(pk__in=[m.pk for m in created]).update(created=_created_before())
        print(f"  {start + count:,} matches", end="\r", flush=True)
    print()
    Rating.objects.bulk_create(
        Rating(bot=bot, last_match_at=last[n], **_fields(states[n])) for n, bot in enumerate(league)
    )
    RatedSequence.objects.create(game=GAME, last=matches)
    return league[max(range(bots), key=lambda n: states[n].games)].pk


def _created_before() -> Any:
    from django.db.models import ExpressionWrapper, F
    from django.db.models.fields import DateTimeField

    return ExpressionWrapper(F("finished_at") - timedelta(seconds=20), output_field=DateTimeField())


def _fields(state: Any) -> dict[str, Any]:
    from league.ratings.models import Rating

    values = {name: getattr(state, name) for name in Rating.STATE_FIELDS}
    values["recent"] = list(state.recent)
    return values


def measure(args: argparse.Namespace, busiest: int) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from league.ladder.scheduling import do_schedule_ladder
    from league.ratings import fits

    # The fitted Elo through the database, as beat runs it: every rated seat read, fitted, stored.
    began = time.perf_counter()
    fits.load_game(GAME)
    loading = time.perf_counter() - began
    refits = []
    for _ in range(2):  # from cold, then warm-started from the stored fit
        began = time.perf_counter()
        fit = fits.refit_game(GAME)
        refits.append(time.perf_counter() - began)
    assert fit is not None
    print(
        f"refit_game: cold {refits[0]:.1f} s, warm {refits[1]:.1f} s ({fit.iterations} iterations); "
        f"reading the {fit.matches:,} rated matches' seats alone {loading:.1f} s"
    )
    record(args.results, f"leaderboard ({args.database})", "refit_game cold", round(refits[0], 2), "s")
    record(args.results, f"leaderboard ({args.database})", "refit_game warm", round(refits[1], 2), "s")

    client = Client()
    endpoints = [
        ("leaderboard page (by Elo)", f"/games/{GAME}/"),
        ("leaderboard page 5, by games", f"/games/{GAME}/?sort=games&page=5"),
        ("leaderboard page, by last match", f"/games/{GAME}/?sort=last"),
        ("leaderboard API (all rows)", f"/api/leaderboards/{GAME}/"),
        ("busiest bot's page", f"/bots/{busiest}/"),
        ("its rating history API (50)", f"/api/bots/{busiest}/ratings/"),
        ("its head-to-head API", f"/api/bots/{busiest}/head-to-head/"),
    ]
    rows = []
    for label, path in endpoints:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        with CaptureQueriesContext(connection) as queries:
            client.get(path)
        count = len(queries.captured_queries)  # now: the next request empties the connection's log
        times = []
        for _ in range(args.samples):
            began = time.perf_counter()
            client.get(path)
            times.append((time.perf_counter() - began) * 1000)
        rows.append((label, count, median(times), quantile(times, 0.95)))
        record(args.results, f"leaderboard ({args.database})", f"{label}: queries", count)
        record(args.results, f"leaderboard ({args.database})", f"{label}: median", round(median(times), 1), "ms")

    # The scheduler, in transactions rolled back (the queue stays empty, and no task reaches a broker).
    times = []
    for n in range(max(3, args.samples // 4)):
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            scheduled = do_schedule_ladder(random.Random(n), games=[GAME])
            times.append((time.perf_counter() - began) * 1000)
            count = len(queries.captured_queries)
            transaction.set_rollback(True)
    rows.append((f"ladder scheduler run ({len(scheduled)} matches)", count, median(times), quantile(times, 0.95)))
    print(
        table(
            [(label, n, f"{p50:.1f}", "" if p95 is None else f"{p95:.1f}") for label, n, p50, p95 in rows],
            ["", "SQL queries", "median ms", "p95 ms"],
        )
    )
    began = time.perf_counter()
    call_command("recompute_ratings", "--check", "--game", GAME)
    print(f"recompute_ratings --check: {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
