"""Types of TEN's observation and actions, generated from its declaration by
``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.

In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).
"""

from typing import Literal, TypedDict

# The auction of a wild card.
class Auction(TypedDict):
    # The wild card on sale.
    card: NumberCard | CurrencyCard | WildCard
    # Per seat: a bid, `"pass"`, or `null` (not yet asked).
    bids: list[int | Literal["pass"] | None]
    # The highest bid so far.
    high: int | None
    # The seat that made it.
    high_bidder: int | None

# Bid in an auction.
class Bid(TypedDict):
    # Your bid, above the highest so far.
    bid: int

# Buy a market card (phases `buy` and `final_buy`).
class Buy(TypedDict):
    # The market card's id.
    buy: int
    pay: Payment

# Buy nothing (phases `buy` and `final_buy`).
class BuyNothing(TypedDict):
    buy: None

# A currency card: its pips count against the play area's total.
class CurrencyCard(TypedDict):
    id: int
    kind: Literal["currency"]
    pips: int

# What the deck still holds (never its order); keys of the inner objects are values or pips as strings.
class DeckCounts(TypedDict):
    # Number cards by value, all colours.
    number: dict[str, int]
    # Number cards by colour, then by value.
    colour: dict[str, dict[str, int]]
    # Currency cards by pips.
    currency: dict[str, int]
    # Wild cards.
    wild: int

# Flip the next card (phase `flip`; not once the deck is empty).
class Flip(TypedDict):
    flip: Literal[True]

# A number card.
class NumberCard(TypedDict):
    id: int
    kind: Literal["number"]
    colour: Literal["red", "blue", "green", "yellow"]
    value: int

# Pass in an auction.
Pass = TypedDict("Pass", {"pass": Literal[True]})

# Pay for the wild you won (phase `pay`).
class Pay(TypedDict):
    pay: Payment

# A payment: black tokens, fiasco tokens and number cards of your own collection.
class Payment(TypedDict):
    # Black tokens.
    coins: int
    # Fiasco tokens.
    fiasco: int
    # Ids of number cards of your collection; in `legal` each is `null`, to be filled in with a different card.
    cards: list[int]

# Take a reward (phase `flip`, after at least one flip this turn).
class Stop(TypedDict):
    stop: Literal["numbers", "coins"]

# A wild: a colour-wild has a colour and no value, a number-wild a value and no colour, the full wild neither.
class WildCard(TypedDict):
    id: int
    kind: Literal["wild"]
    colour: Literal["red", "blue", "green", "yellow"] | None
    value: int | None

# Everything is public except the order of the deck, so every seat's observation is the same apart from `seat`.
class Observation(TypedDict):
    # Your seat.
    seat: int
    # Number of players (2-5).
    players: int
    # `"flip"` (the active player flips or stops), `"auction"` (bid or pass for a wild), `"pay"` (the auction's winner
    # pays), `"buy"` (the active player buys after taking the numbers), `"final_buy"` (the last purchases), `"over"`.
    phase: Literal["flip", "auction", "pay", "buy", "final_buy", "over"]
    # The seat whose turn it is.
    active: int
    # The seat that must act now.
    to_move: int | None
    # The number and currency cards flipped this turn, in order.
    play_area: list[NumberCard | CurrencyCard | WildCard]
    # The number cards' values minus the currency cards' pips in the play area (may be negative).
    total: int
    # The currency cards' pips in the play area.
    pips: int
    # Cards still in the deck.
    deck_left: int
    # What the deck still holds (never its order).
    deck_counts: DeckCounts
    # Number cards for sale, by id.
    market: list[NumberCard | CurrencyCard | WildCard]
    # Per seat, the cards they own (numbers and wilds), by id.
    collection: list[list[NumberCard | CurrencyCard | WildCard]]
    # Per seat, black tokens.
    coins: list[int]
    # Per seat, fiasco tokens.
    fiasco: list[int]
    # Per seat, what the collection would score now.
    scores: list[int]
    # During `auction` and `pay`: the auction; otherwise `null`.
    auction: Auction | None
    # In `final_buy`, the seats still to buy, next first.
    final_buyers: list[int]
    # The black-token cap in force.
    coin_cap: int

Action = Flip | Stop | Bid | Pass | Pay | Buy | BuyNothing
