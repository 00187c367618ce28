"""``python -m bots`` (bots/__main__.py): play a match locally exactly as the league's workers do, or check the sandbox.

    python -m bots play love_letter path/to/bot.py builtin:random builtin:random --seed 7 --json
    python -m bots play love_letter mybot/ other.zip --sandbox none      # no isolation: your own bots only
    python -m bots check                                                  # is the sandbox usable here?
    python -m bots bench                                                  # its start-up and round-trip costs
    python -m bots view replay.json                                       # watch a replay in the browser
    python -m bots arena love_letter a/ b.py builtin:heuristic --games 20 # a round robin with a results table
    python -m bots compare old/ new/ --game love_letter                   # is new stronger? (an SPRT)
    python -m bots connect --token T --url https://league mybot/           # play in the league from here

A seat is ``builtin:<name>`` (a built-in player of the game), a ``.py`` file, a ``.zip`` archive (both unpacked the
way uploads are) or a directory with ``main.py`` or ``bot.toml``. Exit status: 0 when the match completed (even with
faults), 2 for bad arguments, 1 when the sandbox is unavailable.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from bots.authoring import arena
from bots.authoring.args import UsageError, parse_option, parse_seat
from bots.runner import MatchResult, play_match
from bots.sandbox import NONE_WARNING, Limits, NoSandbox, SandboxError, get_sandbox
from games.registry import GAMES, UnknownGame, get_game

# How long a bot may take to exit after `end` when played locally (the league grants none: docs/protocol.md).
LOCAL_END_GRACE_MS = 200


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m bots", description="Parlour bot runtime: play matches locally, check the sandbox.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    play = commands.add_parser("play", help="play one match", description="Play one match and print the outcome.")
    play.add_argument("game", help=f"game id ({', '.join(GAMES)})")
    play.add_argument("seats", nargs="+", metavar="seat", help="builtin:<name>, a .py file, a .zip or a directory")
    play.add_argument("--seed", type=int, default=0, help="the deal (default 0)")
    play.add_argument("--json", action="store_true", help="print the result as JSON")
    play.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap", help="isolation (default bwrap)")
    play.add_argument("--replay", type=Path, metavar="FILE", help="write the replay JSON to FILE")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    play.add_argument("--move-ms", type=int, help="per-move time limit")
    play.add_argument("--bank-ms", type=int, help="time bank")
    play.add_argument("--startup-ms", type=int, help="start-up time limit")
    commands.add_parser("check", help="check that the bwrap sandbox works on this machine")
    bench = commands.add_parser("bench", help="measure sandbox start-up and round-trip costs side by side")
    bench.add_argument("--starts", type=int, default=20, help="bot starts per kind (default 20)")
    bench.add_argument("--round-trips", type=int, default=2000, help="round trips per kind (default 2000)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    view = commands.add_parser("view", help="watch a replay in the browser, in the league's own viewer")
    view.add_argument("replay", help="a replay JSON file (play --replay FILE, or a match page's download); - for stdin")
    view.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free port)")
    view.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser")
    arena.add_parsers(commands)  # arena and compare
    connect = commands.add_parser(
        "connect", help="play a local bot in the league as a remote bot", description="Connect a bot (docs/remote.md)."
    )
    connect.add_argument("bot", help="the bot: a .py file, a .zip or a directory")
    connect.add_argument("--token", required=True, help='the bot\'s remote token (its page, "Remote token")')
    connect.add_argument("--url", required=True, help="the league's address, e.g. https://parlour.example")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check()
        if args.command == "bench":
            return _bench(args)
        if args.command in ("arena", "compare"):
            return arena.command(args)
        if args.command == "connect":
            from bots.authoring.connect import connect_command

            return connect_command(args.url, args.token, args.bot)
        if args.command == "view":
            from bots.authoring.viewer import view_command

            return view_command(args.replay, args.port, open_browser=not args.no_browser)
        return _play(args)
    except UsageError as exc:
        print(f"python -m bots: error: {exc}", file=sys.stderr)
        return 2
    except SandboxError as exc:
        print(f"python -m bots: sandbox unavailable: {exc}", file=sys.stderr)
        print("(for local development with your own bots only: --sandbox none)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _check() -> int:
    from bots.selftest import self_test

    problems = self_test()
    if problems:
        for problem in problems:
            print(f"FAIL {problem}", file=sys.stderr)
        return 1
    print("ok: the bwrap sandbox works here")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from bots.authoring.bench import measure, report

    if args.starts < 1 or args.round_trips < 1:
        raise UsageError("--starts and --round-trips must be positive")
    get_sandbox("bwrap").check()
    figures = measure(args.starts, args.round_trips)
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    return 0


def _play(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except UnknownGame as exc:
        raise UsageError(str(exc)) from None
    if not game.min_players <= len(args.seats) <= game.max_players:
        raise UsageError(
            f"{game.title} is played by {game.min_players} to {game.max_players} players; got {len(args.seats)} seats"
        )
    options = dict(parse_option(text) for text in args.option)
    # Locally a bot may react to `end`: its `on_end` logging is what its author wants to see.
    limits = Limits.for_game(args.game, end_grace_ms=LOCAL_END_GRACE_MS)
    overrides = {
        name: value
        for name, value in (("move_ms", args.move_ms), ("bank_ms", args.bank_ms), ("startup_ms", args.startup_ms))
        if value is not None
    }
    try:
        limits = replace(limits, **overrides)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.sandbox == "none":
        print(NONE_WARNING, file=sys.stderr)
        NoSandbox._warned = True
    else:
        get_sandbox("bwrap").check()
    with tempfile.TemporaryDirectory(prefix="parlour-cli-") as workdir:
        seats = [parse_seat(args.game, text, Path(workdir) / f"seat{index}") for index, text in enumerate(args.seats)]
        try:
            result = play_match(args.game, seats, args.seed, options, sandbox=args.sandbox, limits=limits)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if args.replay:
        try:
            args.replay.write_text(json.dumps(result.replay, indent=1) + "\n")
        except OSError as exc:
            raise UsageError(f"cannot write the replay to {args.replay}: {exc.strerror}") from None
    if args.json:
        data = result.to_json()
        del data["replay"]
        print(json.dumps(data, indent=2))
    else:
        _print_log(result)
    return 0


def _print_log(result: MatchResult) -> None:
    replay = result.replay
    labels = replay["seats"]
    print(f"{replay['game']} v{replay['version']}, seed {replay['seed']}, {replay['players']} players")
    for seat, label in enumerate(labels):
        print(f"  seat {seat}: {label}")
    faults_at: dict[int, list[dict[str, Any]]] = {}
    for fault in replay["faults"]:
        faults_at.setdefault(fault["move"] if fault["move"] is not None else -1, []).append(fault)
    for fault in faults_at.get(-1, []):
        print(f"  FAULT seat {fault['seat']} ({labels[fault['seat']]}): {fault['cause']}: {fault['detail']}")
    for index, move in enumerate(replay["moves"]):
        for fault in faults_at.get(index, []):
            print(f"  FAULT seat {fault['seat']} ({labels[fault['seat']]}): {fault['cause']}: {fault['detail']}")
        action = json.dumps(move["action"], separators=(",", ":"))
        extra = " (auto: built-in random after a fault)" if move["auto"] else ""
        note = f"  # {move['note']}" if move.get("note") else ""
        print(f"{index:4d}  seat {move['seat']}: {action}  {move['ms']:.1f} ms{extra}{note}")
    for fault in faults_at.get(len(replay["moves"]), []):
        print(f"  FAULT seat {fault['seat']} ({labels[fault['seat']]}): {fault['cause']}: {fault['detail']}")
    print(f"result ({result.wall_ms} ms):")
    order = sorted(range(len(result.seats)), key=lambda s: (result.seats[s].rank, s))
    for seat in order:
        info = result.seats[seat]
        fault = f"  FAULT {info.fault.cause}: {info.fault.detail}" if info.fault else ""
        print(f"  rank {info.rank}  score {info.score:g}  seat {seat} {info.label}  ({info.moves} moves){fault}")
    for seat, info in enumerate(result.seats):
        if info.stderr.strip():
            print(f"--- stderr of seat {seat} ({info.label}) ---")
            print(info.stderr.rstrip())
