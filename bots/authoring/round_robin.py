"""The local round robin of ``python -m bots arena``: which tables play which games, the results table, and Elo
from the pairwise results (Bradley-Terry).

Seats rotate: every table plays its games with the seating rotated one place per game, and consecutive rotations
share a deal (the same seed), so no bot profits from a seat or a lucky deal. No Django here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.authoring.local_games import GameRecord, Player, Task
from bots.authoring.sprt import Tally
from bots.runner import BotSeat
from bots.sandbox import Limits
from games.registry import get_game


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


def arena_tasks(bots: int, players: int, games: int, seed: int) -> list[Task]:
    """Every table of ``players`` distinct bots plays ``games`` games, the seating rotated one place per game;
    rotations of one table share a deal (``seed + game // players``), and every table plays the same deals."""
    tasks = []
    for table in itertools.combinations(range(bots), players):
        for game in range(games):
            shift = game % players
            tasks.append(Task(order=table[shift:] + table[:shift], seed=seed + game // players))
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
    player = Player(game_id, bots, dict(options or {}), sandbox, limits or Limits.for_game(game_id), jobs)
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
