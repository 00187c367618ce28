"""A small Love Letter bot: the place to start your own.

It speaks the Parlour bot protocol: one JSON object per line on stdin, one answer per line on stdout.
Standard library only. Run it locally against the built-in players with the league's runner, or just read it.

Its plan, in order of preference:
1. never discard the Princess (that knocks you out), not even with our own Prince;
2. if we have seen a rival's card, name it with a Guard (a sure knock-out);
3. otherwise name the likeliest unseen card with a Guard;
4. otherwise play a Handmaid to be safe, or else the lower of our two cards.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from typing import Any

# How many copies of each card value (1 Guard ... 8 Princess) are in the 16-card deck.
DECK = {1: 5, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1}
GUARD, HANDMAID, PRINCE, PRINCESS = 1, 4, 5, 8


def unseen_cards(obs: dict[str, Any]) -> Counter[int]:
    """Cards we have not seen anywhere: they are in the deck, the burned card, or our rivals' hands."""
    seen = Counter(obs["hand"]) + Counter(obs["set_aside_up"]) + Counter(obs["known"].values())
    for pile in obs["discards"]:
        seen.update(pile)
    return Counter({value: count - seen[value] for value, count in DECK.items() if count > seen[value]})


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    # 1. Keep the Princess: do not discard it, and do not make ourselves discard it with our own Prince.
    def loses_princess(action: dict[str, Any]) -> bool:
        self_prince = action["card"] == PRINCE and action.get("target") == obs["seat"]
        return action["card"] == PRINCESS or (self_prince and PRINCESS in obs["hand"])

    options = [a for a in legal if not loses_princess(a)] or legal

    # 2. A Guard naming a card we know a rival holds ("known" maps seat numbers, as strings, to card values).
    guards = [a for a in options if a["card"] == GUARD and "target" in a]
    for action in guards:
        if obs["known"].get(str(action["target"])) == action["guess"]:
            return action

    # 3. A Guard naming the most common card we have not seen (naming a Guard is not allowed anyway).
    if guards:
        unseen = unseen_cards(obs)
        return max(guards, key=lambda a: unseen[a["guess"]])

    # 4. Handmaid if we can, else the lowest card (keeping the higher one for the final showdown).
    for action in options:
        if action["card"] == HANDMAID:
            return action
    lowest = min(a["card"] for a in options)
    return random.choice([a for a in options if a["card"] == lowest])


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message["type"] == "start":
            random.seed(message["seat"])
            send({"type": "ready"})
        elif message["type"] == "act":
            send({"type": "action", "action": choose(message["obs"], message["legal"])})
        # "end": the game is over. Wait for the next line: the runner may start another game on this process (a
        # series), or close stdin, which ends the loop. Anything else is a type this bot does not know: ignore it.


if __name__ == "__main__":
    main()
