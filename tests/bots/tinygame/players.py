from __future__ import annotations

from typing import Any

from games.base import Player, RandomPlayer


class GreedyPlayer(Player):
    name = "greedy"

    def act(self, obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        return legal[-1]


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}
