"""Spectators on the production path (issue 30): many open live streams on games in play, against the site served as
`make serve` serves it (uvicorn on parlour.asgi, PostgreSQL, Redis pub/sub), and the two-connection attack before and
after (the old set-up: gunicorn with 2 sync workers on the code before the async streams).

    .venv/bin/python bench/crowd.py [--quick] [--watchers 1000] [--games 10] [--seconds 20] [--no-before]

The crowd: GAMES running league matches whose moves are published as their workers publish them (one every
LIVE_MATCH_INTERVAL_MS, 150 ms, per game; a game that runs out of moves starts again). WATCHERS streams are held open
(spread over the games, reconnecting as EventSource does) by a separate process, which notes when each view arrives;
meanwhile this process reads four pages (home, a leaderboard, a bot, a match) one after another. Figures: every
page's p99; the delay from a move's publication to its arrival at each watcher (p99 over all deliveries); database
transactions per second (PostgreSQL's own count for the throwaway database: every query outside a transaction is
one) with the crowd over the same with one watcher per game. The attack: the home page's time with 2, 50 and 1,000
open streams, old set-up and new, side by side.

Last line: ``crowd: watchers <N> page_p99_ms <X> delivery_p99_ms <Y> db_qps_ratio <Z>``.
Needs PostgreSQL on 127.0.0.1:5432 and Redis (bin/services starts them); gunicorn (`pip install -e '.[bench]'`) for
the old set-up. Client and server share the machine: on 2 cores the client's own work counts against the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import infra
from bench.common import ROOT, machine, quantile, record, table
from bench.sse import Stream, open_stream

DB_NAME = "parlour_bench_crowd"
PAGE_TIMEOUT_SECONDS = 30.0
MOVE_INTERVAL_SECONDS = 0.15  # LIVE_MATCH_INTERVAL_MS's default
MOVE_COUNT = re.compile(rb'"move_count":(\d+)')


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(tree: Path) -> dict[str, str]:
    return {
        **os.environ,
        **infra.environment(DB_NAME),
        "PYTHONPATH": str(tree),
        "STREAM_MAX_PER_ADDRESS": "100000",
        "STREAM_MAX_OPEN": "100000",
        "API_THROTTLE_ANON": "100000/min",
        "LOG_LEVEL": "WARNING",
    }


class Server:
    """One web server process tree on the throwaway database: uvicorn (new) or gunicorn sync workers (old)."""

    def __init__(self, kind: str, processes: int, tree: Path = ROOT) -> None:
        # DEBUG off: the pages need the static files' manifest, as in production
        command = [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"]
        subprocess.run(command, cwd=tree, env=_environment(tree), check=True)
        self.port = _free_port()
        self.log = ROOT / "var" / "bench" / "logs" / f"crowd-{kind}-{self.port}.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        python = sys.executable
        if kind == "uvicorn":
            command = [python, "-m", "uvicorn", "parlour.asgi:application", "--workers", str(processes)]
            command += ["--host", "127.0.0.1", "--port", str(self.port), "--no-access-log", "--no-proxy-headers"]
        else:
            gunicorn = str(Path(python).parent / "gunicorn")
            command = [gunicorn, "parlour.wsgi:application", "--workers", str(processes)]
            command += ["--bind", f"127.0.0.1:{self.port}", "--timeout", "120"]
        self.process = subprocess.Popen(
            command,
            cwd=tree,
            env=_environment(tree),
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        infra.wait_serving(self.process, self.port, kind, self.log)

    def stop(self) -> None:
        infra.stop_group(self.process)

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by the server's processes (its process group): a figure the
        machine's other load does not change, unlike a latency."""
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[2]) == self.process.pid:  # pgrp: the server was started in a session of its own
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")


# ----- the crowd: a process of its own, so that its work does not sit in the page timings' process -------------------


