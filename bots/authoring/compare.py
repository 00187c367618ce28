"""``python -m bots compare``: is B stronger than A? Pairs of games on one deal with A and B swapped, until a
sequential probability ratio test (``bots.authoring.sprt``) decides.

In games of three or more players the other seats are filled with field bots, and each game counts the one pairwise
result between A's and B's seats. No Django here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.authoring.local_games import GameRecord, Player, Task
from bots.authoring.sprt import SPRT, Estimate, Tally, elo_estimate
from bots.runner import BotSeat
from bots.sandbox import Limits

A, B = 0, 1  # bot indices in compare: A (the baseline), B (the candidate); the field bots follow


def compare_tasks(players: int, seed: int) -> Iterator[Task]:
    """Pairs of games on one deal with A and B swapped; each pair rotates the table one more place."""
    for pair in itertools.count():
        base = list(range(players))  # A, B, then the field bots 2, 3, ...
        shift = pair % players
        order = tuple(base[shift:] + base[:shift])
        swapped = tuple(B if bot == A else A if bot == B else bot for bot in order)
        yield Task(order=order, seed=seed + pair)
        yield Task(order=swapped, seed=seed + pair)


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
    player = Player(game_id, bots, dict(options or {}), sandbox, limits or Limits.for_game(game_id), jobs)
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
