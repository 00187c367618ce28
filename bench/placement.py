"""Issue #20's figures for placement and series, measured side by side in one run:

    .venv/bin/python bench/placement.py [--games 20] [--throughput 72] [--series 6 12] [--repeats 3] [--skip embedded]
    .venv/bin/python bench/placement.py --skip embedded redis-pg record      # the throughput only (a few minutes)

1. **Upload → validated → N rated games** (default 20) of the game's example bot (Love Letter, sandboxed), timed from
   the upload until its validation and its N-th rating change:
   - ``embedded``: ``make run``'s defaults: ``bin/run-league`` started as a subprocess (SQLite, filesystem broker, one
     worker with 2 processes and beat), the built-in bots laddering meanwhile;
   - ``redis-pg``: the same with Redis (database of ``BENCH_REDIS_URL``) and a throwaway PostgreSQL database, one
     worker (2 processes, beat), the built-in bots laddering.
2. **Recording cost per game**, single matches (``do_record_match_result``, one transaction each) against series of
   SERIES_GAMES games (``do_record_series``, one transaction each), on SQLite and on PostgreSQL, the same games (the
   built-in players, really played in process beforehand so that only recording is timed).
3. **Short-game throughput** through a real worker (PostgreSQL + Redis, 2 processes, no ladder): the same Love Letter
   games of the sandboxed example bot against the built-in random player, as single matches (today's path, with its
   chaining and bots started ahead) and as series of each length of ``--series`` (default: placement's SERIES_GAMES
   and the ladder's series for Love Letter), rounds interleaved; games per minute, and one ``THROUGHPUT`` line per
   length with its ratio to single matches against issue 20's goal (at least 5 times).

The per-game cost inside a series against its floor is ``bench/series.py``'s (run it in the same session).
Every scenario runs in a child process of its own (Django reads its database once per process); each prints one JSON
line that the parent tabulates.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, load_average, machine, median, table

GAME = "love_letter"
DB_NAME = "parlour_bench_placement"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _upload_and_wait(games: int, timeout: float = 300.0) -> dict[str, float]:
    """(Django set up.) Upload the example bot as a new user's and time its validation and its first ``games``
    rated games."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.registry import example_dir
    from league.bots.models import BotVersion
    from league.bots.services import do_create_bot
    from league.play.models import Match
    from league.ratings.models import RatingChange

    source = (example_dir(GAME) / "main.py").read_bytes()
    user = User.objects.create_user(f"bench{random.randrange(10**9)}")
    began, started = time.monotonic(), timezone.now()
    bot = do_create_bot(user, GAME, "placer", source, "main.py")
    figures: dict[str, float] = {}
    deadline = began + timeout
    while time.monotonic() < deadline:
        status = BotVersion.objects.filter(bot=bot).values_list("status", flat=True).first()
        if "validated_s" not in figures and status != BotVersion.Status.PENDING:
            figures["validated_s"] = time.monotonic() - began
            if status != BotVersion.Status.READY:
                raise SystemExit(f"the example bot was rejected: {BotVersion.objects.get(bot=bot).validation_log}")
        rated = RatingChange.objects.filter(bot=bot).count()
        if rated >= 1 and "first_s" not in figures:
            figures["first_s"] = time.monotonic() - began
        if rated >= games:
            figures["rated_s"] = time.monotonic() - began
            figures["ladder_meanwhile"] = Match.objects.filter(
                kind=Match.Kind.LADDER, status=Match.Status.FINISHED, finished_at__gte=started
            ).count()
            return figures
        time.sleep(0.05)
    raise SystemExit(f"not {games} rated games after {timeout:.0f} s: {figures}")


def _wait_for_the_ladder(timeout: float = 120.0) -> None:
    """Until the built-in bots' ladder has finished a few matches: the upload then competes with a ladder at work."""
    from league.play.models import Match

    deadline = time.monotonic() + timeout
    while Match.objects.filter(kind=Match.Kind.LADDER, status=Match.Status.FINISHED).count() < 3:
        if time.monotonic() > deadline:
            raise SystemExit("the ladder played nothing")
        time.sleep(0.2)


