"""Random playouts per second on one core for every registered game, where the time goes, and how it grows.

    .venv/bin/python bench/engines.py [--seconds 3] [--repeats 3] [game ...]
    .venv/bin/python bench/engines.py --against DIR [--seconds 3] [--repeats 5] [game ...]

For each game: complete random games per second (legal actions + observation of the mover + apply, as a match
runs them), then the split of that time between legal_actions, observation and apply. Medians over 3 repeats.

Then how the cost grows with the length of a game: every playout's decisions and time are kept, and the table shows
the time per decision in the shortest and the longest quarter of the playouts (equal: the cost is linear in the
length of a game; larger for long games: something grows with the history), and the slope of time against
decisions (least squares), in µs per decision.

With ``--against DIR`` (another copy of the code, e.g. ``git archive <commit> | tar -x -C DIR``): the same random
playouts of that code's engines and of this one's, side by side, each run in a fresh process of its own, the two
alternating (which goes first alternates too), and the ratio of their playouts per second, by wall clock and by the
process's CPU time (steadier on a shared machine: time spent waiting for a core is not counted). Medians over the
repeats; the ratio's range is over the pairs of runs.

A public implementation of the same game, side by side: ``bench/pypi_loveletter.py`` (Love Letter).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, machine, record, table


def playouts(game_id: str, seconds: float) -> tuple[float, dict[str, float], list[tuple[int, float]], float]:
    """(playouts per second, share of time per engine call, [(decisions, seconds) of every playout], playouts per
    second of the process's CPU time)."""
    from games.registry import get_game, make_player  # the tree's first on the path (``--tree``)

    game = get_game(game_id)
    spent = {"legal_actions": 0.0, "observation": 0.0, "apply": 0.0}
    games = 0
    lengths: list[tuple[int, float]] = []
    clock = time.perf_counter
    cpu = time.process_time()
    start = clock()
    while clock() - start < seconds:
        began = clock()
        players = game.min_players + games % (game.max_players - game.min_players + 1)
        state = game.new_state(players, games)
        bots = [make_player(game_id, "random", games * 10 + seat) for seat in range(players)]
        for seat, bot in enumerate(bots):
            bot.start(seat, players, state.options)
        decisions = 0
        while (seat := state.to_move()) is not None:
            t0 = clock()
            legal = state.legal_actions()
            t1 = clock()
            obs = state.observation(seat)
            t2 = clock()
            action = bots[seat].act(obs, legal)
            t3 = clock()
            state.apply(action)
            t4 = clock()
            spent["legal_actions"] += t1 - t0
            spent["observation"] += t2 - t1
            spent["apply"] += t4 - t3
            decisions += 1
        lengths.append((decisions, clock() - began))
        games += 1
    elapsed = clock() - start
    cpu = time.process_time() - cpu
    return games / elapsed, {key: value / elapsed for key, value in spent.items()}, lengths, games / cpu


def growth(lengths: list[tuple[int, float]]) -> dict[str, float]:
    """Decisions per playout (shortest quarter, longest quarter) and µs per decision in each, and the slope."""
    ordered = sorted(lengths)
    quarter = max(1, len(ordered) // 4)
    short, long = ordered[:quarter], ordered[-quarter:]

    def per_decision(rows: list[tuple[int, float]]) -> float:
        return sum(s for _d, s in rows) / max(1, sum(d for d, _s in rows)) * 1e6

    xs = [float(d) for d, _s in ordered]
    ys = [s * 1e6 for _d, s in ordered]
    slope = statistics.linear_regression(xs, ys).slope if len(set(xs)) > 1 else per_decision(ordered)
    return {
        "short_decisions": statistics.median(d for d, _s in short),
        "long_decisions": statistics.median(d for d, _s in long),
        "short_us": per_decision(short),
        "long_us": per_decision(long),
        "slope_us": slope,
    }


def run_in(tree: Path, game_id: str, seconds: float) -> tuple[float, float]:
    """(playouts/s, playouts per CPU second) of ``tree``'s engine, in a fresh process."""
    command = [sys.executable, __file__, "--tree", str(tree), "--seconds", str(seconds), game_id]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rate, cpu_rate = json.loads(out.splitlines()[-1])
    return rate, cpu_rate


def side_by_side(games: list[str], against: Path, seconds: float, repeats: int, results: str | None) -> None:
    print(f"# Engines, {against} (before) against {ROOT} (after), side by side. {machine()}")
    rows = []
    for game_id in games:
        before: list[tuple[float, float]] = []
        after: list[tuple[float, float]] = []
        for repeat in range(repeats):
            order = [(against, before), (ROOT, after)]
            for tree, runs in order if repeat % 2 == 0 else order[::-1]:
                runs.append(run_in(tree, game_id, seconds))
        wall = [new[0] / old[0] for old, new in zip(before, after, strict=True)]
        cpu = [new[1] / old[1] for old, new in zip(before, after, strict=True)]
        rows.append(
            [
                game_id,
                statistics.median(run[0] for run in before),
                statistics.median(run[0] for run in after),
                f"{statistics.median(wall):.2f}x ({min(wall):.2f}-{max(wall):.2f})",
                statistics.median(run[1] for run in before),
                statistics.median(run[1] for run in after),
                f"{statistics.median(cpu):.2f}x ({min(cpu):.2f}-{max(cpu):.2f})",
            ]
        )
        record(results, "engines", f"{game_id} random playouts/s, after/before", round(statistics.median(wall), 2), "x")
    headings = ["game", "before /s", "after /s", "after/before", "before /CPU s", "after /CPU s", "by CPU time"]
    print(table(rows, headings))
    print(f"(medians of {repeats} runs of {seconds:g} s each, alternating; ranges over the pairs of runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", help="append the figures to this JSON-lines file")
    parser.add_argument("--against", type=Path, help="another copy of the code: its engines side by side with these")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)  # one run of that tree's engine, as JSON
    args = parser.parse_args()
    if args.tree is not None:
        sys.path.insert(0, str(args.tree.resolve()))
        rate, _split, _lengths, cpu_rate = playouts(args.games[0], args.seconds)
        print(json.dumps([rate, cpu_rate]))
        return
    from games.registry import GAMES

    args.games = args.games or list(GAMES)
    if args.against is not None:
        side_by_side(args.games, args.against.resolve(), args.seconds, args.repeats, args.results)
        return
    print(f"# Engines: random playouts on one core. {machine()}")
    rows, grow_rows = [], []
    for game_id in args.games:
        runs = [playouts(game_id, args.seconds) for _ in range(args.repeats)]
        rate = statistics.median(run[0] for run in runs)
        split = {key: statistics.median(run[1][key] for run in runs) for key in runs[0][1]}
        rows.append(
            [
                game_id,
                rate,
                f"{split['legal_actions']:.0%}",
                f"{split['observation']:.0%}",
                f"{split['apply']:.0%}",
            ]
        )
        record(args.results, "engines", f"{game_id} random playouts/s (one core)", round(rate, 1), "/s")
        g = growth([length for run in runs for length in run[2]])
        grow_rows.append(
            [game_id, g["short_decisions"], g["short_us"], g["long_decisions"], g["long_us"], g["slope_us"]]
        )
        record(
            args.results,
            "scaling",
            f"{game_id} µs/decision, short vs long games",
            f"{g['short_us']:.0f} vs {g['long_us']:.0f}",
            "µs",
            f"{g['short_decisions']:.0f} vs {g['long_decisions']:.0f} decisions",
        )
    print(table(rows, ["game", "playouts/s", "legal", "obs", "apply"]))
    print(f"(medians of {args.repeats} runs of {args.seconds:g} s; the rest of the time is the random player)")
    print()
    print("# How a playout's cost grows with its length (all playouts above)")
    headings = ["game", "short: decisions", "µs/decision", "long: decisions", "µs/decision", "slope µs/decision"]
    print(table(grow_rows, headings))


if __name__ == "__main__":
    main()
