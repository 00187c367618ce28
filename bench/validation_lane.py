"""Upload to ready (issue 20, "A validation lane"): how long a new version waits for its validation, on an idle league
and on a busy one (a queue of slow ladder matches), on the filesystem broker and on Redis; and the same before the
lane, from a copy of another commit (the old single worker: ``celery worker --beat --concurrency 2``).

    .venv/bin/python bench/validation_lane.py [--uploads 5] [--busy-matches 20] [--before COMMIT] [--results FILE]

Each run gets a throwaway var folder (SQLite database, filesystem broker) and starts the league as that code starts it
(``python -m parlour.supervise``, or the old single worker), with the ladder off so that "busy" is a known queue. The
figure is ``validated - created`` of each upload (the version's row is written as the upload answers), the median of
``--uploads`` uploads made one after the other; on the busy league each upload meets a queue topped up to
``--busy-matches`` unfinished matches of a slow bot. Redis runs use BENCH_REDIS_URL (default database 14, flushed,
like the other benchmarks).
"""

from __future__ import annotations

import argparse
import contextlib
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

from common import ROOT, median, record

QUICK_BOT = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
"""
SLOW_BOT = ROOT / "tests" / "workers" / "bots" / "slow.py"


def _measure(uploads: int, busy_matches: int) -> dict[str, list[float]]:
    """In the code tree under test (cwd), with its settings: the upload waits, idle then busy."""
    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User

    from bots.packaging import package_upload
    from league.bots.models import Bot, BotVersion
    from league.bots.services import do_create_bot
    from league.play.matches import do_create_match
    from league.play.models import Match
    from league.ratings.models import Rating

    owner = User.objects.create_user("bench")

    def upload(name: str) -> float:
        version = do_create_bot(owner, "love_letter", name, QUICK_BOT.encode(), "main.py").versions.get()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            version.refresh_from_db()
            if version.validated:
                assert version.status == BotVersion.Status.READY, version.validation_log
                return (version.validated - version.created).total_seconds()
            time.sleep(0.02)
        raise SystemExit(f"{name}: not validated in 120 s")

    def ready_bot(name: str, builtin: str = "", source: bytes = b"") -> BotVersion:
        bot = Bot.objects.create(owner=owner, game="love_letter", name=name, is_builtin=bool(builtin))
        Rating.objects.create(bot=bot)
        package = package_upload(source, "main.py") if source else None
        return BotVersion.objects.create(
            bot=bot,
            number=1,
            builtin=builtin,
            archive=package.archive if package else None,
            language=package.language if package else "",
            archive_size=len(package.archive) if package else 0,
            status=BotVersion.Status.READY,
        )

    upload("warm-up")  # the workers are up and the sandbox is ready before anything is timed
    idle = [upload(f"idle-{n}") for n in range(uploads)]
    slow, rival = ready_bot("slow", source=SLOW_BOT.read_bytes()), ready_bot("random", builtin="random")
    busy, left, seed, queued = [], [], 0, []

    def slow_unfinished() -> int:
        # Only the matches made here: each upload's placement burst adds matches of its own (some seat the slow bot).
        return Match.objects.filter(pk__in=queued).exclude(status=Match.Status.FINISHED).count()

    for n in range(uploads):
        # Each busy upload meets a full queue: it is topped up to --busy-matches unfinished slow matches first.
        while slow_unfinished() < busy_matches:
            queued.append(do_create_match("love_letter", [slow, rival], seed=seed).pk)
            seed += 1
        deadline = time.monotonic() + 60
        while not Match.objects.filter(status=Match.Status.RUNNING).exists():
            if time.monotonic() > deadline:
                raise SystemExit("no match started in 60 s")
            time.sleep(0.05)
        busy.append(upload(f"busy-{n}"))
        left.append(float(slow_unfinished()))
    return {"idle": idle, "busy": busy, "matches_left": left}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(code: Path, broker: str, lane: bool, uploads: int, busy_matches: int) -> dict[str, list[float]]:
    """One configuration: migrate a fresh database, start the league, measure from a client process, stop."""
    var = Path(tempfile.mkdtemp(prefix="parlour-lane-bench-"))
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14") if broker == "redis" else ""
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).flushdb()
    env = {
        **os.environ,
        "PARLOUR_VAR_DIR": str(var),
        "DATABASE_URL": f"sqlite:///{var / 'bench.sqlite3'}",
        "REDIS_URL": redis_url,
        "SECRET_KEY": "bench",
        "DEBUG": "0",
        "LADDER_ENABLED": "0",
        "FAIR_USE_UPLOADS_PER_HOUR": "1000",
        "FAIR_USE_VERSIONS_PER_BOT_PER_HOUR": "1000",
        "FAIR_USE_BOTS_PER_USER": "1000",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=code, env=env, check=True)
    if lane:
        command = [python, "-m", "parlour.supervise", "--port", str(_free_port())]
    else:
        command = [python, "-m", "celery", "-A", "parlour.celery", "worker", "--beat", "--concurrency", "2"]
        command += ["--schedule", str(var / "celerybeat-schedule"), "--loglevel", "WARNING"]
    log = (var / "league.log").open("wb")
    league = subprocess.Popen(command, cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        client = [python, str(Path(__file__).resolve()), "--measure", str(uploads), str(busy_matches)]
        output = subprocess.run(client, cwd=code, env=env, check=True, capture_output=True, text=True).stdout
        return dict(json.loads(output.strip().splitlines()[-1]))
    finally:
        league.send_signal(signal.SIGTERM if lane else signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            league.wait(30)
        with contextlib.suppress(ProcessLookupError):  # the old worker's pool too, and anything left over
            os.killpg(league.pid, signal.SIGKILL)
        shutil.rmtree(var, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=5)
    parser.add_argument("--busy-matches", type=int, default=20)
    # The default: the last commit before the lane (issue 20), whose single worker is the "before" figure.
    parser.add_argument("--before", default="7123c14", help="the commit whose single worker is the 'before' figure")
    parser.add_argument("--brokers", default="fs,redis")
    parser.add_argument("--results")
    parser.add_argument("--measure", nargs=2, type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(_measure(*arguments.measure)))
        return

    before = Path(tempfile.mkdtemp(prefix="parlour-before-"))
    archive = subprocess.run(["git", "archive", arguments.before], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
    try:
        for broker in arguments.brokers.split(","):
            for label, code, lane in [("lane", ROOT, True), (f"before ({arguments.before})", before, False)]:
                waits = _run(code, broker, lane, arguments.uploads, arguments.busy_matches)
                idle, busy = median(waits["idle"]), median(waits["busy"])
                print(
                    f"validation {label:>14}, {broker:>5} broker: upload->ready median {idle:.2f} s idle, "
                    f"{busy:.2f} s busy (max {max(waits['busy']):.2f} s; at least {min(waits['matches_left']):.0f} of "
                    f"{arguments.busy_matches} queued matches still to play when validated)",
                    flush=True,
                )
                section = "validation lane (upload to ready, median)"
                record(arguments.results, section, f"{label}, {broker}, idle", round(idle, 2), "s")
                record(arguments.results, section, f"{label}, {broker}, busy", round(busy, 2), "s")
    finally:
        shutil.rmtree(before, ignore_errors=True)


if __name__ == "__main__":
    main()
