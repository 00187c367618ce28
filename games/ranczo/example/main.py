"""A small Ranczo Party bot: the place to start your own.

It speaks the Parlour bot protocol: one JSON object per line on stdin, one answer per line on stdout.
Standard library only.

Its plan, for each legal play:
1. count the tokens it scores now (a completed row or column: 1 token + 1 per balloon card in it);
2. subtract the worth of every row or column the play leaves one card short (the next player may finish it),
   unless we hold the missing value ourselves;
3. play the best; when no play is legal (then every legal action is a bury), bury a card we hold most copies of.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any


def line_scores(grid: dict[tuple[int, int], bool], row: int, value: int) -> tuple[int, list[tuple[int, int]]]:
    """Tokens won by the card just put at (row, value), and every line left one card short: (missing value, worth)."""
    won = 0
    short = []
    rows: dict[int, dict[int, bool]] = {}
    columns: dict[int, list[bool]] = {}
    for (r, v), balloon in grid.items():
        rows.setdefault(r, {})[v] = balloon
        columns.setdefault(v, []).append(balloon)
    for r, cells in rows.items():
        if len(cells) == 7 and r == row:
            won += 1 + sum(cells.values())
        elif len(cells) == 6:
            missing = next(v for v in range(1, 8) if v not in cells)
            short.append((missing, 1 + sum(cells.values())))
    for v, balloons in columns.items():
        if len(balloons) == 7 and v == value:
            won += 1 + sum(balloons)
        elif len(balloons) == 6:
            short.append((v, 1 + sum(balloons)))
    return won, short


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    hand = {card["id"]: card for card in obs["hand"]}
    if "bury" in legal[0]:
        counts = Counter(card["value"] for card in obs["hand"])
        return max(legal, key=lambda a: counts[hand[a["bury"]]["value"]])
    grid = {(cell["row"], cell["value"]): cell["balloon"] for cell in obs["grid"]}
    best, best_score = legal[0], None
    for action in legal:
        card = hand[action["play"]]
        grid[(action["row"], card["value"])] = card["balloon"]
        left = Counter(c["value"] for c in obs["hand"] if c["id"] != card["id"])
        won, short = line_scores(grid, action["row"], card["value"])
        score = won - sum(worth for missing, worth in short if left[missing] == 0)
        del grid[(action["row"], card["value"])]
        if best_score is None or score > best_score:
            best, best_score = action, score
    return best


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message["type"] == "start":
            send({"type": "ready"})
        elif message["type"] == "act":
            send({"type": "action", "action": choose(message["obs"], message["legal"])})
        # "end": the game is over. Wait for the next line: the runner may start another game on this process (a
        # series), or close stdin, which ends the loop. Anything else is a type this bot does not know: ignore it.


if __name__ == "__main__":
    main()
