"""High Society's sampler of the unseen (``Game.sample``, docs/search.md "High Society").

Everything in High Society is public but the order of the status deck, and that order is hidden from every seat
alike. The current observation already holds all the public record a seat could piece together from its earlier
ones (hands, bids, money spent, cards won and discarded, the card on auction), so a sample is that observation
read back into a state, with the cards not yet revealed shuffled into a new deck.

Uniformity is exact: every card not in sight (won, discarded or on auction) is still in the deck, and every order
of those cards is consistent with what any seat was told — the deal shuffles all 16 cards uniformly, and nothing a
seat sees depends on the order of the cards not yet revealed. (The game is not over at a decision, so at least one
red-ring card is still in the deck, in every order.) With the ``deck`` option the whole order was public from the
start: the sample's deck is then the option's unrevealed tail, with no draw at all.

The sample's ``history`` is empty: a seat sees the table only at its own decisions, so the actions in between (who
bid what, in which steps) cannot be told apart. Its ``rng`` and ``seed`` are fresh, drawn from the sampler's rng
(the engine draws nothing after the deal, so only the deck order hides anything).
"""

from __future__ import annotations

import random
from typing import Any

from games.high_society.engine import (
    STATUS_DECK,
    Card,
    HighSocietyGame,
    HighSocietyState,
    card_from_json,
)
from games.seen import Seen


def unrevealed(observation: dict[str, Any]) -> list[Card]:
    """The status cards not in sight (not won, discarded, on auction or ending the game), in ``STATUS_DECK`` order."""
    shown = [card for cards in observation["won"] for card in cards] + list(observation["discarded"])
    shown += [card for card in (observation["card"], observation["ending_card"]) if card is not None]
    left = list(STATUS_DECK)
    for card in shown:
        left.remove(card_from_json(card))  # a ValueError if the observation shows more of a card than exist
    return left


def hidden_deck(seen: Seen, rng: random.Random) -> list[Card]:
    """The deck of a sample, top first: the option's tail when the deck was given, else a uniform shuffle."""
    observation = seen.current
    cards = unrevealed(observation)
    if len(cards) != observation["deck_left"]:
        raise ValueError(
            f"{len(cards)} status cards are out of sight but the observation says {observation['deck_left']}"
        )
    given = seen.options.get("deck")
    if given is not None:
        return [card_from_json(card) for card in given[len(given) - len(cards) :]]
    rng.shuffle(cards)
    return cards


def sample(cls: type[HighSocietyState], game: HighSocietyGame, seen: Seen, rng: random.Random) -> HighSocietyState:
    """A state in which ``seen.seat`` is told exactly ``seen.current``, the deck order drawn with ``rng``."""
    obs = seen.current
    deck = hidden_deck(seen, rng)
    state = object.__new__(cls)
    state.game = game
    state.players = seen.players
    state.options = seen.options
    state.seed = rng.getrandbits(64)
    state.rng = random.Random(state.seed)
    state.history = []
    state.deck = deck
    state.hands = [list(hand) for hand in obs["money_of"]]
    state.bids = [list(bid) for bid in obs["bids"]]
    state.spent = [list(cards) for cards in obs["spent"]]
    state.won = [[card_from_json(card) for card in cards] for cards in obs["won"]]
    state.discarded = [card_from_json(card) for card in obs["discarded"]]
    state.pending = list(obs["pending_discard"])
    state.passed = list(obs["passed"])
    state.card = None if obs["card"] is None else card_from_json(obs["card"])
    state.ending_card = None if obs["ending_card"] is None else card_from_json(obs["ending_card"])
    state.red = obs["red_revealed"]
    state.auctions = obs["auction"]
    state.starter = obs["starter"]
    state.current = obs["to_move"]
    state.phase = obs["phase"]
    return state
