"""A whole Love Letter match between two Python bots, sandboxed, unsandboxed and in-process, side by side.

    .venv/bin/python bench/match.py [--matches 10] [--results FILE]

The bots are bots/examples/love_letter/main.py twice. Every mode plays the same seeds, interleaved:

- ``in-process``: the same bot code imported into this process (each copy with its own ``random`` seeded as the
  bot seeds it) and played by ``games.simulate.play``: the same moves, no processes, no protocol;
- ``runner, built-ins``: ``bots.runner.run_match`` with two built-in players (heuristic): the runner's own cost
  (time control, replay) without processes;
- ``none``: ``run_match`` with the two bot programs as plain child processes (the ``none`` backend);
- ``bwrap``: ``run_match`` in the real sandbox (what the workers run).

For the sandboxed match, where the time goes: start-up (both bots start at once, so the slower one counts), the
bots' moves as the runner timed them (round trip + the bot's thinking), the engine and the runner between moves, and
the end (end message, exit, killing the process tree, removing cgroups). The in-process and sandboxed matches are
checked to be the same game (the same moves).
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, machine, median, quantile, record, table
from bots.runner import Seat, run_match
from games.base import Player
from games.simulate import play

BOT_DIR = ROOT / "bots" / "examples" / "love_letter"
GAME = "love_letter"


class InProcessBot(Player):
    """The example bot's own ``choose`` in this process, with its own copy of the module (and so its own RNG)."""

    name = "example"

    _modules: dict[int, Any] = {}

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        if seat not in self._modules:  # loaded once, outside the timed matches
            spec = importlib.util.spec_from_file_location(f"_bench_bot_{seat}", BOT_DIR / "main.py")
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self._modules[seat] = module
        self.module = self._modules[seat]
        self.module.random = random.Random(seat)  # the bot does random.seed(seat) at start
        self.think = 0.0

    def act(self, obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        began = time.perf_counter()
        action = self.module.choose(obs, legal)
        self.think += time.perf_counter() - began
        return action


def in_process(seed: int) -> dict[str, Any]:
    bots = [InProcessBot(0), InProcessBot(1)]
    began = time.perf_counter()
    state = play(GAME, bots, seed)
    wall = time.perf_counter() - began
    return {
        "wall_ms": wall * 1000,
        "think_ms": sum(bot.think for bot in bots) * 1000,
        "moves": list(state.history),
        "decisions": len(state.history),
    }


def runner(seed: int, sandbox: str | None) -> dict[str, Any]:
    if sandbox is None:
        seats = [Seat("a", builtin="heuristic"), Seat("b", builtin="heuristic")]
    else:
        seats = [Seat("a", code_dir=BOT_DIR), Seat("b", code_dir=BOT_DIR)]
    began = time.perf_counter()
    result = run_match(GAME, seats, seed, sandbox=sandbox or "none")
    wall = (time.perf_counter() - began) * 1000
    faults = [seat.fault for seat in result.seats if seat.fault]
    if faults:
        raise SystemExit(f"seed {seed} ({sandbox}): a bot faulted: {faults}")
    moves = result.replay["moves"]
    move_ms = [move["ms"] for move in moves]
    startup = max((seat.startup_ms or 0) for seat in result.seats)
    return {
        "wall_ms": wall,
        "inner_ms": result.wall_ms,
        "startup_ms": startup,
        "moves_ms": sum(move_ms),
        "move_ms": move_ms,
        "moves": [move["action"] for move in moves],
        "decisions": len(moves),
    }


def measure(matches: int, first_seed: int = 1000) -> dict[str, list[dict[str, Any]]]:
    logging.getLogger("bots.sandbox").setLevel(logging.ERROR)  # the none backend's warning
    runs: dict[str, list[dict[str, Any]]] = {"in-process": [], "runner, built-ins": [], "none": [], "bwrap": []}
    runner(first_seed - 1, "bwrap")  # warm up: page cache, slot files, the seccomp filter
    runner(first_seed - 1, "none")
    for seed in range(first_seed, first_seed + matches):
        runs["in-process"].append(in_process(seed))
        runs["runner, built-ins"].append(runner(seed, None))
        runs["none"].append(runner(seed, "none"))
        runs["bwrap"].append(runner(seed, "bwrap"))
        same = runs["in-process"][-1]["moves"] == runs["bwrap"][-1]["moves"] == runs["none"][-1]["moves"]
        if not same:
            raise SystemExit(f"seed {seed}: the in-process and sandboxed matches differ: not the same game")
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10, help="matches per mode (default 10)")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    print(f"# A Love Letter match, two example Python bots. {machine()}")
    runs = measure(args.matches)
    base = median(run["wall_ms"] for run in runs["in-process"])
    rows = []
    for mode, values in runs.items():
        wall = median(run["wall_ms"] for run in values)
        rows.append([mode, wall, f"{wall / base:.1f}x", median(run["decisions"] for run in values)])
    print(table(rows, ["mode", "wall ms (median)", "vs in-process", "decisions"]))
    print(f"({args.matches} matches per mode, interleaved, same seeds; the same moves in every mode)")
    bwrap = median(run["wall_ms"] for run in runs["bwrap"])
    none = median(run["wall_ms"] for run in runs["none"])
    record(args.results, "match", "LL match in-process (example bots)", round(base, 1), "ms")
    record(args.results, "match", "LL match sandboxed (bwrap) / in-process", round(bwrap / base, 1), "x", "goal ≤ 1.5x")
    record(args.results, "match", "LL match sandboxed (bwrap) / none backend", round(bwrap / none, 2), "x")

    print()
    print("# Where the time of a sandboxed match goes (medians, ms)")
    split_rows = []
    for mode in ("none", "bwrap"):
        values = runs[mode]
        wall = median(run["wall_ms"] for run in values)
        startup = median(run["startup_ms"] for run in values)
        moves = median(run["moves_ms"] for run in values)
        per_move = [ms for run in values for ms in run["move_ms"]]
        engine = median(run["wall_ms"] - run["think_ms"] for run in runs["in-process"])
        rest = wall - startup - moves - engine
        split_rows.append(
            [mode, wall, startup, moves, median(per_move), quantile(per_move, 0.99), engine, max(0.0, rest)]
        )
        record(args.results, "match", f"LL match {mode}: start-up of the bots", round(startup, 1), "ms")
        record(args.results, "match", f"LL match {mode}: per move (median)", round(median(per_move), 3), "ms")
        record(args.results, "match", f"LL match {mode}: end and teardown", round(max(0.0, rest), 1), "ms")
    think = median(run["think_ms"] / max(1, run["decisions"]) for run in runs["in-process"])
    print(
        table(
            split_rows,
            ["mode", "wall", "start-up", "bot moves", "per move", "p99 move", "engine", "end + teardown"],
        )
    )
    print(
        f"(per move: the runner's timing of one bot decision, round trip + thinking; the bot alone thinks "
        f"{think * 1000:.0f} µs per move in-process. engine: the in-process match less the bots' thinking)"
    )


if __name__ == "__main__":
    main()
