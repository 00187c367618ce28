"""Many local matches, the command line: ``python -m bots arena`` (a round robin with a results table) and
``python -m bots compare`` (is B stronger than A? a sequential probability ratio test, ``bots.authoring.sprt``).

Every game is one ``bots.runner.play_match`` (``bots.authoring.local_games``), sandboxed exactly as on the league's
workers unless ``--sandbox none``. The round robin is ``bots.authoring.round_robin`` (seats rotated, rotations of a
table sharing a deal); the sequential test is ``bots.authoring.compare`` (pairs of games on one deal with A and B
swapped; in games of three or more players the other seats are ``--field`` bots, built-in ``random`` players by
default). This module parses the arguments, prepares the seats and prints the results.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from bots.authoring.args import UsageError, parse_option, parse_seat
from bots.authoring.compare import CompareResult, compare_tasks, progress_line, run_compare
from bots.authoring.local_games import GameRecord
from bots.authoring.round_robin import ArenaResult, arena_tasks, bradley_terry, format_arena, run_arena
from bots.authoring.sprt import SPRT
from bots.runner import BotSeat
from bots.sandbox import NONE_WARNING, Limits, NoSandbox, get_sandbox
from games.registry import GAMES, UnknownGame, get_game

# The round robin (bots.authoring.round_robin) and the sequential test (bots.authoring.compare) are re-exported:
# this module is the command line over both.
__all__ = [
    "ArenaResult",
    "CompareResult",
    "GameRecord",
    "add_parsers",
    "arena_tasks",
    "bradley_terry",
    "command",
    "compare_tasks",
    "run_arena",
    "run_compare",
]


# ----- the command line ---------------------------------------------------------------------------------------------


def add_parsers(commands: Any) -> None:
    """Add ``arena`` and ``compare`` to ``python -m bots`` (called by bots/authoring/cli.py)."""
    arena = commands.add_parser(
        "arena",
        help="a local round robin of several bots, with a results table",
        description="Round robin: every table of --players bots plays --games games, seats rotated.",
    )
    arena.add_argument("game", help=f"game id ({', '.join(GAMES)})")
    arena.add_argument("bots", nargs="+", metavar="bot", help="builtin:<name>, a .py file, a .zip or a directory")
    arena.add_argument("--games", type=int, default=10, help="games per table (default 10)")
    arena.add_argument("--players", type=int, help="players per table (default: 2, or the game's minimum)")
    _common(arena)

    compare = commands.add_parser(
        "compare",
        help="is B stronger than A? a sequential test (SPRT) that stops as soon as it knows",
        description="Play A against B, seats swapped on each deal, until a sequential probability ratio test decides "
        "between H0 (B is not stronger than elo0) and H1 (B is stronger by elo1), or --max-games is reached.",
    )
    compare.add_argument("a", help="the baseline bot (e.g. your previous version)")
    compare.add_argument("b", help="the candidate bot")
    compare.add_argument("--game", required=True, help=f"game id ({', '.join(GAMES)})")
    compare.add_argument("--elo0", type=float, default=0.0, help="H0: B is this many Elo stronger (default 0)")
    compare.add_argument("--elo1", type=float, default=5.0, help="H1: B is this many Elo stronger (default 5)")
    compare.add_argument("--alpha", type=float, default=0.05, help="false-positive rate (default 0.05)")
    compare.add_argument("--beta", type=float, default=0.05, help="false-negative rate (default 0.05)")
    compare.add_argument("--max-games", type=int, default=2000, help="stop without a verdict after N (default 2000)")
    compare.add_argument("--players", type=int, help="players per game (default: 2, or the game's minimum)")
    compare.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="SEAT",
        help="who fills the other seats in games of 3+ players (repeatable; default builtin:random)",
    )
    compare.add_argument("--every", type=int, default=10, help="print progress every N games (default 10)")
    _common(compare)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="the first deal (default 0)")
    parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap", help="isolation (default bwrap)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, in separate processes")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    parser.add_argument("--move-ms", type=int, help="per-move time limit")
    parser.add_argument("--bank-ms", type=int, help="time bank")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def command(args: argparse.Namespace) -> int:
    """Run ``arena`` or ``compare`` (the CLI's error handling wraps this)."""
    game_id = args.game
    try:
        game = get_game(game_id)
    except UnknownGame as exc:
        raise UsageError(str(exc)) from None
    players = args.players or max(2, game.min_players)
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.title} is played by {game.min_players} to {game.max_players} players, not {players}")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    options = dict(parse_option(text) for text in args.option)
    overrides = {k: v for k, v in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms)) if v is not None}
    try:
        limits = replace(Limits.for_game(game_id), **overrides)
        game.new_state(players, args.seed, options)  # bad options fail now, not in the middle of a run
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="parlour-arena-") as workdir:
        texts = list(args.bots) if args.command == "arena" else [args.a, args.b, *_field(args.field, players)]
        seats = _seats(game_id, texts, Path(workdir))
        if any(seat.code_dir is not None for seat in seats):
            if args.sandbox == "none":
                print(NONE_WARNING, file=sys.stderr)
                NoSandbox._warned = True
            else:
                get_sandbox("bwrap").check()
        if args.command == "arena":
            return _arena(args, game_id, seats, players, options, limits)
        return _compare(args, game_id, seats, players, options, limits)


