"""A game inside a series of sandboxed example bots against its floor, and against today's one-match runs.

    .venv/bin/python bench/series.py [--games 10] [--rounds 5] [--results FILE]

The bots are games/love_letter/example/main.py twice (they loop over games). Each round, interleaved, on the same
seeds:

- ``in-process``: the same bot code imported into this process and played by ``games.simulate.play`` (bench/match.py);
- ``bare round trip``: one JSON line (a real act message of the game) to a child process that echoes lines, and back;
  the **floor** of a game is ``in-process + decisions x bare round trip``: what a game costs once every decision has
  to cross a pipe to another process, and nothing else (no sandbox, no clock, no replay);
- ``series``: ``run_series`` of ``--games`` games on the same sandboxed processes; "per game" is each game's own
  ``Match.play`` (start to result), "amortised" the whole ``run_series`` (spawning the bots, every game, tearing down)
  divided by the games;
- ``play_match`` (cold) and ``prepare_match`` then ``play`` (prepared 100 ms ahead, ``play`` timed alone) for each seed.

Every series game is checked to be the in-process game with the same seed (the same moves).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine, median, record, table
from bench.match import BOT_DIR, GAME, in_process, runner
from bots.runner import BotSeat, SeriesGame, run_series
from bots.runner.match import Match
from games.registry import get_game

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"

GAME_MS: list[float] = []  # each Match.play of the last series, in ms


def _time_games() -> None:
    """Time every game's ``Match.play`` (a runtime patch: nothing changes on disk)."""
    play = Match.play

    def timed(self: Match, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return play(self, **kwargs)
        finally:
            GAME_MS.append((time.perf_counter() - began) * 1000)

    Match.play = timed  # type: ignore[method-assign]


def _act_line() -> bytes:
    """A real act message of the game (the middle decision of one deal), as the runner encodes it."""
    from bots import protocol

    state = get_game(GAME).new_state(2, 1)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    message = protocol.act_message(state.observation(state.to_move()), state.legal_actions(), 1000)
    return protocol.encode(message)


def bare_round_trip_ms(trips: int = 2000) -> float:
    """Median ms of one JSON line to an echoing child and back (write, flush, read the line, decode it)."""
    line = _act_line()
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
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
    return median(times)


def series(seeds: list[int]) -> dict[str, Any]:
    seats = [BotSeat("a", code_dir=BOT_DIR), BotSeat("b", code_dir=BOT_DIR)]
    GAME_MS.clear()
    began = time.perf_counter()
    result = run_series(GAME, seats, [SeriesGame(seed) for seed in seeds])
    wall = (time.perf_counter() - began) * 1000
    if not result.complete or any(fault for game in result.games for fault in game.faults) or any(result.restarts):
        raise SystemExit(f"the series did not play cleanly: {result.to_json()['unplayed']}, {result.restarts}")
    return {
        "wall_ms": wall,
        "game_ms": list(GAME_MS),
        "moves": [[move["action"] for move in game.replay["moves"]] for game in result.games],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="games per series (default 10)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each a series and its seeds (default 5)")
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    args = parser.parse_args()
    print(f"# A Love Letter game inside a series of two sandboxed example bots. {machine()}")
    _time_games()
    series([999_001, 999_002])  # warm up: page cache, slot files, the seccomp filter
    runs: dict[str, list[float]] = {key: [] for key in ("in-process", "rtt", "floor", "series", "amortised")}
    runs.update({"cold": [], "prepared": [], "decisions": []})
    for round_ in range(args.rounds):
        seeds = [1000 + round_ * args.games + n for n in range(args.games)]
        games = [in_process(seed) for seed in seeds]
        rtt = bare_round_trip_ms()
        played = series(seeds)
        if played["moves"] != [game["moves"] for game in games]:
            raise SystemExit(f"round {round_}: the series and the in-process games differ: not the same games")
        for game, game_ms in zip(games, played["game_ms"], strict=True):
            runs["in-process"].append(game["wall_ms"])
            runs["decisions"].append(game["decisions"])
            runs["floor"].append(game["wall_ms"] + game["decisions"] * rtt)
            runs["series"].append(game_ms)
        runs["rtt"].append(rtt)
        runs["amortised"].append(played["wall_ms"] / args.games)
        for seed in seeds[:3]:  # three cold and three prepared matches a round: enough for their medians
            runs["cold"].append(runner(seed, "bwrap")["wall_ms"])
            runs["prepared"].append(runner(seed, "bwrap", prepared=True)["wall_ms"])
    floor = median(runs["floor"])
    rows = [
        ["in-process game", median(runs["in-process"]), f"{median(runs['in-process']) / floor:.2f}x"],
        ["bare JSON round trip (one)", median(runs["rtt"]), "-"],
        ["floor: in-process + decisions x round trip", floor, "1.00x"],
        ["series: per game (Match.play)", median(runs["series"]), f"{median(runs['series']) / floor:.2f}x"],
        [
            "series: amortised (run_series / games)",
            median(runs["amortised"]),
            f"{median(runs['amortised']) / floor:.2f}x",
        ],
        ["play_match, cold", median(runs["cold"]), f"{median(runs['cold']) / floor:.2f}x"],
        ["prepare_match ahead, play", median(runs["prepared"]), f"{median(runs['prepared']) / floor:.2f}x"],
    ]
    print(table(rows, ["mode", "ms (median)", "vs floor"]))
    print(
        f"({args.rounds} rounds of a {args.games}-game series, interleaved with the same seeds in-process; "
        f"{median(runs['decisions']):.0f} decisions per game (median); the same moves in every series game)"
    )
    per_game = median(runs["series"])
    record(
        args.results, "series", "LL game in a series (bwrap) / floor", round(per_game / floor, 2), "x", "goal ≤ 1.5x"
    )
    record(args.results, "series", "LL game in a series (bwrap), per game", round(per_game, 2), "ms")
    record(args.results, "series", "LL floor (in-process + decisions x bare round trip)", round(floor, 2), "ms")
    record(args.results, "series", "LL series amortised per game", round(median(runs["amortised"]), 2), "ms")
    record(args.results, "series", "LL play_match cold", round(median(runs["cold"]), 1), "ms")
    record(args.results, "series", "LL prepared match, play", round(median(runs["prepared"]), 1), "ms")


if __name__ == "__main__":
    main()
