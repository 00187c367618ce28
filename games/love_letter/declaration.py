"""What a Love Letter seat is sent (``Observation``) and may answer (``Action``): games/spec.py says how a game
declares them, and the rules' reference tables, the SDK's types and the reference pages are generated from here."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from games.spec import Bounds

Card = Annotated[int, Bounds(1, 8)]  # a card is its value, 1 (Guard) to 8 (Princess)


class Move(TypedDict):
    """One play of this round, as public information."""

    seat: Annotated[int, "The seat that played."]
    card: Annotated[Card, "The card played."]
    target: NotRequired[Annotated[int, "The seat it named, when the action had a target."]]
    guess: NotRequired[Annotated[Card, "The Guard's guess, when it had one."]]
    out: Annotated[list[int], "The seats this play knocked out of the round."]
    burned_taken: NotRequired[
        Annotated[bool, "`true` when a Prince's target took the burned card (the deck was empty)."]
    ]


class LastRound(TypedDict):
    """What the previous round revealed."""

    round: Annotated[int, "Its number."]
    hands: Annotated[list[Card | None], "Per seat, the card in hand at the end; `null` for a seat that was out."]
    burned: Annotated[Card | None, "The burned card; `null` when a Prince's target took it."]
    set_aside_up: Annotated[list[Card], "The face-up set-aside cards (2 players)."]
    discards: Annotated[list[list[Card]], "Each seat's discard pile at the end of the round."]
    showdown: Annotated[bool, "`true` when the round ended because the deck ran out."]
    winners: Annotated[list[int], "The seats that won the round (and a token)."]


class Observation(TypedDict):
    """Everything a seat may know: the public state of the match and round, its own hand and what it has seen."""

    seat: Annotated[int, "Your seat (0-based)."]
    players: Annotated[int, "Number of players, 2 to 4."]
    round: Annotated[int, "The round being played, from 1."]
    starter: Annotated[int, "The seat that started this round."]
    to_move: Annotated[int | None, "The seat to act now (you, in an `act` message); `null` once the match is over."]
    hand: Annotated[
        list[Card],
        "Your cards: two on your turn (`hand[-1]` was just drawn), otherwise one; empty if you are out.",
    ]
    discards: Annotated[
        list[list[Card]],
        "Each seat's discard pile this round, oldest first (played cards, Prince discards, the hand of a player "
        "knocked out).",
    ]
    tokens: Annotated[list[int], "Tokens each seat holds."]
    target_tokens: Annotated[int, "Tokens needed to win the match: 7, 5 or 4 for 2, 3 or 4 players."]
    out: Annotated[list[bool], "Who is out of this round."]
    protected: Annotated[list[bool], "Who is protected by a Handmaid now."]
    deck_size: Annotated[int, "Cards left to draw."]
    set_aside_up: Annotated[list[Card], "The three face-up set-aside cards (2 players); `[]` with 3 or 4 players."]
    known: Annotated[
        dict[str, Card],
        "Cards you have seen in other players' hands and that are still there, by seat (keys are seat numbers as "
        "strings).",
    ]
    seen_by: Annotated[dict[str, Card], "The reverse: which other seats know a card in *your* hand, and which card."]
    moves: Annotated[list[Move], "This round's plays in order."]
    last_round: Annotated[
        LastRound | None,
        "`null` in round 1; afterwards what the previous round revealed (after the last round: that round).",
    ]


class Action(TypedDict):
    """The card you play, with its target and the Guard's guess when it takes them."""

    card: Annotated[int, "The card you discard, by value."]
    target: NotRequired[Annotated[int, "The seat it names; left out when no target is possible."]]
    guess: NotRequired[Annotated[int, "A Guard's guess, 2 (Priest) to 8 (Princess)."]]
