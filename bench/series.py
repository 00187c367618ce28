"""A game inside a series of sandboxed example bots against its floor, and against today's one-match runs.

    .venv/bin/python bench/series.py [--games 10] [--rounds 5] [--matches 3] [--baseline DIR] [--one-core]
                                     [--results FILE]

The bots are games/love_letter/example/main.py twice (they loop over games). Each round, interleaved, on the same
seeds:

- ``in-process``: the same bot code imported into this process and played by ``games.simulate.play`` (bench/match.py);
- ``bare round trip``: one JSON line (a real act message of the game) to a child process that echoes lines, and back;
  the **floor** of a game is ``in-process + decisions x bare round trip``: what a game costs once every decision has
  to cross a pipe to another process, and nothing else (no sandbox, no clock, no replay). The round trip is timed
  three ways: ``free`` (wherever the scheduler puts the two processes: the issue's definition, and the verdict), on
  ``one core`` and on ``two cores`` (pinned), because on a VM whose idle cores halt it is bimodal;
- ``in-process + a real echo``: the in-process game sending each decision's act message to the echo child and
  reading it back, the floor's two parts measured together (the tight echo loop above runs with warm caches);
- ``series``: ``run_series`` of ``--games`` games on the same sandboxed processes; "per game" is each game's own
  ``Match.play`` (start to result), "amortised" the whole ``run_series`` (spawning the bots, every game, tearing down)
  divided by the games;
- ``series (baseline)`` with ``--baseline DIR``: the same series played by another copy of the code (its runner and
  its example bot; e.g. ``git archive <commit> | tar -x -C DIR``) in a helper process, in the same round, the order
  of the two series alternating from round to round; with ``--one-core`` every series is played once more with the
  runner and its bots pinned to one core (the same placement for old and new code);
- ``play_match`` (cold) and ``prepare_match`` then ``play`` (prepared 100 ms ahead, ``play`` timed alone) for the
  first ``--matches`` seeds of each round.

Every series game is checked to be the in-process game with the same seed (the same moves). Before each timed part
the background teardown of earlier bots is waited for, so that no part pays for another's cleanup.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import BaselineProcess, machine, median, record, table
from bench.match import GAME, InProcessBot, in_process, runner
from bots.runner import cores
from bots.sandbox.reaper import wait_closed
from games.registry import get_game

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def play_series(seeds: list[int], core: int | None = None) -> dict[str, Any]:
    """One series of two example bots on ``seeds`` with whichever ``bots`` and ``games`` packages are importable
    (this tree's, or the baseline's in its helper process, which runs this function's source): the whole series'
    wall time, each game's ``Match.play`` (timed by a runtime patch: nothing changes on disk), its moves, and each
    decision's time as the runner timed it (``ms``) and the bot's CPU time (``cpu_ms``). ``core``: the runner and its
    bots (which inherit the affinity) all on that one core, for the series only."""
    import os
    import time

    from bots.runner import BotSeat, SeriesGame, run_series
    from bots.runner.match import Match
    from games.registry import example_dir

    game_ms: list[float] = []
    play = Match.play

    def timed(self: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return play(self, **kwargs)
        finally:
            game_ms.append((time.perf_counter() - began) * 1000)

    bot_dir = example_dir("love_letter")
    seats = [BotSeat("a", code_dir=bot_dir), BotSeat("b", code_dir=bot_dir)]
    Match.play = timed  # type: ignore[method-assign]
    cores = os.sched_getaffinity(0)
    try:
        if core is not None:
            os.sched_setaffinity(0, {core})
        began = time.perf_counter()
        result = run_series("love_letter", seats, [SeriesGame(seed) for seed in seeds])
        wall = (time.perf_counter() - began) * 1000
    finally:
        Match.play = play  # type: ignore[method-assign]
        os.sched_setaffinity(0, cores)
    if not result.complete or any(fault for game in result.games for fault in game.faults) or any(result.restarts):
        raise SystemExit(f"the series did not play cleanly: {result.to_json()['unplayed']}, {result.restarts}")
    moves = [move for game in result.games for move in game.replay["moves"]]
    return {
        "wall_ms": wall,
        "game_ms": game_ms,
        "moves": [[move["action"] for move in game.replay["moves"]] for game in result.games],
        "move_ms": [move["ms"] for move in moves],
        "cpu_ms": [move["cpu_ms"] for move in moves if move.get("cpu_ms") is not None],
    }


_BASELINE_WORKER = """
import json, sys
from typing import Any
sys.path.insert(0, sys.argv[1])
exec(sys.argv[2])  # bench/series.py's play_series, run against the baseline's bots and games
for line in sys.stdin:
    print(json.dumps(play_series(*json.loads(line))), flush=True)
"""


class Baseline(BaselineProcess):
    """``play_series`` with another copy of the code, in a helper process that imports it from ``root``."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, _BASELINE_WORKER, inspect.getsource(play_series))

    def play(self, seeds: list[int], core: int | None = None) -> dict[str, Any]:
        return dict(self.ask([seeds, core]))


def _act_line() -> bytes:
    """A real act message of the game (the middle decision of one deal), as the runner encodes it."""
    from bots import protocol

    state = get_game(GAME).new_state(2, 1)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    message = protocol.act_message(state.observation(state.to_move()), state.legal_actions(), 1000)
    return protocol.encode(message)


def current_core() -> int:
    """The core this thread runs on now (``bots.runner.cores.current_core``, which a series claims by)."""
    core = cores.current_core()
    if core is None:
        raise SystemExit("this machine does not say which core a thread runs on (/proc/thread-self/stat)")
    return core


# Where the echo child and this process run while their round trip is timed: wherever the scheduler puts them
# ("free", as the bots of a series), both on one core, or each on its own core. On a VM whose idle cores halt, a
# wake-up on another core costs tens of µs and one on the same core a few, so the free round trip is bimodal:
# whichever the scheduler chose (it follows the other load on the machine), the other two say what it would be.
PLACEMENTS = ("free", "one core", "two cores")


def bare_round_trip_ms(placement: str = "free", trips: int = 2000) -> float:
    """Median ms of one JSON line to an echoing child and back (write, flush, read the line, decode it)."""
    line = _act_line()
    cores = os.sched_getaffinity(0)
    here = current_core()
    there = min(cores - {here}, default=here)
    if placement != "free":
        os.sched_setaffinity(0, {here if placement == "one core" else there})  # the child inherits it
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if placement != "free":
        os.sched_setaffinity(0, {here})
    assert child.stdin and child.stdout
    times = []
    try:
        for _ in range(trips):
            began = time.perf_counter()
            child.stdin.write(line)
            child.stdin.flush()
            json.loads(child.stdout.readline())
            times.append((time.perf_counter() - began) * 1000)
    finally:
        child.stdin.close()
        child.wait(10)
        os.sched_setaffinity(0, cores)
    return median(times)


def in_process_with_echo(seeds: list[int]) -> list[float]:
    """ms of each in-process game that also sends every decision's act message to an echoing child and reads it back:
    the floor's two parts measured together, as a game really interleaves them (the round trip then finds colder
    caches than in ``bare_round_trip_ms``'s tight loop)."""
    from bots import protocol

    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin and child.stdout
    times = []
    try:
        for seed in seeds:
            bots = [InProcessBot(0), InProcessBot(1)]
            began = time.perf_counter()
            state = get_game(GAME).new_state(2, seed)
            for seat, bot in enumerate(bots):
                bot.start(seat, 2, state.options)
            while (mover := state.to_move()) is not None:
                obs, legal = state.observation(mover), state.legal_actions()
                child.stdin.write(protocol.encode(protocol.act_message(obs, legal, 1000)))
                child.stdin.flush()
                json.loads(child.stdout.readline())
                state.apply(bots[mover].act(obs, legal))
            times.append((time.perf_counter() - began) * 1000)
    finally:
        child.stdin.close()
        child.wait(10)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="games per series (default 10)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each a series and its seeds (default 5)")
    parser.add_argument("--matches", type=int, default=3, help="cold and prepared matches per round (default 3)")
    parser.add_argument("--baseline", type=Path, help="also play each round's series with this code copy")
    parser.add_argument("--one-core", action="store_true", help="also play each series with everything on one core")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    print(f"# A Love Letter game inside a series of two sandboxed example bots. {machine()}")
    old = Baseline(args.baseline.resolve()) if args.baseline else None
    modes = ["series"] + (["baseline"] if old else [])
    modes += [f"{mode}, one core" for mode in modes] if args.one_core else []
    runs: dict[str, list[float]] = {key: [] for key in ("in-process", "with echo", "decisions", "cold", "prepared")}
    for placement in PLACEMENTS:
        runs.update({f"rtt {placement}": [], f"floor {placement}": []})
    for mode in modes:
        runs.update({mode: [], f"{mode} amortised": [], f"{mode} move": [], f"{mode} cpu": []})
    try:
        play_series([999_001, 999_002])  # warm up: page cache, slot files, the seccomp filter
        if old:
            old.play([999_001, 999_002])
        for round_ in range(args.rounds):
            seeds = [1000 + round_ * args.games + n for n in range(args.games)]
            wait_closed(10)
            games = [in_process(seed) for seed in seeds]
            rtt = {placement: bare_round_trip_ms(placement) for placement in PLACEMENTS}
            runs["with echo"] += in_process_with_echo(seeds)
            for mode in modes if round_ % 2 == 0 else modes[::-1]:
                wait_closed(10)
                core = current_core() if mode.endswith("one core") else None
                played = play_series(seeds, core) if mode.startswith("series") else old.play(seeds, core)  # type: ignore[union-attr]
                if played["moves"] != [game["moves"] for game in games]:
                    raise SystemExit(f"round {round_}: {mode} and the in-process games differ: not the same games")
                runs[mode] += played["game_ms"]
                runs[f"{mode} amortised"].append(played["wall_ms"] / args.games)
                runs[f"{mode} move"] += played["move_ms"]
                runs[f"{mode} cpu"] += played["cpu_ms"]
            for game in games:
                runs["in-process"].append(game["wall_ms"])
                runs["decisions"].append(game["decisions"])
                for placement in PLACEMENTS:
                    runs[f"floor {placement}"].append(game["wall_ms"] + game["decisions"] * rtt[placement])
            for placement in PLACEMENTS:
                runs[f"rtt {placement}"].append(rtt[placement])
            for seed in seeds[: args.matches]:
                wait_closed(10)
                runs["cold"].append(runner(seed, "bwrap")["wall_ms"])
                wait_closed(10)
                runs["prepared"].append(runner(seed, "bwrap", prepared=True)["wall_ms"])
    finally:
        if old:
            old.close()
    floors = {placement: median(runs[f"floor {placement}"]) for placement in PLACEMENTS}

    def row(label: str, key: str) -> list[Any]:
        value = median(runs[key])
        return [label, value, *(f"{value / floors[placement]:.2f}x" for placement in PLACEMENTS)]

    rows = [row("in-process game", "in-process")]
    rows += [row(f"bare JSON round trip (one), {placement}", f"rtt {placement}") for placement in PLACEMENTS]
    rows += [
        row(f"floor: in-process + decisions x round trip, {placement}", f"floor {placement}")
        for placement in PLACEMENTS
    ]
    rows.append(row("in-process game + a real echo round trip per decision", "with echo"))
    for mode in modes:
        rows += [
            row(f"{mode}: per game (Match.play)", mode),
            row(f"{mode}: amortised (run_series / games)", f"{mode} amortised"),
        ]
    if runs["cold"]:
        rows += [row("play_match, cold", "cold"), row("prepare_match ahead, play", "prepared")]
    print(table(rows, ["mode", "ms (median)", *(f"vs floor ({placement})" for placement in PLACEMENTS)]))
    print(
        f"({args.rounds} rounds of a {args.games}-game series, interleaved with the same seeds in-process; "
        f"{median(runs['decisions']):.0f} decisions per game (median); the same moves in every series game. "
        "free: the scheduler places the echo child; one core / two cores: pinned with this process)"
    )
    print()
    print("# One decision inside a series (medians, µs)")
    move_rows = [
        [mode, median(runs[f"{mode} move"]) * 1000, median(runs[f"{mode} cpu"]) * 1000 if runs[f"{mode} cpu"] else "-"]
        for mode in modes
    ]
    print(table(move_rows, ["series", "decision as the runner times it", "the bot's CPU"]))
    per_game = median(runs["series"])
    floor = floors["free"]
    with_echo = median(runs["with echo"])
    print(f"(per game against the in-process game with a real echo per decision: {per_game / with_echo:.2f}x)")
    record(
        args.results, "series", "LL game in a series (bwrap) / floor", round(per_game / floor, 2), "x", "goal ≤ 1.5x"
    )
    record(
        args.results, "series", "LL game in a series / floor with a one-core round trip",
        round(per_game / floors["one core"], 2), "x",
    )  # fmt: skip
    record(
        args.results, "series", "LL game in a series / in-process game with an echo per decision",
        round(per_game / with_echo, 2), "x",
    )  # fmt: skip
    record(args.results, "series", "LL game in a series (bwrap), per game", round(per_game, 2), "ms")
    record(args.results, "series", "LL floor (in-process + decisions x bare round trip)", round(floor, 2), "ms")
    record(args.results, "series", "LL series amortised per game", round(median(runs["series amortised"]), 2), "ms")
    if old:
        baseline = median(runs["baseline"])
        print(f"(per game: {per_game:.2f} ms against {baseline:.2f} ms with the baseline: {per_game / baseline:.2f}x)")
        record(args.results, "series", "LL game in a series / with the baseline", round(per_game / baseline, 2), "x")
    if runs["cold"]:
        record(args.results, "series", "LL play_match cold", round(median(runs["cold"]), 1), "ms")
        record(args.results, "series", "LL prepared match, play", round(median(runs["prepared"]), 1), "ms")


if __name__ == "__main__":
    main()
