"""Built-in High Society players: ``random`` and ``heuristic`` (a careful bidder that is never the poorest)."""

from __future__ import annotations

from typing import Any

from games.base import Action, Player, RandomPlayer
from games.high_society.declaration import Observation, StatusCard


def _guest_values(cards: list[StatusCard]) -> list[int]:
    return [c["value"] for c in cards if c["kind"] == "guest"]


def _base_score(cards: list[StatusCard]) -> float:
    """The score before the x2 and x1/2 factors: guests minus 5 for a Faux pas."""
    effects = [c.get("effect") for c in cards]
    return sum(_guest_values(cards)) - 5 * effects.count("minus5")


def _multiplier(cards: list[StatusCard]) -> float:
    factor = 2.0 ** sum(1 for c in cards if c["kind"] == "prestige")
    if any(c.get("effect") == "halve" for c in cards):
        factor /= 2
    return factor


class HeuristicPlayer(Player[Observation]):
    """Values each card in points for itself and pays at most a few money cards per point, always by the smallest
    raise. The poorest players are cast out, so it keeps its money close to the poorest opponent's early on and above
    it from the third red-ring card. On a scandal it bids only while the bid costs less than taking the scandal
    would, so it passes early when the scandal is cheap for it.

    It relies on the documented order of ``legal``: pass first, then bids by the amount they add."""

    name = "heuristic"
    description = "values cards, bids the smallest raise it can afford, never risks being the poorest"

    # Money cards paid per point of score; rises as the game nears its end (money left over is worth nothing
    # beyond staying out of last place).
    BASE_RATE = 1.6
    RATE_PER_RED = 0.6
    # A prestige card is worth the points it doubles plus a guess at the guests still to come.
    PRESTIGE_FUTURE = 6.0
    # The share of the poorest opponent's money it may fall below them at the start; it shrinks to nothing by the
    # third red-ring card.
    DIP_SHARE = 0.25

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        if "discard" in legal[0]:
            # Gossip: give up the least valuable guest.
            return min(legal, key=lambda action: action["discard"])
        bids = [action for action in legal if "bid" in action]
        if not bids:
            return {"pass": True}
        seat = obs["seat"]
        mine = obs["won"][seat]
        already = sum(obs["bids"][seat])
        rate = self.BASE_RATE + self.RATE_PER_RED * obs["red_revealed"]
        budget = self._budget(obs)
        # The cheapest raise: the legal list is sorted by added total, then by fewer cards.
        cheapest = bids[0]
        new_total = already + sum(cheapest["bid"])
        if new_total > budget:
            return {"pass": True}
        card = obs["card"]
        assert card is not None, "bids are only legal while a card is on auction"
        if card["kind"] == "scandal":
            cost = self._scandal_cost(card["effect"], mine, obs)
            # Passing now takes the scandal but returns the whole bid; bidding on risks losing all of it.
            return cheapest if new_total < cost * rate else {"pass": True}
        value = self._value(card, mine, obs)
        return cheapest if new_total <= value * rate else {"pass": True}

    def _budget(self, obs: Observation) -> int:
        """The most this seat may have bid in total this auction.

        By the end it must keep more money than the poorest opponent has now (their money can only fall), so it is
        never cast out; earlier it may dip below them by a share of their money that shrinks with each red-ring
        card, since they will spend too (but a nearly broke opponent cannot spend much more)."""
        seat = obs["seat"]
        total: int = sum(obs["money"]) + sum(obs["bids"][seat])
        floor: int = min(
            sum(obs["money_of"][other]) + sum(obs["bids"][other]) for other in range(obs["players"]) if other != seat
        )
        dip = int(floor * self.DIP_SHARE * max(3 - obs["red_revealed"], 0) / 3)
        return total - floor - 1 + dip

    def _value(self, card: StatusCard, mine: list[StatusCard], obs: Observation) -> float:
        if card["kind"] == "guest":
            if obs["pending_discard"][obs["seat"]]:
                return 0.0  # the waiting Gossip would take it at once
            return float(card["value"] * max(_multiplier(mine), 1.0))
        # Prestige doubles everything: what we have now and what we may still win.
        return max(_base_score(mine), 0.0) * _multiplier(mine) + self.PRESTIGE_FUTURE

    def _scandal_cost(self, effect: str, mine: list[StatusCard], obs: Observation) -> float:
        multiplier = max(_multiplier(mine), 1.0)
        if effect == "minus5":
            return 5.0 * multiplier
        if effect == "halve":
            return max(_base_score(mine) * _multiplier(mine) + 4.0, 0.0) / 2
        guests = _guest_values(mine)
        return (min(guests) if guests else 3.0) * multiplier


PLAYERS: dict[str, type[Player[Any]]] = {"random": RandomPlayer, "heuristic": HeuristicPlayer}
