"""A complete High Card bot on the plain protocol (docs/protocol.md), standard library only.

It answers each ``start`` with ``ready`` and each ``act`` with an action, and keeps reading after ``end`` (the next
game of a series may follow on the same process). ``choose`` is the strategy: the starter kit's SDK version imports it.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Win the trick with the lowest card that can; otherwise throw the lowest card."""
    cards = sorted(action["card"] for action in legal)
    if not obs["trick"]:
        return {"card": cards[-1]}
    best = max(played["card"] for played in obs["trick"])
    winners = [card for card in cards if card > best]
    return {"card": winners[0] if winners else cards[0]}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "act":
            action = choose(message["obs"], message["legal"])
            print(json.dumps({"type": "action", "action": action}), flush=True)


if __name__ == "__main__":
    main()
