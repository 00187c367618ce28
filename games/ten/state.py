"""TEN's rules in play: whose move it is, what is legal, and what each move does (RULES.md "A turn",
"Auction", "Paying", "End and scoring")."""

from __future__ import annotations

from typing import Any

from games.base import Action, IllegalAction, is_int
from games.blanks import Blank, Blanks, choice
from games.ten.cards import FIASCO_WORTH, LIMIT, NUMBER, WILD, face_name
from games.ten.paying import payment_is_minimal, payments
from games.ten.table import TenTable

PHASES = ("flip", "auction", "pay", "buy", "final_buy", "over")


class TenState(TenTable):
    """A game of TEN: the table (``TenTable``) and the rules that move it."""

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
            for c, f, k in payments(price, self.coins[seat], self.fiasco[seat], self._numbers_held(seat))
        ]

    def _blanks(self, seat: int, actions: list[Action]) -> Blanks:
        """A payment's cards: that many of the payer's own number cards (collections are public). ``{"buy": null}``
        is complete as it stands: it buys nothing."""
        mine = [choice(cid, face_name(self.faces[cid])) for cid in self._number_cards(seat)]
        out: list[list[Blank]] = []
        for action in actions:
            pay = action.get("pay")
            if isinstance(pay, dict) and pay.get("cards"):
                k = len(pay["cards"])
                label = f"pay with {k} of your number cards"
                out.append(
                    [
                        {
                            "path": ["pay", "cards"],
                            "label": label,
                            "kind": "some",
                            "choices": "number_cards",
                            "min": k,
                            "max": k,
                        }
                    ]
                )
            else:
                out.append([])
        return {"blanks": out, "lists": {"number_cards": mine} if any(out) else {}}

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
        # buy / final_buy: the payments of one purse for each market card's price (its value)
        out = [{"buy": None}]
        faces, coins, fiasco, numbers = self.faces, self.coins[seat], self.fiasco[seat], self._numbers_held(seat)
        for cid in self.market:
            for c, f, k in payments(faces[cid][2] or 0, coins, fiasco, numbers):
                out.append({"buy": cid, "pay": {"coins": c, "fiasco": f, "cards": [None] * k}})
        return out

    def _check_payment(self, seat: int, price: int, pay: Any) -> dict[str, Any]:
        """Validate a payment (RULES.md "Paying") and return it in canonical form (card ids sorted)."""
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
        one = len(action) == 1  # the common actions have one key: tested without building a set of keys
        if self.phase == "flip":
            if one and action.get("flip") is True:
                if not self.deck:
                    raise IllegalAction("the deck is empty: stop and take a reward")
                return {"flip": True}
            if one and action.get("stop") in ("numbers", "coins"):
                if not self.flipped:
                    raise IllegalAction("the first flip of a turn is compulsory")
                return {"stop": action["stop"]}
            raise IllegalAction(
                f'now seat {self.active} flips or stops: {{"flip": true}}, {{"stop": "numbers"}} or {{"stop": "coins"}}'
            )
        if self.phase == "auction" and one and action.get("pass") is True:
            return {"pass": True}
        seat = self._to_move()
        assert seat is not None
        keys = set(action)
        if self.phase == "auction":
            assert self.auction is not None
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
    def _advance(self, action: Action) -> None:
        """``apply`` for an action as ``legal_actions`` lists it (a payment's cards filled in): its canonical form
        (``_check``'s) is recorded, without the checks and the copies of every part."""
        pay = action.get("pay")
        if pay is None:
            canonical = {**action}
        else:
            canonical = {
                **action,
                "pay": {"coins": pay["coins"], "fiasco": pay["fiasco"], "cards": sorted(pay["cards"])},
            }
        self.history.append(canonical)
        self._apply(canonical)

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
        cid = self._flip_top()
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
        is_number = self.catalogue.is_number
        for cid in self.play_area:
            (numbers_to if is_number[cid] else self.discard).append(cid)
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
        """RULES.md "Flipping", fiasko: (a) a number takes the total over ten, (b) currency the pips alone over ten."""
        lines = [f"fiasko! seat {self.active} takes a fiasco token"]
        self.fiasco[self.active] += 1
        self.ledger["fiasco_out"] += 1
        pips = self.pips
        self._clear_play_area(self.market)
        self.market.sort()
        self._market_changed()
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
            self._collection_changed(self.active)
            lines = [f"seat {self.active} stops and takes the numbers: {', '.join(taken) or 'none'}"]
            lines += self._others_gain(pips)
            self.phase = "buy"
            return lines
        got = self._gain(self.active, pips)
        self._clear_play_area(self.market)
        self.market.sort()
        self._market_changed()
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
            # Platform rule (RULES.md "Auction"): nobody bid, the wild is discarded.
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
        self._collection_changed(seat)
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
        self._collection_changed(seat)
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
            self._market_changed()
            self.collections[seat].append(cid)
            self.collections[seat].sort()
            self._collection_changed(seat)
            lines = [f"seat {seat} buys {self._name(cid)} for {paid}"]
        if self.phase == "buy":
            return lines + self._end_turn()
        self.final_order.pop(0)
        if not self.final_order:
            self.phase = "over"
            scores = [self.score(s) for s in range(self.players)]
            lines.append("game over: scores " + ", ".join(f"seat {s} {p}" for s, p in enumerate(scores)))
        return lines
