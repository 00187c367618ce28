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
game), its ``rng`` is fresh from the sampler's ``rng`` (made only if used), and every deck card is marked as dealt
except the seat's own pinned buries. What a record gives is prepared once (``prepare``) and reused while the record
is unchanged: a search samples one decision's record many times.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import factorial
from typing import Any

from games.base import Game
from games.ranczo.engine import CARD_COUNT, MAX_ROWS, ROW_BIT, RanczoState
from games.seen import Seen


@dataclass
class Knowledge:
    """What a seat knows for certain about the hidden cards of the current round, beyond its observation."""

    pinned: dict[int, int] = field(default_factory=dict)  # deck position (0 = top) -> the seat's own buried card
    held: dict[int, int] = field(default_factory=dict)  # card -> the opponent whose hand holds it


def can_play(observation: dict[str, Any]) -> bool:
    """Whether the hand in ``observation`` has a legal cell (RULES.md "A turn" 2): the decision is a play."""
    bits = [0] * 9  # each column's occupied rows as bits, as the engine keeps them
    for cell in observation["grid"]:
        bits[cell["value"]] |= 1 << (cell["row"] + ROW_BIT)
    top, bottom = observation["rows"]
    if bottom - top + 1 < MAX_ROWS:
        top, bottom = top - 1, bottom + 1
    window = ((2 << (bottom - top)) - 1) << (top + ROW_BIT)
    for value in {card["value"] for card in observation["hand"]}:
        column = bits[value]
        if (bits[value - 1] | bits[value + 1] | column << 1 | column >> 1) & ~column & window:
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


@dataclass
class Deal:
    """What every sample from one record shares: the state with all that is visible, and the slots to fill."""

    state: RanczoState  # the visible part; the other hands and the deck are filled in per sample
    free: list[int]  # the cards the seat cannot place, dealt at random
    room: list[int]  # per seat, how many free cards its hand takes (none for the seat itself)
    held: list[list[int]]  # per seat, the cards known to be in its hand
    deck: list[int | None]  # the deck, top first: a pinned card, or None for a free card


# The last record prepared and its deal: a search samples one record many times. The record is recognised by its
# observation objects themselves (held here, so their ids cannot be reused); nothing mutates a recorded observation.
_prepared: tuple[int, list[dict[str, Any]], Game, Deal] | None = None


def prepare(game: Game, seen: Seen) -> Deal:
    """The deal every sample of ``seen`` draws from (kept for the next call with the same record)."""
    global _prepared
    last = _prepared
    if (
        last is not None
        and last[0] == seen.seat
        and last[2] is game
        and len(last[1]) == len(seen.observations)
        and all(a is b for a, b in zip(last[1], seen.observations, strict=True))
    ):
        return last[3]
    deal = _deal(game, seen)
    _prepared = (seen.seat, list(seen.observations), game, deal)
    return deal


def _deal(game: Game, seen: Seen) -> Deal:
    obs = seen.current
    seat = seen.seat
    known = knowledge(seen)
    hand_sizes: list[int] = obs["hand_sizes"]
    room = [0 if s == seat else hand_sizes[s] for s in range(seen.players)]
    held: list[list[int]] = [[] for _ in range(seen.players)]
    for card, holder in known.held.items():
        if room[holder] > 0:
            room[holder] -= 1
            held[holder].append(card)
    pinned = {where: card for where, card in known.pinned.items() if where < obs["deck_size"]}
    in_sight = {card["id"] for card in obs["hand"]} | {cell["id"] for cell in obs["grid"]}
    placed = in_sight | set(pinned.values()) | {card for hand in held for card in hand}
    free = [card for card in range(CARD_COUNT) if card not in placed]

    state = object.__new__(RanczoState)
    state.game = game
    state.players = seen.players
    state.options = seen.options
    state._reseed(0)  # every sample gets its own
    state.history = []
    state.rounds = obs["rounds"]
    state.round = obs["round"]
    state.tokens = list(obs["tokens"])
    state.round_tokens = list(obs["round_tokens"])
    state.round_results = [list(result) for result in obs["round_results"]]
    state.over = obs["over"]
    state.hands = [[card["id"] for card in obs["hand"]] if s == seat else [] for s in range(seen.players)]
    state.deck = []
    state.deck_buried_by = [seat if where in pinned else None for where in range(obs["deck_size"])]
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
    state._column_bits()  # derived once here, copied by every sample's clone
    state._sorted_cells()
    deck = [pinned.get(where) for where in range(obs["deck_size"])]
    return Deal(state=state, free=free, room=room, held=held, deck=deck)


def sample(cls: type[RanczoState], game: Game, seen: Seen, rng: random.Random) -> RanczoState:
    """A state drawn uniformly from those that agree with ``seen`` and its ``knowledge`` (module docstring)."""
    deal = prepare(game, seen)
    free = deal.free[:]
    shuffle(free, rng)
    state = deal.state.clone()
    taken = 0
    hands = state.hands
    for s, room in enumerate(deal.room):
        if room or deal.held[s]:
            hands[s] = sorted(free[taken : taken + room] + deal.held[s])
            taken += room
    deck: list[int] = []
    for card in deal.deck:
        if card is None:
            card = free[taken]
            taken += 1
        deck.append(card)
    state.deck = deck
    state._reseed(rng.getrandbits(64))
    return state


def shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates with every swap drawn at once: one number uniform below ``n!`` (by rejection), read in mixed radix
    (its digit base ``i + 1`` picks the swap of position ``i``). Exactly uniform, and half ``random.shuffle``'s cost
    (one big draw instead of one call per card)."""
    count = len(cards)
    orders = factorial(count)
    bits = orders.bit_length()
    number = rng.getrandbits(bits)
    while number >= orders:
        number = rng.getrandbits(bits)
    for i in range(count - 1, 0, -1):
        number, j = divmod(number, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def _copy_last(last: dict[str, Any] | None) -> Any:
    if last is None:
        return None
    copied = dict(last)
    if "card" in copied:
        copied["card"] = dict(copied["card"])
    return copied


__all__ = ["Deal", "Knowledge", "can_play", "knowledge", "prepare", "sample", "shuffle"]
