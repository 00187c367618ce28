"""Built-in Ranczo Party players: ``random`` and a ``heuristic`` that plays like a careful person.

Both see only what a bot sees: the observation and the legal list (docs/design.md, The bot protocol).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.base import Action, Player, RandomPlayer
from games.ranczo.declaration import Observation

LINE = 7
MAX_ROWS = 7


def _p_holds(unseen: int, pool: int, cards: int) -> float:
    """Chance that ``cards`` cards drawn from a pool of ``pool`` include one of ``unseen`` given cards."""
    if unseen <= 0 or cards <= 0 or pool <= 0:
        return 0.0
    none = 1.0
    for k in range(min(cards, pool)):
        if pool - k <= 0:
            break
        none *= max(0, pool - unseen - k) / (pool - k)
    return 1.0 - none


class HeuristicPlayer(Player[Observation]):
    """Takes the play worth most tokens now, minus the tokens it is likely to hand the next players.

    After each candidate play it looks at every line (row or column) left one card short: such a line is a gift to
    whoever holds the missing value first. It estimates how likely the opponents, who play before its next turn,
    hold that value (from the copies it cannot see) and counts the line for itself when it holds that value too.
    When it must put a card under the deck it keeps the cards with most use."""

    name = "heuristic"
    description = "completes rows and columns and avoids leaving a line one card short for the next player"

    # How often an opponent holding the missing card is assumed to take a line: a careful player always would.
    TAKE = 1.0
    # A line the heuristic can finish on its next turn is worth a little less than tokens in hand.
    KEEP = 0.9

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        if "bury" in legal[0]:
            return self._bury(obs, legal)
        cards = {card["id"]: card for card in obs["hand"]}
        grid: dict[tuple[int, int], bool] = {(cell["row"], cell["value"]): cell["balloon"] for cell in obs["grid"]}
        mine = Counter(card["value"] for card in obs["hand"])
        on_grid = Counter(value for (_, value) in grid)
        # Pool of cards this player cannot see: the deck and the other hands.
        seat = obs["seat"]
        opponents = [
            s for s in ((seat + step) % obs["players"] for step in range(1, obs["players"])) if not obs["out"][s]
        ]
        pool = obs["deck_size"] + sum(obs["hand_sizes"][s] for s in opponents)
        deck = obs["deck_size"]
        best: tuple[float, ...] | None = None
        choice = legal[0]
        for action in legal:
            card = cards[action["play"]]
            value, row = card["value"], action["row"]
            grid[(row, value)] = card["balloon"]
            mine[value] -= 1
            on_grid[value] += 1
            score = self._gain(grid, row, value) + self._threats(grid, mine, on_grid, opponents, obs, pool, deck)
            score -= 0.05 * card["balloon"]
            key = (round(score, 9), mine[value], -value)
            if best is None or key > best:
                best, choice = key, action
            del grid[(row, value)]
            mine[value] += 1
            on_grid[value] -= 1
        return choice

    @staticmethod
    def _gain(grid: dict[tuple[int, int], bool], row: int, value: int) -> float:
        gain = 0
        cells = [grid[(row, v)] for v in range(1, 8) if (row, v) in grid]
        if len(cells) == LINE:
            gain += 1 + sum(cells)
        column = [balloon for (_, v), balloon in grid.items() if v == value]
        if len(column) == LINE:
            gain += 1 + sum(column)
        return gain

    def _threats(
        self,
        grid: dict[tuple[int, int], bool],
        mine: Counter[int],
        on_grid: Counter[int],
        opponents: list[int],
        obs: Observation,
        pool: int,
        deck: int,
    ) -> float:
        total = 0.0
        rows: dict[int, list[int]] = {}
        columns: dict[int, list[bool]] = {}
        for (row, value), balloon in grid.items():
            rows.setdefault(row, []).append(value)
            columns.setdefault(value, []).append(balloon)
        lines: list[tuple[int, float]] = []
        for row, values in rows.items():
            if len(values) == LINE - 1:
                missing = (set(range(1, 8)) - set(values)).pop()
                lines.append((missing, 1 + sum(grid[(row, v)] for v in values)))
        for value, balloons in columns.items():
            if len(balloons) == LINE - 1:
                lines.append((value, 1 + sum(balloons)))
        for missing, worth in lines:
            unseen = LINE - on_grid[missing] - mine[missing]
            p_none = 1.0
            for s in opponents:
                cards = obs["hand_sizes"][s] + (1 if deck > 0 else 0)
                p_none *= 1 - self.TAKE * _p_holds(unseen, pool, cards)
            p_opp = 1 - p_none
            total += worth * ((1 - p_opp) * (self.KEEP if mine[missing] > 0 else 0.0) - p_opp)
        return total

    def _bury(self, obs: Observation, legal: list[Action]) -> Action:
        # Keep balloon cards and singletons; give up a plain card of the value held most often.
        counts = Counter(card["value"] for card in obs["hand"])
        cards = {card["id"]: card for card in obs["hand"]}
        return max(
            legal, key=lambda a: (not cards[a["bury"]]["balloon"], counts[cards[a["bury"]]["value"]], -a["bury"])
        )


PLAYERS: dict[str, type[Player[Any]]] = {"random": RandomPlayer, "heuristic": HeuristicPlayer}
