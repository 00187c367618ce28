"""A whole Love Letter match between two Python bots, sandboxed, unsandboxed and in-process, side by side.

    .venv/bin/python bench/match.py [--matches 10] [--results FILE] [--baseline DIR]

The bots are games/love_letter/example/main.py twice. Every mode plays the same seeds, interleaved:

- ``in-process``: the same bot code imported into this process (each copy with its own ``random`` seeded as the
  bot seeds it) and played by ``games.simulate.play``: the same moves, no processes, no protocol;
- ``runner, built-ins``: ``bots.runner.play_match`` with two built-in players (heuristic): the runner's own cost
  (time control, replay) without processes;
- ``none``: ``play_match`` with the two bot programs as plain child processes (the ``none`` backend);
- ``bwrap``: ``play_match`` in the real sandbox (what the workers run);
- ``bwrap, prepared ahead``: ``prepare_match``, 100 ms of something else (as a worker recording the previous match),
  then ``play``, timed alone: the latency a match keeps when its start-up overlaps other work (not its CPU).

For the sandboxed match, where the time goes: start-up (both bots start at once, so the slower one counts), the
bots' moves as the runner timed them (round trip + the bot's thinking), the engine and the runner between moves, and
the end (end message, exit, killing the process tree, removing cgroups). The in-process and sandboxed matches are
checked to be the same game (the same moves).

``--baseline DIR`` adds a ``bwrap (baseline)`` mode: the same sandboxed match played by the runner of another copy of
the code (e.g. ``git archive HEAD | tar -x -C /tmp/base``) in a helper process, interleaved seed by seed with the
others, so an old-vs-new comparison is made in one run on the same machine load.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import logging
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import BaselineProcess, machine, median, quantile, record, table
from bots.runner import BotSeat, play_match, prepare_match
from bots.runner.match import Match
from games.base import Player
from games.registry import example_dir
from games.simulate import play

BOT_DIR = example_dir("love_letter")
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


def runner(seed: int, sandbox: str | None, prepared: bool = False) -> dict[str, Any]:
    """One match through ``play_match``; ``prepared``: through ``prepare_match``, timing only ``play`` (the bots were
    started ``PREPARED_AHEAD_S`` before, as a worker would while recording the previous match)."""
    if sandbox is None:
        seats = [BotSeat("a", builtin="heuristic"), BotSeat("b", builtin="heuristic")]
    else:
        seats = [BotSeat("a", code_dir=BOT_DIR), BotSeat("b", code_dir=BOT_DIR)]
    PHASES.clear()
    if prepared:
        match = prepare_match(GAME, seats, seed, sandbox=sandbox or "none")
        time.sleep(PREPARED_AHEAD_S)
        PHASES.clear()
        began = time.perf_counter()
        result = match.play()
    else:
        began = time.perf_counter()
        result = play_match(GAME, seats, seed, sandbox=sandbox or "none")
    wall = (time.perf_counter() - began) * 1000
    faults = [seat.fault for seat in result.seats if seat.fault]
    if faults:
        raise SystemExit(f"seed {seed} ({sandbox}): a bot faulted: {faults}")
    moves = result.replay["moves"]
    move_ms = [move["ms"] for move in moves]
    startup = max((seat.startup_ms or 0) for seat in result.seats)
    run = {
        "wall_ms": wall,
        "inner_ms": result.wall_ms,
        "startup_ms": startup,
        "moves_ms": sum(move_ms),
        "move_ms": move_ms,
        "moves": [move["action"] for move in moves],
        "decisions": len(moves),
        **{f"phase_{name}": ms for name, ms in PHASES.items()},
    }
    if "phase_spawn" in run:  # start-up = spawning the bots + waiting for their ready, as in an older runner
        run["phase_startup"] += run.pop("phase_spawn")
    run.setdefault("phase_startup", 0.0)
    return run


PHASES: dict[str, float] = {}
PREPARED_AHEAD_S = 0.1


def time_phases(match_class: type) -> None:
    """Time the runner's phases (ms of the last match, in ``PHASES``) by wrapping ``Match``'s methods: start-up
    (spawning every bot and waiting for its ready), the game, the end (end message, kills) and the teardown that the
    match still waits for (``close``). A runtime patch: nothing changes on disk."""
    import functools
    import time

    def timed(name: str, method: Any) -> Any:
        @functools.wraps(method)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                PHASES[name] = (time.perf_counter() - began) * 1000

        return wrapper

    phases = [("spawn", "spawn_bots"), ("startup", "_start_bots"), ("game", "_play_game"), ("end", "_finish")]
    for name, method in [*phases, ("close", "close")]:
        if hasattr(match_class, method):  # an older runner spawns its bots within _start_bots
            setattr(match_class, method, timed(name, getattr(match_class, method)))


_BASELINE_WORKER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from typing import Any
import bench.match
try:
    from bots.runner.match import Match
except ImportError:  # a runner from before bots/runner/ was a package
    from bots.runner import _Match as Match
bench.match.PHASES = {}
exec(sys.argv[2], vars(bench.match))  # this copy's time_phases
bench.match.time_phases(Match)
for line in sys.stdin:
    run = bench.match.runner(json.loads(line), "bwrap")
    run.update({f"phase_{name}": ms for name, ms in bench.match.PHASES.items()})
    print(json.dumps(run), flush=True)
"""