def _field(given: list[str], players: int) -> list[str]:
    pool = given or ["builtin:random"]
    return [pool[i % len(pool)] for i in range(players - 2)]


def _seats(game_id: str, texts: list[str], workdir: Path) -> list[BotSeat]:
    seats = []
    seen: dict[str, int] = {}
    for index, text in enumerate(texts):
        seat = parse_seat(game_id, text, workdir / f"bot{index}")
        seen[text] = seen.get(text, 0) + 1
        if seen[text] > 1:  # the same bot twice: tell them apart in the tables
            seat = replace(seat, label=f"{seat.label}#{seen[text]}")
        seats.append(seat)
    return seats


def _arena(
    args: argparse.Namespace,
    game_id: str,
    seats: list[BotSeat],
    players: int,
    options: dict[str, Any],
    limits: Limits,
) -> int:
    if len(seats) < players:
        raise UsageError(f"{players}-player tables need at least {players} bots (add builtin:random?)")
    if args.games < 1:
        raise UsageError("--games must be at least 1")

    def on_game(number: int, total: int, record: GameRecord) -> None:
        if args.quiet:
            return
        placed = sorted(range(players), key=lambda s: record.ranks[s])
        text = "  ".join(f"{record.ranks[s]}. {seats[record.order[s]].label}" for s in placed)
        fault = "  FAULT" if any(record.faults) else ""
        print(f"[{number}/{total}] seed {record.seed}: {text}{fault}", file=sys.stderr)

    result = run_arena(
        game_id,
        seats,
        players=players,
        games=args.games,
        seed=args.seed,
        options=options,
        sandbox=args.sandbox,
        limits=limits,
        jobs=args.jobs,
        on_game=on_game,
    )
    print(json.dumps(result.to_json(), indent=2) if args.json else format_arena(result))
    return 0


def _compare(
    args: argparse.Namespace,
    game_id: str,
    seats: list[BotSeat],
    players: int,
    options: dict[str, Any],
    limits: Limits,
) -> int:
    try:
        sprt = SPRT(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.max_games < 1 or args.every < 1:
        raise UsageError("--max-games and --every must be at least 1")
    a, b, *field_seats = seats
    if not args.quiet:
        table = f", {players} players (field: {', '.join(s.label for s in field_seats)})" if field_seats else ""
        print(f"A = {a.label}\nB = {b.label}\n{get_game(game_id).title}{table}", file=sys.stderr)
        print(
            f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} beta={sprt.beta:g}: "
            f"LLR bounds [{sprt.lower:.3f}, {sprt.upper:.3f}], at most {args.max_games} games",
            file=sys.stderr,
        )
        print(f"{'games':>7}  {'B vs A':>16}  {'score':>6}  {'Elo of B - A [95%]':>24}  {'LLR':>7}", file=sys.stderr)

    def on_game(result: CompareResult) -> None:
        if not args.quiet and (result.tally.games % args.every == 0 or result.verdict is not None):
            print(progress_line(result), file=sys.stderr)

    result = run_compare(
        game_id,
        a,
        b,
        field_seats=field_seats,
        players=players,
        sprt=sprt,
        max_games=args.max_games,
        seed=args.seed,
        options=options,
        sandbox=args.sandbox,
        limits=limits,
        jobs=args.jobs,
        on_game=on_game,
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    if not args.quiet and result.verdict is None and result.tally.games % args.every:
        print(progress_line(result), file=sys.stderr)
    estimate = result.estimate
    print(f"{result.conclusion}.")
    if estimate is not None:
        print(f"B - A: {estimate} Elo (95% interval), B scored {result.tally} over {result.tally.games} games")
    if result.faults["A"] or result.faults["B"]:
        print(f"faults: A {result.faults['A']}, B {result.faults['B']} (a fault loses the game)")
    return 0