class _Watcher(asyncio.Protocol):
    """One event stream as a bare protocol: no stream reader, no chunk parsing. The client shares the server's two
    cores, so each view it takes must cost it as little as possible; it only needs each view's move count and arrival
    time. A view's JSON carries ``"move_count":N`` once; events end with a blank line."""

    def __init__(self, index: int, arrivals: list[tuple[int, int, float]]) -> None:
        self.index, self.arrivals = index, arrivals
        self.status: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending = b""

    def data_received(self, data: bytes) -> None:
        if not self.status.done():
            head = data.split(b"\r\n", 1)[0].split()
            self.status.set_result(int(head[1]) if len(head) > 1 and head[1].isdigit() else 0)
        *events, self.pending = (self.pending + data).split(b"\n\n")
        now = time.monotonic()
        for event in events:
            found = MOVE_COUNT.search(event)
            if found:
                self.arrivals.append((self.index, int(found.group(1)), now))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.status.done():
            self.status.set_result(0)
        if not self.closed.done():
            self.closed.set_result(None)


def _crowd(port: int, paths: list[str], commands: Any, results: Any, nice: int) -> None:
    """Hold one stream per path open (reconnecting when the server ends one), note (path index, move count,
    arrival) for each view; 'stop' ends it and sends the notes back. On uvloop: the cheapest client loop. ``nice``:
    the crowd stands for a thousand other machines; niced, it takes only the CPU the server leaves."""
    import uvloop

    os.nice(nice)
    arrivals: list[tuple[int, int, float]] = []
    opened = [0]

    async def watch(index: int, path: str, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        # Connection: close: the server closes the socket when it ends the stream (EventSource keeps it alive, and
        # sees the end as the last chunk; the same moment).
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        request = (head + "Connection: close\r\n\r\n").encode()
        first = True
        while not stop.is_set():
            try:
                transport, watcher = await loop.create_connection(lambda: _Watcher(index, arrivals), "127.0.0.1", port)
                transport.write(request)
                status = await asyncio.wait_for(watcher.status, 60)
            except (OSError, TimeoutError):
                await asyncio.sleep(1)
                continue
            if status != 200:
                transport.close()
                await asyncio.sleep(5)
                continue
            if first:
                opened[0] += 1
                first = False
            try:
                await watcher.closed
            finally:
                transport.close()
            await asyncio.sleep(0.3)  # EventSource's retry

    async def main() -> None:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(watch(i, path, stop)) for i, path in enumerate(paths)]
        deadline = time.monotonic() + 120
        while opened[0] < len(paths) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        results.put(("opened", opened[0]))
        await asyncio.get_running_loop().run_in_executor(None, commands.get)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    uvloop.run(main())
    results.put(("arrivals", arrivals))


class Crowd:
    def __init__(self, port: int, paths: list[str], nice: int = 0) -> None:
        context = multiprocessing.get_context("spawn")
        self.commands, self.results = context.Queue(), context.Queue()
        arguments = (port, paths, self.commands, self.results, nice)
        self.process = context.Process(target=_crowd, args=arguments, daemon=True)
        self.process.start()
        _, self.opened = self.results.get(timeout=180)

    def stop(self) -> list[tuple[int, int, float]]:
        self.commands.put("stop")
        _, arrivals = self.results.get(timeout=120)
        self.process.join(10)
        return list(arrivals)


# ----- the league's side -------------------------------------------------------------------------------------------


