"""Ranczo Party's sampler of the unseen (``Game.sample``, docs/search.md "Ranczo Party"): a full state drawn from what
one seat was told, never from the real game.

Hidden from a seat: the other hands and the order of the deck. Everything else (the grid with its card ids, every
hand size, the deck size, the tokens, who is out) is in its current observation. What its earlier observations of
the round add, with certainty:

- **its own buries** (``Knowledge.pinned``). A seat's decision is a bury exactly when its hand had no legal cell (the
  rules make playing compulsory), and the buried card is the one that left its hand. The card went under the deck
  behind the ``deck_size`` cards it saw; while it lies in the deck the deck is not empty, so nobody goes out and
  every turn, in the fixed order of the seats still playing, draws one card. So after ``k`` turns of its own it sits
  ``deck_size - k * playing`` cards from the top, or it was drawn, by a seat that order names.
- **its buried card drawn by an opponent** (``Knowledge.held``): that opponent drew it. If no opponent has buried a
  card since (every opponent's turn since then was a play: the grid grew by as many cards as they had turns), it is
  still in that opponent's hand (or on the grid, where it shows).

Every other hidden card is free: the draw is uniform over the ways to put the free cards into the other hands (as
sets) and the free deck positions (in order), which is uniform over the hidden states that agree with the facts
above. What it does not use (the approximation, docs/search.md):

- an opponent's bury says that opponent had no playable card then, and the card it buried is a card it held: the
  sampler lets any free card sit in an opponent's hand and in the place of an opponent's bury;
- the seat's own buried card drawn by an opponent who may have buried since: it could be in that opponent's hand or
  back in the deck where they buried; the sampler treats it as free;
- a fixed first-round deck (the ``deck`` option, a testing aid): its order is ignored and the round treated as
  shuffled.

The sample's ``history`` is empty (the seat cannot know the cards of the others' buries, so it cannot replay the
game), its ``rng`` is fresh from the sampler's ``rng``, and every deck card is marked as dealt except the seat's own
pinned buries.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from games.base import Game
from games.ranczo.engine import CARD_COUNT, MAX_ROWS, RanczoState
from games.seen import Seen


@dataclass
class Knowledge:
    """What a seat knows for certain about the hidden cards of the current round, beyond its observation."""

    pinned: dict[int, int] = field(default_factory=dict)  # deck position (0 = top) -> the seat's own buried card
    held: dict[int, int] = field(default_factory=dict)  # card -> the opponent whose hand holds it


def can_play(observation: dict[str, Any]) -> bool:
    """Whether the hand in ``observation`` has a legal cell (RULES.md "A turn" 2): the decision is a play."""
    occupied = {(cell["row"], cell["value"]) for cell in observation["grid"]}
    top, bottom = observation["rows"]
    if bottom - top + 1 < MAX_ROWS:
        top, bottom = top - 1, bottom + 1
    for value in {card["value"] for card in observation["hand"]}:
        for row in range(top, bottom + 1):
            if (row, value) not in occupied and (
                (row, value - 1) in occupied
                or (row, value + 1) in occupied
                or (row - 1, value) in occupied
                or (row + 1, value) in occupied
            ):
                return True
    return False


def _playing_order(seat: int, out: list[bool]) -> list[int]:
    """The seats that take turns, in turn order starting after ``seat`` and ending with it."""
    players = len(out)
    return [s for s in ((seat + step) % players for step in range(1, players + 1)) if not out[s]]


def knowledge(seen: Seen) -> Knowledge:
    """The certain facts about the current round's hidden cards that ``seen``'s earlier observations give."""
    current = seen.current
    seat = seen.seat
    # The seat's observations of this round, one per turn of its own (it decides at every turn it takes).
    turns = [obs for obs in seen.observations if obs["round"] == current["round"]]
    last = len(turns) - 1
    hands = [{card["id"] for card in obs["hand"]} for obs in turns]
    grids = [len(obs["grid"]) for obs in turns]
    buried_at: dict[int, int] = {}  # card -> the turn of its last bury by the seat
    all_played: list[bool] = []  # per turn: every opponent's turn after it (until the seat's next) was a play
    for turn in range(last):
        obs = turns[turn]
        played = can_play(obs)
        if not played:
            for card in hands[turn] - hands[turn + 1]:  # empty when it drew its buried card straight back
                buried_at[card] = turn
        opponents = sum(1 for s, out in enumerate(obs["out"]) if s != seat and not out)
        all_played.append(grids[turn + 1] - grids[turn] - played == opponents)
    known = Knowledge()
    in_sight = hands[last] | {cell["id"] for cell in current["grid"]}
    for card, turn in buried_at.items():
        if card in in_sight:
            continue
        order = _playing_order(seat, turns[turn]["out"])
        ahead = turns[turn]["deck_size"]  # the cards in front of it when it went under the deck
        draws = len(order) * (last - turn)  # draws since, if it is still in the deck
        if ahead >= draws:
            position = ahead - draws
            if position < current["deck_size"]:
                known.pinned[position] = card
            continue
        drawer = order[ahead % len(order)]
        drawn_in = turn + ahead // len(order)  # the turn of the seat after which it was drawn
        if drawer != seat and all(all_played[drawn_in:]):
            known.held[card] = drawer
    return known


def sample(game: Game, seen: Seen, rng: random.Random) -> RanczoState:
    """A state drawn uniformly from those that agree with ``seen`` and its ``knowledge`` (module docstring)."""
    obs = seen.current
    seat = seen.seat
    known = knowledge(seen)
    hand_sizes: list[int] = obs["hand_sizes"]
    room = [0 if s == seat else hand_sizes[s] for s in range(seen.players)]
    for card, holder in list(known.held.items()):
        if room[holder] > 0:
            room[holder] -= 1
        else:  # a record the facts cannot fit (a gap in the observations): trust the counts
            del known.held[card]
    in_sight = {card["id"] for card in obs["hand"]} | {cell["id"] for cell in obs["grid"]}
    placed = in_sight | set(known.pinned.values()) | set(known.held)
    free = [card for card in range(CARD_COUNT) if card not in placed]
    rng.shuffle(free)

    hands: list[list[int]] = []
    taken = 0
    for s in range(seen.players):
        if s == seat:
            hands.append([card["id"] for card in obs["hand"]])
            continue
        hand = free[taken : taken + room[s]] + [card for card, holder in known.held.items() if holder == s]
        taken += room[s]
        hands.append(sorted(hand))
    deck: list[int] = []
    for position in range(obs["deck_size"]):
        if position in known.pinned:
            deck.append(known.pinned[position])
        else:
            deck.append(free[taken])
            taken += 1

    state = object.__new__(RanczoState)
    fresh = rng.getrandbits(64)
    state.game = game
    state.players = seen.players
    state.seed = fresh
    state.options = seen.options
    state.rng = random.Random(fresh)
    state.history = []
    state.rounds = obs["rounds"]
    state.round = obs["round"]
    state.tokens = list(obs["tokens"])
    state.round_tokens = list(obs["round_tokens"])
    state.round_results = [list(result) for result in obs["round_results"]]
    state.over = obs["over"]
    state.hands = hands
    state.deck = deck
    state.deck_buried_by = [seat if position in known.pinned else None for position in range(len(deck))]
    state.grid = {(cell["row"], cell["value"]): cell["id"] for cell in obs["grid"]}
    state.row_counts = {}
    state.col_counts = [0] * 8
    for row, value in state.grid:
        state.row_counts[row] = state.row_counts.get(row, 0) + 1
        state.col_counts[value] += 1
    state.top, state.bottom = obs["rows"]
    state.out = list(obs["out"])
    state.buries_in_a_row = obs["buries_in_a_row"]
    state.last = _copy_last(obs["last"])
    state.end_reason = None
    state.current = seat if obs["to_move"] is None else obs["to_move"]
    return state


def _copy_last(last: dict[str, Any] | None) -> Any:
    if last is None:
        return None
    copied = dict(last)
    if "card" in copied:
        copied["card"] = dict(copied["card"])
    return copied


__all__ = ["Knowledge", "can_play", "knowledge", "sample"]
