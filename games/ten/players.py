"""Built-in TEN players: ``random`` and a ``heuristic`` that weighs the bust risk of the cards still unseen."""

from __future__ import annotations

from typing import Any

from games.base import Action, Player, RandomPlayer, shuffle
from games.ten.declaration import Observation
from games.ten.engine import (
    CURRENCY,
    FIASCO_WORTH,
    LIMIT,
    NUMBER,
    WILD,
    Face,
    build_catalogue,
    face_from_json,
    score_faces,
)


def number_card_ids(obs: Observation, seat: int) -> list[int]:
    return [card["id"] for card in obs["collection"][seat] if card["kind"] == NUMBER]


def fill_payment(action: Action, card_ids: list[int]) -> Action:
    """The action with its payment template's ``null`` card slots filled, in order, from ``card_ids``."""
    pay = action.get("pay")
    if not isinstance(pay, dict) or None not in pay["cards"]:
        return action
    return {**action, "pay": {**pay, "cards": sorted(card_ids[: len(pay["cards"])])}}


class TenRandomPlayer(RandomPlayer[Observation]):
    """A uniformly random legal action; a payment template is filled with random cards from the collection."""

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        action = self.rng.choice(legal)
        ids = number_card_ids(obs, self.seat)
        shuffle(ids, self.rng)
        return fill_payment(action, ids)