def _running_matches(count: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """``count`` running league matches of Love Letter and their moves (played here, published as the bench goes)."""
    from bots.results import BotSeat
    from bots.runner import play_match
    from league.bots.models import Bot
    from league.bots.services import do_register_builtin_bots
    from league.play.matches import do_claim_match, do_create_match

    do_register_builtin_bots(["love_letter"])
    bots = list(Bot.objects.filter(game="love_letter").order_by("pk")[:2])
    versions = [bot.current_version() for bot in bots]
    made = []
    for number in range(count):
        match = do_create_match("love_letter", [v for v in versions if v is not None], seed=1000 + number)
        do_claim_match(match.pk)
        seats = [BotSeat(label=v.label, builtin=v.builtin) for v in versions if v is not None]
        made.append((match.pk, play_match("love_letter", seats, 1000 + number).replay["moves"]))
    return made


class Publisher(threading.Thread):
    """Each game's next move every MOVE_INTERVAL_SECONDS (a game out of moves starts again at its first)."""

    def __init__(self, matches: list[tuple[int, list[dict[str, Any]]]]) -> None:
        super().__init__(daemon=True)
        self.matches = matches
        self.stopping = threading.Event()
        self.published: dict[tuple[int, int], list[float]] = {}  # (match, move count) -> publication times

    def run(self) -> None:
        from django.db import connection

        from league.live import watch

        counts = [0 for _ in self.matches]
        step = MOVE_INTERVAL_SECONDS / len(self.matches)
        while not self.stopping.is_set():
            for i, (pk, moves) in enumerate(self.matches):
                counts[i] = counts[i] % len(moves) + 1
                # Noted before the write: a watcher may get the view before do_publish returns (the change carries
                # the moves), and a delay counts the write's own time too.
                self.published.setdefault((pk, counts[i]), []).append(time.monotonic())
                watch.do_publish(pk, moves[: counts[i]])
                self.stopping.wait(step)
        connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(10)


def _transactions() -> int:
    import psycopg

    with psycopg.connect(infra.database_url("postgres"), autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s", [DB_NAME]
        ).fetchone()
    return int(row[0]) if row else 0


def _get_ms(url: str, timeout: float = PAGE_TIMEOUT_SECONDS) -> float:
    began = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            answer.read()
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{url} answered {error.code}: the benchmark measures pages that work") from None
    except OSError:
        return float("inf")  # timed out (or refused): the page is down for this visitor
    return (time.perf_counter() - began) * 1000


def _read_pages(base: str, pages: list[str], seconds: float) -> list[float]:
    times: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        times += [_get_ms(base + page) for page in pages]
    return sorted(times)


def _readers(port: int, pages: list[str], count: int, seconds: float, results: Any) -> None:
    """``count`` people reading the site at once: each asks for a page (the next of ``pages``), reads it for a
    while (0.5 to 1.5 s), and asks for the next; every page's time goes back through ``results``. Their own process,
    on uvloop, with bare connections: the readers must cost the shared cores as little as possible."""
    import random

    import uvloop

    times: list[float] = []

    async def get(path: str) -> float:
        began = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        answer = await asyncio.wait_for(reader.read(), PAGE_TIMEOUT_SECONDS)  # to the end: Connection: close
        writer.close()
        if not answer.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"{path} answered {answer[:40]!r}: the benchmark measures pages that work")
        return (time.perf_counter() - began) * 1000

    async def person(number: int, until: float) -> None:
        rng = random.Random(number)
        await asyncio.sleep(rng.uniform(0, 1))  # people do not arrive in step
        step = rng.randrange(len(pages))
        while time.monotonic() < until:
            try:
                times.append(await get(pages[step % len(pages)]))
            except (OSError, TimeoutError):
                times.append(float("inf"))
            step += 1
            await asyncio.sleep(rng.uniform(0.5, 1.5))

    async def main() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(*(person(n, until) for n in range(count)))

    uvloop.run(main())
    results.put(sorted(times))


def _read_together(port: int, pages: list[str], count: int, seconds: float) -> list[float]:
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_readers, args=(port, pages, count, seconds, results), daemon=True)
    process.start()
    times: list[float] = results.get(timeout=seconds + 120)
    process.join(10)
    return times


def _deliveries(
    arrivals: list[tuple[int, int, float]], watched: list[int], published: dict[tuple[int, int], list[float]]
) -> list[float]:
    delays = []
    for index, count, arrived in arrivals:
        sent = [t for t in published.get((watched[index], count), []) if t <= arrived]
        if sent:
            delays.append((arrived - sent[-1]) * 1000)
    return sorted(delays)


