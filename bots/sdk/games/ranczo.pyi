"""Types of Ranczo Party's observation and actions, generated from its declaration by
``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.

In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).
"""

from typing import Literal, TypedDict

# The last action was a bury (the card stays hidden).
class Buried(TypedDict):
    seat: int
    action: Literal["bury"]

# Put a card at the bottom of the deck; legal only when no play is.
class Bury(TypedDict):
    # The card's id.
    bury: int

# A card: its id (0-48), its value (the animal, 1-7, which is also its column) and whether it shows a balloon.
class Card(TypedDict):
    id: int
    value: int
    balloon: bool

# A card on the grid, at its row; its column is its value.
class Cell(TypedDict):
    row: int
    value: int
    balloon: bool
    id: int

# Place a card from your hand (its value fixes the column) in a row.
class Play(TypedDict):
    # The card's id.
    play: int
    # The row (0 is the first card's row, negative rows are above it).
    row: int

# The last action was a play.
class Played(TypedDict):
    seat: int
    action: Literal["play"]
    card: Card
    row: int
    # Tokens it gained.
    tokens: int

# The grid and every count are public; the other hands and the deck's order are hidden.
class Observation(TypedDict):
    # Your seat (0-based).
    seat: int
    # Number of players, 2 to 4.
    players: int
    # Your cards, sorted by id.
    hand: list[Card]
    # Every card on the grid, sorted by row then value. The column is the value.
    grid: list[Cell]
    # `[top, bottom]`: the top and bottom row indices in use (row 0 is the first card's row). `bottom - top + 1` rows
    # exist; at most 7.
    rows: tuple[int, int]
    # Cards left in the deck.
    deck_size: int
    # Cards in each seat's hand (the seat to move has already drawn).
    hand_sizes: list[int]
    # Each seat's tokens over the whole match (all rounds so far).
    tokens: list[int]
    # Each seat's tokens in the current round.
    round_tokens: list[int]
    # The round being played (from 1).
    round: int
    # The number of rounds in the match.
    rounds: int
    # Tokens per seat of every finished round, in order (`[]` during round 1).
    round_results: list[list[int]]
    # The seat to act now (you, in an `act` message); `null` once the match is over.
    to_move: int | None
    # Seats that take no more turns this round (one card left with the deck empty).
    out: list[bool]
    # Consecutive buries since the last play; the round ends when it reaches the number of seats not `out`.
    buries_in_a_row: int
    # The last action; `null` at the start of a round.
    last: Played | Buried | None
    # The match is over.
    over: bool

Action = Play | Bury
