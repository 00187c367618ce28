"""Issue 29's figures for a slow but legal bot, old code against this code side by side in one run:

    .venv/bin/python bench/slow_bot.py [--against REV] [--games 20] [--results FILE]

The slow bot sleeps 1.9 s before every move (almost no CPU) at the league's default time control (move 1 s, bank
10 s). Three runs, each in a process of its own, on a throwaway PostgreSQL database and a private Redis server, with
that copy's workers as the league runs them (a match worker of 2 processes and a validation lane worker; no ladder:
only the two owners' work): the old code (``--against REV``, by default the commit before the time budget, taken
with ``git archive`` into a temporary folder) with the 1.9 s bot; this tree with it; this tree with the slowest bot
it accepts (1.05 s a move, charged 0.95 s: never out of time). In each:

1. owner S uploads the slow bot and the run waits for its validation (the old code accepts the 1.9 s bot, and its
   placement of PLACEMENT_GAMES games starts at once; this code rejects it, and accepts the 1.05 s one);
2. owner T then uploads the game's example bot, timed from the upload to its validation and to its ``--games``-th
   rated game: how long another owner waits for a rank while the slow bot's placement runs.

Then, from the limits and the game times measured: the worker seconds one owner can have per hour (uploads per hour x
(validation + placement games) + challenge games per hour), before and after.
"""

from __future__ import annotations

import argparse
import json
import os
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

from bench.common import ROOT, load_average, machine, median, record, table

