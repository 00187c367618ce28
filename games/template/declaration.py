"""What a High Card seat is sent (``Observation``) and may answer (``Action``).

games/spec.py says how a game declares them. Every field carries its meaning in ``Annotated``: the rules' reference
tables (RULES.md), the SDK's types (bots/sdk/games/), the reference pages and the starter kit are generated from
here, the runner checks each bot's reply against ``Action`` before the engine sees it, and the conformance suite
checks every observation the engine sends against ``Observation``.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from games.spec import Bounds

Card = Annotated[int, Bounds(1, 16)]  # a card is its value


class Played(TypedDict):
    """A card played to a trick."""

    seat: Annotated[int, "Who played it."]
    card: Annotated[Card, "The card."]


class Trick(TypedDict):
    """A finished trick."""

    cards: Annotated[list[Played], "The cards in the order they were played, the leader's first."]
    winner: Annotated[int, "The seat that won it (the highest card; the first played among equals)."]


class Observation(TypedDict):
    """Your hand and everything played; the other hands and the undealt cards are hidden."""

    seat: Annotated[int, "Your seat (0-based)."]
    players: Annotated[int, "Number of players, 2 to 4."]
    hand: Annotated[list[Card], "Your cards, lowest first."]
    hand_sizes: Annotated[list[int], "Cards in each seat's hand."]
    stock: Annotated[int, "Cards nobody was dealt (16, 8 or 0 for 2, 3 or 4 players); never seen."]
    trick: Annotated[list[Played], "The trick being played, the leader's card first; `[]` before the lead."]
    leader: Annotated[int, "The seat that leads (or led) the current trick."]
    tricks: Annotated[list[int], "Tricks won by each seat."]
    past: Annotated[list[Trick], "Every finished trick, in order."]
    to_move: Annotated[int | None, "The seat to act now (you, in an `act` message); `null` once the game is over."]


class Action(TypedDict):
    """Play a card from your hand."""

    card: Annotated[int, "The card's value."]
