"""Many local matches: ``python -m bots arena`` (a round robin with a results table) and ``python -m bots compare``
(is B stronger than A? a sequential probability ratio test, ``bots.authoring.sprt``).

Every game is one ``bots.runner.play_match``, sandboxed exactly as on the league's workers unless ``--sandbox none``.
Seats rotate: in a round robin every table plays its games with the seating rotated one place per game, and
consecutive rotations share a deal (the same seed), so no bot profits from a seat or a lucky deal. ``compare``
plays pairs of games on one deal with A and B swapped. In games of three or more players ``compare`` fills the other
seats with ``--field`` bots (built-in ``random`` players by default) and counts, from each game, the one pairwise
result between A's and B's seats.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bots.authoring.args import UsageError, parse_option, parse_seat
from bots.authoring.sprt import SPRT, Estimate, Tally, elo_estimate
from bots.runner import BotSeat, play_match
from bots.sandbox import NONE_WARNING, Limits, NoSandbox, get_sandbox
from games.registry import GAMES, UnknownGame, get_game

__all__ = ["ArenaResult", "CompareResult", "GameRecord", "add_parsers", "command", "run_arena", "run_compare"]


# ----- playing games ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRecord:
    """One finished game: who sat where (indices into the bots), the deal, and how it ended."""

    order: tuple[int, ...]  # order[seat] = bot index
    seed: int
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    faults: tuple[str | None, ...]  # "cause: detail" per seat, None without a fault
    wall_ms: int

    def rank_of(self, bot: int) -> int:
        return self.ranks[self.order.index(bot)]


@dataclass(frozen=True)
class _Task:
    order: tuple[int, ...]
    seed: int


def _play(
    game_id: str, seats: list[BotSeat], seed: int, options: dict[str, Any], sandbox: str, limits: Limits
) -> dict[str, Any]:
    result = play_match(game_id, seats, seed, options, sandbox=sandbox, limits=limits)
    return {
        "ranks": list(result.outcome.ranks),
        "scores": list(result.outcome.scores),
        "faults": [f"{s.fault.cause}: {s.fault.detail}" if s.fault else None for s in result.seats],
        "wall_ms": result.wall_ms,
    }


class _Player:
    """Plays tasks in order, in this process or in ``jobs`` forked processes; results come back in task order."""

    def __init__(
        self, game_id: str, bots: list[BotSeat], options: dict[str, Any], sandbox: str, limits: Limits, jobs: int
    ) -> None:
        self.game_id, self.bots, self.options, self.sandbox, self.limits, self.jobs = (
            game_id,
            bots,
            options,
            sandbox,
            limits,
            jobs,
        )

    def _args(self, task: _Task) -> tuple[Any, ...]:
        seats = [self.bots[index] for index in task.order]
        return (self.game_id, seats, task.seed, self.options, self.sandbox, self.limits)

    def _record(self, task: _Task, data: dict[str, Any]) -> GameRecord:
        return GameRecord(
            order=task.order,
            seed=task.seed,
            ranks=tuple(data["ranks"]),
            scores=tuple(data["scores"]),
            faults=tuple(data["faults"]),
            wall_ms=data["wall_ms"],
        )

    def play(self, tasks: Iterable[_Task]) -> Generator[GameRecord, None, None]:
        if self.jobs <= 1:
            for task in tasks:
                yield self._record(task, _play(*self._args(task)))
            return
        # Forked workers: each runs whole matches (the engine and built-in players are CPU-bound Python). Stopping
        # early (compare's verdict) cancels the games not started yet; the few in progress are waited for.
        pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"))
        pending: deque[tuple[_Task, Any]] = deque()
        source = iter(tasks)
        try:
            while True:
                while len(pending) < 2 * self.jobs:
                    queued = next(source, None)
                    if queued is None:
                        break
                    pending.append((queued, pool.submit(_play, *self._args(queued))))
                if not pending:
                    return
                task, future = pending.popleft()
                yield self._record(task, future.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


# ----- the round robin ----------------------------------------------------------------------------------------------


@dataclass
class ArenaResult:
    game: str
    labels: list[str]
    players: int
    games_per_table: int
    records: list[GameRecord] = field(default_factory=list)

    def pairwise(self) -> list[list[Tally]]:
        """``pairwise()[i][j]``: bot i's results against bot j, one per game they both played (better rank wins)."""
        n = len(self.labels)
        table = [[Tally() for _ in range(n)] for _ in range(n)]
        for record in self.records:
            for i, j in itertools.permutations(set(record.order), 2):
                table[i][j].add_ranks(record.rank_of(i), record.rank_of(j))
        return table

    def elo(self) -> list[float]:
        """Elo from all the pairwise results (a Bradley-Terry fit, ties counting half), relative: their mean is 0."""
        return bradley_terry(self.pairwise())

    def standings(self) -> list[dict[str, Any]]:
        pairwise = self.pairwise()
        elo = self.elo()
        rows: list[dict[str, Any]] = []
        for bot, label in enumerate(self.labels):
            mine = [r for r in self.records if bot in r.order]
            total = Tally()
            for other in range(len(self.labels)):
                if other != bot:
                    total.wins += pairwise[bot][other].wins
                    total.draws += pairwise[bot][other].draws
                    total.losses += pairwise[bot][other].losses
            ranks = [r.rank_of(bot) for r in mine]
            scores = [r.scores[r.order.index(bot)] for r in mine]
            rows.append(
                {
                    "bot": label,
                    "games": len(mine),
                    "wins": sum(1 for rank in ranks if rank == 1),
                    "avg_rank": sum(ranks) / len(ranks) if ranks else None,
                    "avg_score": sum(scores) / len(scores) if scores else None,
                    "pairwise": {"wins": total.wins, "draws": total.draws, "losses": total.losses},
                    "score": total.score,
                    "elo": elo[bot],
                    "faults": sum(1 for r in mine if r.faults[r.order.index(bot)]),
                }
            )
        rows.sort(key=lambda row: (-row["elo"], row["bot"]))
        return rows

    def to_json(self) -> dict[str, Any]:
        pairwise = self.pairwise()
        return {
            "game": self.game,
            "players": self.players,
            "games_per_table": self.games_per_table,
            "games": len(self.records),
            "standings": self.standings(),
            "pairwise": {
                a: {b: str(pairwise[i][j]) for j, b in enumerate(self.labels) if i != j}
                for i, a in enumerate(self.labels)
            },
            "records": [
                {"seats": [self.labels[b] for b in r.order], "seed": r.seed, "ranks": r.ranks, "faults": r.faults}
                for r in self.records
            ],
        }


