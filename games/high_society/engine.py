"""High Society rules engine (the rules: games/high_society/RULES.md).

Cards are kept internally as small codes — an ``int`` 1-10 for a guest, ``"prestige"`` for a prestige guest and the
effect name (``"discard"``, ``"minus5"``, ``"halve"``) for a scandal — and shown to bots in the observation format
``{"kind": ..., "value"?: ..., "effect"?: ...}``.
"""

from __future__ import annotations

import copy
import random
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import chain, combinations, islice
from typing import Any, Literal, Self

from games.base import Action, Game, IllegalAction, InvalidOptions, Outcome, State, copy_json, ranks_from_keys, shuffle
from games.high_society import declaration
from games.high_society.declaration import StatusCard
from games.spec import GameSpec

Card = int | str

MONEY: tuple[int, ...] = (25, 20, 15, 12, 10, 8, 6, 4, 3, 2, 1)
MONEY_TOTAL = sum(MONEY)  # 106
GUESTS: tuple[int, ...] = tuple(range(1, 11))
PRESTIGE = "prestige"
GOSSIP, FAUX_PAS, FRAUD = "discard", "minus5", "halve"
SCANDALS: tuple[str, ...] = (GOSSIP, FAUX_PAS, FRAUD)
STATUS_DECK: tuple[Card, ...] = (*GUESTS, PRESTIGE, PRESTIGE, PRESTIGE, *SCANDALS)
# The red ring: the three prestige guests and Fraud (RULES.md "Components", from the published rules).
RED_RING = frozenset({PRESTIGE, FRAUD})
RED_TO_END = 4

NAMES = {PRESTIGE: "a prestige guest (x2)", GOSSIP: "Gossip", FAUX_PAS: "Faux pas (-5)", FRAUD: "Fraud (x1/2)"}


# The scandals' codes, as the declaration's literal types.
_EFFECTS: dict[str, Literal["discard", "minus5", "halve"]] = {GOSSIP: "discard", FAUX_PAS: "minus5", FRAUD: "halve"}


def card_json(card: Card) -> StatusCard:
    """A card in the observation format."""
    if isinstance(card, int):
        return {"kind": "guest", "value": card}
    if card == PRESTIGE:
        return {"kind": "prestige"}
    return {"kind": "scandal", "effect": _EFFECTS[card]}


def card_from_json(value: Any) -> Card:
    """The inverse of ``card_json``; raises ``ValueError`` on anything that is not exactly one card."""
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind == "guest" and set(value) == {"kind", "value"}:
            v = value["value"]
            if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10:
                return v
        elif kind == "prestige" and set(value) == {"kind"}:
            return PRESTIGE
        elif kind == "scandal" and set(value) == {"kind", "effect"} and value["effect"] in SCANDALS:
            effect: str = value["effect"]
            return effect
    raise ValueError(f"{value!r} is not a High Society status card")


def card_name(card: Card) -> str:
    return f"guest {card}" if isinstance(card, int) else NAMES[card]


def score(cards: list[Card]) -> Fraction:
    """Prestige points of the status cards owned (RULES.md "Scoring" 2): guests, then -5, then x2 each, then x1/2.

    A Gossip still waiting for a guest (RULES.md "An auction" 6) counts nothing."""
    total = Fraction(sum(c for c in cards if isinstance(c, int)))
    total -= 5 * cards.count(FAUX_PAS)
    total *= 2 ** cards.count(PRESTIGE)
    if FRAUD in cards:
        total /= 2
    return Fraction(total)


def score_json(value: Fraction) -> int | float:
    """An int when whole, else a float (exact: every score is a multiple of 1/2)."""
    return int(value) if value.denominator == 1 else float(value)


def _every_bid() -> tuple[tuple[int, ...], ...]:
    """Every non-empty set of the 11 money cards (values, descending), sorted by total, then by card count, then by
    values."""
    subsets = [combo for size in range(1, len(MONEY) + 1) for combo in combinations(MONEY, size)]
    subsets.sort(key=lambda combo: (sum(combo), len(combo), combo))
    return tuple(subsets)


