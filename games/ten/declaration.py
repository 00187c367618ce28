"""What a TEN seat is sent (``Observation``) and may answer (``Action``): games/spec.py says how a game declares them,
and the rules' reference tables, the SDK's types and the reference pages are generated from here."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from games.spec import FREE, Bounds

Colour = Literal["red", "blue", "green", "yellow"]


class NumberCard(TypedDict):
    """A number card."""

    id: int
    kind: Literal["number"]
    colour: Colour
    value: Annotated[int, Bounds(1, 9)]


class CurrencyCard(TypedDict):
    """A currency card: its pips count against the play area's total."""

    id: int
    kind: Literal["currency"]
    pips: Annotated[int, Bounds(1, 9)]


class WildCard(TypedDict):
    """A wild: a colour-wild has a colour and no value, a number-wild a value and no colour, the full wild neither."""

    id: int
    kind: Literal["wild"]
    colour: Colour | None
    value: Annotated[int, Bounds(1, 9)] | None


TenCard = NumberCard | CurrencyCard | WildCard


class DeckCounts(TypedDict):
    """What the deck still holds (never its order); keys of the inner objects are values or pips as strings."""

    number: Annotated[dict[str, int], "Number cards by value, all colours."]
    colour: Annotated[dict[str, dict[str, int]], "Number cards by colour, then by value."]
    currency: Annotated[dict[str, int], "Currency cards by pips."]
    wild: Annotated[int, "Wild cards."]


class Auction(TypedDict):
    """The auction of a wild card."""

    card: Annotated[TenCard, "The wild card on sale."]
    bids: Annotated[list[int | Literal["pass"] | None], 'Per seat: a bid, `"pass"`, or `null` (not yet asked).']
    high: Annotated[int | None, "The highest bid so far."]
    high_bidder: Annotated[int | None, "The seat that made it."]


class Observation(TypedDict):
    """Everything is public except the order of the deck, so every seat's observation is the same apart from
    `seat`."""

    seat: Annotated[int, "Your seat."]
    players: Annotated[int, "Number of players (2-5)."]
    phase: Annotated[
        Literal["flip", "auction", "pay", "buy", "final_buy", "over"],
        '`"flip"` (the active player flips or stops), `"auction"` (bid or pass for a wild), `"pay"` (the '
        'auction\'s winner pays), `"buy"` (the active player buys after taking the numbers), `"final_buy"` (the last '
        'purchases), `"over"`.',
    ]
    active: Annotated[int, "The seat whose turn it is."]
    to_move: Annotated[int | None, "The seat that must act now."]
    play_area: Annotated[list[TenCard], "The number and currency cards flipped this turn, in order."]
    total: Annotated[int, "The number cards' values minus the currency cards' pips in the play area (may be negative)."]
    pips: Annotated[int, "The currency cards' pips in the play area."]
    deck_left: Annotated[int, "Cards still in the deck."]
    deck_counts: Annotated[DeckCounts, "What the deck still holds (never its order)."]
    market: Annotated[list[TenCard], "Number cards for sale, by id."]
    collection: Annotated[list[list[TenCard]], "Per seat, the cards they own (numbers and wilds), by id."]
    coins: Annotated[list[int], "Per seat, black tokens."]
    fiasco: Annotated[list[int], "Per seat, fiasco tokens."]
    scores: Annotated[list[int], "Per seat, what the collection would score now."]
    auction: Annotated[Auction | None, "During `auction` and `pay`: the auction; otherwise `null`."]
    final_buyers: Annotated[list[int], "In `final_buy`, the seats still to buy, next first."]
    coin_cap: Annotated[int, "The black-token cap in force."]


class Payment(TypedDict):
    """A payment: black tokens, fiasco tokens and number cards of your own collection."""

    coins: Annotated[int, "Black tokens."]
    fiasco: Annotated[int, "Fiasco tokens."]
    cards: Annotated[
        list[Annotated[int, FREE]],
        "Ids of number cards of your collection; in `legal` each is `null`, to be filled in with a different card.",
    ]


class Flip(TypedDict):
    """Flip the next card (phase `flip`; not once the deck is empty)."""

    flip: Literal[True]


class Stop(TypedDict):
    """Take a reward (phase `flip`, after at least one flip this turn)."""

    stop: Literal["numbers", "coins"]


class Bid(TypedDict):
    """Bid in an auction."""

    bid: Annotated[int, "Your bid, above the highest so far."]


# "pass" is a Python keyword, so this form is declared with the functional syntax.
Pass = TypedDict("Pass", {"pass": Literal[True]})
Pass.__doc__ = "Pass in an auction."


class Pay(TypedDict):
    """Pay for the wild you won (phase `pay`)."""

    pay: Payment


class Buy(TypedDict):
    """Buy a market card (phases `buy` and `final_buy`)."""

    buy: Annotated[int, "The market card's id."]
    pay: Payment


class BuyNothing(TypedDict):
    """Buy nothing (phases `buy` and `final_buy`)."""

    buy: None


Action = Flip | Stop | Bid | Pass | Pay | Buy | BuyNothing