def bradley_terry(pairwise: Sequence[Sequence[Tally]], iterations: int = 2000) -> list[float]:
    """Elo ratings (mean 0) that best explain the pairwise results (Hunter's MM algorithm for Bradley-Terry).

    Each pair that met gets one extra drawn game, so that a bot that won every game still has a finite rating."""
    n = len(pairwise)
    wins = [[0.0] * n for _ in range(n)]
    games = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and pairwise[i][j].games:
                t = pairwise[i][j]
                wins[i][j] = t.wins + t.draws / 2 + 0.5
                games[i][j] = t.games + 1
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            won = sum(wins[i])
            denominator = sum(games[i][j] / (strength[i] + strength[j]) for j in range(n) if games[i][j])
            new.append(won / denominator if denominator else strength[i])
        mean_log = sum(math.log(s) for s in new) / n
        new = [s / math.exp(mean_log) for s in new]
        done = max(abs(a - b) for a, b in zip(new, strength, strict=True)) < 1e-10
        strength = new
        if done:
            break
    return [400 * math.log10(s) for s in strength]


def arena_tasks(bots: int, players: int, games: int, seed: int) -> list[_Task]:
    """Every table of ``players`` distinct bots plays ``games`` games, the seating rotated one place per game;
    rotations of one table share a deal (``seed + game // players``), and every table plays the same deals."""
    tasks = []
    for table in itertools.combinations(range(bots), players):
        for game in range(games):
            shift = game % players
            tasks.append(_Task(order=table[shift:] + table[:shift], seed=seed + game // players))
    return tasks


def run_arena(
    game_id: str,
    bots: list[BotSeat],
    *,
    players: int,
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
    jobs: int = 1,
    on_game: Callable[[int, int, GameRecord], None] | None = None,
) -> ArenaResult:
    result = ArenaResult(game_id, [seat.label for seat in bots], players, games)
    tasks = arena_tasks(len(bots), players, games, seed)
    player = _Player(game_id, bots, dict(options or {}), sandbox, limits or Limits.for_game(game_id), jobs)
    for number, record in enumerate(player.play(tasks), start=1):
        result.records.append(record)
        if on_game:
            on_game(number, len(tasks), record)
    return result


def format_arena(result: ArenaResult) -> str:
    game = get_game(result.game)
    labels = result.labels
    width = max(12, *(len(label) for label in labels))
    lines = [
        f"{game.title}: round robin of {len(labels)} bots, {result.players}-player tables, "
        f"{result.games_per_table} games per table, {len(result.records)} games",
        "",
        f"  #  {'bot':<{width}}  games  wins  avg rank  avg score  pairwise +W =D -L   score     Elo  faults",
    ]
    for place, row in enumerate(result.standings(), start=1):
        p = row["pairwise"]
        record = f"+{p['wins']} ={p['draws']} -{p['losses']}"
        score = f"{row['score'] * 100:5.1f}%" if row["score"] is not None else "    -"
        avg_rank = f"{row['avg_rank']:.2f}" if row["avg_rank"] is not None else "-"
        avg_score = f"{row['avg_score']:.2f}" if row["avg_score"] is not None else "-"
        lines.append(
            f"{place:3d}  {row['bot']:<{width}}  {row['games']:5d}  {row['wins']:4d}  {avg_rank:>8}  {avg_score:>9}"
            f"  {record:>18}  {score}  {row['elo']:+6.0f}  {row['faults']:6d}"
        )
    pairwise = result.pairwise()
    lines += ["", "Pairwise score of each row against each column (better rank wins, equal ranks draw):"]
    short = [str(i + 1) for i in range(len(labels))]
    lines.append(f"  {'':<{width + 4}}" + "".join(f"{name:>14}" for name in short))
    for i, label in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            tally = pairwise[i][j]
            share = tally.score  # None before the first game
            if i == j or share is None:
                cells.append(f"{'-':>14}")
            else:
                cells.append(f"{share * 100:5.1f}% {tally.wins}-{tally.draws}-{tally.losses}".rjust(14))
        lines.append(f"  {short[i]:>2}. {label:<{width}}" + "".join(cells))
    faults = [(r, seat) for r in result.records for seat, fault in enumerate(r.faults) if fault]
    if faults:
        lines += ["", "Faults:"]
        for faulted, seat in faults[:20]:
            lines.append(f"  seed {faulted.seed}, seat {seat} ({labels[faulted.order[seat]]}): {faulted.faults[seat]}")
        if len(faults) > 20:
            lines.append(f"  … and {len(faults) - 20} more")
    return "\n".join(lines)


# ----- compare: the sequential test ---------------------------------------------------------------------------------

A, B = 0, 1  # bot indices in compare: A (the baseline), B (the candidate); the field bots follow


def compare_tasks(players: int, seed: int) -> Iterator[_Task]:
    """Pairs of games on one deal with A and B swapped; each pair rotates the table one more place."""
    for pair in itertools.count():
        base = list(range(players))  # A, B, then the field bots 2, 3, ...
        shift = pair % players
        order = tuple(base[shift:] + base[:shift])
        swapped = tuple(B if bot == A else A if bot == B else bot for bot in order)
        yield _Task(order=order, seed=seed + pair)
        yield _Task(order=swapped, seed=seed + pair)


@dataclass
class CompareResult:
    game: str
    a: str
    b: str
    sprt: SPRT
    max_games: int
    tally: Tally = field(default_factory=Tally)  # B's results against A
    verdict: str | None = None
    faults: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    records: list[GameRecord] = field(default_factory=list)

    @property
    def llr(self) -> float:
        return self.sprt.llr(self.tally.wins, self.tally.draws, self.tally.losses)

    @property
    def estimate(self) -> Estimate | None:
        return elo_estimate(self.tally.wins, self.tally.draws, self.tally.losses)

    @property
    def conclusion(self) -> str:
        return self.sprt.describe(self.verdict, self.tally.games, self.max_games)

    def to_json(self) -> dict[str, Any]:
        estimate = self.estimate
        return {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "sprt": {"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha, "beta": self.sprt.beta},
            "bounds": [self.sprt.lower, self.sprt.upper],
            "games": self.tally.games,
            "b_wins": self.tally.wins,
            "draws": self.tally.draws,
            "b_losses": self.tally.losses,
            "llr": self.llr,
            "elo": None if estimate is None else {"elo": estimate.elo, "low": estimate.low, "high": estimate.high},
            "verdict": self.verdict,
            "conclusion": self.conclusion,
            "faults": self.faults,
        }


def run_compare(
    game_id: str,
    a: BotSeat,
    b: BotSeat,
    *,
    field_seats: Sequence[BotSeat] = (),
    players: int = 2,
    sprt: SPRT | None = None,
    max_games: int = 2000,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    sandbox: str = "bwrap",
    limits: Limits | None = None,
    jobs: int = 1,
    on_game: Callable[[CompareResult], None] | None = None,
) -> CompareResult:
    """Play A against B until the SPRT decides or ``max_games`` games have been played."""
    sprt = sprt or SPRT()
    if len(field_seats) < players - 2:
        raise ValueError(f"{players} players need {players - 2} field seats besides A and B")
    bots = [a, b, *field_seats[: players - 2]]
    result = CompareResult(game_id, a.label, b.label, sprt, max_games)
    player = _Player(game_id, bots, dict(options or {}), sandbox, limits or Limits.for_game(game_id), jobs)
    games = player.play(itertools.islice(compare_tasks(players, seed), max_games))
    try:
        for record in games:
            result.records.append(record)
            result.tally.add_ranks(record.rank_of(B), record.rank_of(A))
            for name, bot in (("A", A), ("B", B)):
                if record.faults[record.order.index(bot)]:
                    result.faults[name] += 1
            result.verdict = sprt.verdict(result.tally.wins, result.tally.draws, result.tally.losses)
            if on_game:
                on_game(result)
            if result.verdict is not None:
                break
    finally:
        games.close()
    return result


def progress_line(result: CompareResult) -> str:
    estimate = result.estimate
    elo = f"{estimate.elo:+7.1f} [{estimate.low:+.0f}, {estimate.high:+.0f}]" if estimate else "-"
    score = f"{result.tally.score * 100:5.1f}%" if result.tally.score is not None else "-"
    record = f"+{result.tally.wins} ={result.tally.draws} -{result.tally.losses}"
    return f"{result.tally.games:7d}  {record:>16}  {score:>6}  {elo:>24}  {result.llr:+7.3f}"


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
