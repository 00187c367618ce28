"""What a Ranczo seat is sent (``Observation``) and may answer (``Action``): games/spec.py says how a game declares
them, and the rules' reference tables, the SDK's types and the reference pages are generated from here."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from games.spec import Bounds


class Card(TypedDict):
    """A card: its id (0-48), its value (the animal, 1-7, which is also its column) and whether it shows a balloon."""

    id: Annotated[int, Bounds(0, 48)]
    value: Annotated[int, Bounds(1, 7)]
    balloon: bool


class Cell(TypedDict):
    """A card on the grid, at its row; its column is its value."""

    row: int
    value: Annotated[int, Bounds(1, 7)]
    balloon: bool
    id: Annotated[int, Bounds(0, 48)]


class Played(TypedDict):
    """The last action was a play."""

    seat: int
    action: Literal["play"]
    card: Card
    row: int
    tokens: Annotated[int, "Tokens it gained."]


class Buried(TypedDict):
    """The last action was a bury (the card stays hidden)."""

    seat: int
    action: Literal["bury"]


class Observation(TypedDict):
    """The grid and every count are public; the other hands and the deck's order are hidden."""

    seat: Annotated[int, "Your seat (0-based)."]
    players: Annotated[int, "Number of players, 2 to 4."]
    hand: Annotated[list[Card], "Your cards, sorted by id."]
    grid: Annotated[list[Cell], "Every card on the grid, sorted by row then value. The column is the value."]
    rows: Annotated[
        tuple[int, int],
        "`[top, bottom]`: the top and bottom row indices in use (row 0 is the first card's row). `bottom - top + 1` "
        "rows exist; at most 7.",
    ]
    deck_size: Annotated[int, "Cards left in the deck."]
    hand_sizes: Annotated[list[int], "Cards in each seat's hand (the seat to move has already drawn)."]
    tokens: Annotated[list[int], "Each seat's tokens over the whole match (all rounds so far)."]
    round_tokens: Annotated[list[int], "Each seat's tokens in the current round."]
    round: Annotated[int, "The round being played (from 1)."]
    rounds: Annotated[int, "The number of rounds in the match."]
    round_results: Annotated[
        list[list[int]], "Tokens per seat of every finished round, in order (`[]` during round 1)."
    ]
    to_move: Annotated[int | None, "The seat to act now (you, in an `act` message); `null` once the match is over."]
    out: Annotated[list[bool], "Seats that take no more turns this round (one card left with the deck empty)."]
    buries_in_a_row: Annotated[
        int, "Consecutive buries since the last play; the round ends when it reaches the number of seats not `out`."
    ]
    last: Annotated[Played | Buried | None, "The last action; `null` at the start of a round."]
    over: Annotated[bool, "The match is over."]


class Play(TypedDict):
    """Place a card from your hand (its value fixes the column) in a row."""

    play: Annotated[int, "The card's id."]
    row: Annotated[int, "The row (0 is the first card's row, negative rows are above it)."]


class Bury(TypedDict):
    """Put a card at the bottom of the deck; legal only when no play is."""

    bury: Annotated[int, "The card's id."]


Action = Play | Bury
