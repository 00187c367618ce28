"""Matches completed per minute by real Celery workers, against the runner alone in a loop: the league's overhead.

    .venv/bin/python bench/league.py [--matches 60] [--bot-matches 16] [--repeats 3] [--workers 1 2] [--games GAME ...]

A throwaway PostgreSQL database (``parlour_bench``, created, migrated and dropped) and Redis database 14. For each
number of worker processes (``celery -A parlour.celery worker --concurrency N``: N prefork children, as deployed),
and for each game:

- ``runner``: ``bots.runner.play_match`` in a loop, in N processes, on the same tables and seeds: no queue, no
  database — the floor;
- ``celery``: the same matches created through ``league.services.do_create_match`` (ladder matches: rated), run by
  the worker, timed from the first creation until the last one is finished in the database (claim, unpack, run,
  record the result and the replay, ratings, all in the clock).

``--trees old=/tmp/base new=.`` compares versions of the league side by side in one run: each tree gets its own
worker (its code, its own queue and VAR_DIR), and every repeat plays the runner, then each tree's worker in turn, on
the same tables and seeds. The database is migrated by this tree: the others must share its schema.

Two kinds of seats: the built-in players (in-process, they answer at once) and the game's example bot
(``games/<game>/example/main.py``, uploaded as a bot, run in the bwrap sandbox). Table sizes rotate over what the game
allows, each seat a different bot (so every match is rated). Runs interleave runner and celery, repeat by repeat;
figures are medians. Overhead = celery time per match / runner time per match - 1.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine, median, record, table

DB_NAME = "parlour_bench"
STALL_SECONDS = 15


# ----- the tables ---------------------------------------------------------------------------------------------------
def _tables(game_id: str, count: int) -> list[int]:
    from games.registry import get_game

    game = get_game(game_id)
    sizes = list(range(game.min_players, game.max_players + 1))
    return [sizes[i % len(sizes)] for i in range(count)]


def _make_bots(game_id: str, kind: str) -> list[Any]:
    """At least max_players ready bot versions of ``kind`` (builtin: the game's built-in players in turn)."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from games.registry import builtin_players, get_game
    from league.bots.models import Bot, BotVersion
    from league.bots.services import SYSTEM_USERNAME, do_create_bot, do_record_validation
    from league.ratings.models import Rating

    game = get_game(game_id)
    versions = []
    if kind == "builtin":
        owner, _ = User.objects.get_or_create(username=SYSTEM_USERNAME, defaults={"is_active": False})
        names = sorted(builtin_players(game_id))
        for i in range(game.max_players):
            name = names[i % len(names)]
            bot, _ = Bot.objects.get_or_create(
                owner=owner, game=game_id, name=f"bench-{name}-{i}", defaults={"is_builtin": True}
            )
            Rating.objects.get_or_create(bot=bot)
            version, _ = BotVersion.objects.get_or_create(
                bot=bot,
                number=1,
                defaults={
                    "builtin": name,
                    "language": "builtin",
                    "status": BotVersion.Status.READY,
                    "validated": timezone.now(),
                },
            )
            versions.append(version)
        return versions
    # Staff: the benchmark uploads more bots at once than the fair-use limits allow a user (docs/security.md).
    owner, _ = User.objects.get_or_create(username="bench", defaults={"is_staff": True})
    from games.registry import example_dir

    code = (example_dir(game_id) / "main.py").read_bytes()
    for i in range(game.max_players):
        bot = Bot.objects.filter(owner=owner, game=game_id, name=f"example-{i}").first()
        if bot is None:
            bot = do_create_bot(owner, game_id, f"example-{i}", code, "main.py")
            version = bot.versions.get()
            do_record_validation(version.pk, True, "bench: taken as valid", "")
        versions.append(bot.versions.get())
    return versions


# ----- the runner alone -------------------------------------------------------------------------------------------
_POOL_SEATS: dict[str, Any] = {}


def _run_one(job: tuple[str, list[tuple[str, str | None, str | None]], int]) -> float:
    from bots.runner import BotSeat, play_match

    game_id, seats, seed = job
    runner_seats = [
        BotSeat(label, builtin=builtin, code_dir=Path(code) if code else None) for label, builtin, code in seats
    ]
    began = time.perf_counter()
    result = play_match(game_id, runner_seats, seed, sandbox="bwrap")
    if any(seat.fault for seat in result.seats):
        raise RuntimeError(f"{game_id} seed {seed}: a fault: {[seat.fault for seat in result.seats]}")
    return time.perf_counter() - began


def runner_alone(pool: Any, game_id: str, versions: list[Any], sizes: list[int], seeds: list[int], code: str) -> float:
    """Seconds to play the matches with ``pool`` (N processes), no queue and no database."""
    jobs = []
    for size, seed in zip(sizes, seeds, strict=True):
        seats = [
            (v.label, v.builtin or None, None if v.builtin else code) for v in versions[:size]
        ]  # the same bots as the queued matches
        jobs.append((game_id, seats, seed))
    began = time.perf_counter()
    pool.map(_run_one, jobs, chunksize=1)
    return time.perf_counter() - began


# ----- through Celery ---------------------------------------------------------------------------------------------
def through_celery(
    game_id: str, versions: list[Any], sizes: list[int], seeds: list[int], queue: str
) -> dict[str, float]:
    from celery import current_app

    from league.core.outbox import RUN_MATCH_TASK
    from league.play.matches import do_create_match
    from league.play.models import Match

    current_app.conf.task_default_queue = queue  # the worker of the tree being measured (send_task reads it each time)
    began = time.perf_counter()
    ids = [do_create_match(game_id, versions[:size], seed=seed).pk for size, seed in zip(sizes, seeds, strict=True)]
    created = time.perf_counter() - began
    pending = Match.objects.filter(pk__in=ids).exclude(status__in=[Match.Status.FINISHED, Match.Status.FAILED])
    deadline = time.monotonic() + 600
    seen, since, resent = len(ids), time.monotonic(), 0
    while left := pending.count():
        now = time.monotonic()
        if now > deadline:
            raise SystemExit(f"{game_id}: matches not finished after 600 s")
        if left != seen:
            seen, since = left, now
        elif now - since > STALL_SECONDS:
            # No progress: the queue lost messages (something flushed Redis db 14, which the league cannot notice:
            # a queued match whose message is gone stays queued for ever). Send them again (claims are idempotent).
            lost = list(Match.objects.filter(pk__in=ids, status=Match.Status.QUEUED).values_list("pk", flat=True))
            for match_id in lost:
                current_app.send_task(RUN_MATCH_TASK, args=[match_id], queue=queue)
            resent += len(lost)
            since = now
        time.sleep(0.02)
    total = time.perf_counter() - began
    failed = Match.objects.filter(pk__in=ids, status=Match.Status.FAILED).count()
    if failed:
        raise SystemExit(f"{game_id}: {failed} matches failed: {Match.objects.filter(pk__in=ids).first().error}")
    rows = list(Match.objects.filter(pk__in=ids).values_list("wall_ms", "claimed_at", "finished_at", "created"))
    in_worker = [(finished - claimed).total_seconds() * 1000 - wall for wall, claimed, finished, _c in rows]
    if resent:
        print(f"  ({game_id}: {resent} queued matches had lost their queue message and were sent again)")
    return {
        "resent": resent,
        "seconds": total,
        "create_seconds": created,
        "runner_ms": median(wall for wall, *_ in rows),
        "worker_extra_ms": median(in_worker),
    }


def measure_game(
    pool: Any, game_id: str, kind: str, count: int, repeats: int, versions: list[Any], seed: int, trees: list[str]
) -> tuple[dict[str, dict], int]:
    """Runner and celery runs (one per tree) of one game, interleaved; medians by tree, and the next seed."""
    from games.registry import example_dir

    code = str(example_dir(game_id))
    runner_runs: list[float] = []
    celery_runs: dict[str, list[dict]] = {tree: [] for tree in trees}
    for _ in range(repeats):
        sizes = _tables(game_id, count)
        seeds = list(range(seed, seed + count))
        seed += count
        runner_runs.append(runner_alone(pool, game_id, versions, sizes, seeds, code))
        for tree in trees:
            celery_runs[tree].append(through_celery(game_id, versions, sizes, seeds, _queue(tree)))
    runner_s = median(runner_runs)
    figures = {}
    for tree, runs in celery_runs.items():
        celery_s = median(run["seconds"] for run in runs)
        figures[tree] = {
            "runner_per_min": count / runner_s * 60,
            "celery_per_min": count / celery_s * 60,
            "overhead": celery_s / runner_s - 1,
            "match_ms": median(run["runner_ms"] for run in runs),
            "extra_ms": median(run["worker_extra_ms"] for run in runs),
            "create_ms": median(run["create_seconds"] for run in runs) / count * 1000,
        }
    return figures, seed


def _queue(tree: str) -> str:
    return f"bench-league-{tree}"


def _trees(specs: list[str]) -> dict[str, Path]:
    trees = {}
    for spec in specs:
        name, _, path = spec.rpartition("=")
        trees[name or Path(path).resolve().name] = Path(path).resolve()
    return trees


def main() -> None:
    from games.registry import GAMES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--matches", type=int, default=60, help="built-in matches per game and run (default 60)")
    parser.add_argument("--bot-matches", type=int, default=16, help="example-bot matches per game and run (16)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--kinds", nargs="*", default=["builtin", "example"], choices=["builtin", "example"])
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument(
        "--trees",
        nargs="*",
        default=[f"this={ROOT}"],
        help="NAME=PATH checkouts whose workers to measure side by side (default: this tree alone)",
    )
    args = parser.parse_args()
    trees = _trees(args.trees)

    print(f"# The league: matches per minute, Celery workers vs the runner alone. {machine()}")
    infra.create_database(DB_NAME)
    infra.setup_django(DB_NAME)
    infra.flush_redis()
    from django.db import connections

    from league.bots.services import do_register_builtin_bots

    do_register_builtin_bots(args.games)
    bots = {(game_id, kind): _make_bots(game_id, kind) for game_id in args.games for kind in args.kinds}
    infra.flush_redis()  # the example bots' validation tasks: they are valid already
    rows = []
    seed = 1
    logs = ROOT / "var" / "bench" / "logs"  # the workers' logs, overwritten by the next run
    logs.mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("fork")
    try:
        for workers in args.workers:
            connections.close_all()  # no database connection inherited by the forked pool
            with contextlib.ExitStack() as stack:
                pool = stack.enter_context(ctx.Pool(workers))
                for tree, path in trees.items():
                    stack.enter_context(_tree_worker(tree, path, workers, logs))
                for game_id in args.games:
                    for kind in args.kinds:
                        count = args.matches if kind == "builtin" else args.bot_matches
                        versions = bots[(game_id, kind)]
                        figures, seed = measure_game(pool, game_id, kind, count, args.repeats, versions, seed, [*trees])
                        for tree, m in figures.items():
                            label = f"{game_id} ({kind})" + (f" [{tree}]" if len(trees) > 1 else "")
                            rows.append(
                                [
                                    label,
                                    workers,
                                    m["runner_per_min"],
                                    m["celery_per_min"],
                                    f"{m['overhead']:+.0%}",
                                    m["match_ms"],
                                    m["extra_ms"],
                                    m["create_ms"],
                                ]
                            )
                            label += f", {workers} worker(s)"
                            per_min = round(m["celery_per_min"])
                            record(args.results, "league", f"{label}: matches/min, celery", per_min, "/min")
                            per_min = round(m["runner_per_min"])
                            record(args.results, "league", f"{label}: matches/min, runner alone", per_min, "/min")
                            overhead = f"{m['overhead']:+.0%}"
                            record(args.results, "league", f"{label}: Celery/DB overhead", overhead, "", "goal < 10%")
                            print(
                                f"  {label}: runner {m['runner_per_min']:,.0f}/min, "
                                f"celery {m['celery_per_min']:,.0f}/min ({overhead})",
                                flush=True,
                            )
    finally:
        connections.close_all()
        infra.flush_redis()
        if not args.keep:
            infra.drop_database(DB_NAME)
    headings = ["game (seats)", "workers", "runner/min", "celery/min", "overhead", "match ms", "worker extra ms"]
    print(table(rows, [*headings, "create ms"]))
    print(
        f"(medians of {args.repeats} runs; match ms: the runner's wall time in the worker; worker extra ms: claimed to "
        "finished less the runner's time (claim, unpack, record, ratings); create ms: do_create_match per match)"
    )


@contextlib.contextmanager
def _tree_worker(tree: str, path: Path, concurrency: int, logs: Path) -> Iterator[infra.Worker]:
    """A worker running ``path``'s code on its own queue, with its own (fresh) VAR_DIR: a cold bot-code cache."""
    var_dir = Path(tempfile.gettempdir()) / f"parlour-bench-league-{tree}"
    shutil.rmtree(var_dir, ignore_errors=True)  # (the bot-code cache's files are read-only, but root removes them)
    var_dir.mkdir(mode=0o755)
    var_dir.chmod(0o755)  # the sandbox binds code as it is only when every ancestor is searchable by others
    extra = {"PYTHONPATH": str(path), "PARLOUR_VAR_DIR": str(var_dir)}
    started = infra.Worker(DB_NAME, concurrency, logs, name=f"bench-{tree}", cwd=path, queue=_queue(tree), env=extra)
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


if __name__ == "__main__":
    main()
