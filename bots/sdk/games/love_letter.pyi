"""Types of Love Letter's observation and actions, generated from its declaration by
``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.

In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).
"""

from typing import NotRequired, TypedDict

# What the previous round revealed.
class LastRound(TypedDict):
    # Its number.
    round: int
    # Per seat, the card in hand at the end; `null` for a seat that was out.
    hands: list[int | None]
    # The burned card; `null` when a Prince's target took it.
    burned: int | None
    # The face-up set-aside cards (2 players).
    set_aside_up: list[int]
    # Each seat's discard pile at the end of the round.
    discards: list[list[int]]
    # `true` when the round ended because the deck ran out.
    showdown: bool
    # The seats that won the round (and a token).
    winners: list[int]

# One play of this round, as public information.
class Move(TypedDict):
    # The seat that played.
    seat: int
    # The card played.
    card: int
    # The seat it named, when the action had a target.
    target: NotRequired[int]
    # The Guard's guess, when it had one.
    guess: NotRequired[int]
    # The seats this play knocked out of the round.
    out: list[int]
    # `true` when a Prince's target took the burned card (the deck was empty).
    burned_taken: NotRequired[bool]

# Everything a seat may know: the public state of the match and round, its own hand and what it has seen.
class Observation(TypedDict):
    # Your seat (0-based).
    seat: int
    # Number of players, 2 to 4.
    players: int
    # The round being played, from 1.
    round: int
    # The seat that started this round.
    starter: int
    # The seat to act now (you, in an `act` message); `null` once the match is over.
    to_move: int | None
    # Your cards: two on your turn (`hand[-1]` was just drawn), otherwise one; empty if you are out.
    hand: list[int]
    # Each seat's discard pile this round, oldest first (played cards, Prince discards, the hand of a player knocked
    # out).
    discards: list[list[int]]
    # Tokens each seat holds.
    tokens: list[int]
    # Tokens needed to win the match: 7, 5 or 4 for 2, 3 or 4 players.
    target_tokens: int
    # Who is out of this round.
    out: list[bool]
    # Who is protected by a Handmaid now.
    protected: list[bool]
    # Cards left to draw.
    deck_size: int
    # The three face-up set-aside cards (2 players); `[]` with 3 or 4 players.
    set_aside_up: list[int]
    # Cards you have seen in other players' hands and that are still there, by seat (keys are seat numbers as
    # strings).
    known: dict[str, int]
    # The reverse: which other seats know a card in *your* hand, and which card.
    seen_by: dict[str, int]
    # This round's plays in order.
    moves: list[Move]
    # `null` in round 1; afterwards what the previous round revealed (after the last round: that round).
    last_round: LastRound | None

# The card you play, with its target and the Guard's guess when it takes them.
class Action(TypedDict):
    # The card you discard, by value.
    card: int
    # The seat it names; left out when no target is possible.
    target: NotRequired[int]
    # A Guard's guess, 2 (Priest) to 8 (Princess).
    guess: NotRequired[int]
