"""The tuning figures of games/barbarossa/RULES.md ("Tuning note"): games between built-in reasoners, and the
reasoner's win rate against three random players.

python -m games.barbarossa.tuning                       # 200 games with 4 and with 3 reasoners, 500 seeds vs random
python -m games.barbarossa.tuning --games 50 --seeds 0  # quicker; --seeds 0 skips the win rate
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from games.barbarossa.engine import LAST_ARROW, BarbarossaState
from games.registry import make_player
from games.simulate import play, win_rate


@dataclass
class Figures:
    """What games between reasoners came to: arrows placed, how they ended, how long they took."""

    players: int
    games: int = 0
    arrows: Counter[int] = field(default_factory=Counter)  # arrows on the board at the end -> games
    last_arrow: int = 0  # games ended by the 13th arrow
    finish: int = 0  # games ended by a hat reaching the end of the scoring track
    turns: list[int] = field(default_factory=list)

    @property
    def mean_arrows(self) -> float:
        return sum(a * n for a, n in self.arrows.items()) / self.games

    @property
    def mean_turns(self) -> float:
        return statistics.mean(self.turns)

    def summary(self) -> str:
        spread = ", ".join(f"{a}: {n}" for a, n in sorted(self.arrows.items()))
        return (
            f"{self.players} reasoners, {self.games} games: {self.mean_arrows:.2f} arrows on average "
            f"({spread}); {self.arrows[LAST_ARROW]} reached {LAST_ARROW} arrows; {self.last_arrow} ended by the "
            f"{LAST_ARROW}th arrow, {self.finish} by a hat reaching the end of the track; "
            f"{self.mean_turns:.1f} turns on average"
        )


def between_reasoners(players: int, seeds: range, player: str = "reasoner") -> Figures:
    """Play one game per seed between ``players`` built-in ``player``s (each seeded from the game's seed)."""
    figures = Figures(players)
    for seed in seeds:
        bots = [make_player("barbarossa", player, seed * 100 + seat) for seat in range(players)]
        state = play("barbarossa", bots, seed)
        assert isinstance(state, BarbarossaState)  # play() returns the game's own state class
        figures.games += 1
        figures.arrows[state.arrows_total] += 1
        figures.last_arrow += state.end_reason == "last_arrow"
        figures.finish += state.end_reason == "finish"
        figures.turns.append(state.turn)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per table size between reasoners")
    parser.add_argument("--seeds", type=int, default=500, help="seeds for the win rate against random (0: skip)")
    args = parser.parse_args()
    for players in (4, 3):
        started = time.process_time()
        figures = between_reasoners(players, range(args.games))
        print(f"{figures.summary()} [{time.process_time() - started:.0f} s CPU]")
    if args.seeds:
        rate, low, high = win_rate("barbarossa", "reasoner", ["random"] * 3, range(args.seeds))
        print(f"reasoner vs three random players, {args.seeds} seeds: {rate:.1%} (95% Wilson {low:.1%}-{high:.1%})")


if __name__ == "__main__":
    main()