GAME = "love_letter"
DB_NAME = f"parlour_bench_slow_{os.getpid()}"
BASELINE = "9d15e3d"  # the commit this work started from
SLEEPER = """import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        time.sleep({sleep})
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(condition: Any, timeout: float, what: str) -> float:
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            raise SystemExit(f"not {what} after {timeout:.0f} s")
        time.sleep(0.1)
    return time.monotonic() - began


def _has_budget(tree: Path) -> bool:
    return (tree / "league" / "services" / "worker_budget.py").exists()


# ----- a child: one copy of the code ------------------------------------------------------------------------------
def child(tree: Path, games: int, logs: Path, label: str, sleep: float) -> dict[str, Any]:
    from bench import infra

    infra.create_database(DB_NAME)
    infra.flush_redis()
    workers: list[Any] = []
    try:
        infra.setup_django(DB_NAME)  # (this tree's models: the copies share their migrations)
        from django.conf import settings
        from django.contrib.auth.models import User
        from django.core.management import call_command

        from games.registry import example_dir
        from league.bots.models import BotVersion
        from league.bots.services import do_create_bot
        from league.play.models import Match
        from league.ratings.models import RatingChange

        call_command("register_builtin_bots", verbosity=0)
        environment = {"PYTHONPATH": str(tree), "LADDER_ENABLED": "true"}  # (the ladder's bots; no beat: no ladder)
        # As the league runs (parlour/supervise.py): a match worker of 2 processes, a lane worker for validations.
        workers = [
            infra.Worker(DB_NAME, 2, logs, name=f"{label}-match", cwd=tree, queue="celery", env=environment),
            infra.Worker(DB_NAME, 1, logs, name=f"{label}-lane", cwd=tree, queue="validation", env=environment),
        ]
        for worker in workers:
            worker.wait_ready()

        slow_owner, other = User.objects.create_user("slow"), User.objects.create_user("other")
        code = SLEEPER.replace("{sleep}", str(sleep)).encode()
        sleeper = do_create_bot(slow_owner, GAME, "sleeper", code, "main.py").versions.get()
        validated = BotVersion.objects.filter(pk=sleeper.pk).exclude(status=BotVersion.Status.PENDING)
        slow_validation_s = _wait(validated.exists, 300, "the slow bot validated")
        accepted = validated.get().status == BotVersion.Status.READY
        if accepted:  # its placement starts at once: wait until it holds the workers
            _wait(Match.objects.filter(kind=Match.Kind.PLACEMENT, status=Match.Status.RUNNING).exists, 60, "placing")

        source = (example_dir(GAME) / "main.py").read_bytes()
        began = time.monotonic()
        bot = do_create_bot(other, GAME, "example", source, "main.py")
        done = BotVersion.objects.filter(bot=bot).exclude(status=BotVersion.Status.PENDING)
        validated_s = _wait(done.exists, 1800, "the other owner's upload validated")
        _wait(lambda: RatingChange.objects.filter(bot=bot).count() >= games, 1800, f"{games} rated games")
        rated_s = time.monotonic() - began

        slow_games = Match.objects.filter(
            kind=Match.Kind.PLACEMENT, placing=True, series__placing_version=sleeper, wall_ms__isnull=False
        )
        walls = list(slow_games.values_list("wall_ms", flat=True))
        return {
            "label": label,
            "sleep": sleep,
            "slow_accepted": accepted,
            "slow_validation_s": slow_validation_s,
            "slow_log": validated.get().validation_log[:200],
            "slow_game_s": median(walls) / 1000 if walls else None,
            "slow_games_recorded": len(walls),
            "validated_s": validated_s,
            "rated_s": rated_s,
            "placement_games": settings.PLACEMENT_GAMES,
            "uploads_per_hour": settings.FAIR_USE_UPLOADS_PER_HOUR,
            "challenge_games_per_hour": settings.CHALLENGE_GAMES_PER_HOUR,
            "series_games": settings.SERIES_GAMES,
            # (this process runs this tree's settings: whether the copy has a worker budget is the copy's own)
            "budget_s": settings.FAIR_USE_WORKER_SECONDS_PER_HOUR if _has_budget(tree) else None,
        }
    finally:
        for worker in workers:
            worker.stop()
        infra.drop_database(DB_NAME)
        infra.flush_redis()


# ----- the parent -------------------------------------------------------------------------------------------------
def _baseline_tree(revision: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="parlour-slow-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _child(tree: Path, games: int, label: str, sleep: float, redis_url: str) -> dict[str, Any]:
    env = {**os.environ, "BENCH_REDIS_URL": redis_url}
    command = [sys.executable, __file__, "--child", str(tree), str(games), label, str(sleep)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"child {label} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _per_hour(r: dict[str, Any], slow_game_s: float) -> float:
    """Worker seconds an owner of the slow bot can have in an hour, from the limits: every upload validated, and if
    accepted, placed (PLACEMENT_GAMES slow games); plus the challenge games of the hour; capped by the budget (with
    the series in flight when it runs out: SERIES_GAMES games) where there is one."""
    uploads = r["uploads_per_hour"]
    validation = uploads * r["slow_validation_s"]
    if not r["slow_accepted"]:
        return validation
    bought = uploads * r["placement_games"] * slow_game_s + r["challenge_games_per_hour"] * slow_game_s
    if r["budget_s"] is not None:
        bought = min(bought, r["budget_s"] + r["series_games"] * slow_game_s)
    return validation + bought


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default=BASELINE, help="the old code: a git revision (default: %(default)s)")
    parser.add_argument("--games", type=int, default=20, help="rated games the other owner waits for")
    parser.add_argument("--results", help="append the figures (JSON lines) to this file")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    logs = ROOT / "var" / "bench" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    if args.child:
        tree, games, label, sleep = Path(args.child[0]), int(args.child[1]), args.child[2], float(args.child[3])
        print(json.dumps(child(tree, games, logs, label, sleep)))
        return
    print(machine())
    folder = Path(tempfile.mkdtemp(prefix="parlour-slow-redis-"))
    port = _free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    old_tree = _baseline_tree(args.against)
    try:
        time.sleep(0.5)
        url = f"redis://127.0.0.1:{port}/0"
        runs = [
            _child(old_tree, args.games, "old", 1.9, url),
            _child(ROOT, args.games, "new", 1.9, url),
            # The slowest bot this code accepts: 1.05 s of wall a move is charged 0.95 s, never out of time.
            _child(ROOT, args.games, "new", 1.05, url),
        ]
    finally:
        os.killpg(redis.pid, signal.SIGTERM)
        redis.wait(10)
        shutil.rmtree(old_tree, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average {load_average()}")
    old_game_s = runs[0]["slow_game_s"] or 0.0
    rows = []
    for r in runs:
        verdict = "accepted" if r["slow_accepted"] else "rejected"
        game_s = r["slow_game_s"] or old_game_s  # (a rejected bot's game: as the old code placed it)
        rows.append(
            [
                f"{r['label']} ({args.against if r['label'] == 'old' else 'this tree'})",
                f"{r['sleep']} s",
                f"{verdict} in {r['slow_validation_s']:.1f} s",
                r["slow_games_recorded"],
                r["slow_game_s"] or "-",
                r["validated_s"],
                r["rated_s"],
                _per_hour(r, game_s),
            ]
        )
    print(
        f"\nA slow bot (sleeping before every move, Love Letter) and another owner's upload made while it places: "
        f"upload → validated → {args.games} rated games (s); worker seconds the slow bot's owner can have per hour"
    )
    headings = ["code", "sleep/move", "slow bot's validation", "its games", "its game s", "other: validated"]
    print(table(rows, [*headings, "other: rated", "worker s/hour"]))
    base = runs[0]
    for r in runs[1:]:
        game_s = r["slow_game_s"] or old_game_s
        print(
            f"{r['label']}, {r['sleep']} s a move: the other owner's {args.games} rated games "
            f"{base['rated_s'] / r['rated_s']:.1f}x sooner; worker s/hour "
            f"{_per_hour(base, old_game_s) / max(_per_hour(r, game_s), 1e-9):.1f}x fewer"
        )
    print(f"(the 1.9 s bot, new code: {runs[1]['slow_log']})")
    for r in runs:
        what = f"{r['label']}, {r['sleep']} s a move"
        game_s = r["slow_game_s"] or old_game_s
        record(args.results, "slow bot", f"other owner's {args.games} rated games, {what}", r["rated_s"], "s")
        record(args.results, "slow bot", f"worker s/hour, {what}", _per_hour(r, game_s), "s")


if __name__ == "__main__":
    main()
