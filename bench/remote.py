"""Remote bots (issue 34) on the production path: uvicorn on parlour.asgi, PostgreSQL, Redis, real Celery workers, and
`bots.authoring.connect` as the owner's machine, all on loopback.

    .venv/bin/python bench/remote.py [--quick] [--decision-games 20] [--drop-games 200] [--drops 20] [--crowd 50]
        [--worker-nice 10] [--client-nice 10]

1. **Overhead**: the same bot (the Love Letter example, a Python program) plays against the built-in random player,
   sandboxed (bwrap) and as a remote seat connected through the site, alternating game by game in one run; the site
   twice: through Django's handler and middleware (``parlour.asgi:site_application``) and as parlour/asgi.py serves
   it, with the direct route for replies in front (``league.remote.views.with_remote_replies``). Per decision (the
   runner's own measure, `ms` in the replay) and per game (the match's wall time): p50 and p95 of each, and the
   remote seat's p95 over the sandboxed one's. Goal: the remote seat's p95 per decision within 15 ms.
2. **Drops**: DROP_GAMES rated matches (ladder matches, recorded and rated by a worker) of a remote bot against the
   built-in random player while its connection is dropped DROPS times at random (a message stream closed before its
   message is handled). Figures: games finished, the remote seat's faults (any is a failure: none is the bot's
   doing), every drop's time until the resumed stream gave the missed message again, and its worst over the move
   clock.
3. **Crowd**: CROWD remote bots connected at once (each a connection of its own, its games played in process by a
   random player: CROWD programs would not fit on two cores) play matches among themselves, while this process reads
   four pages (home, a leaderboard, a remote bot's page, the match list) one after another. Figures: the pages' p99
   before the bots connect and while they play, games finished. The worker runs at the production settings'
   WORKER_NICE (10: --worker-nice) and the bots' process at --client-nice (10: they stand for other machines).

Parts 2 and 3 run on the site as `make serve` runs it: parlour/asgi.py's application, --web-processes (2). Last
line: ``remote: decision_p95_ms <X> (the direct route's) overhead_p95_ms <Y> drops <N> resumed <M> max_resume_ms <Z>
crowd <C> crowd_games <G> page_p99_ms <P>``. Needs PostgreSQL on 127.0.0.1:5432 and Redis (bin/services). Redis db:
BENCH_REDIS_URL (default db 7 here, this bench's own). Client, server and workers share the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine, quantile, record, table

DB_NAME = "parlour_bench_remote"
GAME = "love_letter"
PAGE_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# Part 1's two sites, one process each: through Django's handler alone, and with the direct route for replies.
PART_1_APPS = {"django": "parlour.asgi:site_application", "direct": "parlour.asgi:application"}


class Server:
    """uvicorn on the throwaway database, as `make serve` runs it (static files collected: DEBUG is off), with
    ``processes`` processes (`make serve`'s WEB_PROCESSES)."""

    def __init__(self, log_dir: Path, app: str, processes: int = 1) -> None:
        env = {**os.environ, **infra.environment(DB_NAME), "LOG_LEVEL": "WARNING", "API_THROTTLE_ANON": "100000/min"}
        static = log_dir / "static"
        env["STATIC_ROOT"] = str(static)
        command = [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"]
        subprocess.run(command, cwd=ROOT, env=env, check=True)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log_dir / f"uvicorn-{self.port}.log"
        command = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--no-access-log", "--no-proxy-headers", "--workers", str(processes)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
        )
        infra.wait_serving(self.process, self.port, "uvicorn", self.log)

    def stop(self) -> None:
        infra.stop_group(self.process)


# ----- the owner's side --------------------------------------------------------------------------------------------


class RandomBot:
    """A game's messages answered in process by the built-in random player (the crowd's bots)."""

    def __init__(self, seed: int) -> None:
        from games.registry import make_player

        self.player = make_player(GAME, "random", seed)

    def handle(self, message: dict[str, Any]) -> bytes | None:
        if message["type"] == "start":
            self.player.start(message["seat"], message["players"], message["options"])
            return b'{"type":"ready"}'
        if message["type"] == "act":
            return json.dumps({"type": "action", "action": self.player.act(message["obs"], message["legal"])}).encode()
        return None

    def close(self) -> None:
        return None


def _dropping_connection(url: str, key: str, new_bot: Any, chance: float, budget: int) -> Any:
    """A ``Connection`` whose game streams break at random (``chance`` per message, ``budget`` times in all), before
    the message is handled; it notes when each drop happened and when the resumed stream gave the message again."""
    from bots.authoring.connect import Connection

    class Dropping(Connection):
        def __init__(self) -> None:
            super().__init__(url, key, new_bot)
            self.rng = random.Random(34)
            self.lock = threading.Lock()
            self.left = budget
            self.waiting: dict[str, tuple[int, float]] = {}  # channel -> (seq dropped at, when)
            self.resumed_ms: list[float] = []

        def _lines(self, path: str) -> Iterator[dict[str, Any]]:
            channel = path.split("/channels/")[1].split("/")[0] if "/channels/" in path else ""
            for line in super()._lines(path):
                if channel and "seq" in line:
                    with self.lock:
                        dropped = self.waiting.pop(channel, None)
                        if dropped is not None and line["seq"] == dropped[0]:
                            self.resumed_ms.append((time.monotonic() - dropped[1]) * 1000)
                        elif self.left > 0 and "message" in line and self.rng.random() < chance:
                            self.left -= 1
                            self.waiting[channel] = (line["seq"], time.monotonic())
                            raise OSError("dropped by the benchmark")
                yield line

    return Dropping()


def _run(connection: Any) -> threading.Thread:
    thread = threading.Thread(target=connection.run, daemon=True)
    thread.start()
    return thread


# ----- the league's side -------------------------------------------------------------------------------------------


def _remote_bot(owner: Any, name: str) -> tuple[Any, str]:
    """A remote bot, ready (its smoke game is the validation tests' business), and its token."""
    from django.utils import timezone

    from league.bots.models import BotVersion
    from league.bots.services import do_create_remote_bot
    from league.remote.services import do_issue_remote_token

    bot = do_create_remote_bot(owner, GAME, name)
    bot.versions.update(status=BotVersion.Status.READY, validated=timezone.now())
    return bot, do_issue_remote_token(bot, owner)[1]


def _wait_online(bot_ids: list[int], seconds: float = 60) -> None:
    from league.bots import presence

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if presence.online(bot_ids) == set(bot_ids):
            return
        time.sleep(0.1)
    raise SystemExit("the remote bots did not connect in time")


def _wait_finished(match_ids: list[int], seconds: float) -> int:
    from league.play.models import Match

    deadline = time.monotonic() + seconds
    done = 0
    while time.monotonic() < deadline:
        done = Match.objects.filter(pk__in=match_ids, status__in=[Match.Status.FINISHED, Match.Status.FAILED]).count()
        if done == len(match_ids):
            break
        time.sleep(0.5)
    return done


# ----- 1. overhead -------------------------------------------------------------------------------------------------


def overhead(servers: dict[str, Server], owner: Any, games: int, results: str | None) -> tuple[float, float]:
    """``servers``: the site as parlour/asgi.py serves it ("django") and with the direct route for replies in front
    ("direct"); each has a remote bot of its own."""
    from bots.authoring.connect import Connection, LocalBot
    from bots.results import BotSeat
    from bots.runner import play_match
    from games import registry
    from league.remote.channels import open_channel

    code = registry.example_dir(GAME)
    connections, remote_bots = [], {}
    for kind, server in servers.items():
        bot, key = _remote_bot(owner, f"overhead-{kind}")
        remote_bots[kind] = bot
        connections.append(Connection(server.url, key, lambda: LocalBot(code)))
        _run(connections[-1])
    _wait_online([bot.pk for bot in remote_bots.values()])
    rival = BotSeat("builtin:random", builtin="random")
    kinds = ["sandboxed", *(f"remote ({kind})" for kind in servers)]
    decisions: dict[str, list[float]] = {kind: [] for kind in kinds}
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    for index in range(games * len(kinds)):
        kind = kinds[index % len(kinds)]
        seed = 1000 + index // len(kinds)  # the same deal for every kind
        if kind == "sandboxed":
            result = play_match(GAME, [BotSeat("sandboxed", code_dir=code), rival], seed=seed, sandbox="bwrap")
        else:
            bot = remote_bots[kind.split("(")[1].rstrip(")")]
            seat = BotSeat("remote", remote=open_channel(bot.pk, GAME, f"overhead {index}"))
            result = play_match(GAME, [seat, rival], seed=seed, sandbox="none")
        if result.seats[0].fault is not None:
            raise SystemExit(f"{kind} game {index}: {result.seats[0].fault}")
        decisions[kind] += [m["ms"] for m in result.replay["moves"] if m["seat"] == 0 and not m["auto"]]
        walls[kind].append(float(result.wall_ms))
    for connection in connections:
        connection.stop()
    base = decisions["sandboxed"]
    rows = [
        [
            kind,
            len(walls[kind]),
            len(decisions[kind]),
            quantile(decisions[kind], 0.5),
            quantile(decisions[kind], 0.95),
            quantile(decisions[kind], 0.95) - quantile(base, 0.95),
            quantile(walls[kind], 0.5),
            quantile(walls[kind], 0.95),
        ]
        for kind in kinds
    ]
    heads = ["seat", "games", "decisions", "decision p50 ms", "p95 ms", "p95 over sandboxed", "game p50 ms", "p95 ms"]
    print(table(rows, heads))
    shipped = "remote (direct)" if "direct" in servers else kinds[-1]
    p95 = quantile(decisions[shipped], 0.95)
    extra = p95 - quantile(base, 0.95)
    for kind in kinds[1:]:
        note = "goal ≤ 15 ms"
        record(results, "remote", f"decision p95, {kind}", round(quantile(decisions[kind], 0.95), 2), "ms", note)
        ratio = quantile(walls[kind], 0.5) / quantile(walls["sandboxed"], 0.5)
        record(results, "remote", f"game p50, {kind} / sandboxed", round(ratio, 2), "x")
    return p95, extra


# ----- 2. drops ----------------------------------------------------------------------------------------------------


def drops(server: Server, owner: Any, games: int, budget: int, results: str | None) -> tuple[int, int, float]:
    from bots.authoring.connect import LocalBot
    from games import registry
    from league.bots.models import Bot
    from league.play.matches import do_create_match
    from league.play.models import Seat
    from league.ratings.models import RatingChange

    bot, key = _remote_bot(owner, "dropper")
    code = registry.example_dir(GAME)
    # Some 10 of its own messages a game: spread the drops over the run.
    connection = _dropping_connection(server.url, key, lambda: LocalBot(code), budget / (games * 8), budget)
    _run(connection)
    _wait_online([bot.pk])
    rival = Bot.objects.get(game=GAME, name="random").current_version()
    version = bot.current_version()
    assert rival is not None and version is not None
    began = time.monotonic()
    ids = [do_create_match(GAME, [version, rival] if n % 2 else [rival, version]).pk for n in range(games)]
    finished = _wait_finished(ids, 60 + games * 3)
    seconds = time.monotonic() - began
    connection.stop()
    seats = Seat.objects.filter(match_id__in=ids, bot_version=version)
    faults = list(seats.exclude(fault="").values_list("fault", "fault_detail"))
    rated = RatingChange.objects.filter(match_id__in=ids, bot=bot).count()  # one change per rated game
    dropped = budget - connection.left
    resumed = connection.resumed_ms
    worst = max(resumed, default=0.0)
    print(
        table(
            [[games, finished, rated, len(faults), dropped, len(resumed), quantile(resumed or [0], 0.5), worst]],
            ["games", "finished", "rated", "faults", "drops", "resumed", "resume p50 ms", "resume max ms"],
        )
    )
    print(
        f"{games} games in {seconds:.0f} s; the move clock is 1000 ms + bank: every drop resumed within it: "
        f"{worst < 1000 and len(resumed) == dropped}"
    )
    for cause, detail in faults[:5]:
        print(f"  fault: {cause}: {detail[:200]}")
    record(results, "remote", "games finished with drops", f"{finished}/{games}", "", f"{dropped} drops")
    record(results, "remote", "remote seat's faults with drops", len(faults))
    record(results, "remote", "drop resume max", round(worst, 1), "ms", f"{len(resumed)} of {dropped} resumed")
    return dropped, len(resumed), worst


# ----- 3. crowd ----------------------------------------------------------------------------------------------------


def _page_times(server: Server, paths: list[str], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        for path in paths:
            began = time.monotonic()
            with urllib.request.urlopen(server.url + path, timeout=PAGE_TIMEOUT_S) as response:
                response.read()
            times.append((time.monotonic() - began) * 1000)
    return times


def _crowd_process(url: str, keys: list[str], ids: list[int], stop: Any, nice: int) -> None:
    """The crowd's connections, in a process of their own: their threads must not take the page timer's GIL.
    ``nice``: they stand for fifty owners' machines, so they take only the CPU the site leaves (as bench/crowd.py's
    watchers with --client-nice)."""
    from bots.authoring.connect import Connection

    os.nice(nice)

    connections = [
        Connection(url, key, lambda seed=bot_id: RandomBot(seed))  # type: ignore[misc]
        for key, bot_id in zip(keys, ids, strict=True)
    ]
    for connection in connections:
        _run(connection)
    stop.wait()
    for connection in connections:
        connection.stop()


def crowd(server: Server, size: int, games_each: int, rounds: int, results: str | None, nice: int) -> tuple[int, float]:
    import multiprocessing

    from django.contrib.auth.models import User

    from league.play.matches import do_create_match

    bots = []
    for n in range(size):
        owner = User.objects.create_user(f"crowd{n}", f"crowd{n}@example.org", "x")
        bots.append(_remote_bot(owner, f"crowd-{n}"))
    paths = ["/", f"/games/{GAME}/", f"/bots/{bots[0][0].pk}/", "/matches/"]
    _page_times(server, paths, 2)  # warm
    before = _page_times(server, paths, rounds)
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    keys, ids = [key for _, key in bots], [bot.pk for bot, _ in bots]
    process = context.Process(target=_crowd_process, args=(server.url, keys, ids, stop, nice), daemon=True)
    process.start()
    _wait_online(ids)
    versions = [bot.current_version() for bot, _ in bots]
    match_ids = []
    for round_ in range(games_each):
        for n in range(0, size, 2):
            match_ids.append(do_create_match(GAME, [versions[n], versions[(n + 1 + round_) % size]]).pk)
    began = time.monotonic()
    during = _page_times(server, paths, rounds)
    finished = _wait_finished(match_ids, 60 + len(match_ids) * 2)
    seconds = time.monotonic() - began
    stop.set()
    process.join(30)
    rows = [
        ["before (no remote bot connected)", len(before), quantile(before, 0.5), quantile(before, 0.99)],
        [f"{size} remote bots connected, playing", len(during), quantile(during, 0.5), quantile(during, 0.99)],
    ]
    print(table(rows, ["pages", "requests", "p50 ms", "p99 ms"]))
    print(f"{finished} of {len(match_ids)} games among the {size} remote bots finished in {seconds:.0f} s")
    record(results, "remote", f"page p99 with {size} remote bots", round(quantile(during, 0.99), 1), "ms", "goal ≤ 200")
    record(results, "remote", "page p99 before they connect", round(quantile(before, 0.99), 1), "ms")
    record(results, "remote", f"games of {size} remote bots finished", f"{finished}/{len(match_ids)}")
    return finished, quantile(during, 0.99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small numbers: a smoke run")
    parser.add_argument("--decision-games", type=int, default=20)
    parser.add_argument("--drop-games", type=int, default=200)
    parser.add_argument("--drops", type=int, default=20)
    parser.add_argument("--crowd", type=int, default=50)
    # Enough games that the 50 bots play throughout the pages' reads (250 games: about 23 s here; 200 pages: 16 s).
    parser.add_argument("--crowd-games", type=int, default=10, help="games per pair of crowd bots")
    parser.add_argument("--page-rounds", type=int, default=50, help="rounds of the four pages")
    parser.add_argument("--workers", type=int, default=4, help="the Celery worker's concurrency")
    parser.add_argument("--web-processes", type=int, default=2, help="parts 2 and 3: uvicorn's processes")
    parser.add_argument(
        "--worker-nice", type=int, default=10, help="the worker's WORKER_NICE (10: .env.production.example's)"
    )
    parser.add_argument(
        "--client-nice", type=int, default=10, help="the remote bots' niceness (they stand for other machines)"
    )
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument("--parts", default="1,2,3", help="which parts to run (default all: 1,2,3)")
    args = parser.parse_args()
    if args.quick:
        args.decision_games, args.drop_games, args.drops, args.crowd, args.page_rounds = 4, 20, 4, 6, 5
    print(machine(), flush=True)
    infra.create_database(DB_NAME)
    infra.flush_redis()
    infra.setup_django(DB_NAME)
    from django.contrib.auth.models import User

    from league.bots.services import do_register_builtin_bots

    do_register_builtin_bots([GAME])
    owner = User.objects.create_user("owner", "owner@example.org", "x")
    log_dir = ROOT / "var" / "bench" / "logs" / "remote"
    log_dir.mkdir(parents=True, exist_ok=True)
    parts = set(args.parts.split(","))
    p95 = extra = worst = page_p99 = 0.0
    dropped = resumed = crowd_finished = 0
    try:
        if "1" in parts:
            print("\n1. a remote seat on loopback vs the same bot sandboxed, alternating", flush=True)
            servers = {kind: Server(log_dir, app) for kind, app in PART_1_APPS.items()}
            try:
                p95, extra = overhead(servers, owner, args.decision_games, args.results)
            finally:
                for server in servers.values():
                    server.stop()
        # The site as `make serve` runs it: parlour/asgi.py's application, WEB_PROCESSES processes.
        site = Server(log_dir, "parlour.asgi:application", args.web_processes)
        try:
            with infra.worker(DB_NAME, args.workers, log_dir, env={"WORKER_NICE": str(args.worker_nice)}):
                if "2" in parts:
                    print(f"\n2. {args.drop_games} rated games, the connection dropped {args.drops} times", flush=True)
                    dropped, resumed, worst = drops(site, owner, args.drop_games, args.drops, args.results)
                if "3" in parts:
                    print(f"\n3. {args.crowd} remote bots connected at once", flush=True)
                    crowd_finished, page_p99 = crowd(
                        site, args.crowd, args.crowd_games, args.page_rounds, args.results, args.client_nice
                    )
        finally:
            site.stop()
    finally:
        infra.drop_database(DB_NAME)
    print(
        f"remote: decision_p95_ms {p95:.2f} overhead_p95_ms {extra:.2f} drops {dropped} resumed {resumed} "
        f"max_resume_ms {worst:.0f} crowd {args.crowd} crowd_games {crowd_finished} page_p99_ms {page_p99:.0f}"
    )


if __name__ == "__main__":
    main()
