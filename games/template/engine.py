"""High Card, the template game (RULES.md): 32 cards valued 1 to 16, two of each; every seat is dealt 8 cards; 8
tricks, each won by its highest card; one point per trick.

The engine fills in the hooks of ``games.base.State`` (docs/design.md, "The game-engine interface") and returns the
types its declaration names (``declaration.py``).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.base import Action, Game, InvalidOptions, Outcome, State, is_int
from games.seen import Seen
from games.spec import GameSpec
from games.template import declaration
from games.template.declaration import Observation, Played, Trick

VALUES = range(1, 17)
FULL_DECK: tuple[int, ...] = tuple(value for value in VALUES for _ in range(2))
HAND_SIZE = 8


class TemplateState(State):
    # ----- setup ---------------------------------------------------------------------------------------------------
    def _setup(self) -> None:
        deck = list(self.options["deck"]) if "deck" in self.options else list(FULL_DECK)
        if "deck" not in self.options:
            self.rng.shuffle(deck)  # all chance comes from the state's own generator
        # One card at a time from the top, seat 0 first; the rest is the stock, never seen.
        self.hands: list[list[int]] = [
            sorted(deck[seat : self.players * HAND_SIZE : self.players]) for seat in range(self.players)
        ]
        self.stock: list[int] = deck[self.players * HAND_SIZE :]
        self.leader = 0
        self.current = 0
        self.trick: list[Played] = []
        self.tricks = [0] * self.players
        self.past: list[Trick] = []

    # ----- decisions -------------------------------------------------------------------------------------------------
    def _to_move(self) -> int | None:
        return self.current

    def _legal_actions(self) -> list[Action]:
        return [{"card": card} for card in sorted(set(self.hands[self.current]))]

    def _explain_illegal(self, action: Action) -> str:
        if set(action) != {"card"}:
            return 'an action is {"card": <a value in your hand>}'
        card = action["card"]
        if not is_int(card):
            return f"'card' must be a whole number, not {card!r}"
        return f"you hold no {card}; your hand is {self.hands[self.current]}"

    # ----- applying an action ----------------------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[str]:
        seat, card = self.current, action["card"]
        self.hands[seat].remove(card)
        self.trick.append({"seat": seat, "card": card})
        lines = [f"seat {seat} plays {card}"]
        if len(self.trick) < self.players:
            self.current = (seat + 1) % self.players
            return lines
        # The highest card wins; among equal cards the first played (max keeps the first of equals).
        winner = max(self.trick, key=lambda played: played["card"])["seat"]
        self.tricks[winner] += 1
        self.past.append({"cards": self.trick, "winner": winner})
        self.trick = []
        self.leader = self.current = winner
        lines.append(f"seat {winner} wins trick {len(self.past)}")
        return lines

    def is_over(self) -> bool:
        return len(self.past) == HAND_SIZE

    def _outcome(self) -> Outcome:
        return Outcome.from_scores(list(self.tricks))

    # ----- views -----------------------------------------------------------------------------------------------------
    def _observation(self, seat: int) -> Observation:
        return {
            "seat": seat,
            "players": self.players,
            "hand": list(self.hands[seat]),
            "hand_sizes": [len(hand) for hand in self.hands],
            "stock": len(self.stock),
            "trick": [{"seat": p["seat"], "card": p["card"]} for p in self.trick],
            "leader": self.leader,
            "tricks": list(self.tricks),
            "past": [
                {"cards": [{"seat": p["seat"], "card": p["card"]} for p in trick["cards"]], "winner": trick["winner"]}
                for trick in self.past
            ],
            "to_move": self.to_move(),
        }

    def _public_view(self) -> dict[str, Any]:
        view: dict[str, Any] = dict(self._observation(0))  # any seat's observation, less what is its own
        del view["seat"], view["hand"]
        return view

    def _full_view(self) -> dict[str, Any]:
        return {**self._public_view(), "hands": [list(hand) for hand in self.hands], "stock_cards": list(self.stock)}

    def perturb_hidden(self, observer: int, rng: random.Random) -> TemplateState | None:
        """Swap two cards of different values that ``observer`` cannot see: in other hands or the stock."""
        slots = [("stock", 0, i) for i in range(len(self.stock))]
        for seat, hand in enumerate(self.hands):
            if seat != observer:
                slots += [("hand", seat, i) for i in range(len(hand))]
        rng.shuffle(slots)
        for i, first in enumerate(slots):
            for second in slots[i + 1 :]:
                # Two places (a swap inside one hand changes nothing) holding different cards.
                if first[:2] != second[:2] and self._card_at(first) != self._card_at(second):
                    other = self.clone()
                    a, b = other._card_at(first), other._card_at(second)
                    other._put(first, b)
                    other._put(second, a)
                    for hand in other.hands:
                        hand.sort()
                    return other
        return None

    @classmethod
    def _sample(cls, game: Game, seen: Seen, rng: random.Random) -> TemplateState:
        """The cards this seat has not seen (the whole deck less its hand and every card played), dealt uniformly to
        the other hands and the stock in their known sizes. Nothing played narrows what a hand holds (any card may
        be played at any time), so every such deal is equally likely: a uniform shuffle draws them uniformly."""
        obs = seen.current
        seat = seen.seat
        played = [p["card"] for trick in obs["past"] for p in trick["cards"]] + [p["card"] for p in obs["trick"]]
        unseen = Counter(FULL_DECK)
        unseen.subtract(Counter(obs["hand"]) + Counter(played))
        pool = sorted(unseen.elements())
        rng.shuffle(pool)
        state = cls.__new__(cls)
        state.game, state.players, state.seed, state.options = game, seen.players, 0, dict(seen.options)
        state.rng = random.Random(rng.getrandbits(64))  # fresh: the real seed (and so the future) is hidden
        state.history = []
        state.hands = []
        for other, size in enumerate(obs["hand_sizes"]):
            state.hands.append(list(obs["hand"]) if other == seat else sorted(pool.pop() for _ in range(size)))
        state.stock = pool[: obs["stock"]]
        state.leader, state.current = obs["leader"], obs["to_move"]
        state.trick = [{"seat": p["seat"], "card": p["card"]} for p in obs["trick"]]
        state.tricks = list(obs["tricks"])
        state.past = [
            {"cards": [{"seat": p["seat"], "card": p["card"]} for p in t["cards"]], "winner": t["winner"]}
            for t in obs["past"]
        ]
        return state

    def _card_at(self, slot: tuple[str, int, int]) -> int:
        where, seat, index = slot
        return self.stock[index] if where == "stock" else self.hands[seat][index]

    def _put(self, slot: tuple[str, int, int], card: int) -> None:
        where, seat, index = slot
        if where == "stock":
            self.stock[index] = card
        else:
            self.hands[seat][index] = card


class TemplateGame(Game):
    spec = GameSpec(
        id="template",
        title="High Card",
        min_players=2,
        max_players=4,
        version="1",
        observation=declaration.Observation,
        action=declaration.Action,
        hidden="The other players' hands and the undealt stock.",
        chance="The deck is shuffled.",
        score="Tricks won.",
        summary=(
            "The template game to copy when adding a game: 32 cards valued 1 to 16, two of each, 8 for each player, "
            "8 tricks; the highest card wins a trick, the most tricks wins the game."
        ),
        options_schema={
            "deck": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1, "maximum": 16},
                "minItems": len(FULL_DECK),
                "maxItems": len(FULL_DECK),
                "description": "The whole deck, top first (two of each value 1 to 16), dealt one card at a time from "
                "seat 0. Default: shuffled from the seed.",
            },
        },
    )
    state_class = TemplateState

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - {"deck"})
        if unknown:
            raise InvalidOptions(f"{self.title} has no option(s) {', '.join(unknown)}; the only option is 'deck'")
        if "deck" in options:
            deck = options["deck"]
            if not isinstance(deck, list) or not all(is_int(card) for card in deck):
                raise InvalidOptions("'deck' must be a list of card values (whole numbers 1 to 16)")
            if Counter(deck) != Counter(FULL_DECK):
                raise InvalidOptions("'deck' must hold exactly two of each value from 1 to 16")
            return {"deck": list(deck)}
        return {}


GAME = TemplateGame()
