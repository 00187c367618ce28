"""TEN's table: the cards and tokens in play, their bookkeeping, and what each seat may see of them.

A search plays many games from one state (``clone`` and ``advance``), and a match builds an observation at every
decision, so the table keeps what its views derive (the deck's counts, each collection's cards and score) and
drops a seat's part when its collection changes (``_collection_changed``).
"""

from __future__ import annotations

import random
from typing import Any, Self

from games.base import Outcome, State, shuffle
from games.ten.cards import (
    FIASCO_WORTH,
    Catalogue,
    Face,
    catalogue,
    counts_view_without,
    deck_counts_view,
)
from games.ten.scoring import score_faces


class TenTable(State):
    """The cards and tokens on the table, their bookkeeping, and every view of them; ``TenState`` adds the
    rules that move them."""

    faces: tuple[Face, ...]
    deck: list[int]  # top of the deck is the LAST element (pop() flips it)

    # ----- setup -----
    def _setup(self) -> None:
        self._set_catalogue()
        if self.options.get("deck") is not None:
            deck = [card["id"] for card in reversed(self.options["deck"])]
        else:
            deck = list(range(len(self.faces)))
            shuffle(deck, self.rng)
        self._set_deck(deck)
        self.play_area: list[int] = []
        self.market: list[int] = []
        self.discard: list[int] = []
        self.collections: list[list[int]] = [[] for _ in range(self.players)]
        self.coins: list[int] = [self.options["start_coins"]] * self.players
        self.fiasco: list[int] = [0] * self.players
        self.total = 0
        self.pips = 0
        self.active = 0
        self.phase = "flip"
        self.flipped = False  # the first flip of a turn is compulsory (RULES.md "Flipping")
        self.auction: dict[str, Any] | None = None
        self.final_order: list[int] = []
        # The bank is unlimited; these counters let tests prove that tokens only move by the rules.
        self.ledger = {"black_out": 0, "black_in": 0, "fiasco_out": 0, "fiasco_in": 0}

    def _set_catalogue(self) -> None:
        """The deck's faces and what is derived from them and the options (no randomness: a sampler calls it too)."""
        self.catalogue: Catalogue = catalogue(self.players, self.options)
        self.faces = self.catalogue.faces
        self.card_json = self.catalogue.cards
        self.cap: int = self.options["coin_cap"]
        # Per seat, derived from its collection and dropped when it changes (``_collection_changed``).
        self._scores: list[int | None] = [None] * self.players
        self._collection_json: list[list[dict[str, Any]] | None] = [None] * self.players
        self._number_count: list[int | None] = [None] * self.players
        # Views of the whole table, remade when their part changes (``_market_changed``, ``_collection_changed``);
        # never changed once made (clones and observations share them).
        self._market_view: list[dict[str, Any]] | None = None
        self._scores_view: list[int] | None = None

    def _set_deck(self, deck: list[int]) -> None:
        self.deck = deck
        self._deck_counts_left = self.catalogue.counts(deck)  # kept by every flip (``_flip_top``)
        # The observation's view of those counts and the deck size it is for; never changed once made (observations
        # and clones share it).
        self._counts_view: tuple[int, dict[str, Any]] | None = None
        self._last_flipped: int | None = None

    def _flip_top(self) -> int:
        cid = self.deck.pop()
        self._deck_counts_left[self.catalogue.slots[cid]] -= 1
        self._last_flipped = cid
        return cid

    def _collection_changed(self, seat: int) -> None:
        self._scores[seat] = None
        self._collection_json[seat] = None
        self._number_count[seat] = None
        self._scores_view = None

    def _market_changed(self) -> None:
        self._market_view = None

    # ----- copies -----
    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # The catalogue and its card table are immutable and shared by every state of the same deck.
        memo[id(self.catalogue)] = self.catalogue
        memo[id(self.faces)] = self.faces
        memo[id(self.card_json)] = self.card_json
        return super().__deepcopy__(memo)

    def _clone(self) -> Self:
        """A field copy: every list the rules change is copied, the rest is shared (immutable, or never changed once
        made: the catalogue, the options, the cached collection views and the actions in the history), and the
        generator until either state draws (``State._field_copy``; the deck is shuffled once, at setup)."""
        new = self._field_copy()
        fields = new.__dict__
        fields["deck"] = [*self.deck]
        fields["play_area"] = [*self.play_area]
        fields["market"] = [*self.market]
        fields["discard"] = [*self.discard]
        fields["collections"] = [[*col] for col in self.collections]
        fields["coins"] = [*self.coins]
        fields["fiasco"] = [*self.fiasco]
        fields["final_order"] = [*self.final_order]
        fields["ledger"] = {**self.ledger}
        fields["history"] = [*self.history]
        fields["_scores"] = [*self._scores]
        fields["_collection_json"] = [*self._collection_json]
        fields["_number_count"] = [*self._number_count]
        fields["_deck_counts_left"] = [*self._deck_counts_left]
        if self.auction is not None:
            fields["auction"] = {**self.auction, "bids": [*self.auction["bids"]]}  # "order" never changes
        return new

    # ----- small helpers -----
    # Views hand out shared objects that never change once made, not copies: the catalogue's card objects, the
    # deck's counts, each collection's and the market's list of cards. They are read-only by contract (bots get them
    # as JSON; built-in players and samplers only read), and copying them was most of the cost of a view. Each
    # observation's own dict and its other lists are fresh.
    def _card(self, cid: int) -> dict[str, Any]:
        return self.card_json[cid]

    def _cards(self, cids: list[int]) -> list[dict[str, Any]]:
        table = self.card_json
        return [table[cid] for cid in cids]

    def _name(self, cid: int) -> str:
        return self.catalogue.names[cid]

    def _number_cards(self, seat: int) -> list[int]:
        is_number = self.catalogue.is_number
        return [cid for cid in self.collections[seat] if is_number[cid]]

    def _numbers_held(self, seat: int) -> int:
        count = self._number_count[seat]
        if count is None:
            is_number = self.catalogue.is_number
            count = self._number_count[seat] = sum(1 for cid in self.collections[seat] if is_number[cid])
        return count

    def _purse(self, seat: int) -> int:
        """All a seat can pay: black tokens, fiasco tokens and number cards (RULES.md "Paying")."""
        return self.coins[seat] + FIASCO_WORTH * self.fiasco[seat] + self._numbers_held(seat)

    def _gain(self, seat: int, amount: int) -> int:
        got = max(0, min(amount, self.cap - self.coins[seat]))  # RULES.md "Limits"
        self.coins[seat] += got
        self.ledger["black_out"] += got
        return got

    def score(self, seat: int) -> int:
        cached = self._scores[seat]
        if cached is None:
            faces = self.faces
            cached = self._scores[seat] = score_faces([faces[cid] for cid in self.collections[seat]])
        return cached

    def _deck_counts(self) -> dict[str, Any]:
        """What the deck still holds (public: every other card is in sight), never its order: one view per deck
        size, handed to every observation at that size (read-only, as the cards are)."""
        cached = self._counts_view
        left = len(self.deck)
        if cached is not None and cached[0] == left:
            return cached[1]
        if cached is not None and cached[0] == left + 1 and self._last_flipped is not None:
            view = counts_view_without(cached[1], self.faces[self._last_flipped])  # one flip since: a cheap update
        else:
            view = deck_counts_view(self._deck_counts_left, self.catalogue)
        self._counts_view = (left, view)
        return view

    # ----- views -----
    def _auction_json(self) -> dict[str, Any] | None:
        if self.auction is None:
            return None
        a = self.auction
        return {
            "card": self.card_json[a["card"]],
            "bids": [*a["bids"]],
            "high": a["high"],
            "high_bidder": a["high_bidder"],
        }

    def _collection_views(self) -> list[list[dict[str, Any]]]:
        views = self._collection_json
        out = []
        for seat, view in enumerate(views):
            if view is None:
                view = views[seat] = self._cards(self.collections[seat])
            out.append(view)
        return out

    def _observation(self, seat: int) -> dict[str, Any]:
        table = self.card_json
        market = self._market_view
        if market is None:
            market = self._market_view = self._cards(self.market)
        scores = self._scores_view
        if scores is None:
            scores = self._scores_view = [self.score(s) for s in range(self.players)]
        return {
            "seat": seat,
            "players": self.players,
            "phase": self.phase,
            "active": self.active,
            "to_move": self.to_move(),
            "play_area": [table[cid] for cid in self.play_area],
            "total": self.total,
            "pips": self.pips,
            "deck_left": len(self.deck),
            "deck_counts": self._deck_counts(),
            "market": market,
            "collection": self._collection_views(),
            "coins": [*self.coins],
            "fiasco": [*self.fiasco],
            "scores": [*scores],
            "auction": self._auction_json(),
            "final_buyers": [*self.final_order],
            "coin_cap": self.cap,
        }

    def _public(self) -> dict[str, Any]:
        """The table as every seat sees it: an observation without its seat."""
        view = self._observation(0)
        del view["seat"]
        return view

    def _public_view(self) -> dict[str, Any]:
        return self._public()

    def _full_view(self) -> dict[str, Any]:
        return {
            **self._public(),
            "deck": self._cards(self.deck[::-1]),
            "discard": self._cards(self.discard),
            "bank": dict(self.ledger),
        }

    def _outcome(self) -> Outcome:
        scores = [self.score(s) for s in range(self.players)]
        # Platform rule (RULES.md "End and scoring" 3): ties go to more black tokens, then more fiasco tokens.
        return Outcome.from_scores(scores, [(self.coins[s], self.fiasco[s]) for s in range(self.players)])

    def perturb_hidden(self, observer: int, rng: random.Random) -> State | None:
        # Only the deck order is hidden (RULES.md "Information"), from every seat alike.
        if len(self.deck) < 2:
            return None
        other = self._clone()
        i, j = rng.sample(range(len(other.deck)), 2)
        other.deck[i], other.deck[j] = other.deck[j], other.deck[i]
        return other