class Baseline(BaselineProcess):
    """``runner(seed, "bwrap")`` of another copy of the code, in a helper process that imports it from ``root``."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, _BASELINE_WORKER, inspect.getsource(time_phases))

    def play(self, seed: int) -> dict[str, Any]:
        return dict(self.ask(seed))


def measure(
    matches: int, first_seed: int = 1000, baseline: Path | None = None, prepared: bool = True
) -> dict[str, list[dict[str, Any]]]:
    logging.getLogger("bots.sandbox").setLevel(logging.ERROR)  # the none backend's warning
    runs: dict[str, list[dict[str, Any]]] = {"in-process": [], "runner, built-ins": [], "none": [], "bwrap": []}
    runner(first_seed - 1, "bwrap")  # warm up: page cache, slot files, the seccomp filter
    runner(first_seed - 1, "none")
    if prepared:
        runs["bwrap, prepared ahead"] = []
    old = Baseline(baseline) if baseline else None
    if old:
        runs["bwrap (baseline)"] = []
        old.play(first_seed - 1)
    try:
        for seed in range(first_seed, first_seed + matches):
            runs["in-process"].append(in_process(seed))
            runs["runner, built-ins"].append(runner(seed, None))
            runs["none"].append(runner(seed, "none"))
            runs["bwrap"].append(runner(seed, "bwrap"))
            if prepared:
                runs["bwrap, prepared ahead"].append(runner(seed, "bwrap", prepared=True))
            if old:
                runs["bwrap (baseline)"].append(old.play(seed))
            same = runs["in-process"][-1]["moves"] == runs["bwrap"][-1]["moves"] == runs["none"][-1]["moves"]
            if old:
                same = same and runs["bwrap (baseline)"][-1]["moves"] == runs["bwrap"][-1]["moves"]
            if not same:
                raise SystemExit(f"seed {seed}: the in-process and sandboxed matches differ: not the same game")
    finally:
        if old:
            old.close()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10, help="matches per mode (default 10)")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument("--baseline", type=Path, help="also time the bwrap match with the runner of this code copy")
    args = parser.parse_args()
    print(f"# A Love Letter match, two example Python bots. {machine()}")
    time_phases(Match)
    runs = measure(args.matches, baseline=args.baseline.resolve() if args.baseline else None)
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
    if "bwrap (baseline)" in runs:
        old = median(run["wall_ms"] for run in runs["bwrap (baseline)"])
        print(f"(bwrap: {bwrap:.1f} ms against {old:.1f} ms with the baseline's runner: {bwrap / old:.2f}x)")
        record(args.results, "match", "LL match bwrap / bwrap with the baseline runner", round(bwrap / old, 2), "x")

    print()
    print("# Where the time of a sandboxed match goes (medians, ms)")
    split_rows = []
    for mode in [mode for mode in ("none", "bwrap", "bwrap (baseline)") if mode in runs]:
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
        record(args.results, "match", f"LL match {mode}: spawn, end and teardown", round(max(0.0, rest), 1), "ms")
    think = median(run["think_ms"] / max(1, run["decisions"]) for run in runs["in-process"])
    phase_rows = []
    for mode in [mode for mode in ("none", "bwrap", "bwrap, prepared ahead", "bwrap (baseline)") if mode in runs]:
        values = runs[mode]
        row: list[Any] = [mode, median(run["wall_ms"] for run in values)]
        for name in ("startup", "game", "end", "close"):
            row.append(median(run[f"phase_{name}"] for run in values))
            record(args.results, "match", f"LL match {mode}: phase {name}", round(row[-1], 2), "ms")
        phase_rows.append(row)
    print(
        table(
            split_rows,
            ["mode", "wall", "start-up", "bot moves", "per move", "p99 move", "engine", "spawn + end + teardown"],
        )
    )
    print(
        f"(per move: the runner's timing of one bot decision, round trip + thinking; the bot alone thinks "
        f"{think * 1000:.0f} µs per move in-process. engine: the in-process match less the bots' thinking)"
    )
    print()
    print("# The runner's phases, timed (medians, ms)")
    print(table(phase_rows, ["mode", "wall", "start-up", "game", "end", "teardown waited for"]))
    print(
        "(start-up: spawning every bot and waiting for its ready; game: moves and engine; end: the end message and"
        " the kills, with any grace period; teardown waited for: what play_match still does before it returns)"
    )


if __name__ == "__main__":
    main()