class TenHeuristicPlayer(Player[Observation]):
    """Plays like a careful person.

    It values everything in points of final score: a black token is worth ``COIN`` points (what it helps buy), a
    card in the collection is worth what it adds to the longest runs. It flips again while a one-card look-ahead over
    the unseen cards says flipping is worth more than stopping now, picks the better of the two rewards, bids for a
    wild up to what the wild adds to its runs, and buys the market card that adds most for its price."""

    name = "heuristic"
    description = "stops when the bust risk of the unseen cards is too high, bids and buys for its runs"

    COIN = 0.3  # points per black token
    FIASCO_TOKEN = 0.75  # a fiasco token pays 3, but only in whole lumps
    CARD_KEEP = 0.15  # a card not in a run may join one later
    GIFT = 0.08  # what a token given to one opponent costs us

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        self.obs = obs
        self._give_memo: dict[tuple[int, tuple[Face, ...]], tuple[list[int], float]] = {}
        self._loss_memo: dict[tuple[Face, ...], list[tuple[float, int, Face]]] = {}
        self.mine: list[Face] = [face_from_json(card) for card in obs["collection"][self.seat]]
        self.base = score_faces(self.mine)
        phase = obs["phase"]
        if phase == "flip":
            return self._flip_or_stop(legal)
        if phase == "auction":
            return self._bid(legal)
        if phase == "pay":
            auction = obs["auction"]
            assert auction is not None, "the pay phase settles an auction"
            return self._best_payment(legal, False, (face_from_json(auction["card"]),))[0]
        return self._buy(legal, final=phase == "final_buy")

    # ----- valuation -----
    def _gain(self, faces: list[Face]) -> int:
        return score_faces(self.mine + faces) - self.base

    def _progress(self) -> float:
        """How far through the deck we are, 0 at the start and 1 at the end."""
        if not hasattr(self, "_deck_size"):
            self._deck_size = len(build_catalogue(self.players, self.options))
        return 1 - float(self.obs["deck_left"]) / max(1, self._deck_size)

    def _coin_value(self, amount: int) -> float:
        room = max(0, self.obs["coin_cap"] - self.obs["coins"][self.seat])
        return float(self.COIN * min(amount, room))

    def _gift_cost(self, amount: int) -> float:
        return float(self.GIFT * amount * (self.obs["players"] - 1))

    def _stop_values(self, numbers: list[Face], pips: int, market: float) -> tuple[float, float]:
        """(take the numbers, take the coins) in points for a play area holding ``numbers`` and ``pips``;
        ``market`` is what the purchase after taking the numbers is worth."""
        take_numbers = self._gain(numbers) + self.CARD_KEEP * len(numbers) - self._gift_cost(pips) + market
        return take_numbers, self._coin_value(pips)

    def _market_value(self, extra: list[Face]) -> float:
        """The best net value of one purchase from the market after adding ``extra`` to the collection."""
        best = 0.0
        base = score_faces(self.mine + extra)
        purse = self.obs["coins"][self.seat]
        for card in self.obs["market"]:
            face = face_from_json(card)
            price = face[2] or 0
            if price > purse:
                continue
            net = score_faces([*self.mine, *extra, face]) - base - self.COIN * price + self.CARD_KEEP
            best = max(best, net)
        return best

    # ----- flipping -----
    def _flip_or_stop(self, legal: list[Action]) -> Action:
        if legal == [{"flip": True}]:
            return legal[0]
        obs = self.obs
        numbers = [face_from_json(c) for c in obs["play_area"] if c["kind"] == NUMBER]
        total, pips = obs["total"], obs["pips"]
        # The purchase is valued for the area as it is, also for the look-ahead: it rarely changes with one card.
        market = self._market_value(numbers)
        take_numbers, take_coins = self._stop_values(numbers, pips, market)
        stop_value = max(take_numbers, take_coins)
        stop = {"stop": "numbers" if take_numbers >= take_coins else "coins"}
        if {"flip": True} not in legal:
            return stop
        # One card of look-ahead over the unseen cards, assuming we stop right after it.
        counts = obs["deck_counts"]
        deck: dict[Face, int] = {}
        for colour, values in counts["colour"].items():
            for number, count in values.items():
                if count:
                    deck[(NUMBER, colour, int(number), None)] = count
        for face_pips, count in counts["currency"].items():
            if count:
                deck[(CURRENCY, None, None, int(face_pips))] = count
        if counts["wild"]:
            deck[(WILD, None, None, None)] = counts["wild"]
        size = sum(deck.values())
        expected = 0.0
        bust_value = self.FIASCO_TOKEN
        for face, count in deck.items():
            kind = face[0]
            if kind == NUMBER:
                if total + (face[2] or 0) > LIMIT:
                    value = bust_value - self._gift_cost(pips)
                else:
                    value = max(self._stop_values([*numbers, face], pips, market))
            elif kind == CURRENCY:
                p = face[3] or 0
                value = bust_value if pips + p > LIMIT else max(self._stop_values(numbers, pips + p, market))
            else:
                value = stop_value + 0.3  # a wild: an auction we may win, and the area stays as it is
            expected += count * value
        expected /= max(1, size)
        # Flipping on also keeps the option to flip again: a small bonus while the risk is low.
        return {"flip": True} if expected + 0.1 > stop_value else stop

    # ----- auctions -----
    def _wild_value(self, wild: Face) -> float:
        now = self._gain([wild])
        # A wild fills a gap in a run that is not there yet: worth more early in the game.
        later = (1.0 if wild[1] is None and wild[2] is None else 0.8) * (1 - self._progress())
        return max(float(now), now * 0.5 + later + 0.5)

    def _bid(self, legal: list[Action]) -> Action:
        auction = self.obs["auction"]
        assert auction is not None, "bids are only legal during an auction"
        wild = face_from_json(auction["card"])
        assert wild[0] == WILD
        value = self._wild_value(wild)
        bids = [a for a in legal if "bid" in a]
        if not bids:
            return {"pass": True}
        bid = bids[0]["bid"]
        cost = self._cheapest_cost(bid, (wild,))
        if cost is not None and cost < value:
            return bids[0]
        return {"pass": True}

    # ----- paying -----
    def _cards_to_give(self, count: int, extra: tuple[Face, ...] = ()) -> tuple[list[int], float]:
        """The ``count`` number cards whose loss costs the fewest points, and that cost, with ``extra`` (what the
        payment buys) already in the collection: a card may only be worth keeping next to the one bought.

        Cards are ranked by what losing each alone would cost (a spare copy costs nothing), then the cost of
        giving the chosen ones together is measured."""
        key = (count, extra)
        if key in self._give_memo:
            return self._give_memo[key]
        faces = [*self.mine, *extra]
        if extra not in self._loss_memo:
            current = score_faces(faces)
            pool: dict[Face, list[int]] = {}
            for card in self.obs["collection"][self.seat]:
                if card["kind"] == NUMBER:
                    pool.setdefault(face_from_json(card), []).append(card["id"])
            units: list[tuple[float, int, Face]] = []
            for face, ids in pool.items():
                rest = list(faces)
                rest.remove(face)
                alone = current - score_faces(rest)
                units += [(0.0, cid, face) for cid in ids[:-1]]
                units.append((alone, ids[-1], face))
            units.sort()
            self._loss_memo[extra] = units
        units = self._loss_memo[extra]
        chosen = units[:count]
        rest = list(faces)
        for _loss, _cid, face in chosen:
            rest.remove(face)
        cost = score_faces(faces) - score_faces(rest) + self.CARD_KEEP * count
        result = (sorted(cid for _loss, cid, _face in chosen), cost)
        self._give_memo[key] = result
        return result

    def _payment_cost(self, pay: dict[str, Any], final: bool, extra: tuple[Face, ...] = ()) -> tuple[float, list[int]]:
        # At the final purchase tokens are worth nothing but the tie-break.
        coin = 0.01 if final else self.COIN
        fiasco = 0.02 if final else self.FIASCO_TOKEN
        ids, card_cost = self._cards_to_give(len(pay["cards"]), extra)
        return pay["coins"] * coin + pay["fiasco"] * fiasco + card_cost, ids

    def _cheapest_cost(self, price: int, extra: tuple[Face, ...]) -> float | None:
        obs = self.obs
        best = None
        coins, fiasco = obs["coins"][self.seat], obs["fiasco"][self.seat]
        cards = len(number_card_ids(obs, self.seat))
        for f in range(0, min(fiasco, -(-price // FIASCO_WORTH)) + 1):
            rest = max(0, price - FIASCO_WORTH * f)
            c = min(coins, rest)
            k = rest - c
            if k > cards:
                continue
            cost, _ = self._payment_cost({"coins": c, "fiasco": f, "cards": [None] * k}, False, extra)
            if best is None or cost < best:
                best = cost
        return best

    def _best_payment(self, legal: list[Action], final: bool, extra: tuple[Face, ...] = ()) -> tuple[Action, float]:
        best: tuple[Action, float] | None = None
        for action in legal:
            cost, ids = self._payment_cost(action["pay"], final, extra)
            if best is None or cost < best[1]:
                best = (fill_payment(action, ids), cost)
        assert best is not None
        return best

    # ----- buying -----
    def _buy(self, legal: list[Action], final: bool) -> Action:
        by_card: dict[int, list[Action]] = {}
        for action in legal:
            if action["buy"] is not None:
                by_card.setdefault(action["buy"], []).append(action)
        faces = {card["id"]: face_from_json(card) for card in self.obs["market"]}
        best: tuple[float, Action] = (0.0, {"buy": None})
        tried: set[Face] = set()
        for cid, actions in by_card.items():
            face = faces[cid]
            if face in tried:  # identical cards: one is enough
                continue
            tried.add(face)
            gain = self._gain([face]) + (0.0 if final else self.CARD_KEEP)
            if gain <= 0:
                continue
            action, cost = self._best_payment(actions, final, (face,))
            if gain - cost > best[0]:
                best = (gain - cost, action)
        return best[1]


PLAYERS: dict[str, type[Player[Any]]] = {"random": TenRandomPlayer, "heuristic": TenHeuristicPlayer}
