"""TEN's sampler of the unseen (``Game.sample``, docs/search.md "TEN"): a full state from what one seat was told.

Everything in TEN is public except the order of the deck (RULES.md "Information"), and the observation even says
what the deck holds (``deck_counts``: numbers by colour and value, currency by pips, and how many wilds). What a
seat cannot know is therefore:

- which card **ids** are in the deck, for faces that have copies elsewhere out of sight (in the discard pile: spent
  currency, number cards paid away, unsold wilds). An id the seat saw in an earlier observation and cannot see now
  is in the discard pile for certain (cards never go back to the deck); the others of that face are exchangeable,
  so the deck takes a uniformly drawn subset of them, as many as ``deck_counts`` says;
- which **wilds** are in the deck: the observation counts them but does not name them. Every wild flipped is
  auctioned and every seat bids or passes, so the seat has seen every wild that left the deck; the deck's wilds are
  then exactly the wilds it never saw. (Should a record miss some, the deck takes a uniform subset of the unseen.)
- the **order** of the deck: a uniform shuffle, since the deck was shuffled uniformly and only its top was flipped.

The draw is uniform over every (ids, order) of the deck consistent with the seat's observations. With a fixed deck
(the ``deck`` option, public) nothing is hidden and the sample is the real deck.

Not hidden but not in the observation, and rebuilt here: whether the active player has flipped yet this turn (an
empty play area after an auctioned wild), read from the seat's previous observation; the auction's bidding order
and turn (from the active seat and the bids). The discard pile holds every other card (its order is not the real
one; nothing reads it but the full view), the bank's ledger is the smallest flow that explains the tokens held,
the ``history`` is empty (the seat is not told the others' actions) and the ``rng`` is fresh, drawn from ``rng``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from games.base import Game
from games.seen import Seen
from games.ten.cards import CURRENCY, NUMBER, WILD, Catalogue, Face, catalogue

if TYPE_CHECKING:
    from games.ten.state import TenState

# A deck to draw: per face (or per kind of face, for the wilds), the ids it may take and how many it takes.
Pools = list[tuple[list[int], int]]


def draw_deck(pools: Pools, rng: random.Random) -> list[int]:
    """A uniform draw: ``count`` ids from each pool (a uniform subset), then the whole deck in a uniform order."""
    deck: list[int] = []
    for ids, count in pools:
        deck += ids if count == len(ids) else rng.sample(ids, count)
    rng.shuffle(deck)
    return deck


@dataclass(frozen=True)
class _Layout:
    """A catalogue's card ids grouped as ``deck_counts`` counts them: numbers by colour and value ("3"), currency
    by pips ("3"), and all the wilds."""

    numbers: tuple[tuple[str, str, tuple[int, ...]], ...]
    currency: tuple[tuple[str, tuple[int, ...]], ...]
    wilds: tuple[int, ...]


_LAYOUTS: dict[int, tuple[Catalogue, _Layout]] = {}


def layout(cat: Catalogue) -> _Layout:
    found = _LAYOUTS.get(id(cat))
    if found is None or found[0] is not cat:
        by_face = ids_by_face(cat.faces)
        found = _LAYOUTS[id(cat)] = (
            cat,
            _Layout(
                numbers=tuple((str(f[1]), str(f[2]), ids) for f, ids in by_face.items() if f[0] == NUMBER),
                currency=tuple((str(f[3]), ids) for f, ids in by_face.items() if f[0] == CURRENCY),
                wilds=tuple(cid for f, ids in by_face.items() if f[0] == WILD for cid in ids),
            ),
        )
    return found[1]


def ids_by_face(faces: tuple[Face, ...]) -> dict[Face, tuple[int, ...]]:
    """Every face of a catalogue and its card ids, in id order."""
    out: dict[Face, list[int]] = {}
    for cid, face in enumerate(faces):
        out.setdefault(face, []).append(cid)
    return {face: tuple(ids) for face, ids in out.items()}


def visible_ids(obs: dict[str, Any]) -> set[int]:
    """The ids of every card in sight in one observation: play area, market, collections and the auctioned wild."""
    ids = {card["id"] for card in obs["play_area"]}
    ids.update(card["id"] for card in obs["market"])
    for collection in obs["collection"]:
        ids.update(card["id"] for card in collection)
    if obs["auction"] is not None:
        ids.add(obs["auction"]["card"]["id"])
    return ids


class _SeenIds:
    """The ids a seat has ever seen, kept for the last record asked about: a search samples many times from one
    record, and a record only grows, so its earlier observations are read once. (``Game.sample`` hands the hook a
    new ``Seen`` each time, sharing the list of observations: the list is the key.)"""

    def __init__(self) -> None:
        self.observations: list[dict[str, Any]] | None = None
        self.count = 0
        self.last: dict[str, Any] | None = None
        self.ids: set[int] = set()

    def of(self, seen: Seen) -> set[int]:
        observations = seen.observations
        count = self.count
        if (
            self.observations is not observations
            or count > len(observations)
            or (count and observations[count - 1] is not self.last)
        ):
            self.observations, self.ids, count = observations, set(), 0
        for obs in observations[count:]:
            self.ids |= visible_ids(obs)
        self.count, self.last = len(observations), observations[-1]
        return self.ids


_seen_ids = _SeenIds()


def deck_pools(cat: Catalogue, obs: dict[str, Any], ever_seen: set[int]) -> Pools:
    """What the deck may hold, from ``deck_counts`` and the ids never seen (the others are in sight or discarded)."""
    counts = obs["deck_counts"]
    by_colour, by_pips = counts["colour"], counts["currency"]
    where = layout(cat)
    pools: Pools = []
    for colour, value, ids in where.numbers:
        count = by_colour[colour][value]
        if count:
            pools.append(([cid for cid in ids if cid not in ever_seen], count))
    for pips, ids in where.currency:
        count = by_pips.get(pips, 0)
        if count:
            pools.append(([cid for cid in ids if cid not in ever_seen], count))
    pools.append(([cid for cid in where.wilds if cid not in ever_seen], counts["wild"]))
    for pool, count in pools:
        if count > len(pool):
            raise ValueError("the observations do not fit one TEN game: the deck holds cards the seat saw elsewhere")
    return pools


def has_flipped(seen: Seen) -> bool:
    """Whether the active player of the current observation has flipped this turn (then it may stop)."""
    obs = seen.current
    if obs["phase"] in ("auction", "pay", "buy"):
        return True
    if obs["phase"] != "flip":
        return False
    if obs["play_area"]:
        return True
    # An empty play area after a flip: every card flipped this turn was a wild, auctioned at once, and the active
    # player (this seat) bid last in that auction or paid for the wild; a turn never ends without this seat acting.
    if len(seen.observations) < 2:
        return False
    before = seen.observations[-2]
    return before["active"] == obs["active"] and before["phase"] in ("auction", "pay")


def sample(cls: type[TenState], game: Game, seen: Seen, rng: random.Random) -> TenState:
    """``Game.sample`` for TEN: the module docstring says what is drawn and what is rebuilt."""
    obs = seen.current
    players, options = seen.players, seen.options
    cat = catalogue(players, options)
    if options.get("deck") is not None:
        deck = [card["id"] for card in reversed(options["deck"])][: obs["deck_left"]]
    else:
        deck = draw_deck(deck_pools(cat, obs, _seen_ids.of(seen)), rng)

    seed = rng.getrandbits(64)
    state = object.__new__(cls)
    state.game, state.players, state.seed, state.options = game, players, seed, options
    state.rng = random.Random(seed)
    state.history = []
    state._set_catalogue()
    in_sight = visible_ids(obs)
    in_deck = set(deck)
    state._set_deck(deck)
    state.play_area = [card["id"] for card in obs["play_area"]]
    state.market = [card["id"] for card in obs["market"]]
    state.collections = [[card["id"] for card in collection] for collection in obs["collection"]]
    state.discard = [cid for cid in range(len(cat.faces)) if cid not in in_sight and cid not in in_deck]
    state.coins, state.fiasco = list(obs["coins"]), list(obs["fiasco"])
    state.total, state.pips = obs["total"], obs["pips"]
    state.active, state.phase = obs["active"], obs["phase"]
    state.flipped = has_flipped(seen)
    state.final_order = list(obs["final_buyers"])
    state.auction = None
    if obs["auction"] is not None:
        auction = obs["auction"]
        bids = list(auction["bids"])
        state.auction = {
            "card": auction["card"]["id"],
            "bids": bids,
            "high": auction["high"],
            "high_bidder": auction["high_bidder"],
            "order": [(state.active + 1 + i) % players for i in range(players)],
            "turn": sum(bid is not None for bid in bids),
        }
    # Bookkeeping only (tests prove tokens move by the rules): the smallest flows that explain the tokens held.
    paid_in = max(0, options["start_coins"] * players - sum(state.coins))
    state.ledger = {
        "black_out": sum(state.coins) - options["start_coins"] * players + paid_in,
        "black_in": paid_in,
        "fiasco_out": sum(state.fiasco),
        "fiasco_in": 0,
    }
    return state
