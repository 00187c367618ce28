"""The fitted Elo's refit at scale through PostgreSQL: cold, then incremental (docs/benchmarks.md, section 7).

    .venv/bin/python bench/refit.py [--bots 10000] [--matches 1000000] [--new 1000] [--results FILE] [--keep]
    .venv/bin/python bench/refit.py --database NAME --rounds 5 [--against DIR] [--new 1000]

Builds a throwaway database (``parlour_bench_refit_<pid>``, migrated, dropped at the end) server-side (INSERT ...
SELECT over generate_series): ``--bots`` Love Letter bots with a ready version, and ``--matches`` finished rated ladder
matches of 2, 2, 3 or 4 seats, numbered in recorded order (``Match.rated_seq``), each table ranked by the bots' hidden
strengths (N(1500, 250²)) plus Gumbel noise (the Elo model's race). Then, timed:

- the old read: ``fits.load_game``, every rated seat of the game (what each refit did before it was incremental);
- ``fits.refit_game(cold=True)``: statistics built from every rated match, fitted, stored;
- ``--new`` more matches, then ``fits.refit_game()``: the incremental refit (and its read alone);
- a bot's second version playing 100 matches, then ``fits.refit_game()`` (its old version's tables recounted);
- ``fits.compare_fit``: a cold refit from every seat must agree with the stored fit and its statistics.

``--database NAME`` keeps the league in ``NAME`` (never dropped) and builds it, with its cold refit, only when it has
no matches yet, so a later run starts at once. ``--rounds N`` then times only the refit after ``--new`` matches, N
times, each copy of the code (this one, and ``--against DIR``) in its own process (``bench/refit_worker.py``) and in
alternating order, every refit after its own ``--new`` matches: old against new on the same league, as medians.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, HelperProcess, load_average, machine, record

DB_NAME = f"parlour_bench_refit_{os.getpid()}"
GAME = "love_letter"
BATCH = 100_000


def build_bots(bots: int) -> list[int]:
    """Users (5 bots each), bots and their ready versions; returns the version ids by bot index."""
    from django.contrib.auth.models import User

    from league.bots.models import Bot, BotVersion

    users = User.objects.bulk_create(User(username=f"author{n}") for n in range((bots + 4) // 5))
    made = Bot.objects.bulk_create(Bot(owner=users[n // 5], game=GAME, name=f"bot{n}") for n in range(bots))
    versions = BotVersion.objects.bulk_create(
        (
            BotVersion(bot=bot, number=1, builtin="random", language="builtin", status=BotVersion.Status.READY)
            for bot in made
        ),
        batch_size=5000,
    )
    return [version.pk for version in versions]


def add_matches(cursor: Any, versions: list[int], start: int, end: int) -> None:
    """Matches start+1..end (ids and recorded order alike), with seats ranked by strength plus noise."""
    from bench.site import _insert_select
    from league.play.models import Match, Seat

    bots = len(versions)
    step = max(1, (bots - 1) // 4)  # 4 * step < bots: a table's bots are distinct
    for low in range(start, end, BATCH):
        high = min(end, low + BATCH)
        cursor.execute(
            "CREATE TEMP TABLE bench_new AS SELECT m::bigint AS m, (ARRAY[2, 2, 3, 4])[1 + m % 4] AS players, "
            f"now() - interval '3 hours' - ({end} - m) * interval '1 s' AS at FROM generate_series({low + 1}, {high}) m"
        )
        _insert_select(
            cursor,
            Match,
            {
                "id": "m",
                "game": f"'{GAME}'",
                "kind": "'ladder'",
                "options": "'{}'::jsonb",
                "seed": "m",
                "engine_version": "'1'",
                "status": "'finished'",
                "attempts": "1",
                "created": "at - interval '2 seconds'",
                "finished_at": "at",
                "wall_ms": "100",
                "time_control": "'{}'::jsonb",
                "rated_seq": "m",
            },
            "bench_new",
        )
        bot = f"(((m * 2654435761) % {bots}) + k * (1 + (m * 40503) % {step})) % {bots}"
        cursor.execute(
            f"CREATE TEMP TABLE bench_seat AS SELECT n.m, k, b.version_id, rank() OVER (PARTITION BY n.m ORDER BY "
            "b.strength + 173.7 * -ln(-ln(random())) DESC) AS rank, n.players FROM bench_new n "
            f"JOIN generate_series(0, 3) k ON k < n.players JOIN bench_bot b ON b.idx = {bot}"
        )
        _insert_select(
            cursor,
            Seat,
            {
                "match_id": "m",
                "number": "k",
                "bot_version_id": "version_id",
                "rank": "rank",
                "score": "players - rank",
                "moves": "20",
                "time_ms": "5",
            },
            "bench_seat",
        )
        cursor.execute("DROP TABLE bench_new; DROP TABLE bench_seat")
        print(f"  {high:,} matches", end="\r", flush=True)
    print()
    cursor.execute("SELECT setval(pg_get_serial_sequence('league_match', 'id'), (SELECT max(id) FROM league_match))")
    cursor.execute(
        "INSERT INTO league_ratedsequence (game, last) VALUES (%s, %s) ON CONFLICT (game) DO UPDATE SET last = %s",
        [GAME, end, end],
    )


def timed(label: str, run: Any, results: str | None, args: argparse.Namespace) -> Any:
    began = time.perf_counter()
    value = run()
    seconds = time.perf_counter() - began
    print(f"{label}: {seconds:.2f} s")
    record(results, f"refit ({args.bots:,} bots, {args.matches:,} matches)", label, round(seconds, 2), "s")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=1000)
    parser.add_argument("--skip-old-read", action="store_true", help="do not time the old full read")
    parser.add_argument("--skip-compare", action="store_true", help="do not time the cold comparison")
    parser.add_argument("--profile", action="store_true", help="print where the incremental refit spends its time")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--database", help="keep the league in this database; build it only if it has none")
    parser.add_argument("--rounds", type=int, default=0, help="with --database: time only N incremental refits")
    parser.add_argument("--against", help="with --rounds: also time this code copy's refit, alternating")
    args = parser.parse_args()
    name = args.database or DB_NAME
    if args.database is None or not infra.database_exists(name):
        infra.create_database(name)
    try:
        infra.setup_django(name)
        if args.database is None:
            run(args)
        else:
            reuse(args)
    finally:
        from django.db import connections

        connections.close_all()
        if not (args.keep or args.database):
            infra.drop_database(name)


def build(args: argparse.Namespace) -> list[int]:
    """The league, server-side; returns the version ids by bot index (also kept in the table ``bench_bot``)."""
    from django.db import connection, transaction

    print(f"{machine()}\n{connection.settings_dict['NAME']}: {args.bots:,} bots, {args.matches:,} matches")
    began = time.perf_counter()
    versions = build_bots(args.bots)
    rng = random.Random(1)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_bot (idx int PRIMARY KEY, version_id bigint, strength float)")
        cursor.executemany(
            "INSERT INTO bench_bot VALUES (%s, %s, %s)",
            [(n, version, rng.gauss(1500, 250)) for n, version in enumerate(versions)],
        )
        add_matches(cursor, versions, 0, args.matches)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"built in {time.perf_counter() - began:.0f} s")
    return versions


def reuse(args: argparse.Namespace) -> None:
    """``--database``: the league as kept (built and cold-refitted the first time), then ``--rounds`` refits."""
    from django.db import connection

    from league.play.models import Match
    from league.ratings import fits

    if not Match.objects.exists():
        build(args)
        fit = timed(
            "refit_game cold (statistics from every match)", lambda: fits.refit_game(GAME, cold=True), None, args
        )
        print(f"  {fit.matches:,} matches, {fit.bots:,} bots, {fit.iterations} Newton iterations")
    with connection.cursor() as cursor:
        cursor.execute("SELECT version_id FROM bench_bot ORDER BY idx")
        versions = [row[0] for row in cursor.fetchall()]
    if args.rounds:
        rounds(args, versions)


def rounds(args: argparse.Namespace, versions: list[int]) -> None:
    """Each copy's refit after its own ``--new`` matches, ``--rounds`` times, the copies' order alternating."""
    from django.db import connection, transaction
    from django.db.models import Max

    from league.play.models import Match

    trees = {"new": ROOT} | ({"old": Path(args.against).resolve()} if args.against else {})
    database = str(connection.settings_dict["NAME"])
    worker = str(ROOT / "bench" / "refit_worker.py")
    flags = ["--profile"] if args.profile else []
    workers = {
        label: HelperProcess([sys.executable, worker, str(tree), database, *flags], tree)
        for label, tree in trees.items()
    }
    seconds: dict[str, list[float]] = {label: [] for label in trees}
    cpu: dict[str, list[float]] = {label: [] for label in trees}
    print(f"{machine()}\n{database}: {Match.objects.count():,} matches; rounds of {args.new:,} new matches")
    try:
        for number in range(args.rounds):
            order = list(trees) if number % 2 == 0 else list(reversed(trees))
            for label in order:
                last = Match.objects.aggregate(id=Max("id"), seq=Max("rated_seq"))
                start = max(last["id"] or 0, last["seq"] or 0)
                with transaction.atomic(), connection.cursor() as cursor:
                    add_matches(cursor, versions, start, start + args.new)
                answer = workers[label].ask("refit")
                seconds[label].append(answer["seconds"])
                cpu[label].append(answer["cpu"])
                print(
                    f"round {number + 1} {label}: {answer['seconds']:.2f} s (CPU {answer['cpu']:.2f} s), "
                    f"{answer['iterations']} iterations"
                )
    finally:
        for helper in workers.values():
            helper.close()
    print(f"load average {load_average()}")
    for label, values in seconds.items():
        figure = f"refit_game after {args.new:,} new matches ({label}: {trees[label]})"
        print(
            f"{figure}: median {statistics.median(values):.2f} s of {', '.join(f'{v:.2f}' for v in values)}; "
            f"CPU median {statistics.median(cpu[label]):.2f} s"
        )
        record(args.results, f"refit ({database})", figure, round(statistics.median(values), 2), "s")


def run(args: argparse.Namespace) -> None:
    from django.db import connection, transaction

    from league.bots.models import BotVersion
    from league.play.models import Match, Seat
    from league.ratings import fits

    versions = build(args)
    rng = random.Random(2)
    if not args.skip_old_read:
        timed("the old read: every rated seat (fits.load_game)", lambda: fits.load_game(GAME), args.results, args)
    fit = timed(
        "refit_game cold (statistics from every match)", lambda: fits.refit_game(GAME, cold=True), args.results, args
    )
    print(
        f"  {fit.matches:,} matches, {fit.bots:,} bots, {fit.iterations} Newton iterations, "
        f"fit.seconds {fit.seconds:.2f}, converged {fit.converged}"
    )

    with transaction.atomic(), connection.cursor() as cursor:
        add_matches(cursor, versions, args.matches, args.matches + args.new)
    total = args.matches + args.new
    stored = fits.stored_statistics(GAME)
    timed(
        f"incremental read of {args.new:,} new matches",
        lambda: fits.update_statistics(GAME, stored),
        args.results,
        args,
    )
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    fit = timed(
        f"refit_game incremental after {args.new:,} new matches", lambda: fits.refit_game(GAME), args.results, args
    )
    if profile is not None:
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    print(f"  {fit.matches:,} matches, {fit.iterations} Newton iterations, converged {fit.converged}")

    # A bot's second version plays 100 matches: its first version's tables are counted again without it.
    busiest = 0
    old = BotVersion.objects.get(pk=versions[busiest])
    second = BotVersion.objects.create(bot_id=old.bot_id, number=2, builtin="random", status=BotVersion.Status.READY)
    opponents = rng.sample(versions[1:], 100)
    matches = Match.objects.bulk_create(
        Match(
            game=GAME,
            kind=Match.Kind.LADDER,
            seed=n,
            engine_version="1",
            status=Match.Status.FINISHED,
            rated_seq=total + 1 + n,
        )
        for n in range(100)
    )
    Seat.objects.bulk_create(
        Seat(match=match, number=k, bot_version_id=version, rank=1 + (k + n) % 2)
        for n, (match, opponent) in enumerate(zip(matches, opponents, strict=True))
        for k, version in enumerate((second.pk, opponent))
    )
    retired_tables = Seat.objects.filter(bot_version=old).count()
    fit = timed(
        f"refit_game incremental after a new version (its old version's {retired_tables} tables recounted)",
        lambda: fits.refit_game(GAME),
        args.results,
        args,
    )
    print(f"  {fit.iterations} Newton iterations, converged {fit.converged}")
    if args.skip_compare:
        return
    differences = timed(
        "compare_fit (a cold refit from every seat, compared)", lambda: fits.compare_fit(GAME), args.results, args
    )
    print(f"  compare_fit: {differences!r}")
    assert differences == [], differences


if __name__ == "__main__":
    main()
