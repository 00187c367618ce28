"""Types of High Society's observation and actions, generated from its declaration by
``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.

In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).
"""

from typing import Literal, TypedDict

# Add these money cards (values from your hand, in any order) to your bid, so that your total exceeds `highest_bid`.
class Bid(TypedDict):
    # Money card values from your hand.
    bid: list[int]

# After taking Gossip: the guest card to discard (one you own).
class Discard(TypedDict):
    # The value of a guest card you own.
    discard: int

# A guest card: its value is its prestige points.
class Guest(TypedDict):
    kind: Literal["guest"]
    value: int

# Pass: always legal during an auction.
Pass = TypedDict("Pass", {"pass": Literal[True]})

# A prestige card: doubles its owner's points (red ring).
class Prestige(TypedDict):
    kind: Literal["prestige"]

# The end of the game.
class Result(TypedDict):
    # Per seat, the total of the money cards left in hand.
    money_left: list[int]
    # Per seat, whether they had the least money left and are cast out.
    cast_out: list[bool]
    # Per seat, prestige points (halves appear as `.5`).
    scores: list[int | float]

# A scandal: Gossip (`discard`, its taker discards a guest), Faux pas (`minus5`) or Fraud (`halve`, red ring).
class Scandal(TypedDict):
    kind: Literal["scandal"]
    effect: Literal["discard", "minus5", "halve"]

# Everything is public but the order of the status deck.
class Observation(TypedDict):
    # Your seat.
    seat: int
    # Number of players (3-5).
    players: int
    # Your money cards in hand, largest first.
    money: list[int]
    # Every seat's money cards in hand (public: all start equal, every bid is open).
    money_of: list[list[int]]
    # Per seat, the money cards in front of them in this auction (largest first).
    bids: list[list[int]]
    # The status card on auction; `null` while a Gossip discard is awaited and at the end.
    card: Guest | Prestige | Scandal | None
    # Per seat, the status cards they own, in the order won (a waiting Gossip included).
    won: list[list[Guest | Prestige | Scandal]]
    # Red-ring cards revealed so far, the current card included (the game ends at 4).
    red_revealed: int
    # Status cards still face down.
    deck_left: int
    # Per seat, whether they have passed in this auction.
    passed: list[bool]
    # Per seat, whether a Gossip is waiting for their next guest.
    pending_discard: list[bool]
    # `"bid"` (an auction), `"discard"` (a Gossip taker must discard) or `"over"`.
    phase: Literal["bid", "discard", "over"]
    # The seat that must act now.
    to_move: int | None
    # The number of the current auction (1-15).
    auction: int
    # The seat that revealed the current card.
    starter: int
    # The highest total in `bids` (0 before anyone bids).
    highest_bid: int
    # Per seat, the money cards spent for good; `money + bids + spent` is always all 11 cards.
    spent: list[list[int]]
    # Status cards discarded by Gossip (the guest and the Gossip), in order.
    discarded: list[Guest | Prestige | Scandal]
    # The fourth red-ring card, once revealed.
    ending_card: Guest | Prestige | Scandal | None
    # `null` until the game is over.
    result: Result | None

Action = Bid | Pass | Discard