def _phase(
    server: Server, matches: list[Any], watchers: int, seconds: float, pages: list[str], nice: int
) -> dict[str, Any]:
    watched = [matches[i % len(matches)][0] for i in range(watchers)]
    crowd = Crowd(server.port, [f"/matches/{pk}/live/events/" for pk in watched], nice)
    publisher = Publisher(matches)
    publisher.start()
    time.sleep(2)  # every stream has its first view: only the steady state is measured
    # The database first, with no page read (pages cost queries too, and fewer get read when the server is busy).
    before, began, cpu_before = _transactions(), time.monotonic(), server.cpu_seconds()
    time.sleep(seconds)
    ended = time.monotonic()
    qps = (_transactions() - before) / (ended - began)
    cpu = server.cpu_seconds() - cpu_before
    time.sleep(1.5)  # PostgreSQL's statistics are flushed about every second: let this window's settle
    page_times = _read_pages(f"http://127.0.0.1:{server.port}", pages, seconds)
    publisher.stop()
    arrivals = crowd.stop()
    delays = _deliveries(arrivals, watched, publisher.published)
    in_window = sum(1 for _, _, arrived in arrivals if began <= arrived <= ended)
    return {
        "cpu_share": cpu / (ended - began),  # of one core
        "cpu_us_per_view": cpu / in_window * 1e6 if in_window else float("nan"),
        "watchers": crowd.opened,
        "page_p50": quantile(page_times, 0.5),
        "page_p99": quantile(page_times, 0.99),
        "delivery_p50": quantile(delays, 0.5) if delays else float("nan"),
        "delivery_p99": quantile(delays, 0.99) if delays else float("nan"),
        "deliveries": len(delays),
        "qps": qps,
    }


async def _open_many(port: int, path: str, count: int, streams: list[Stream]) -> None:
    async def one() -> None:
        # A sync server leaves a stream waiting in its backlog (an error here): it still holds its place in the queue.
        with contextlib.suppress(OSError, TimeoutError, asyncio.IncompleteReadError):
            streams.append(await open_stream("127.0.0.1", port, path, None, 60))

    await asyncio.gather(*(one() for _ in range(count)))


def _attack(server: Server, match: int, sizes: list[int], samples: int) -> dict[int, tuple[float, float]]:
    """The home page's median and worst time with ``size`` streams of one match open (refused ones count too)."""
    found = {}
    for size in sizes:
        streams: list[Stream] = []
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        path = f"/matches/{match}/live/events/"
        future = asyncio.run_coroutine_threadsafe(_open_many(server.port, path, size, streams), loop)
        time.sleep(1.0)
        times = sorted(_get_ms(f"http://127.0.0.1:{server.port}/") for _ in range(samples))
        future.cancel()
        for stream in streams:
            loop.call_soon_threadsafe(stream.close)
        time.sleep(0.5)  # the cancelled openings finish before their loop stops
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        found[size] = (quantile(times, 0.5), times[-1])
        time.sleep(2)
    return found


def _old_tree() -> Path:
    """The code before the async streams (the parent of the commit that added parlour/asgi.py), unpacked in the
    system's temporary folder: an old copy of the code never sits in this checkout."""
    added = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "--", "parlour/asgi.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not added:
        raise SystemExit("no commit adds parlour/asgi.py: cannot find the old set-up's code")
    tree = Path(tempfile.gettempdir()) / f"parlour-bench-before-async-{added[-1][:12]}"
    if not (tree / "manage.py").exists():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", f"{added[-1]}^"], cwd=ROOT, capture_output=True, check=True)
        archive_path = tree / "code.tar"
        archive_path.write_bytes(archive.stdout)
        with tarfile.open(archive_path) as tar:
            tar.extractall(tree, filter="data")
    return tree


