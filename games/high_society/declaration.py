"""What a High Society seat is sent (``Observation``) and may answer (``Action``): games/spec.py says how a game
declares them, and the rules' reference tables, the SDK's types and the reference pages are generated from here."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from games.spec import Bounds


class Guest(TypedDict):
    """A guest card: its value is its prestige points."""

    kind: Literal["guest"]
    value: Annotated[int, Bounds(1, 10)]


class Prestige(TypedDict):
    """A prestige card: doubles its owner's points (red ring)."""

    kind: Literal["prestige"]


class Scandal(TypedDict):
    """A scandal: Gossip (`discard`, its taker discards a guest), Faux pas (`minus5`) or Fraud (`halve`, red ring)."""

    kind: Literal["scandal"]
    effect: Literal["discard", "minus5", "halve"]


StatusCard = Guest | Prestige | Scandal


class Result(TypedDict):
    """The end of the game."""

    money_left: Annotated[list[int], "Per seat, the total of the money cards left in hand."]
    cast_out: Annotated[list[bool], "Per seat, whether they had the least money left and are cast out."]
    scores: Annotated[list[int | float], "Per seat, prestige points (halves appear as `.5`)."]


class Observation(TypedDict):
    """Everything is public but the order of the status deck."""

    seat: Annotated[int, "Your seat."]
    players: Annotated[int, "Number of players (3-5)."]
    money: Annotated[list[int], "Your money cards in hand, largest first."]
    money_of: Annotated[
        list[list[int]], "Every seat's money cards in hand (public: all start equal, every bid is open)."
    ]
    bids: Annotated[list[list[int]], "Per seat, the money cards in front of them in this auction (largest first)."]
    card: Annotated[
        StatusCard | None, "The status card on auction; `null` while a Gossip discard is awaited and at the end."
    ]
    won: Annotated[
        list[list[StatusCard]], "Per seat, the status cards they own, in the order won (a waiting Gossip included)."
    ]
    red_revealed: Annotated[int, "Red-ring cards revealed so far, the current card included (the game ends at 4)."]
    deck_left: Annotated[int, "Status cards still face down."]
    passed: Annotated[list[bool], "Per seat, whether they have passed in this auction."]
    pending_discard: Annotated[list[bool], "Per seat, whether a Gossip is waiting for their next guest."]
    phase: Annotated[
        Literal["bid", "discard", "over"],
        '`"bid"` (an auction), `"discard"` (a Gossip taker must discard) or `"over"`.',
    ]
    to_move: Annotated[int | None, "The seat that must act now."]
    auction: Annotated[int, "The number of the current auction (1-15)."]
    starter: Annotated[int, "The seat that revealed the current card."]
    highest_bid: Annotated[int, "The highest total in `bids` (0 before anyone bids)."]
    spent: Annotated[
        list[list[int]], "Per seat, the money cards spent for good; `money + bids + spent` is always all 11 cards."
    ]
    discarded: Annotated[list[StatusCard], "Status cards discarded by Gossip (the guest and the Gossip), in order."]
    ending_card: Annotated[StatusCard | None, "The fourth red-ring card, once revealed."]
    result: Annotated[Result | None, "`null` until the game is over."]


class Bid(TypedDict):
    """Add these money cards (values from your hand, in any order) to your bid, so that your total exceeds
    `highest_bid`."""

    bid: Annotated[list[int], "Money card values from your hand."]


# "pass" is a Python keyword, so this form is declared with the functional syntax.
Pass = TypedDict("Pass", {"pass": Annotated[Literal[True], "Always `true`."]})
Pass.__doc__ = "Pass: always legal during an auction."


class Discard(TypedDict):
    """After taking Gossip: the guest card to discard (one you own)."""

    discard: Annotated[int, "The value of a guest card you own."]


Action = Bid | Pass | Discard
