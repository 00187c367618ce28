"""Games per minute with one worker host, with two, and with two of which one is killed halfway.

    .venv/bin/python bench/hosts.py [--games 200] [--repeats 3] [--kind example|builtin] [--lease 10]
                                    [--results FILE]

A "host" is what a worker machine of a deployment runs (docs/deployment.md): one ``celery -A parlour.celery worker``
with 2 pool processes (WORKERS, the default) and a var dir of its own (its bot-code cache, its heartbeat file). All
of them run here, on one machine, on one PostgreSQL database (``parlour_bench_hosts``, created, migrated and dropped)
and one Redis database (``BENCH_REDIS_URL``, 14 by default), with one Celery beat (the sweeper) beside them. Each
repeat plays three scenarios in turn, each on fresh hosts (cold code caches), the same number of two-seat Love Letter
matches, created at once through ``do_create_match`` (rated ladder matches) and timed from the first creation until
the last is finished in the database:

- ``one host``;
- ``one host, 4 processes``: as many pool processes as two hosts have, on one host: what the second host adds beyond
  its processes;
- ``two hosts``;
- ``two hosts, one killed``: when half the games are finished, one host is killed whole (SIGKILL of its process
  group: the Celery parent, its pool, its sandboxed bots); the other plays the rest, and the games the dead host held
  once their lease (``--lease`` seconds; 90 by default in the league, shorter here so that one run shows it) has run
  out and the sweeper (every 2 s) has queued them again.

The bots: ``example`` (default) is the game's example bot, uploaded and run in the bwrap sandbox; ``builtin`` the
built-in random and heuristic players (in the worker's process: the league's own work per game, no sandbox).
Figures are medians over the repeats; at the end every match must be finished once and ``check_league`` clean, or
the benchmark fails. On this machine the hosts share its cores, so two hosts measure what sharing one queue and one
database costs, not what a second machine adds. Every process of the benchmark stays in its session (each host in a
process group of its own, killed whole by ``killpg``): with the kernel's autogroups a busy machine shares its CPU
between sessions, and hosts in sessions of their own would get more of it the more hosts there are.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine, median, record, table
from bench.league import _make_bots

DB_NAME = "parlour_bench_hosts"
GAME = "love_letter"
CONCURRENCY = 2  # pool processes per host: the league's default WORKERS


@dataclass(frozen=True)
class Scenario:
    name: str
    hosts: int
    concurrency: int = CONCURRENCY
    kill_halfway: bool = False


SCENARIOS = (
    Scenario("one host", 1),
    Scenario("one host, 4 processes", 1, concurrency=2 * CONCURRENCY),
    Scenario("two hosts", 2),
    Scenario("two hosts, one killed", 2, kill_halfway=True),
)


@dataclass
class Run:
    seconds: float
    games: int
    taken_over: int = 0  # games the killed host held, played again by the other
    recovered_s: float = 0.0  # from the kill until the last of them was finished
    queued_messages: int = 0  # messages in the queue at the kill: the sweeper's next one waits behind them

    @property
    def per_minute(self) -> float:
        return self.games / self.seconds * 60


def _settings(lease: int) -> dict[str, str]:
    """What every process of the bench reads besides infra.environment: short leases and sweeps, no placement."""
    return {
        "MATCH_STALE_SECONDS": str(lease),
        "MATCH_SWEEP_SECONDS": "2",
        "MATCH_RETRY_SECONDS": "1",
        "PLACEMENT_GAMES": "0",
    }


@contextlib.contextmanager
def _deployment(hosts: int, concurrency: int, lease: int, logs: Path) -> Iterator[list[infra.Worker]]:
    """``hosts`` worker hosts of ``concurrency`` pool processes (each with its own fresh var dir) and one beat, all
    ready; all stopped at the end."""
    var_dirs: list[Path] = []
    workers: list[infra.Worker] = []
    beat: subprocess.Popen[bytes] | None = None
    try:
        for n in range(hosts):
            var_dir = Path(tempfile.mkdtemp(prefix=f"parlour-bench-host{n}-"))
            var_dir.chmod(0o755)  # the sandbox binds the cached code as it is only when every ancestor is searchable
            var_dirs.append(var_dir)
            env = {
                **_settings(lease),
                "PARLOUR_VAR_DIR": str(var_dir),
                "WORKER_HEARTBEAT_FILE": str(var_dir / "match.alive"),
            }
            # In this process's session: the kernel's autogroups would give each host's session its own share of
            # a busy machine's CPU, and two hosts twice one's (docs/benchmarks.md, section 13).
            worker = infra.Worker(DB_NAME, concurrency, logs, name=f"host{n}-", env=env, own_session=False)
            workers.append(worker)
        beat = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "celery"),
                "-A",
                "parlour.celery",
                "beat",
                "--loglevel",
                "WARNING",
                "--schedule",
                str(Path(var_dirs[0]) / "beat-schedule"),
            ],
            cwd=ROOT,
            env={**os.environ, **infra.environment(DB_NAME, **_settings(lease))},
            stdout=(logs / "beat-hosts.log").open("wb"),
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        for worker in workers:  # started side by side, waited for in turn
            worker.wait_ready(120)
        yield workers
    finally:
        for worker in workers:
            worker.stop()
        if beat is not None:
            infra.stop_group(beat)
        for var_dir in var_dirs:
            shutil.rmtree(var_dir, ignore_errors=True)  # (the cached code is read-only; root removes it anyway)


def _kill(worker: infra.Worker) -> None:
    """The whole host at once: its process group (parent and pool); its sandboxed bots die with their parents."""
    os.killpg(worker.process.pid, signal.SIGKILL)
    worker.process.wait()


def play(versions: list[Any], games: int, seed: int, hosts: list[infra.Worker], kill_halfway: bool) -> Run:
    import redis
    from django.utils import timezone

    from league.play.matches import do_create_match
    from league.play.models import Match

    pairs = [(versions[n % len(versions)], versions[(n + 1) % len(versions)]) for n in range(games)]
    began = time.perf_counter()
    ids = [do_create_match(GAME, list(pair), seed=seed + n).pk for n, pair in enumerate(pairs)]
    matches = Match.objects.filter(pk__in=ids)
    victim = hosts[-1]
    orphans: list[int] = []
    queued_messages = 0
    killed_at = None
    deadline = time.monotonic() + 600
    while (finished := matches.filter(status=Match.Status.FINISHED).count()) < games:
        if time.monotonic() > deadline:
            raise SystemExit(f"{games - finished} games not finished after 600 s: see {hosts[0].log}")
        if matches.filter(status=Match.Status.FAILED).exists():
            raise SystemExit(f"a game failed: {matches.filter(status=Match.Status.FAILED).first().error}")
        if kill_halfway and killed_at is None and finished >= games // 2:
            _kill(victim)
            killed_at = timezone.now()
            queued_messages = int(redis.Redis.from_url(infra.REDIS_URL).llen("celery"))
            running = matches.filter(status=Match.Status.RUNNING, claimed_by__startswith=victim.hostname)
            orphans = list(running.values_list("pk", flat=True))
        time.sleep(0.02)
    seconds = time.perf_counter() - began
    if killed_at is None or not orphans:
        return Run(seconds, games)
    last = max(finished_at for finished_at in matches.filter(pk__in=orphans).values_list("finished_at", flat=True))
    recovered = (last - killed_at).total_seconds()
    return Run(seconds, games, taken_over=len(orphans), recovered_s=recovered, queued_messages=queued_messages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="two-seat Love Letter matches per scenario (200)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kind", choices=["example", "builtin"], default="example")
    parser.add_argument("--lease", type=int, default=10, help="MATCH_STALE_SECONDS of every host (10)")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    if args.games < 4 or args.repeats < 1 or args.lease < 2:
        parser.error("--games must be at least 4, --repeats at least 1, --lease at least 2")

    print(f"# Worker hosts: games per minute with one and two hosts on one machine. {machine()}")
    os.environ.update(_settings(args.lease))
    infra.create_database(DB_NAME)
    infra.setup_django(DB_NAME)
    infra.flush_redis()
    from django.db import connections

    from league.bots.services import do_register_builtin_bots
    from league.play.invariants import check_league

    do_register_builtin_bots([GAME])
    versions = _make_bots(GAME, args.kind)
    infra.flush_redis()  # the example bots' validation messages: they are valid already
    logs = ROOT / "var" / "bench" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    runs: dict[Scenario, list[Run]] = {scenario: [] for scenario in SCENARIOS}
    seed = 1
    try:
        for repeat in range(args.repeats):
            for scenario in SCENARIOS:
                with _deployment(scenario.hosts, scenario.concurrency, args.lease, logs) as hosts:
                    run = play(versions, args.games, seed, hosts, kill_halfway=scenario.kill_halfway)
                seed += args.games
                infra.flush_redis()  # what a killed host left unacknowledged: its games are finished already
                runs[scenario].append(run)
                extra = ""
                if run.taken_over:
                    extra = (
                        f", {run.taken_over} taken over in {run.recovered_s:.1f} s "
                        f"({run.queued_messages} messages were queued at the kill)"
                    )
                print(f"  repeat {repeat + 1}, {scenario.name}: {run.per_minute:,.0f} games/min{extra}", flush=True)
        report = check_league([GAME])
        if not report.ok:
            raise SystemExit("invariant violations:\n" + "\n".join(str(v) for v in report.violations))
    finally:
        connections.close_all()
        infra.flush_redis()
        if not args.keep:
            infra.drop_database(DB_NAME)

    one = median(run.per_minute for run in runs[SCENARIOS[0]])
    rows = []
    for scenario in SCENARIOS:
        per_minute = median(run.per_minute for run in runs[scenario])
        killed = [run for run in runs[scenario] if run.taken_over]
        taken = "" if not killed else f"{median(run.taken_over for run in killed):.0f}"
        recovered = "" if not killed else f"{median(run.recovered_s for run in killed):.1f}"
        rows.append([scenario.name, per_minute, f"{per_minute / one:.2f}x", taken, recovered])
        record(args.results, "hosts", f"{scenario.name} ({args.kind}): games/min", round(per_minute), "/min")
    print(table(rows, ["scenario", "games/min", "vs one host", "taken over", "recovered s"]))
    print(
        f"(medians of {args.repeats} runs of {args.games} games, {args.kind} bots, {CONCURRENCY} pool processes a "
        f"host unless said, lease {args.lease} s; taken over: games the killed host held; recovered s: from the kill "
        "until the last of them was finished; check_league clean)"
    )
    two, killed = (median(run.per_minute for run in runs[scenario]) for scenario in SCENARIOS[2:])
    print(f"hosts: one {one:.0f}/min two {two:.0f}/min ratio {two / one:.2f} two_one_killed {killed:.0f}/min")


if __name__ == "__main__":
    main()
