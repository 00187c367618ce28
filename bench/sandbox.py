"""The sandbox's costs: ``python -m bots bench`` (bots/bench.py), plus the cgroup throttle the runner adds per move.

    .venv/bin/python bench/sandbox.py [--starts 20] [--round-trips 2000] [--results FILE]

``bots.bench.measure`` gives the start-up of a Python bot (bare ``subprocess`` pipe, ``none`` backend, ``bwrap``
backend) and the JSON-line round trip on each. The runner does one thing more on every move of a sandboxed bot: it
lifts the bot's idle CPU quota before sending ``act`` and restores it after the reply (``BotProcess.unthrottle`` /
``throttle``: two writes to cpu.cfs_quota_us). The last row measures that round trip too, so the ratio against the
bare pipe is the runner's real per-move overhead.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, median, quantile, record, table
from bots.bench import _ACT, _ECHO_BOT, _Pipe, measure
from bots.sandbox import Limits, get_sandbox


def throttled_round_trips(count: int) -> list[float]:
    """Round trips (ms) in the bwrap sandbox with the runner's unthrottle before and throttle after each move."""
    with tempfile.TemporaryDirectory(prefix="parlour-bench-") as tmp:
        code = Path(tmp)
        code.chmod(0o755)
        (code / "main.py").write_text(_ECHO_BOT)
        proc = get_sandbox("bwrap").start(code, Limits())
        try:
            pipe = _Pipe(proc.stdin_fd, proc.stdout_fd, proc.close)
            if proc.setup_marker is not None:
                pipe.line()
            pipe.line()  # the bot's first line
            proc.throttle()
            trips = []
            for _ in range(count):
                began = time.perf_counter()
                proc.unthrottle()
                os.write(pipe.stdin_fd, _ACT)
                pipe.line()
                proc.throttle()
                trips.append((time.perf_counter() - began) * 1000)
            return trips
        finally:
            proc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    logging.getLogger("bots.sandbox").setLevel(logging.ERROR)
    print(f"# The sandbox (bots/bench.py + the runner's per-move throttle). {machine()}")
    runs = []
    for _ in range(args.repeats):  # each repeat measures every kind in turn: side by side
        figures = measure(args.starts, args.round_trips)
        trips = throttled_round_trips(args.round_trips)
        figures["round_trip"]["bwrap + throttle"] = {"median": median(trips), "p99": quantile(trips, 0.99)}
        runs.append(figures)

    def med(section: str, kind: str, key: str) -> float:
        return median(run[section][kind][key] for run in runs)

    rows = []
    for kind in ("bare", "none", "bwrap"):
        rows.append([kind, med("startup", kind, "median"), med("startup", kind, "p90")])
    print(table(rows, ["start-up of a Python bot", "median ms", "p90 ms"]))
    bare = med("round_trip", "bare", "median")
    bare99 = med("round_trip", "bare", "p99")
    rows = []
    for kind in ("bare", "none", "bwrap", "bwrap + throttle"):
        m, p99 = med("round_trip", kind, "median"), med("round_trip", kind, "p99")
        rows.append([kind, m * 1000, p99 * 1000, f"{m / bare:.2f}x", f"{p99 / bare99:.2f}x"])
        record(args.results, "sandbox", f"round trip {kind}: median / p99", f"{m * 1000:.1f} / {p99 * 1000:.1f}", "µs")
        if kind != "bare":
            note = "goal ≤ 2x" if kind == "bwrap + throttle" else ""
            record(args.results, "sandbox", f"round trip {kind} / bare pipe (median)", round(m / bare, 2), "x", note)
    print()
    print(table(rows, ["JSON-line round trip", "median µs", "p99 µs", "median vs bare", "p99 vs bare"]))
    bwrap_start, bare_start = med("startup", "bwrap", "median"), med("startup", "bare", "median")
    record(args.results, "sandbox", "start-up bwrap / bare (median)", f"{bwrap_start:.0f} / {bare_start:.0f}", "ms")
    print(f"(medians over {args.repeats} repeats of {args.starts} starts and {args.round_trips} round trips per kind)")


if __name__ == "__main__":
    main()
