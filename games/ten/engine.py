"""TEN rules engine (spec: shared/rules/ten.md).

Cards are kept internally as ids into a per-game catalogue of faces ``(kind, colour, value, pips)``; ids are
assigned in a canonical order (number cards by colour and value, then wilds, then currency), so the same id always
means the same card for a given player count and options. Bots see cards in the observation format
``{"id", "kind": "number", "colour", "value"}``, ``{"id", "kind": "currency", "pips"}`` or
``{"id", "kind": "wild", "colour": str | None, "value": int | None}``.

Payments (spec: Paying) that use number cards from a collection are listed by ``legal_actions`` as templates whose
``cards`` list holds one ``null`` per card to give: the number of ways to choose them is far too large to list. A bot
fills each ``null`` with the id of a distinct number card in its own collection.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Self

from games.base import Action, Game, GameSpec, IllegalAction, InvalidOptions, Outcome, State, is_int

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
VALUES: tuple[int, ...] = tuple(range(1, 10))
NUMBER, WILD, CURRENCY = "number", "wild", "currency"
PHASES = ("flip", "auction", "pay", "buy", "final_buy", "over")

# The spec's limit the game is named after (spec: A turn 1, Fiasko): a total or the pips alone above this bust.
LIMIT = 10
FIASCO_WORTH = 3  # spec: Components / Paying

# Number cards per colour in the full (4-5 player) deck: 1-6 three times, 7-9 once (spec: Components).
BASE_NUMBER_COPIES: dict[int, int] = {v: (3 if v <= 6 else 1) for v in VALUES}
COLOUR_WILDS_PER_COLOUR = 2

DEFAULT_CURRENCY = {"1": 7, "2": 6, "3": 6, "4": 4, "5": 4}
DEFAULT_MARKS_FOUR_PLUS = {"numbers": [1, 2, 3, 4, 5, 6], "currency": [1, 1, 2, 2, 3, 3]}
DEFAULT_MARKS_THREE = {"numbers": [1, 2, 3], "currency": [1, 2, 3, 4, 5]}
DEFAULT_COIN_CAP = 10
DEFAULT_START_COINS = 5
MAX_PIPS = 9

Face = tuple[str, str | None, int | None, int | None]  # (kind, colour, value, pips)


# ----- cards ---------------------------------------------------------------------------------------------------------
def face_json(face: Face) -> dict[str, Any]:
    kind, colour, value, pips = face
    if kind == CURRENCY:
        return {"kind": CURRENCY, "pips": pips}
    return {"kind": kind, "colour": colour, "value": value}


def face_name(face: Face) -> str:
    kind, colour, value, pips = face
    if kind == NUMBER:
        return f"{colour} {value}"
    if kind == CURRENCY:
        return f"currency {pips}"
    if colour is not None:
        return f"{colour} colour-wild"
    if value is not None:
        return f"number-wild {value}"
    return "full wild"


def face_from_json(value: Any) -> Face:
    """The face of a card in the observation format (an optional ``id`` is ignored here); ``ValueError`` else."""
    if not isinstance(value, dict):
        raise ValueError(f"{value!r} is not a card object")
    fields = {k: v for k, v in value.items() if k != "id"}
    kind = fields.get("kind")

    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if kind == NUMBER and set(fields) == {"kind", "colour", "value"}:
        if fields["colour"] in COLOURS and is_int(fields["value"]) and fields["value"] in VALUES:
            return (NUMBER, fields["colour"], fields["value"], None)
    elif kind == CURRENCY and set(fields) == {"kind", "pips"}:
        if is_int(fields["pips"]) and 1 <= fields["pips"] <= MAX_PIPS:
            return (CURRENCY, None, None, fields["pips"])
    elif kind == WILD and set(fields) == {"kind", "colour", "value"}:
        colour, number = fields["colour"], fields["value"]
        if colour is None and number is None:
            return (WILD, None, None, None)
        if colour in COLOURS and number is None:
            return (WILD, colour, None, None)
        if colour is None and is_int(number) and number in VALUES:
            return (WILD, None, number, None)
    raise ValueError(f"{value!r} is not a TEN card")


def build_catalogue(players: int, options: dict[str, Any]) -> list[Face]:
    """The faces of the deck for ``players``, in canonical id order (spec: Components, player-count marks)."""
    removed_numbers: list[int] = []
    removed_currency: list[int] = []
    if players < 4:
        removed_numbers += options["marks_four_plus"]["numbers"]
        removed_currency += options["marks_four_plus"]["currency"]
    if players < 3:
        removed_numbers += options["marks_three"]["numbers"]
        removed_currency += options["marks_three"]["currency"]
    faces: list[Face] = []
    for colour in COLOURS:
        for value in VALUES:
            faces += [(NUMBER, colour, value, None)] * (BASE_NUMBER_COPIES[value] - removed_numbers.count(value))
    for colour in COLOURS:
        faces += [(WILD, colour, None, None)] * COLOUR_WILDS_PER_COLOUR
    faces += [(WILD, None, value, None) for value in VALUES]
    faces.append((WILD, None, None, None))
    for pips_key, count in sorted(options["currency_cards"].items(), key=lambda item: int(item[0])):
        faces += [(CURRENCY, None, None, int(pips_key))] * (count - removed_currency.count(int(pips_key)))
    return faces


# ----- scoring (spec: End and scoring 2) -----------------------------------------------------------------------------
def _run_points(length: int) -> int:
    return LIMIT if length == len(VALUES) else length


_INTERVALS: tuple[tuple[int, int], ...] = tuple(
    (sum(1 << (v - 1) for v in range(a, b + 1)), _run_points(b - a + 1)) for a in VALUES for b in range(a, 10)
)


@lru_cache(maxsize=1 << 14)
def _colour_options(have: int, colour_wilds: int, number_wilds: int, full: int) -> tuple[tuple[int, int, int], ...]:
    """The ways one colour can score: (points, number-wilds used as a bit mask, full wilds used), dominated ones
    dropped. Colour-wilds fill the gaps that no number-wild could, so they never need choosing."""
    options: list[tuple[int, int, int]] = [(0, 0, 0)]
    for mask, points in _INTERVALS:
        need = mask & ~have
        short = need.bit_count() - colour_wilds
        if short <= 0:
            options.append((points, 0, 0))
            continue
        usable = need & number_wilds
        if usable.bit_count() + full < short:
            continue
        sub = usable
        while True:
            fill = short - sub.bit_count()
            if 0 <= fill <= full:
                options.append((points, sub, fill))
            if sub == 0:
                break
            sub = (sub - 1) & usable
    options.sort(key=lambda o: (-o[0], o[1].bit_count(), o[2]))
    kept: list[tuple[int, int, int]] = []
    for points, sub, fill in options:
        if not any(sub & k_sub == k_sub and fill >= k_fill for _p, k_sub, k_fill in kept):
            kept.append((points, sub, fill))
    return tuple(kept)


@lru_cache(maxsize=1 << 16)
def _best_score(present: tuple[int, ...], colour_wilds: tuple[int, ...], number_wilds: int, full: int) -> int:
    """The best total over colours of longest-run points, wilds assigned to maximise it.

    ``present`` and ``number_wilds`` are bit masks of values (bit v-1). A dynamic programme over the colours whose
    state is which number-wilds and how many full wilds are already used: those are the only wilds that colours
    compete for (a colour-wild only ever helps its own colour)."""
    per_colour = [
        _colour_options(have, wilds, number_wilds, full) for have, wilds in zip(present, colour_wilds, strict=True)
    ]
    # The sum of each colour's own best is an upper bound; when those bests share no wild it is the answer.
    used = fused = 0
    for options in per_colour:
        _gain, sub, fill = options[0]
        if sub & used:
            break
        used, fused = used | sub, fused + fill
    else:
        if fused <= full:
            return sum(options[0][0] for options in per_colour)
    states: dict[tuple[int, int], int] = {(0, 0): 0}
    last = len(present) - 1
    for c, options in enumerate(per_colour):
        if len(options) == 1 or (options[0][1] == 0 and options[0][2] == 0):
            # The best run needs no shared wild: nothing to choose.
            best = options[0][0]
            states = {key: points + best for key, points in states.items()}
            continue
        if c == last:
            # Options come best first: each state only needs the first one it can still afford.
            return max(
                points + next(gain for gain, sub, fill in options if not sub & used and fused + fill <= full)
                for (used, fused), points in states.items()
            )
        nxt: dict[tuple[int, int], int] = {}
        for (used, fused), points in states.items():
            for gain, sub, fill in options:
                if sub & used or fused + fill > full:
                    continue
                key = (used | sub, fused + fill)
                if nxt.get(key, -1) < points + gain:
                    nxt[key] = points + gain
        states = nxt
    return max(states.values())


def score_faces(faces: list[Face]) -> int:
    """The score of a collection given as faces."""
    present = [0] * len(COLOURS)
    colour_wilds = [0] * len(COLOURS)
    number_wilds = 0
    full = 0
    for kind, colour, value, _pips in faces:
        if kind == NUMBER:
            present[COLOURS.index(colour)] |= 1 << (value - 1)  # type: ignore[operator]  # a number has a value
        elif kind == WILD:
            if colour is not None:
                colour_wilds[COLOURS.index(colour)] += 1
            elif value is not None:
                number_wilds |= 1 << (value - 1)
            else:
                full += 1
    return _best_score(tuple(present), tuple(colour_wilds), number_wilds, full)


def score_cards(cards: list[dict[str, Any]]) -> int:
    """The score of a collection of cards in the observation format (for bots and tests)."""
    return score_faces([face_from_json(card) for card in cards])


# ----- paying (spec: Paying) -----------------------------------------------------------------------------------------
def payment_options(price: int, coins: int, fiasco: int, cards: int) -> list[tuple[int, int, int]]:
    """Every legal payment as (black tokens, fiasco tokens, number of collection cards), fewest cards first.

    A payment is legal when it reaches the price and dropping any single unit would leave it short: it is exact,
    or it is fiasco tokens alone, as few as reach the price (no change is given)."""
    out: list[tuple[int, int, int]] = []
    most_fiasco = -(-price // FIASCO_WORTH)
    for k in range(0, min(cards, price) + 1):
        for f in range(0, min(fiasco, most_fiasco) + 1):
            rest = price - FIASCO_WORTH * f - k
            if k == 0 and rest <= 0:
                if f == most_fiasco:
                    out.append((0, f, 0))
            elif 0 <= rest <= coins:
                out.append((rest, f, k))
    return out


def payment_is_minimal(price: int, coins: int, fiasco: int, cards: int) -> bool:
    paid = coins + FIASCO_WORTH * fiasco + cards
    if coins + cards > 0:
        return paid == price
    return paid >= price and paid - FIASCO_WORTH < price


# ----- the state -----------------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def card_table(faces: tuple[Face, ...]) -> tuple[dict[str, Any], ...]:
    """Each card of a catalogue in the observation format, built once and shared by every view (read-only)."""
    return tuple({"id": cid, **face_json(face)} for cid, face in enumerate(faces))


class TenState(State):
    faces: tuple[Face, ...]
    deck: list[int]  # top of the deck is the LAST element (pop() flips it)

    # ----- setup -----
    def _setup(self) -> None:
        self.faces = tuple(build_catalogue(self.players, self.options))
        self.card_json = card_table(self.faces)
        self.currency_pips = sorted({pips for kind, _, _, pips in self.faces if kind == CURRENCY and pips is not None})
        self._scores: list[int | None] = [None] * self.players  # per seat, dropped when a collection changes
        self._counts: tuple[int, dict[str, Any]] | None = None  # deck contents, kept while the deck keeps its size
        self.cap: int = self.options["coin_cap"]
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
        self.flipped = False  # the first flip of a turn is compulsory (spec: A turn 1)
        self.auction: dict[str, Any] | None = None
        self.final_order: list[int] = []
        # The bank is unlimited; these counters let tests prove that tokens only move by the rules.
        self.ledger = {"black_out": 0, "black_in": 0, "fiasco_out": 0, "fiasco_in": 0}

    # ----- small helpers -----
    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # The catalogue and its card table are immutable and shared by every state of the same deck.
        memo[id(self.faces)] = self.faces
        memo[id(self.card_json)] = self.card_json
        return super().__deepcopy__(memo)

    def _copy(self) -> TenState:
        """A fast copy for ``perturb_hidden`` (called at every decision by the conformance suite)."""
        new = object.__new__(TenState)
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
        """All a seat can pay: black tokens, fiasco tokens and number cards (spec: Paying)."""
        return self.coins[seat] + FIASCO_WORTH * self.fiasco[seat] + len(self._number_cards(seat))

    def _gain(self, seat: int, amount: int) -> int:
        got = max(0, min(amount, self.cap - self.coins[seat]))  # spec: Limits
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

    # ----- hooks -----
    def _to_move(self) -> int | None:
        if self.phase in ("flip", "buy"):
            return self.active
        if self.phase == "auction":
            assert self.auction is not None
            bidder: int = self.auction["order"][self.auction["turn"]]
            return bidder
        if self.phase == "pay":
            assert self.auction is not None
            payer: int = self.auction["high_bidder"]
            return payer
        if self.phase == "final_buy":
            return self.final_order[0]
        return None

    def is_over(self) -> bool:
        return self.phase == "over"

    def _pay_actions(self, seat: int, price: int) -> list[dict[str, Any]]:
        return [
            {"coins": c, "fiasco": f, "cards": [None] * k}
            for c, f, k in payment_options(price, self.coins[seat], self.fiasco[seat], len(self._number_cards(seat)))
        ]

    def _legal_actions(self) -> list[Action]:
        seat = self._to_move()
        assert seat is not None
        if self.phase == "flip":
            if not self.flipped:
                return [{"flip": True}]
            out: list[Action] = [{"flip": True}] if self.deck else []
            return [*out, {"stop": "numbers"}, {"stop": "coins"}]
        if self.phase == "auction":
            assert self.auction is not None
            low = (self.auction["high"] or 0) + 1
            return [{"pass": True}] + [{"bid": b} for b in range(low, self._purse(seat) + 1)]
        if self.phase == "pay":
            assert self.auction is not None
            return [{"pay": pay} for pay in self._pay_actions(seat, self.auction["high"])]
        # buy / final_buy
        out = [{"buy": None}]
        for cid in self.market:
            for pay in self._pay_actions(seat, self.faces[cid][2] or 0):
                out.append({"buy": cid, "pay": pay})
        return out

    def _check_payment(self, seat: int, price: int, pay: Any) -> dict[str, Any]:
        """Validate a payment (spec: Paying) and return it in canonical form (card ids sorted)."""
        if not isinstance(pay, dict) or set(pay) != {"coins", "fiasco", "cards"}:
            raise IllegalAction('a payment is an object {"coins": int, "fiasco": int, "cards": [card ids]}')
        coins, fiasco, cards = pay["coins"], pay["fiasco"], pay["cards"]
        if not is_int(coins) or not is_int(fiasco) or not isinstance(cards, list):
            raise IllegalAction("a payment's coins and fiasco are integers and its cards a list of card ids")
        if coins < 0 or fiasco < 0:
            raise IllegalAction("a payment cannot hold a negative number of tokens")
        if coins > self.coins[seat]:
            raise IllegalAction(f"seat {seat} has only {self.coins[seat]} black tokens, not {coins}")
        if fiasco > self.fiasco[seat]:
            raise IllegalAction(f"seat {seat} has only {self.fiasco[seat]} fiasco tokens, not {fiasco}")
        if any(cid is None for cid in cards):
            raise IllegalAction("fill in the payment's card template: replace each null by a card id")
        if not all(is_int(cid) for cid in cards) or len(set(cards)) != len(cards):
            raise IllegalAction("a payment's cards are distinct card ids")
        own = set(self.collections[seat])
        for cid in cards:
            if cid not in own:
                raise IllegalAction(f"card {cid} is not in seat {seat}'s collection")
            if self.faces[cid][0] != NUMBER:
                raise IllegalAction("wild cards cannot pay; only number cards from a collection can")
        if coins + FIASCO_WORTH * fiasco + len(cards) < price:
            raise IllegalAction(f"the payment does not reach the price of {price}")
        if not payment_is_minimal(price, coins, fiasco, len(cards)):
            raise IllegalAction(
                f"the payment overpays a price of {price}: no change is given, so a payment may not hold a unit "
                "that it could do without"
            )
        return {"coins": coins, "fiasco": fiasco, "cards": sorted(cards)}

    def _check(self, action: Action) -> Action:
        seat = self._to_move()
        assert seat is not None
        keys = set(action)
        if self.phase == "flip":
            if keys == {"flip"} and action["flip"] is True:
                if not self.deck:
                    raise IllegalAction("the deck is empty: stop and take a reward")
                return {"flip": True}
            if keys == {"stop"} and action["stop"] in ("numbers", "coins"):
                if not self.flipped:
                    raise IllegalAction("the first flip of a turn is compulsory")
                return {"stop": action["stop"]}
            raise IllegalAction(
                f'now seat {seat} flips or stops: {{"flip": true}}, {{"stop": "numbers"}} or {{"stop": "coins"}}'
            )
        if self.phase == "auction":
            assert self.auction is not None
            if keys == {"pass"} and action["pass"] is True:
                return {"pass": True}
            if keys == {"bid"} and is_int(action["bid"]):
                bid = action["bid"]
                high = self.auction["high"]
                if bid < 1:
                    raise IllegalAction("a bid is a whole number of at least 1")
                if high is not None and bid <= high:
                    raise IllegalAction(f"a bid must be higher than the highest bid so far ({high})")
                if bid > self._purse(seat):
                    raise IllegalAction(f"a bid may not exceed what the bidder can pay ({self._purse(seat)})")
                return {"bid": bid}
            raise IllegalAction('during an auction, bid once {"bid": n} or pass {"pass": true}')
        if self.phase == "pay":
            assert self.auction is not None
            if keys == {"pay"}:
                return {"pay": self._check_payment(seat, self.auction["high"], action["pay"])}
            raise IllegalAction(f'seat {seat} won the auction and must pay {self.auction["high"]}: {{"pay": {{...}}}}')
        # buy / final_buy
        if keys == {"buy"} and action["buy"] is None:
            return {"buy": None}
        if keys == {"buy", "pay"} and is_int(action["buy"]):
            cid = action["buy"]
            if cid not in self.market:
                raise IllegalAction(f"card {cid} is not in the market")
            value = self.faces[cid][2]
            assert value is not None
            return {"buy": cid, "pay": self._check_payment(seat, value, action["pay"])}
        if self.phase == "buy" and keys & {"flip", "stop", "bid", "pass"}:
            raise IllegalAction("after taking the numbers the turn goes on with buying: buy one card or none")
        raise IllegalAction('buy one market card {"buy": id, "pay": {...}} or none {"buy": null}')

    # ----- applying -----
    def _apply(self, action: Action) -> list[str]:
        seat = self._to_move()
        assert seat is not None
        if "flip" in action:
            return self._flip()
        if "stop" in action:
            return self._stop(action["stop"])
        if "bid" in action or "pass" in action:
            return self._bid(seat, action.get("bid"))
        if "pay" in action and "buy" not in action:
            return self._settle_auction(seat, action["pay"])
        return self._buy(seat, action["buy"], action.get("pay"))

    def _flip(self) -> list[str]:
        cid = self.deck.pop()
        self.flipped = True
        kind, _colour, value, pips = self.faces[cid]
        lines = [f"seat {self.active} flips {self._name(cid)}"]
        if kind == WILD:
            order = [(self.active + 1 + i) % self.players for i in range(self.players)]
            self.auction = {"card": cid, "bids": [None] * self.players, "high": None, "high_bidder": None}
            self.auction["order"], self.auction["turn"] = order, 0
            self.phase = "auction"
            lines.append(f"the {self._name(cid)} is auctioned at once, seat {order[0]} bids first")
            if not self.deck:
                lines.append("that was the last card of the deck: the game ends after this turn")
            return lines
        self.play_area.append(cid)
        if kind == NUMBER:
            assert value is not None
            self.total += value
            lines[0] += f": total {self.total}"
            if self.total > LIMIT:
                return lines + self._fiasco(by_number=True)
        else:
            assert pips is not None
            self.total -= pips
            self.pips += pips
            lines[0] += f": total {self.total}, pips {self.pips}"
            if self.pips > LIMIT:
                return lines + self._fiasco(by_number=False)
        if not self.deck:
            lines.append("that was the last card of the deck: the game ends after this turn")
        return lines

    def _clear_play_area(self, numbers_to: list[int]) -> None:
        for cid in self.play_area:
            (numbers_to if self.faces[cid][0] == NUMBER else self.discard).append(cid)
        self.play_area = []
        self.total = 0
        self.pips = 0

    def _others_gain(self, amount: int) -> list[str]:
        lines = []
        for offset in range(1, self.players):
            other = (self.active + offset) % self.players
            got = self._gain(other, amount)
            if amount:
                lines.append(f"seat {other} takes {got} black token(s)")
        return lines

    def _fiasco(self, by_number: bool) -> list[str]:
        """Spec: Fiasko (a) a number takes the total over ten, (b) currency takes the pips alone over ten."""
        lines = [f"fiasko! seat {self.active} takes a fiasco token"]
        self.fiasco[self.active] += 1
        self.ledger["fiasco_out"] += 1
        pips = self.pips
        self._clear_play_area(self.market)
        self.market.sort()
        if by_number:
            lines += self._others_gain(pips)
        return lines + self._end_turn()

    def _stop(self, reward: str) -> list[str]:
        pips = self.pips
        if reward == "numbers":
            collection = self.collections[self.active]
            taken = [self._name(cid) for cid in self.play_area if self.faces[cid][0] == NUMBER]
            self._clear_play_area(collection)
            collection.sort()
            self._scores[self.active] = None
            lines = [f"seat {self.active} stops and takes the numbers: {', '.join(taken) or 'none'}"]
            lines += self._others_gain(pips)
            self.phase = "buy"
            return lines
        got = self._gain(self.active, pips)
        self._clear_play_area(self.market)
        self.market.sort()
        return [f"seat {self.active} stops and takes {got} black token(s)", *self._end_turn()]

    def _end_turn(self) -> list[str]:
        self.flipped = False
        self.auction = None
        if not self.deck:
            self.final_order = [(self.active + 1 + i) % self.players for i in range(self.players)]
            self.phase = "final_buy"
            return ["the deck is empty: every player may buy one more card, in turn"]
        self.active = (self.active + 1) % self.players
        self.phase = "flip"
        return [f"seat {self.active}'s turn"]

    def _bid(self, seat: int, bid: int | None) -> list[str]:
        auction = self.auction
        assert auction is not None
        if bid is None:
            auction["bids"][seat] = "pass"
            lines = [f"seat {seat} passes"]
        else:
            auction["bids"][seat] = bid
            auction["high"], auction["high_bidder"] = bid, seat
            lines = [f"seat {seat} bids {bid}"]
        auction["turn"] += 1
        if auction["turn"] < self.players:
            return lines
        cid = auction["card"]
        if auction["high_bidder"] is None:
            # Platform rule (spec: Auction): nobody bid, the wild is discarded.
            self.discard.append(cid)
            self.auction = None
            self.phase = "flip"
            return [*lines, f"nobody bids: the {self._name(cid)} is discarded"]
        self.phase = "pay"
        return [*lines, f"seat {auction['high_bidder']} wins the {self._name(cid)} for {auction['high']}"]

    def _pay(self, seat: int, pay: dict[str, Any]) -> str:
        self.coins[seat] -= pay["coins"]
        self.fiasco[seat] -= pay["fiasco"]
        self.ledger["black_in"] += pay["coins"]
        self.ledger["fiasco_in"] += pay["fiasco"]
        for cid in pay["cards"]:
            # Cards given in payment leave the collection for the discard pile.
            self.collections[seat].remove(cid)
            self.discard.append(cid)
        self._scores[seat] = None
        parts = []
        if pay["coins"]:
            parts.append(f"{pay['coins']} black")
        if pay["fiasco"]:
            parts.append(f"{pay['fiasco']} fiasco")
        if pay["cards"]:
            parts.append(", ".join(self._name(cid) for cid in pay["cards"]))
        return "; ".join(parts)

    def _settle_auction(self, seat: int, pay: dict[str, Any]) -> list[str]:
        auction = self.auction
        assert auction is not None
        paid = self._pay(seat, pay)
        self.collections[seat].append(auction["card"])
        self.collections[seat].sort()
        self._scores[seat] = None
        self.auction = None
        self.phase = "flip"
        return [f"seat {seat} pays {paid} and takes the {self._name(auction['card'])}"]

    def _buy(self, seat: int, cid: int | None, pay: dict[str, Any] | None) -> list[str]:
        if cid is None:
            lines = [f"seat {seat} buys nothing"]
        else:
            assert pay is not None
            paid = self._pay(seat, pay)
            self.market.remove(cid)
            self.collections[seat].append(cid)
            self.collections[seat].sort()
            self._scores[seat] = None
            lines = [f"seat {seat} buys {self._name(cid)} for {paid}"]
        if self.phase == "buy":
            return lines + self._end_turn()
        self.final_order.pop(0)
        if not self.final_order:
            self.phase = "over"
            scores = [self.score(s) for s in range(self.players)]
            lines.append("game over: scores " + ", ".join(f"seat {s} {p}" for s, p in enumerate(scores)))
        return lines

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
        # Platform rule (spec: End and scoring 3): ties go to more black tokens, then more fiasco tokens.
        return Outcome.from_scores(scores, [(self.coins[s], self.fiasco[s]) for s in range(self.players)])

    def perturb_hidden(self, observer: int, rng: random.Random) -> State | None:
        # Only the deck order is hidden (spec: Information), from every seat alike.
        if len(self.deck) < 2:
            return None
        other = self._copy()
        i, j = rng.sample(range(len(other.deck)), 2)
        other.deck[i], other.deck[j] = other.deck[j], other.deck[i]
        return other


# ----- the game ------------------------------------------------------------------------------------------------------
def _check_int(name: str, value: Any, low: int, high: int) -> int:
    if not is_int(value) or not low <= value <= high:
        raise InvalidOptions(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _check_marks(name: str, value: Any) -> dict[str, list[int]]:
    if not isinstance(value, dict) or set(value) != {"numbers", "currency"}:
        raise InvalidOptions(f'{name} is an object {{"numbers": [values], "currency": [pips]}}')
    numbers, currency = value["numbers"], value["currency"]
    if not isinstance(numbers, list) or not all(is_int(v) and v in VALUES for v in numbers):
        raise InvalidOptions(f"{name}.numbers is a list of values 1-9 (one card of that value in every colour)")
    if not isinstance(currency, list) or not all(is_int(p) and 1 <= p <= MAX_PIPS for p in currency):
        raise InvalidOptions(f"{name}.currency is a list of currency cards' pips")
    return {"numbers": sorted(numbers), "currency": sorted(currency)}


class TenGame(Game):
    spec = GameSpec(
        id="ten",
        title="TEN",
        min_players=2,
        max_players=5,
        version="1",
        summary=(
            "A press-your-luck card game (AEG, 2021). On your turn flip cards one by one: numbers add to a total, "
            "currency cards subtract their pips. Stop before the total passes ten (or the pips alone do) and take "
            "either the number cards for your collection, or black tokens for the pips; bust and you get only a "
            "fiasco token. Wild cards are auctioned the moment they appear, and after taking the numbers you may "
            "buy one card from the market. When the deck runs out each colour scores its longest run of "
            "consecutive numbers (a full 1-9 run scores 10)."
        ),
        options_schema={
            "deck": {
                "type": "array",
                "description": (
                    "the whole deck for the player count, top first, each card in the observation format "
                    '({"kind": "number", "colour", "value"}, {"kind": "currency", "pips"}, {"kind": "wild", '
                    '"colour": colour|null, "value": 1-9|null}); "id" may be left out; default: shuffled'
                ),
                "default": None,
            },
            "coin_cap": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": DEFAULT_COIN_CAP,
                "description": "most black tokens a player may hold; tokens beyond it are not taken",
            },
            "start_coins": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "default": DEFAULT_START_COINS,
                "description": "black tokens each player starts with (at most coin_cap)",
            },
            "currency_cards": {
                "type": "object",
                "description": (
                    "Platform rule: the currency cards of the full deck, pips (a string '1'..'9') to count; "
                    "they must include every currency card the player-count marks remove"
                ),
                "default": DEFAULT_CURRENCY,
            },
            "marks_four_plus": {
                "type": "object",
                "description": (
                    'Platform rule: the cards marked "4+", removed with 2-3 players: "numbers" lists values of '
                    'which one card is removed in every colour, "currency" lists the pips of removed currency cards'
                ),
                "default": DEFAULT_MARKS_FOUR_PLUS,
            },
            "marks_three": {
                "type": "object",
                "description": 'Platform rule: the cards marked "3", also removed with 2 players (same shape)',
                "default": DEFAULT_MARKS_THREE,
            },
        },
    )
    state_class = TenState

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        known = set(self.spec.options_schema)
        unknown = set(options) - known
        if unknown:
            raise InvalidOptions(f"TEN has no option(s) {sorted(unknown)}; it takes {sorted(known)}")
        cap = _check_int("coin_cap", options.get("coin_cap", DEFAULT_COIN_CAP), 1, 100)
        start = _check_int("start_coins", options.get("start_coins", DEFAULT_START_COINS), 0, cap)
        currency = options.get("currency_cards", DEFAULT_CURRENCY)
        if not isinstance(currency, dict) or not currency:
            raise InvalidOptions("currency_cards is an object mapping pips ('1'..'9') to a count")
        checked_currency: dict[str, int] = {}
        for key, count in currency.items():
            if not isinstance(key, str) or not key.isdigit() or not 1 <= int(key) <= MAX_PIPS:
                raise InvalidOptions(f"currency_cards: {key!r} is not a pips value '1'..'{MAX_PIPS}'")
            checked_currency[str(int(key))] = _check_int(f"currency_cards[{key!r}]", count, 0, 100)
        four = _check_marks("marks_four_plus", options.get("marks_four_plus", DEFAULT_MARKS_FOUR_PLUS))
        three = _check_marks("marks_three", options.get("marks_three", DEFAULT_MARKS_THREE))
        removed_numbers = four["numbers"] + three["numbers"]
        removed_currency = four["currency"] + three["currency"]
        for value in VALUES:
            if removed_numbers.count(value) > BASE_NUMBER_COPIES[value]:
                raise InvalidOptions(f"the marks remove more {value}s per colour than the deck holds")
        for pips in set(removed_currency):
            if removed_currency.count(pips) > checked_currency.get(str(pips), 0):
                raise InvalidOptions(f"the marks remove more currency {pips}s than currency_cards holds")
        checked: dict[str, Any] = {
            "coin_cap": cap,
            "start_coins": start,
            "currency_cards": dict(sorted(checked_currency.items(), key=lambda item: int(item[0]))),
            "marks_four_plus": four,
            "marks_three": three,
        }
        checked["deck"] = self._check_deck(players, checked, options.get("deck"))
        return checked

    def _check_deck(self, players: int, options: dict[str, Any], deck: Any) -> list[dict[str, Any]] | None:
        if deck is None:
            return None
        faces = build_catalogue(players, options)
        if not isinstance(deck, list):
            raise InvalidOptions(f"the deck option is a list of the {len(faces)} cards, top first")
        try:
            given = [face_from_json(card) for card in deck]
        except ValueError as error:
            raise InvalidOptions(f"deck: {error}") from None
        if sorted(given, key=repr) != sorted(faces, key=repr):
            raise InvalidOptions(
                f"the deck must hold exactly the {len(faces)} cards of a {players}-player game "
                "(see the spec's Components and player-count marks)"
            )
        ids: list[int | None] = [None] * len(deck)
        taken: set[int] = set()
        for i, card in enumerate(deck):
            if "id" in card:
                cid = card["id"]
                if not is_int(cid) or not 0 <= cid < len(faces) or faces[cid] != given[i] or cid in taken:
                    raise InvalidOptions(f"deck: card {i} has id {cid!r}, which is not that card's id or is reused")
                ids[i] = cid
                taken.add(cid)
        free: dict[Face, list[int]] = {}
        for cid, face in enumerate(faces):
            if cid not in taken:
                free.setdefault(face, []).append(cid)
        for i, face in enumerate(given):
            if ids[i] is None:
                ids[i] = free[face].pop(0)
        return [{"id": ids[i], **face_json(face)} for i, face in enumerate(given)]


GAME = TenGame()