def _ms(value: float) -> str:
    return "timed out" if value == float("inf") else f"{value:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 watchers, 10 s windows, 3 samples per attack size")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="each measured window")
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--readers", type=int, default=50, help="people reading pages at once (no watchers)")
    parser.add_argument("--attack", default="2,50,1000", help="open streams for the attack's home page timings")
    parser.add_argument("--no-before", action="store_true", help="skip the old set-up (gunicorn, sync workers)")
    parser.add_argument(
        "--client-nice",
        type=int,
        default=0,
        help="the crowd client's niceness (10: it takes only the CPU the server leaves, as on machines of its own)",
    )
    parser.add_argument("--results")
    args = parser.parse_args()
    seconds = 10.0 if args.quick else args.seconds
    samples = 3 if args.quick else 5
    sizes = [int(size) for size in args.attack.split(",")]
    print(machine())
    infra.create_database(DB_NAME)
    infra.setup_django(DB_NAME)
    infra.flush_redis()
    from league.bots.models import Bot

    matches = _running_matches(args.games)
    bot = Bot.objects.filter(game="love_letter").order_by("pk").first()
    assert bot is not None
    pages = ["/", "/games/love_letter/", f"/bots/{bot.pk}/", f"/matches/{matches[0][0]}/"]
    server = Server("uvicorn", args.web_processes)
    try:
        print(f"uvicorn, {args.web_processes} processes: one watcher per game ...", flush=True)
        quiet = _phase(server, matches, args.games, seconds, pages, args.client_nice)
        print(f"uvicorn: {args.watchers} watchers ...", flush=True)
        crowd = _phase(server, matches, args.watchers, seconds, pages, args.client_nice)
        print(f"uvicorn: {args.readers} readers at once ...", flush=True)
        readers = _read_together(server.port, pages, args.readers, seconds * 2)
        attack_new = _attack(server, matches[0][0], sizes, samples)
    finally:
        server.stop()
    attack_old: dict[int, tuple[float, float]] = {}
    if not args.no_before:
        old = Server("gunicorn", 2, _old_tree())
        try:
            attack_old = _attack(old, matches[0][0], sizes, samples)
        finally:
            old.stop()
    ratio = crowd["qps"] / quiet["qps"] if quiet["qps"] else float("nan")
    rows = [
        [
            label,
            f"{figures['watchers']}",
            f"{figures['page_p50']:.0f} / {_ms(figures['page_p99'])}",
            f"{figures['delivery_p50']:.0f} / {figures['delivery_p99']:.0f}",
            f"{figures['deliveries']}",
            f"{figures['qps']:.0f}",
            f"{figures['cpu_share'] * 100:.0f}% / {figures['cpu_us_per_view']:.0f} µs",
        ]
        for label, figures in (("one per game", quiet), ("crowd", crowd))
    ]
    print()
    print(
        table(
            rows,
            [
                "watchers",
                "open",
                "pages p50 / p99 ms",
                "delivery p50 / p99 ms",
                "deliveries",
                "db tx/s",
                "server CPU / a view",
            ],
        )
    )
    attack_rows = [
        [
            f"{size}",
            f"{_ms(attack_old[size][0])} / {_ms(attack_old[size][1])}" if size in attack_old else "-",
            f"{_ms(attack_new[size][0])} / {_ms(attack_new[size][1])}",
        ]
        for size in sizes
    ]
    print()
    print(
        f"Pages with {args.readers} people reading at once (each: a page, 0.5-1.5 s to read it, the next; no "
        f"watchers): {len(readers)} pages, p50 {quantile(readers, 0.5):.0f} ms, p99 {_ms(quantile(readers, 0.99))} ms"
    )
    record(args.results, "crowd", "readers_page_p99_ms", round(quantile(readers, 0.99), 2))
    print()
    print("The two-connection attack: the home page (median / worst ms) with open streams")
    print(table(attack_rows, ["open streams", "gunicorn, 2 sync workers (before)", "uvicorn (after)"]))
    for name, value in (
        ("page_p99_ms", crowd["page_p99"]),
        ("delivery_p99_ms", crowd["delivery_p99"]),
        ("db_qps_ratio", ratio),
    ):
        record(args.results, "crowd", name, round(value, 2))
    infra.drop_database(DB_NAME)
    print(
        f"\ncrowd: watchers {crowd['watchers']} page_p99_ms {_ms(crowd['page_p99'])} "
        f"delivery_p99_ms {crowd['delivery_p99']:.0f} db_qps_ratio {ratio:.2f}"
    )


if __name__ == "__main__":
    main()
