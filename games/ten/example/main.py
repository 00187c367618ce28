"""A minimal TEN bot: standard library only, one JSON object per line over stdin/stdout (games/ten/RULES.md).

It flips while the chance that the next card busts is below 30%, takes the numbers when there are any, bids 1 or 2
for a wild, pays with tokens before cards, and buys a market card that sits next to one of its own in a colour.
"""

from __future__ import annotations

import json
import sys
from typing import Any

RISK = 0.3


def bust_risk(obs: dict[str, Any]) -> float:
    """The chance that the next card busts, from what the deck still holds."""
    counts, left = obs["deck_counts"], obs["deck_left"]
    if not left:
        return 1.0
    busting = sum(n for value, n in counts["number"].items() if obs["total"] + int(value) > 10)
    busting += sum(n for pips, n in counts["currency"].items() if obs["pips"] + int(pips) > 10)
    return float(busting / left)


def fill(action: dict[str, Any], obs: dict[str, Any]) -> dict[str, Any]:
    """Replace a payment template's null card ids with number cards from our own collection."""
    pay = action.get("pay")
    if not pay or None not in pay["cards"]:
        return action
    mine = [card["id"] for card in obs["collection"][obs["seat"]] if card["kind"] == "number"]
    return {**action, "pay": {**pay, "cards": mine[: len(pay["cards"])]}}


def cheapest(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The payment that gives away the fewest cards, then the fewest fiasco tokens."""
    return min(actions, key=lambda a: (len(a["pay"]["cards"]), a["pay"]["fiasco"]))


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    phase = obs["phase"]
    if phase == "flip":
        if {"flip": True} in legal and (len(legal) == 1 or bust_risk(obs) < RISK):
            return {"flip": True}
        has_numbers = any(card["kind"] == "number" for card in obs["play_area"])
        return {"stop": "numbers" if has_numbers else "coins"}
    if phase == "auction":
        bids = [a for a in legal if "bid" in a]
        return bids[0] if bids and bids[0]["bid"] <= 2 else {"pass": True}
    if phase == "pay":
        return fill(cheapest(legal), obs)
    # buy / final_buy: a card next to one we own in the same colour, paid with the fewest cards
    mine = {(c["colour"], c["value"]) for c in obs["collection"][obs["seat"]] if c["kind"] == "number"}
    market = {card["id"]: card for card in obs["market"]}
    wanted = []
    for action in legal:
        card = market.get(action["buy"]) if action["buy"] is not None else None
        if card is None or (card["colour"], card["value"]) in mine or action["pay"]["cards"]:
            continue
        if (card["colour"], card["value"] - 1) in mine or (card["colour"], card["value"] + 1) in mine:
            wanted.append(action)
    if wanted:
        return fill(cheapest(wanted), obs)
    return {"buy": None}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message["type"] == "start":
            reply: dict[str, Any] = {"type": "ready"}
        elif message["type"] == "act":
            reply = {"type": "action", "action": choose(message["obs"], message["legal"])}
        else:  # "end": wait for the next line (another game's start on this process) or the end of stdin
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
