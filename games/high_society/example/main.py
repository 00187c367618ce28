"""A small High Society bot: the place to start your own.

It speaks the Parlour bot protocol: one JSON object per line on stdin, one answer per line on stdout.
Standard library only.

Its plan:
1. Gossip makes it discard a guest: it gives up the smallest one;
2. the poorest players are cast out at the end, so it keeps its money near the poorest rival's (hand + bid): at
   most 10 below while fewer than three red-ring cards are out (the rivals will spend too), above it after that;
3. for a guest or a prestige card it makes the smallest raise on offer while the total stays under what the card is
   worth to it (a guest: twice its value; a prestige card: 14);
4. on a scandal it raises only while its total bid is tiny, and otherwise passes: the first to pass takes the
   scandal but gets their own bid back.
"""

from __future__ import annotations

import json
import sys
from typing import Any

PRESTIGE_WORTH = 14
SCANDAL_WORTH = 4


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    if "discard" in legal[0]:
        return min(legal, key=lambda action: action["discard"])
    bids = [action for action in legal if "bid" in action]
    if not bids:
        return {"pass": True}
    seat = obs["seat"]
    already = sum(obs["bids"][seat])
    # "legal" lists the bids by the total they add, smallest first: the first is the smallest raise.
    cheapest = bids[0]
    total = already + sum(cheapest["bid"])

    # Money we would have left if this bid is paid, against the poorest rival's money (hand + bid).
    mine = sum(obs["money"]) + already
    poorest = min(sum(obs["money_of"][s]) + sum(obs["bids"][s]) for s in range(obs["players"]) if s != seat)
    dip = 10 if obs["red_revealed"] < 3 else 0
    if mine - total <= poorest - dip:
        return {"pass": True}

    card = obs["card"]
    if card["kind"] == "scandal":
        worth = SCANDAL_WORTH
    elif card["kind"] == "prestige":
        worth = PRESTIGE_WORTH
    else:
        worth = 2 * card["value"]
    return cheapest if total <= worth else {"pass": True}


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
