"""Playing many local games for ``arena`` and ``compare``: each one ``bots.runner.play_match``, in this process or
in forked worker processes, results back in the order the games were asked for.

No Django here.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from bots.runner import BotSeat, play_match
from bots.sandbox import Limits


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
class Task:
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


class Player:
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

    def _args(self, task: Task) -> tuple[Any, ...]:
        seats = [self.bots[index] for index in task.order]
        return (self.game_id, seats, task.seed, self.options, self.sandbox, self.limits)

    def _record(self, task: Task, data: dict[str, Any]) -> GameRecord:
        return GameRecord(
            order=task.order,
            seed=task.seed,
            ranks=tuple(data["ranks"]),
            scores=tuple(data["scores"]),
            faults=tuple(data["faults"]),
            wall_ms=data["wall_ms"],
        )

    def play(self, tasks: Iterable[Task]) -> Generator[GameRecord, None, None]:
        if self.jobs <= 1:
            for task in tasks:
                yield self._record(task, _play(*self._args(task)))
            return
        # Forked workers: each runs whole matches (the engine and built-in players are CPU-bound Python). Stopping
        # early (compare's verdict) cancels the games not started yet; the few in progress are waited for.
        pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"))
        pending: deque[tuple[Task, Any]] = deque()
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
