"""What a game declares about itself (docs/design.md, "Declared games").

A game's ``GameSpec`` says who plays it, what a seat cannot see, where chance comes in, what a score counts and
which options it takes, and names two types from the game's ``declaration.py``: the **observation** a seat is sent
and the **action** it may answer (a ``TypedDict``, or a union of them, one per form of action). The types are
ordinary ``TypedDict`` classes whose fields carry their documentation in ``Annotated``:

    class Observation(TypedDict):
        seat: Annotated[int, "Your seat (0-based)."]
        hand: Annotated[list[int], "Your cards.", Bounds(1, 8)]

``games.schema`` turns them into JSON Schema, and the schema drives the rest: the runner checks the shape of a bot's
reply with it before the engine checks the rules, the conformance suite checks every observation and legal action
against it, and the SDK's type stubs, the rules' reference tables, the reference pages and the starter kit are
generated from it. Nothing here imports more than the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["FREE", "Bounds", "Free", "GameSpec", "Utility"]

# OpenSpiel's words for how the seats' results relate (a game's ``utility``): every Parlour game so far is
# general-sum (scores are points, tokens or track positions, ranked), and the league rates by ranks alone.
Utility = Literal["general_sum", "zero_sum", "constant_sum"]


@dataclass(frozen=True)
class Bounds:
    """The least and greatest value a number may take (``Annotated`` metadata; either may be ``None``)."""

    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class Free:
    """Marks a field that ``legal_actions`` may list as ``null``: a template the bot fills in (docs/design.md: "where
    the actions are too many to list")."""


FREE = Free()


@dataclass(frozen=True)
class GameSpec:
    """Fixed facts about a game. ``version`` changes whenever the same seed and actions could give other states."""

    id: str
    title: str
    min_players: int
    max_players: int
    version: str
    # The type of ``State.observation(seat)`` (a TypedDict from the game's declaration.py).
    observation: type
    # The type of an action a bot may send: a TypedDict, or a union of them (``A | B``), one per form of action.
    action: object
    # What a seat's observation hides from it, in words; "" for a game of perfect information.
    hidden: str
    # Where chance comes in (shuffles, dice), in words; "" for a deterministic game.
    chance: str
    # What a seat's score counts; the outcome ranks the seats by it (docs/design.md, "The game-engine interface":
    # `is_over()`, `outcome()`).
    score: str
    utility: Utility = "general_sum"
    summary: str = ""
    # The options the game accepts, each a JSON Schema (with its "description" and "default"), by name. Published by
    # the API; games.schema wraps them in one object schema.
    options_schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_hidden_information(self) -> bool:
        return bool(self.hidden)

    @property
    def has_chance(self) -> bool:
        return bool(self.chance)
