"""The sandbox's costs: ``python -m bots bench`` (bots/authoring/bench.py), plus the cgroup throttle the runner adds
per move.

    .venv/bin/python bench/sandbox.py [--starts 20] [--round-trips 2000] [--results FILE]

``bots.authoring.bench.measure`` gives the start-up of a Python bot (bare ``subprocess`` pipe, ``none`` backend,
``bwrap`` backend) and the JSON-line round trip on each. The runner does one thing more on every move of a sandboxed
bot: it holds an idle bot to a small CPU quota (cpu.cfs_quota_us). Three more rows measure the round trip with that
throttle:

- ``eager throttle``: what the runner did until issue 13 — lift the quota before each ``act``, restore it after the
  reply (``BotProcess.unthrottle`` / ``throttle``: two cgroup writes per move);
- ``lazy throttle``: what it does now (``wake`` / ``rest`` / ``throttle_if_rested``): a bot is throttled only once it
  has rested longer than its idle window (1 ms by default), so back-to-back moves cost no write at all;
- ``lazy, rested``: the same when the bot has rested past the window before every move (a slow opponent): it is
  throttled while it waits (not timed: that happens during the opponent's move), and one write lifts it.

The three run on one bot, interleaved in blocks of 100 round trips: side by side under the same load.
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
from bots.authoring.bench import ACT, ECHO_BOT, BotPipe, measure
from bots.sandbox import Limits, get_sandbox


def throttled_round_trips(count: int, block: int = 100) -> dict[str, list[float]]:
    """Round trips (ms) in the bwrap sandbox with the runner's throttle, for every policy of ``THROTTLES``: ``eager``
    (two writes per move), ``lazy`` (back-to-back moves) and ``rested`` (lazy, the bot throttled before each move).
    One bot, the policies interleaved in blocks of ``block`` round trips, so that they share the machine's load."""
    trips: dict[str, list[float]] = {policy: [] for policy in THROTTLES.values()}
    with tempfile.TemporaryDirectory(prefix="parlour-bench-") as tmp:
        code = Path(tmp)
        code.chmod(0o755)
        (code / "main.py").write_text(ECHO_BOT)
        proc = get_sandbox("bwrap").start(code, Limits())
        try:
            pipe = BotPipe(proc.stdin_fd, proc.stdout_fd, proc.close)
            if proc.setup_marker is not None:
                pipe.line()
            pipe.line()  # the bot's first line
            while len(trips["eager"]) < count:
                for policy, times in trips.items():
                    proc.throttle()  # every block starts from an idle, throttled bot
                    for _ in range(min(block, count - len(times))):
                        if policy == "rested":
                            proc.throttle_if_rested(time.monotonic() + 1)  # as while the opponent thinks
                        began = time.perf_counter()
                        if policy == "eager":
                            proc.unthrottle()
                        else:
                            proc.wake()
                        os.write(pipe.stdin_fd, ACT)
                        pipe.line()
                        if policy == "eager":
                            proc.throttle()
                        else:
                            proc.rest()
                            proc.throttle_if_rested()  # the runner's check before the next decision
                        times.append((time.perf_counter() - began) * 1000)
            return trips
        finally:
            proc.close()


THROTTLES = {
    "bwrap + eager throttle (before)": "eager",
    "bwrap + lazy throttle": "lazy",
    "bwrap + lazy throttle, rested": "rested",
}


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
        by_policy = throttled_round_trips(args.round_trips)
        for kind, policy in THROTTLES.items():
            trips = by_policy[policy]
            figures["round_trip"][kind] = {"median": median(trips), "p99": quantile(trips, 0.99)}
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
    for kind in ("bare", "none", "bwrap", *THROTTLES):
        m, p99 = med("round_trip", kind, "median"), med("round_trip", kind, "p99")
        rows.append([kind, m * 1000, p99 * 1000, f"{m / bare:.2f}x", f"{p99 / bare99:.2f}x"])
        record(args.results, "sandbox", f"round trip {kind}: median / p99", f"{m * 1000:.1f} / {p99 * 1000:.1f}", "µs")
        if kind != "bare":
            note = "goal ≤ 2x" if kind == "bwrap + lazy throttle" else ""
            record(args.results, "sandbox", f"round trip {kind} / bare pipe (median)", round(m / bare, 2), "x", note)
            if kind.startswith("bwrap +"):
                record(args.results, "sandbox", f"round trip {kind} / bare pipe (p99)", round(p99 / bare99, 2), "x")
    print()
    print(table(rows, ["JSON-line round trip", "median µs", "p99 µs", "median vs bare", "p99 vs bare"]))
    bwrap_start, bare_start = med("startup", "bwrap", "median"), med("startup", "bare", "median")
    record(args.results, "sandbox", "start-up bwrap / bare (median)", f"{bwrap_start:.0f} / {bare_start:.0f}", "ms")
    print(f"(medians over {args.repeats} repeats of {args.starts} starts and {args.round_trips} round trips per kind)")


if __name__ == "__main__":
    main()
