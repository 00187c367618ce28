"""TEN's table: the cards and tokens in play, their bookkeeping, and what each seat may see of them."""

from __future__ import annotations

import random
from typing import Any, Self

from games.base import Outcome, State
from games.ten.cards import (
    COLOURS,
    CURRENCY,
    FIASCO_WORTH,
    MAX_PIPS,
    NUMBER,
    VALUES,
    Face,
    build_catalogue,
    card_table,
    face_name,
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
            self.deck = [card["id"] for card in reversed(self.options["deck"])]
        else:
            self.deck = list(range(len(self.faces)))
            self.rng.shuffle(self.deck)
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
        self.faces = tuple(build_catalogue(self.players, self.options))
        self.card_json = card_table(self.faces)
        self.currency_pips = sorted({pips for kind, _, _, pips in self.faces if kind == CURRENCY and pips is not None})
        self._scores: list[int | None] = [None] * self.players  # per seat, dropped when a collection changes
        self._counts: tuple[int, dict[str, Any]] | None = None  # deck contents, kept while the deck keeps its size
        self.cap: int = self.options["coin_cap"]

    # ----- small helpers -----
    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # The catalogue and its card table are immutable and shared by every state of the same deck.
        memo[id(self.faces)] = self.faces
        memo[id(self.card_json)] = self.card_json
        return super().__deepcopy__(memo)

    def _copy(self) -> Self:
        """A fast copy for ``perturb_hidden`` (called at every decision by the conformance suite)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.deck, new.play_area, new.market, new.discard = (
            [*self.deck],
            [*self.play_area],
            [*self.market],
            [*self.discard],
        )
        new.collections = [list(col) for col in self.collections]
        new.coins, new.fiasco, new.final_order = [*self.coins], [*self.fiasco], [*self.final_order]
        new.ledger, new._scores, new.history = dict(self.ledger), [*self._scores], [*self.history]
        if self.auction is not None:
            new.auction = {**self.auction, "bids": [*self.auction["bids"]], "order": [*self.auction["order"]]}
        # The rng is shared: the deck is shuffled once at setup and nothing draws from it afterwards.
        return new

    # Views hand out the catalogue's own card objects, not copies: they are read-only by contract (bots get them as
    # JSON; built-in players only read), and copying them was most of the cost of a view.
    def _card(self, cid: int) -> dict[str, Any]:
        return self.card_json[cid]

    def _cards(self, cids: list[int]) -> list[dict[str, Any]]:
        table = self.card_json
        return [table[cid] for cid in cids]

    def _name(self, cid: int) -> str:
        return face_name(self.faces[cid])

    def _number_cards(self, seat: int) -> list[int]:
        return [cid for cid in self.collections[seat] if self.faces[cid][0] == NUMBER]

    def _purse(self, seat: int) -> int:
        """All a seat can pay: black tokens, fiasco tokens and number cards (RULES.md "Paying")."""
        return self.coins[seat] + FIASCO_WORTH * self.fiasco[seat] + len(self._number_cards(seat))

    def _gain(self, seat: int, amount: int) -> int:
        got = max(0, min(amount, self.cap - self.coins[seat]))  # RULES.md "Limits"
        self.coins[seat] += got
        self.ledger["black_out"] += got
        return got

    def score(self, seat: int) -> int:
        cached = self._scores[seat]
        if cached is None:
            cached = self._scores[seat] = score_faces([self.faces[cid] for cid in self.collections[seat]])
        return cached

    def _deck_counts(self) -> dict[str, Any]:
        """What the deck still holds (public: every other card is in sight), never its order."""
        cached = self._counts
        if cached is None or cached[0] != len(self.deck):
            cached = self._counts = (len(self.deck), self._count_deck())
        counts = cached[1]
        return {
            "number": dict(counts["number"]),
            "colour": {colour: dict(values) for colour, values in counts["colour"].items()},
            "currency": dict(counts["currency"]),
            "wild": counts["wild"],
        }

    def _count_deck(self) -> dict[str, Any]:
        by_colour = {colour: [0] * 10 for colour in COLOURS}
        currency = [0] * (MAX_PIPS + 1)
        wilds = 0
        faces = self.faces
        for cid in self.deck:
            kind, colour, value, pips = faces[cid]
            if kind == NUMBER:
                by_colour[colour][value] += 1  # type: ignore[index]  # a number has a colour and a value
            elif kind == CURRENCY:
                currency[pips] += 1  # type: ignore[index]  # a currency card has pips
            else:
                wilds += 1
        return {
            "number": {str(v): sum(by_colour[c][v] for c in COLOURS) for v in VALUES},
            "colour": {c: {str(v): by_colour[c][v] for v in VALUES} for c in COLOURS},
            "currency": {str(p): currency[p] for p in self.currency_pips},
            "wild": wilds,
        }

    # ----- views -----
    def _auction_json(self) -> dict[str, Any] | None:
        if self.auction is None:
            return None
        a = self.auction
        return {
            "card": self._card(a["card"]),
            "bids": list(a["bids"]),
            "high": a["high"],
            "high_bidder": a["high_bidder"],
        }

    def _public(self) -> dict[str, Any]:
        cards = self._cards
        return {
            "players": self.players,
            "phase": self.phase,
            "active": self.active,
            "to_move": self.to_move(),
            "play_area": cards(self.play_area),
            "total": self.total,
            "pips": self.pips,
            "deck_left": len(self.deck),
            "deck_counts": self._deck_counts(),
            "market": cards(self.market),
            "collection": [cards(col) for col in self.collections],
            "coins": list(self.coins),
            "fiasco": list(self.fiasco),
            "scores": [self.score(s) for s in range(self.players)],
            "auction": self._auction_json(),
            "final_buyers": list(self.final_order),
            "coin_cap": self.cap,
        }

    def _observation(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, **self._public()}

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
        other = self._copy()
        i, j = rng.sample(range(len(other.deck)), 2)
        other.deck[i], other.deck[j] = other.deck[j], other.deck[i]
        return other
