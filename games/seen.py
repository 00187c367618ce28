"""What one seat has been told in one game, and nothing else: the input of a game's sampler (``Game.sample``).

A bot that searches cannot look at the real state: the other hands, the deck order and the seed are hidden. It can
draw a state that agrees with everything its seat was told — the hidden cards re-dealt — and search that. ``Seen``
is the record of what the seat was told: the start message's public fields and every observation it received, in
order. The SDK keeps one per game for its bot (``parlour_sdk``'s ``Context.seen``); the built-in players keep their
own. A sampler reads this and a random generator, never a real state: that is what makes it unable to peek.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Seen:
    """One seat's knowledge of one game: who it is, the game's public set-up, and its observations so far."""

    game: str
    seat: int
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    start: dict[str, Any] = field(default_factory=dict)  # the start message's game fields (e.g. a lexicon)
    observations: list[dict[str, Any]] = field(default_factory=list)  # oldest first; the last is the current one
    # The legal actions the seat was last told (an ``act`` message's list): part of what it knows. A game whose list
    # carries something drawn in secret for this seat (Barbarossa's ready-made creation) gives it back from here.
    legal: list[dict[str, Any]] = field(default_factory=list)

    def record(self, observation: dict[str, Any], legal: list[dict[str, Any]] | None = None) -> None:
        """Keep an observation the seat has just been sent (in an ``act`` or ``end`` message) and, with an ``act``,
        its legal actions."""
        self.observations.append(observation)
        self.legal = list(legal) if legal is not None else []

    @property
    def current(self) -> dict[str, Any]:
        """The latest observation; a sample agrees with it exactly."""
        if not self.observations:
            raise ValueError("nothing seen yet: a sample needs at least one observation")
        return self.observations[-1]
