"""Built-in High Card players: ``random`` and ``greedy``. Every game has a ``random`` player and at least one
stronger one (docs/design.md, "Conformance")."""

from __future__ import annotations

from typing import Any

from games.base import Action, Player, RandomPlayer
from games.template.declaration import Observation


class GreedyPlayer(Player[Observation]):
    """Wins a trick as cheaply as it can, and throws its lowest card on a trick it cannot win."""

    name = "greedy"
    description = "wins each trick with its lowest winning card, else throws its lowest card"

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        cards = sorted(action["card"] for action in legal)
        if not obs["trick"]:
            return {"card": cards[-1]}  # leading: the highest card is the likeliest to hold
        best = max(played["card"] for played in obs["trick"])
        winners = [card for card in cards if card > best]
        return {"card": winners[0] if winners else cards[0]}


PLAYERS: dict[str, type[Player[Any]]] = {"random": RandomPlayer, "greedy": GreedyPlayer}