_EVERY_BID = _every_bid()
_EVERY_TOTAL = tuple(sum(combo) for combo in _EVERY_BID)
_RANK = {combo: rank for rank, combo in enumerate(_EVERY_BID)}


# Every hand fits (2,048 of them): the card tuples are _EVERY_BID's own, so all of them take under 4 MB.
@lru_cache(maxsize=2048)
def _bids_for(hand: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Every non-empty set of cards from ``hand`` (values, descending), sorted by total, then by card count, then by
    values; returned as (totals, card lists) so a threshold is one bisection. A hand's sets are put in order by
    their rank among the sets of all 11 cards."""
    subsets = chain.from_iterable(combinations(hand, size) for size in range(1, len(hand) + 1))
    ranks = sorted(map(_RANK.__getitem__, subsets))
    return tuple(map(_EVERY_TOTAL.__getitem__, ranks)), tuple(map(_EVERY_BID.__getitem__, ranks))


class HighSocietyState(State):
    game: HighSocietyGame

    # ----- setup ----------------------------------------------------------------------------------------------
    def _setup(self) -> None:
        n = self.players
        if self.options.get("deck") is not None:
            self.deck: list[Card] = [card_from_json(card) for card in self.options["deck"]]
        else:
            self.deck = list(STATUS_DECK)
            shuffle(self.deck, self.rng)
        self.hands: list[list[int]] = [list(MONEY) for _ in range(n)]
        self.bids: list[list[int]] = [[] for _ in range(n)]
        self.spent: list[list[int]] = [[] for _ in range(n)]
        self.won: list[list[Card]] = [[] for _ in range(n)]
        self.discarded: list[Card] = []
        self.pending: list[bool] = [False] * n
        self.passed: list[bool] = [False] * n
        self.card: Card | None = None
        self.ending_card: Card | None = None
        self.red = 0
        self.auctions = 0
        self.starter = 0
        self.current: int | None = 0
        self.phase = "bid"  # "bid" | "discard" | "over"
        self._reveal(0, None)

    @classmethod
    def _blank(cls, game: HighSocietyGame, players: int, seed: int, options: dict[str, Any]) -> HighSocietyState:
        """A state with the base fields set and no deal (nothing drawn): the sampler fills in the rest."""
        state = object.__new__(cls)
        state.game, state.players, state.seed, state.options = game, players, seed, options  # rng: made from seed
        state.history = []
        return state

    def _reveal(self, starter: int, say: list[str] | None) -> None:
        """Start the next auction (RULES.md "An auction" 1-2); the fourth red-ring card ends the game unauctioned."""
        card = self.deck.pop(0)
        self.passed = [False] * self.players
        self.starter = starter
        if card in RED_RING:
            self.red += 1
        if self.red >= RED_TO_END:
            self.card, self.ending_card, self.current, self.phase = None, card, None, "over"
            if say is not None:
                say.append(f"seat {starter} reveals {card_name(card)}, the fourth red-ring card: the game ends")
                say += self._final_lines()
            return
        self.card, self.current, self.phase = card, starter, "bid"
        self.auctions += 1
        if say is not None:
            say.append(f"auction {self.auctions}: seat {starter} reveals {card_name(card)}")

    # ----- decisions ------------------------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == "over"

    def _to_move(self) -> int | None:
        return self.current

    def highest_bid(self) -> int:
        return max(map(sum, self.bids))

    def _guests_owned(self, seat: int) -> list[int]:
        return sorted({c for c in self.won[seat] if isinstance(c, int)})

    def _legal_actions(self) -> list[Action]:
        seat = self.current
        assert seat is not None
        if self.phase == "discard":
            return [{"discard": value} for value in self._guests_owned(seat)]
        legal: list[Action] = [{"pass": True}]
        hand = self.hands[seat]
        if hand:
            totals, subsets = _bids_for(tuple(hand))
            start = bisect_right(totals, self.highest_bid() - sum(self.bids[seat]))
            legal += [{"bid": list(combo)} for combo in islice(subsets, start, None)]
        return legal

    def _check(self, action: Action) -> Action:
        """Validate directly (the bid list can hold 2,047 entries); a bid's cards may come in any order."""
        seat = self.current
        assert seat is not None
        if self.phase == "discard":
            guests = self._guests_owned(seat)
            value = action.get("discard")
            if set(action) != {"discard"} or not isinstance(value, int) or isinstance(value, bool):
                raise IllegalAction(
                    f"seat {seat} took Gossip and must discard one of their guest cards: "
                    f'{{"discard": <value>}} with one of {guests}'
                )
            if value not in guests:
                raise IllegalAction(f"Gossip discards a guest card (1-10) you own: one of {guests}, not {value!r}")
            return {"discard": value}
        if set(action) == {"pass"}:
            if action["pass"] is not True:
                raise IllegalAction('a pass is written {"pass": true}')
            return {"pass": True}
        if set(action) != {"bid"}:
            raise IllegalAction(
                'during an auction the actions are {"bid": [money card values]} or {"pass": true}, '
                f"got the keys {sorted(action)}"
            )
        cards = action["bid"]
        if not isinstance(cards, list) or not cards:
            raise IllegalAction("a bid adds one or more money cards: a non-empty list of card values")
        if any(not isinstance(v, int) or isinstance(v, bool) for v in cards):
            raise IllegalAction("a bid lists money card values as integers")
        hand = list(self.hands[seat])
        for value in cards:
            if value not in hand:
                if value in self.hands[seat]:
                    raise IllegalAction(f"money card {value} is listed twice: you have one card of each value")
                raise IllegalAction(f"money card {value} is not in your hand {self.hands[seat]}")
            hand.remove(value)
        total = sum(self.bids[seat]) + sum(cards)
        highest = self.highest_bid()
        if total <= highest:
            raise IllegalAction(
                f"a bid must make your total exceed the highest bid {highest}; yours would be {total}"
                + ("" if sum(self.hands[seat]) + sum(self.bids[seat]) > highest else ", and you cannot beat it: pass")
            )
        return {"bid": sorted(cards, reverse=True)}

    # ----- effects --------------------------------------------------------------------------------------------
    # One implementation of the rules for ``apply`` and ``advance``: ``say`` collects the narration, or is None in a
    # search's simulated games (``advance``), which skip it.
    def _apply(self, action: Action) -> list[str]:
        say: list[str] = []
        self._play(action, say)
        return say

    def _advance(self, action: Action) -> None:
        # A listed action is already canonical (bids largest first), as apply would record it.
        self.history.append(action)
        self._play(action, None)

    def _play(self, action: Action, say: list[str] | None) -> None:
        seat = self.current
        assert seat is not None
        if self.phase == "discard":
            self._discard(seat, action["discard"], say)
            self._reveal(seat, say)
            return
        added = action.get("bid")
        if added is not None:
            hand, bid = self.hands[seat], self.bids[seat]
            for value in added:
                hand.remove(value)
            bid += added
            bid.sort(reverse=True)
            self.current = self._next_in(seat)
            if say is not None:
                say.append(f"seat {seat} bids {'+'.join(map(str, added))} (total {sum(bid)})")
            return
        assert self.card is not None
        if self.card in SCANDALS:
            self._end_scandal(seat, say)
            return
        self.passed[seat] = True
        if say is not None:
            say.append(f"seat {seat} passes" + (f" and takes back {sum(self.bids[seat])}" if self.bids[seat] else ""))
        self._take_back(seat)
        if self.passed.count(False) > 1:
            self.current = self._next_in(seat)
            return
        self._end_luxury(self.passed.index(False), say)

    def _next_in(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            nxt = (seat + step) % self.players
            if not self.passed[nxt]:
                return nxt
        raise AssertionError("nobody is left in the auction")

    def _take_back(self, seat: int) -> None:
        if self.bids[seat]:
            hand = self.hands[seat]
            hand += self.bids[seat]
            hand.sort(reverse=True)
            self.bids[seat] = []

    def _pay(self, seat: int) -> None:
        spent = self.spent[seat]
        spent += self.bids[seat]
        spent.sort(reverse=True)
        self.bids[seat] = []

    def _end_luxury(self, winner: int, say: list[str] | None) -> None:
        """The last player in takes the card and pays their bid, nothing if they never bid (RULES.md "An auction" 4)."""
        card = self.card
        assert card is not None
        if say is not None:
            say.append(f"seat {winner} wins {card_name(card)} for {sum(self.bids[winner])}")
        self._pay(winner)
        self.won[winner].append(card)
        self.card = None
        if isinstance(card, int) and self.pending[winner]:
            # A waiting Gossip takes the next guest its owner wins; prestige cards never (RULES.md "An auction" 6).
            self.pending[winner] = False
            self._discard(winner, card, say)
        self._reveal(winner, say)

    def _end_scandal(self, taker: int, say: list[str] | None) -> None:
        """The first pass ends a scandal auction: the passer takes the card and their bid back, everyone else pays
        (RULES.md "An auction" 5)."""
        card = self.card
        assert card is not None
        if say is not None:
            line = f"seat {taker} passes and takes {card_name(card)}"
            say.append(line + (f", taking back {sum(self.bids[taker])}" if self.bids[taker] else ""))
        self._take_back(taker)
        for seat in range(self.players):
            if self.bids[seat]:
                if say is not None:
                    say.append(f"seat {seat} loses the {sum(self.bids[seat])} they bid")
                self._pay(seat)
        self.won[taker].append(card)
        self.card = None
        if card == GOSSIP:
            if any(isinstance(c, int) for c in self.won[taker]):
                self.phase, self.current = "discard", taker
                if say is not None:
                    say.append(f"seat {taker} must discard one of their guests with the Gossip")
                return
            self.pending[taker] = True
            if say is not None:
                say.append(f"seat {taker} owns no guest: the Gossip will take the next guest they win")
        self._reveal(taker, say)

    def _discard(self, seat: int, value: int, say: list[str] | None) -> None:
        self.won[seat].remove(value)
        self.won[seat].remove(GOSSIP)
        self.discarded += [value, GOSSIP]
        if say is not None:
            say.append(f"seat {seat} discards guest {value} and the Gossip")

    # ----- scoring --------------------------------------------------------------------------------------------
    def money_left(self) -> list[int]:
        return [sum(hand) for hand in self.hands]

    def cast_out(self) -> list[bool]:
        """The player or players with the least money are cast out (RULES.md "Scoring" 1), all of them on a full tie."""
        money = self.money_left()
        return [m == min(money) for m in money]

    def scores(self) -> list[Fraction]:
        return [score(cards) for cards in self.won]

    def _tiebreak(self, seat: int) -> tuple[Fraction, int, int]:
        # RULES.md "Scoring" 3: score, then money left, then the highest single guest card.
        return (score(self.won[seat]), sum(self.hands[seat]), max(self._guests_owned(seat), default=0))

    def _outcome(self) -> Outcome:
        out = self.cast_out()
        keys = [(0, Fraction(0), 0, 0) if out[seat] else (1, *self._tiebreak(seat)) for seat in range(self.players)]
        return Outcome(scores=[score_json(s) for s in self.scores()], ranks=ranks_from_keys(keys))

    def _final_lines(self) -> list[str]:
        money, out, scores = self.money_left(), self.cast_out(), self.scores()
        lines = ["money left: " + ", ".join(f"seat {s} {m}" for s, m in enumerate(money))]
        if all(out):
            lines.append("every player ties for the least money: all are cast out and the game is a draw")
        else:
            lines.append("cast out (least money): " + ", ".join(f"seat {s}" for s in range(self.players) if out[s]))
        lines.append("scores: " + ", ".join(f"seat {s} {score_json(v)}" for s, v in enumerate(scores)))
        return lines

    # ----- views ----------------------------------------------------------------------------------------------
    def _public_view(self) -> dict[str, Any]:
        view: dict[str, Any] = {
            "players": self.players,
            "phase": self.phase,
            "to_move": self.current,
            "auction": self.auctions,
            "starter": self.starter,
            "card": None if self.card is None else card_json(self.card),
            "highest_bid": self.highest_bid(),
            "money_of": [hand[:] for hand in self.hands],
            "bids": [bid[:] for bid in self.bids],
            "spent": [cards[:] for cards in self.spent],
            "won": [[card_json(c) for c in cards] for cards in self.won],
            "discarded": [card_json(c) for c in self.discarded],
            "red_revealed": self.red,
            "deck_left": len(self.deck),
            "passed": self.passed[:],
            "pending_discard": self.pending[:],
            "ending_card": None if self.ending_card is None else card_json(self.ending_card),
            "result": None,
        }
        if self.phase == "over":
            view["result"] = {
                "money_left": self.money_left(),
                "cast_out": self.cast_out(),
                "scores": [score_json(s) for s in self.scores()],
            }
        return view

    def _observation(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "money": self.hands[seat][:], **self._public_view()}

    def _full_view(self) -> dict[str, Any]:
        return {**self._public_view(), "deck": [card_json(c) for c in self.deck]}

    # ----- the forward model ----------------------------------------------------------------------------------
    def _clone(self) -> Self:
        """A field copy. Shared with the original: the immutable fields, the options (read-only set-up), the recorded
        actions (never changed once recorded; the list of them is copied) and, until either state reads ``rng``, the
        generator (``State._field_copy``)."""
        new = self._field_copy()
        fields = new.__dict__
        fields["history"] = self.history[:]
        fields["deck"] = self.deck[:]
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["bids"] = [bid[:] for bid in self.bids]
        fields["spent"] = [cards[:] for cards in self.spent]
        fields["won"] = [cards[:] for cards in self.won]
        fields["discarded"] = self.discarded[:]
        fields["pending"] = self.pending[:]
        fields["passed"] = self.passed[:]
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # The clone, with the recorded actions copied too: nothing shared but the Game singleton.
        new = self._clone()
        new.options = copy_json(self.options)
        new.history = [copy_json(action) for action in self.history]
        return new

    def perturb_hidden(self, observer: int, rng: random.Random) -> State | None:
        """Only the order of the status deck is hidden, from every seat alike: reorder it."""
        if len(set(self.deck)) < 2:
            return None
        other = copy.deepcopy(self)
        while other.deck == self.deck:
            rng.shuffle(other.deck)
        return other


class HighSocietyGame(Game):
    spec = GameSpec(
        id="high_society",
        title="High Society",
        min_players=3,
        max_players=5,
        version="1",
        observation=declaration.Observation,
        action=declaration.Action,
        hidden="The order of the status deck (the same for every seat).",
        chance="The status deck is shuffled.",
        score=(
            "Prestige points; the seats cast out (the least money left) rank below all "
            "others, and ties go to more money left, then the highest guest."
        ),
        summary=(
            "Reiner Knizia's auction game. Status cards are revealed one at a time: players bid money cards for "
            "guests (worth 1-10) and prestige guests (x2), and bid to avoid scandals (Gossip discards a guest, "
            "Faux pas -5, Fraud halves the score), where the first to pass takes the scandal and everyone else "
            "loses their bid. The game ends when the fourth red-ring card appears; the player or players with the "
            "least money left are cast out, and the highest score among the rest wins."
        ),
        options_schema={
            "deck": {
                "type": ["array", "null"],
                "description": (
                    "the whole status deck, top first: 16 cards in the observation format - guests "
                    '{"kind": "guest", "value": 1..10}, three {"kind": "prestige"} and the scandals '
                    '{"kind": "scandal", "effect": "discard" | "minus5" | "halve"}; default: shuffled'
                ),
                "default": None,
            }
        },
    )
    state_class = HighSocietyState

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        unknown = set(options) - {"deck"}
        if unknown:
            raise InvalidOptions(f"High Society has no option(s) {sorted(unknown)}; it takes only 'deck'")
        deck = options.get("deck")
        if deck is not None:
            if not isinstance(deck, list):
                raise InvalidOptions("the deck option is a list of 16 status cards, top first")
            try:
                cards = [card_from_json(card) for card in deck]
            except ValueError as error:
                raise InvalidOptions(f"deck: {error}") from None
            if sorted(map(str, cards)) != sorted(map(str, STATUS_DECK)):
                raise InvalidOptions(
                    "the deck must hold exactly the 16 status cards: guests 1-10 once each, three prestige "
                    "and one of each scandal (discard, minus5, halve)"
                )
            deck = [card_json(card) for card in cards]
        return {"deck": deck}


GAME = HighSocietyGame()