# ----- child scenarios ----------------------------------------------------------------------------------------------
def child_embedded(games: int, logs: Path) -> dict[str, Any]:
    var = Path(tempfile.mkdtemp(prefix="parlour-placement-"))
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL", "SECRET_KEY"}}
    env.update(
        {
            "PARLOUR_VAR_DIR": str(var),
            "PORT": str(_free_port()),
            "DEBUG": "1",
            "DJANGO_SETTINGS_MODULE": "parlour.settings",
        }
    )
    os.environ.clear()
    os.environ.update(env)
    league = subprocess.Popen(
        ["bin/run-league"],
        cwd=ROOT,
        env=env,
        stdout=(logs / "embedded-league.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        import django

        django.setup()
        from league.bots.models import Bot

        deadline = time.monotonic() + 120
        while True:  # migrated and the house bots registered: bin/run-league then starts the worker
            try:
                if Bot.objects.filter(is_builtin=True, game=GAME).exists():
                    break
            except Exception:  # (the database is still being migrated)
                pass
            if time.monotonic() > deadline or league.poll() is not None:
                raise SystemExit(f"bin/run-league did not start: see {logs / 'embedded-league.log'}")
            time.sleep(0.2)
        _wait_for_the_ladder()
        return {"scenario": "embedded", **_upload_and_wait(games)}
    finally:
        os.killpg(league.pid, signal.SIGTERM)
        try:
            league.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(league.pid, signal.SIGKILL)
        shutil.rmtree(var, ignore_errors=True)


def child_redis_pg(games: int, logs: Path) -> dict[str, Any]:
    infra.create_database(DB_NAME)
    infra.flush_redis()
    try:
        infra.setup_django(DB_NAME)
        from django.core.management import call_command

        call_command("register_builtin_bots", verbosity=0)
        beat = subprocess.Popen(  # one worker with beat, as bin/run-league starts it
            [
                str(Path(sys.executable).parent / "celery"),
                "-A",
                "parlour.celery",
                "worker",
                "--beat",
                "--schedule",
                str(logs / "beat-schedule"),
                "--concurrency",
                "2",
                "--loglevel",
                "WARNING",
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=ROOT,
            env={**os.environ, **infra.environment(DB_NAME, LADDER_ENABLED="true", LADDER_INTERVAL_SECONDS="2")},
            stdout=(logs / "redis-pg-worker.log").open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            _wait_for_the_ladder()
            return {"scenario": "redis-pg", **_upload_and_wait(games)}
        finally:
            os.killpg(beat.pid, signal.SIGTERM)
            beat.wait(30)
    finally:
        infra.drop_database(DB_NAME)
        infra.flush_redis()


def _house_versions(count: int) -> list[Any]:
    from django.contrib.auth.models import User

    from league.bots.models import Bot, BotVersion
    from league.ratings.models import Rating

    owner = User.objects.create(username=f"house{random.randrange(10**9)}")
    versions = []
    for n in range(count):
        bot = Bot.objects.create(owner=owner, game=GAME, name=f"h{n}", is_builtin=True)
        Rating.objects.create(bot=bot)
        versions.append(BotVersion.objects.create(bot=bot, number=1, builtin="random", status="ready"))
    return versions


def child_record(count: int, database: str) -> dict[str, Any]:
    """Recording only: single matches against series, the same real games."""
    var = Path(tempfile.mkdtemp(prefix="parlour-record-"))
    if database == "sqlite":
        os.environ.update(
            {
                "PARLOUR_VAR_DIR": str(var),
                "SECRET_KEY": "bench",
                "DEBUG": "0",
                "DJANGO_SETTINGS_MODULE": "parlour.settings",
            }
        )
        os.environ.pop("DATABASE_URL", None)
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
    else:
        infra.create_database(DB_NAME)
        infra.setup_django(DB_NAME)
    try:
        from django.conf import settings

        from bots.results import BotSeat
        from bots.runner import SeriesGame, run_series
        from league.play.matches import do_claim_match, do_create_match
        from league.play.recording import do_record_match_result
        from league.play.series import do_claim_series, do_create_series, do_record_series

        per = settings.SERIES_GAMES
        versions = _house_versions(2)
        seeds = list(range(1, count + 1))
        played = run_series(
            GAME, [BotSeat("a", builtin="random"), BotSeat("b", builtin="random")], [SeriesGame(seed) for seed in seeds]
        ).games
        single_ms, series_ms = [], []
        for start in range(0, count, per):  # interleaved: a series' worth of singles, then a series
            chunk = seeds[start : start + per]
            results = played[start : start + per]
            matches = [do_create_match(GAME, versions, seed=seed) for seed in chunk]
            for match, result in zip(matches, results, strict=True):
                do_claim_match(match.pk)
                began = time.perf_counter()
                do_record_match_result(match.pk, result)
                single_ms.append((time.perf_counter() - began) * 1000)
            series = do_create_series(GAME, versions, [seed + 10**6 for seed in chunk])
            claimed = do_claim_series(series.pk)
            assert claimed is not None
            began = time.perf_counter()
            assert len(do_record_series(claimed, results)) == len(chunk)
            series_ms.append((time.perf_counter() - began) * 1000 / len(chunk))
        return {
            "scenario": f"record-{database}",
            "single_ms": median(single_ms),
            "series_ms": median(series_ms),
            "games": count,
            "series_games": per,
        }
    finally:
        shutil.rmtree(var, ignore_errors=True)
        if database != "sqlite":
            infra.drop_database(DB_NAME)


def child_throughput(count: int, lengths: list[int], repeats: int, logs: Path) -> dict[str, Any]:
    """The same number of games played as single matches (length 1) and as series of each other length, rounds
    interleaved (every length once per round), through one worker of 2 processes; games per minute, medians."""
    infra.create_database(DB_NAME)
    infra.flush_redis()
    try:
        infra.setup_django(DB_NAME)
        from django.contrib.auth.models import User

        from games.registry import example_dir
        from league.bots.services import do_create_bot, do_record_validation
        from league.play.matches import do_create_match
        from league.play.models import Match
        from league.play.series import do_create_series

        owner = User.objects.create(username="author")
        bot = do_create_bot(owner, GAME, "example", (example_dir(GAME) / "main.py").read_bytes(), "main.py")
        example = bot.versions.get()
        do_record_validation(example.pk, True, "bench", "")
        (rival,) = _house_versions(1)
        per_min: dict[int, list[float]] = {length: [] for length in lengths}
        walls: dict[int, list[float]] = {length: [] for length in lengths}
        faults = dict.fromkeys(lengths, 0)
        seed = 1
        with infra.worker(DB_NAME, 2, logs):
            for _ in range(repeats):
                for length in lengths:
                    seeds = list(range(seed, seed + count))
                    seed += count
                    began = time.monotonic()
                    if length == 1:
                        ids = [do_create_match(GAME, [example, rival], seed=s).pk for s in seeds]
                    else:
                        ids = []
                        for start in range(0, count, length):
                            series = do_create_series(GAME, [example, rival], seeds[start : start + length])
                            ids += list(series.matches.values_list("pk", flat=True))
                    pending = Match.objects.filter(pk__in=ids).exclude(status__in=["finished", "failed"])
                    deadline = time.monotonic() + 300
                    while pending.exists():
                        if time.monotonic() > deadline:
                            raise SystemExit(f"length {length}: not finished after 300 s")
                        time.sleep(0.02)
                    per_min[length].append(count / (time.monotonic() - began) * 60)
                    done = Match.objects.filter(pk__in=ids)
                    failed = done.filter(status=Match.Status.FAILED).first()
                    if failed is not None:
                        raise SystemExit(f"length {length}: match {failed.pk} failed: {failed.error}")
                    walls[length] += list(done.values_list("wall_ms", flat=True))
                    faults[length] += done.filter(seats__fault__gt="").distinct().count()
        return {
            "scenario": "throughput",
            "games": count,
            "repeats": repeats,
            "rows": [
                {
                    "length": length,
                    "per_min": median(per_min[length]),
                    "runs": per_min[length],
                    "wall_ms": median(walls[length]),
                    "faults": faults[length],
                }
                for length in lengths
            ],
        }
    finally:
        infra.drop_database(DB_NAME)
        infra.flush_redis()


def _series_lengths(asked: list[int] | None) -> list[int]:
    """Single matches first, then the series lengths asked for, by default placement's (SERIES_GAMES) and the
    ladder's for this game (LADDER_GAMES[game]["series"])."""
    if asked is None:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
        os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
        from django.conf import settings

        asked = [settings.SERIES_GAMES, int(settings.LADDER_GAMES[GAME].get("series", 1))]
    return [1, *sorted({length for length in asked if length > 1})]


# ----- the parent -------------------------------------------------------------------------------------------------
def _child(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"child {args} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="rated games to wait for after the upload")
    parser.add_argument("--throughput", type=int, default=72, help="games per throughput run")
    parser.add_argument("--record", type=int, default=60, help="games recorded per recording run")
    parser.add_argument(
        "--series",
        type=int,
        nargs="+",
        help="series lengths to compare with single matches (default: SERIES_GAMES and the ladder's for Love Letter)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="throughput rounds (each length once per round)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["embedded", "redis-pg", "record", "throughput"])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logs = ROOT / "var" / "bench" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    if args.child:
        kind, number = args.child[0], int(args.child[1])
        if kind == "embedded":
            result = child_embedded(number, logs)
        elif kind == "redis-pg":
            result = child_redis_pg(number, logs)
        elif kind == "record":
            result = child_record(number, args.child[2])
        else:
            lengths = [int(length) for length in args.child[2].split(",")]
            result = child_throughput(number, lengths, int(args.child[3]), logs)
        print(json.dumps(result))
        return
    print(f"{machine()}; load {load_average()}")
    rows = []
    if "embedded" not in args.skip:
        r = _child("embedded", str(args.games))
        rows.append(
            [
                "embedded (SQLite, filesystem broker)",
                r["validated_s"],
                r["first_s"],
                r["rated_s"],
                r["ladder_meanwhile"],
                "≤ 60 s",
            ]
        )
    if "redis-pg" not in args.skip:
        r = _child("redis-pg", str(args.games))
        rows.append(
            ["Redis + PostgreSQL", r["validated_s"], r["first_s"], r["rated_s"], r["ladder_meanwhile"], "≤ 20 s"]
        )
    if rows:
        print(f"\nUpload → validated → {args.games} rated games (s)")
        print(
            table(rows, ["league", "validated", "1st rated", f"{args.games}th rated", "ladder games meanwhile", "goal"])
        )
    if "record" not in args.skip:
        recs = [_child("record", str(args.record), db) for db in ("sqlite", "pg")]
        print(f"\nRecording one game (ms, median; series of {recs[0]['series_games']})")
        print(
            table(
                [
                    [r["scenario"], r["single_ms"], r["series_ms"], r["single_ms"] / max(r["series_ms"], 1e-9)]
                    for r in recs
                ],
                ["database", "single match", "in a series", "ratio"],
            )
        )
    if "throughput" not in args.skip:
        lengths = _series_lengths(args.series)
        r = _child("throughput", str(args.throughput), ",".join(map(str, lengths)), str(args.repeats))
        print(
            f"\nShort games per minute through a worker (2 processes; Love Letter, the example bot (sandboxed) against "
            f"the built-in random player; {r['games']} games per run, {r['repeats']} rounds interleaved, medians)"
        )
        single = r["rows"][0]["per_min"]
        rows = [
            [
                "single matches" if row["length"] == 1 else f"series of {row['length']}",
                row["per_min"],
                row["per_min"] / single,
                row["wall_ms"],
                row["faults"],
                " ".join(f"{run:.0f}" for run in row["runs"]),
            ]
            for row in r["rows"]
        ]
        print(table(rows, ["how", "games/min", "ratio to single", "game wall ms", "games with a fault", "each round"]))
        for row in r["rows"][1:]:
            ratio = row["per_min"] / single
            verdict = "met" if ratio >= 5 else "missed"
            print(f"THROUGHPUT series of {row['length']}: {ratio:.2f}x single matches (goal >= 5x: {verdict})")


if __name__ == "__main__":
    main()
