"""Love Letter, the classic 16-card edition (the rules: games/love_letter/RULES.md).

A match is a series of rounds and one ``LoveLetterState`` covers the whole match: when a round ends inside
``_apply`` the tokens are awarded and, unless someone reached the target, the next round is dealt from ``self.rng``
at once, so ``to_move()`` simply passes into the new round. Cards are their values, 1 (Guard) to 8 (Princess).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Self

from games.base import Action, Game, IllegalAction, InvalidOptions, Outcome, State, is_int, shuffle
from games.love_letter import declaration
from games.spec import GameSpec

GUARD, PRIEST, BARON, HANDMAID, PRINCE, KING, COUNTESS, PRINCESS = range(1, 9)

NAMES = {
    GUARD: "Guard",
    PRIEST: "Priest",
    BARON: "Baron",
    HANDMAID: "Handmaid",
    PRINCE: "Prince",
    KING: "King",
    COUNTESS: "Countess",
    PRINCESS: "Princess",
}
COUNTS = {GUARD: 5, PRIEST: 2, BARON: 2, HANDMAID: 2, PRINCE: 2, KING: 1, COUNTESS: 1, PRINCESS: 1}
FULL_DECK: tuple[int, ...] = tuple(value for value, count in sorted(COUNTS.items()) for _ in range(count))
DECK_SIZE = len(FULL_DECK)  # 16

# RULES.md "Players and the match" 1: tokens needed to win the match, by player count.
TARGET_TOKENS = {2: 7, 3: 5, 4: 4}

# Cards whose play names another player; the Prince may also name its player (RULES.md "Card effects").
TARGETED = frozenset({GUARD, PRIEST, BARON, PRINCE, KING})
ACTION_KEYS = frozenset({"card", "target", "guess"})
GUESSES = range(PRIEST, PRINCESS + 1)  # a Guard names any card but a Guard
SEAT_KEYS = tuple(str(seat) for seat in range(max(TARGET_TOKENS)))  # seats as JSON object keys


def card_name(value: int) -> str:
    return NAMES[value]


def _a(value: int) -> str:
    return f"a {NAMES[value]}"


class LoveLetterState(State):
    # ----- setup and round flow ----------------------------------------------------------------------------------
    def _setup(self) -> None:
        self.target_tokens = TARGET_TOKENS[self.players]
        self.tokens = [0] * self.players
        self.round = 0
        self.starter = 0
        self.over = False
        self.last_round: dict[str, Any] | None = None
        deck = self.options.get("deck")
        self._start_round(0, list(deck) if deck is not None else None)

    def _start_round(self, starter: int, deck: list[int] | None = None) -> None:
        """RULES.md "A round" 1-3: burn a card, (2 players) three face up, one card each from the starter clockwise."""
        if deck is None:
            deck = list(FULL_DECK)
            shuffle(deck, self.rng)
        n = self.players
        self.round += 1
        self.starter = starter
        self.deck: list[int] = deck  # top first
        self.burned: int | None = self.deck.pop(0)
        self.set_aside_up: list[int] = [self.deck.pop(0) for _ in range(3)] if n == 2 else []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            self.hands[(starter + i) % n].append(self.deck.pop(0))
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.out = [False] * n
        self.protected = [False] * n
        # known[observer][seat] = a card value ``observer`` has seen in ``seat``'s hand and that is still there.
        self.known: list[dict[int, int]] = [{} for _ in range(n)]
        self.moves: list[dict[str, Any]] = []
        self.current = starter
        self._begin_turn()

    def _begin_turn(self) -> None:
        # RULES.md "Card effects", Handmaid: protection lasts until the start of its player's next turn.
        self.protected[self.current] = False
        self.hands[self.current].append(self.deck.pop(0))

    def _next_in_round(self, seat: int) -> int:
        players, out = self.players, self.out
        for step in range(1, players + 1):
            other = (seat + step) % players
            if not out[other]:
                return other
        raise AssertionError("no player left in the round")

    # ----- decisions ---------------------------------------------------------------------------------------------
    def _to_move(self) -> int | None:
        return None if self.over else self.current

    def _targets(self, seat: int) -> list[int]:
        """Other players in the round who may be chosen (RULES.md "Targeting and protection" 1)."""
        out, protected = self.out, self.protected
        return [t for t in range(self.players) if t != seat and not out[t] and not protected[t]]

    def _forced_countess(self, hand: list[int]) -> bool:
        return COUNTESS in hand and (KING in hand or PRINCE in hand)

    def _legal_actions(self) -> list[Action]:
        seat = self.current
        hand = self.hands[seat]
        if COUNTESS in hand and (KING in hand or PRINCE in hand):
            return [{"card": COUNTESS}]
        out, protected = self.out, self.protected
        targets = [t for t in range(self.players) if t != seat and not out[t] and not protected[t]]  # _targets
        first, second = hand  # a player to move holds two cards
        cards = (first,) if first == second else (first, second) if first < second else (second, first)
        actions: list[Action] = []
        for card in cards:
            if card == GUARD:
                if targets:
                    actions += [{"card": GUARD, "target": t, "guess": g} for t in targets for g in GUESSES]
                else:
                    actions.append({"card": GUARD})
            elif card == PRINCE:
                # RULES.md "Targeting and protection" 2: with every other player protected the Prince names yourself.
                actions += [{"card": PRINCE, "target": t} for t in sorted([*targets, seat])]
            elif card in TARGETED:
                actions += [{"card": card, "target": t} for t in targets] if targets else [{"card": card}]
            else:
                actions.append({"card": card})
        return actions

    def _explain_illegal(self, action: Action) -> str:
        seat, hand = self.current, self.hands[self.current]
        extra = sorted(set(action) - ACTION_KEYS)
        if extra:
            return f"unknown field(s) {', '.join(map(repr, extra))}: an action has 'card', 'target' and 'guess' only"
        if "card" not in action:
            return "an action must name the 'card' you discard"
        card = action["card"]
        if not is_int(card) or not GUARD <= card <= PRINCESS:
            return f"'card' must be a card value from 1 (Guard) to 8 (Princess), not {card!r}"
        if card not in hand:
            return f"you do not hold {_a(card)}; your hand is {' and '.join(NAMES[c] for c in hand)}"
        if self._forced_countess(hand) and card != COUNTESS:
            other = KING if KING in hand else PRINCE
            return f"you hold the Countess with {_a(other)}, so you must discard the Countess"
        if "guess" in action and card != GUARD:
            return f"only a Guard names a card; {_a(card)} takes no 'guess'"
        if card not in TARGETED:
            if "target" in action:
                return f'{_a(card)} has no target; play it as {{"card": {card}}}'
            return f'{{"card": {card}}} is not a legal action'
        targets = self._targets(seat)
        if "target" not in action:
            if card == PRINCE or targets:
                choosable = sorted([*targets, seat]) if card == PRINCE else targets
                return f"{_a(card)} must name a 'target': you may choose seat(s) {_seat_list(choosable)}"
        else:
            target = action["target"]
            if not is_int(target) or not 0 <= target < self.players:
                return f"there is no seat {target!r} in a {self.players}-player game"
            if target == seat and card != PRINCE:
                return f"{_a(card)} must target another player, not yourself"
            if target != seat and self.out[target]:
                return f"seat {target} is out of the round"
            if target != seat and self.protected[target]:
                return f"seat {target} is protected by the Handmaid"
        if card == GUARD:
            if not targets:
                if "target" in action or "guess" in action:
                    return 'every other player in the round is protected: play the Guard as {"card": 1}, with no effect'
            elif "guess" not in action:
                return "a Guard must name a card: 'guess' from 2 (Priest) to 8 (Princess)"
            else:
                guess = action["guess"]
                if guess == GUARD and is_int(guess):
                    return "a Guard cannot name Guard"
                if not is_int(guess) or not PRIEST <= guess <= PRINCESS:
                    return f"'guess' must be a card value from 2 (Priest) to 8 (Princess), not {guess!r}"
        return f"{action!r} is not a legal action"

    # ----- applying an action ------------------------------------------------------------------------------------
    def _check(self, action: Action) -> Action:
        """The base class's check without building the list: ``action`` as ``legal_actions()`` lists it (same keys
        in the same order, the same JSON types: ``1.0`` and ``true`` are not ``1``), or ``IllegalAction``."""
        card = action.get("card")
        seat = self.current
        hand = self.hands[seat]
        size = len(action)
        if type(card) is int and card in hand:
            if COUNTESS in hand and (KING in hand or PRINCE in hand):
                if card == COUNTESS and size == 1:
                    return {"card": COUNTESS}
            elif card not in TARGETED:
                if size == 1:
                    return {"card": card}
            else:
                out, protected = self.out, self.protected
                target = action.get("target")
                if type(target) is int and 0 <= target < self.players:
                    # One of the targets (so there are some), or the Prince on its own player.
                    named = not out[target] and not protected[target] if target != seat else card == PRINCE
                else:
                    named = False
                if not named:
                    # Without a target only when nobody may be targeted (RULES.md "Targeting and protection" 2).
                    if size == 1 and card != PRINCE and not self._targets(seat):
                        return {"card": card}
                elif card != GUARD:
                    if size == 2:
                        return {"card": card, "target": target}
                else:
                    guess = action.get("guess")
                    if size == 3 and type(guess) is int and PRIEST <= guess <= PRINCESS:
                        return {"card": card, "target": target, "guess": guess}
        raise IllegalAction(self._explain_illegal(action))

    def _apply(self, action: Action) -> list[str]:
        lines: list[str] = []
        self._play(action, lines)
        return lines

    def _advance(self, action: Action) -> None:
        self.history.append(dict(action))  # a flat object of numbers: ``copy_json`` of it
        self._play(action, None)

    def _play(self, action: Action, say: list[str] | None) -> None:
        """The move itself; its narration goes to ``say`` (``None``: a search's step, no narration)."""
        seat = self.current
        card = action["card"]
        target = action.get("target")
        self.hands[seat].remove(card)
        self.discards[seat].append(card)
        # Seeing a card of the value you knew leave the hand means you can no longer tell which card stayed (the
        # other one was drawn unseen); a different value leaves your knowledge intact.
        for knowledge in self.known:
            if seat in knowledge and knowledge[seat] == card:
                del knowledge[seat]
        move: dict[str, Any] = {**action, "seat": seat, "out": []}
        self.moves.append(move)

        if card == GUARD and target is not None:
            guess = action["guess"]
            hit = self.hands[target][0] == guess
            if say is not None:
                verdict = "right" if hit else "wrong"
                say.append(f"seat {seat} plays Guard on seat {target}, naming {NAMES[guess]}: {verdict}")
            if hit:
                self._knock_out(target, move, say)
        elif card == PRINCESS:
            if say is not None:
                say.append(f"seat {seat} discards the Princess")
            self._knock_out(seat, move, say)
        elif card == PRIEST and target is not None:
            self.known[seat][target] = self.hands[target][0]
            if say is not None:
                say.append(f"seat {seat} plays Priest and looks at seat {target}'s hand")
        elif card == BARON and target is not None:
            mine, theirs = self.hands[seat][0], self.hands[target][0]
            self.known[seat][target] = theirs
            self.known[target][seat] = mine
            if mine == theirs:
                if say is not None:
                    say.append(f"seat {seat} plays Baron against seat {target}: a tie, nothing happens")
            else:
                loser = seat if mine < theirs else target
                if say is not None:
                    say.append(f"seat {seat} plays Baron against seat {target}: seat {loser} has the lower card")
                self._knock_out(loser, move, say)
        elif card == HANDMAID:
            self.protected[seat] = True
            if say is not None:
                say.append(f"seat {seat} plays Handmaid and is protected until their next turn")
        elif card == PRINCE:
            assert target is not None
            self._prince(seat, target, move, say)
        elif card == KING and target is not None:
            self._swap_hands(seat, target)
            if say is not None:
                say.append(f"seat {seat} plays King and trades hands with seat {target}")
        elif say is None:
            pass
        elif card == COUNTESS:
            say.append(f"seat {seat} discards the Countess")
        else:
            say.append(f"seat {seat} plays {NAMES[card]}: every other player in the round is protected, no effect")

        # RULES.md "A round" 6: the round ends when one player is left, or after a turn that emptied the deck.
        out = self.out
        if out.count(False) == 1 or not self.deck:
            left = [s for s in range(self.players) if not out[s]]
            self._end_round(left, len(left) > 1, say)
        else:
            self.current = self._next_in_round(seat)
            self._begin_turn()

    def _prince(self, seat: int, target: int, move: dict[str, Any], say: list[str] | None) -> None:
        dropped = self.hands[target].pop()
        self.discards[target].append(dropped)
        self._forget_seat(target)
        if say is not None:
            who = "themselves" if target == seat else f"seat {target}"
            say.append(f"seat {seat} plays Prince on {who}: seat {target} discards {_a(dropped)}")
        if dropped == PRINCESS:
            # RULES.md "Card effects", Princess: discarded for any reason, it knocks its holder out (who draws nothing).
            self._knock_out(target, move, say)
        elif self.deck:
            self.hands[target].append(self.deck.pop(0))
            if say is not None:
                say.append(f"seat {target} draws a new card")
        else:
            assert self.burned is not None, "only one Prince can be played on the turn that emptied the deck"
            self.hands[target].append(self.burned)
            self.burned = None
            move["burned_taken"] = True
            if say is not None:
                say.append(f"the deck is empty: seat {target} takes the burned card")

    def _knock_out(self, seat: int, move: dict[str, Any], say: list[str] | None) -> None:
        """RULES.md "A round" 5: the player discards their hand face up, no effect, and leaves the round."""
        shown = self.hands[seat]
        self.discards[seat].extend(shown)
        self.hands[seat] = []
        self.out[seat] = True
        self.protected[seat] = False
        self._forget_seat(seat)
        move["out"].append(seat)
        if say is not None:
            held = f", discarding {' and '.join(_a(c) for c in shown)}" if shown else ""
            say.append(f"seat {seat} is out of the round{held}")

    def _swap_hands(self, seat: int, target: int) -> None:
        """King: the hands trade places, and so does what everyone knew about them (the swap is public)."""
        given, taken = self.hands[seat][0], self.hands[target][0]
        for observer, knowledge in enumerate(self.known):
            about_seat, about_target = knowledge.pop(seat, None), knowledge.pop(target, None)
            if about_target is not None and observer != seat:
                knowledge[seat] = about_target
            if about_seat is not None and observer != target:
                knowledge[target] = about_seat
        self.known[seat][target] = given
        self.known[target][seat] = taken
        self.hands[seat], self.hands[target] = self.hands[target], self.hands[seat]

    def _forget_seat(self, seat: int) -> None:
        for knowledge in self.known:
            knowledge.pop(seat, None)

    def _end_round(self, left: list[int], showdown: bool, say: list[str] | None) -> None:
        if showdown:
            # RULES.md "A round" 6: highest card; then the highest total of one's discards; then everyone tied wins.
            best = max((self.hands[s][0], sum(self.discards[s])) for s in left)
            winners = [s for s in left if (self.hands[s][0], sum(self.discards[s])) == best]
            if say is not None:
                shown = ", ".join(f"seat {s} {NAMES[self.hands[s][0]]}" for s in left)
                say.append(f"the deck is empty: hands are revealed ({shown})")
        else:
            winners = left
        for s in winners:
            self.tokens[s] += 1
        if say is not None:
            burned = (
                f"the burned card was {_a(self.burned)}" if self.burned is not None else "the burned card was taken"
            )
            gain = "wins a token" if len(winners) == 1 else "each win a token"
            say.append(f"round {self.round} ends: {_seats(winners)} {gain}; {burned}")
        self.last_round = {
            "round": self.round,
            "hands": [self.hands[s][0] if not self.out[s] else None for s in range(self.players)],
            "burned": self.burned,
            "set_aside_up": list(self.set_aside_up),
            "discards": [list(d) for d in self.discards],
            "showdown": showdown,
            "winners": winners,
        }
        if max(self.tokens) >= self.target_tokens:
            self.over = True
            if say is not None:
                champions = [s for s in range(self.players) if self.tokens[s] >= self.target_tokens]
                verb = "reaches" if len(champions) == 1 else "reach"
                say.append(f"{_seats(champions)} {verb} {self.target_tokens} tokens: the match is over")
        else:
            # RULES.md "A round" 3: the previous round's winner starts; among several winners, the first clockwise
            # from the previous starter (the previous starter included).
            starter = min(winners, key=lambda s: (s - self.starter) % self.players)
            self._start_round(starter)
            if say is not None:
                say.append(f"round {self.round} begins; seat {starter} starts")

    # ----- views -------------------------------------------------------------------------------------------------
    # Views hand out the round's completed moves, ``last_round`` and ``set_aside_up`` themselves, not copies: none
    # changes once made (a move is complete when ``_play`` returns; the other two are replaced at each round), and
    # copying them was most of the cost of an observation. Read-only by contract, as TEN's shared views: bots get
    # them as JSON, and built-in players and samplers only read. Each view's own dict and its other lists are fresh.
    def _common_view(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "round": self.round,
            "starter": self.starter,
            "to_move": None if self.over else self.current,
            "discards": [list(d) for d in self.discards],
            "tokens": list(self.tokens),
            "target_tokens": self.target_tokens,
            "out": list(self.out),
            "protected": list(self.protected),
            "deck_size": len(self.deck),
            "set_aside_up": self.set_aside_up,
            "moves": self.moves[:],
            "last_round": self.last_round,
        }

    def _observation(self, seat: int) -> dict[str, Any]:
        obs = self._common_view()
        obs["seat"] = seat
        obs["hand"] = list(self.hands[seat])
        known = self.known[seat]
        obs["known"] = {SEAT_KEYS[s]: v for s, v in sorted(known.items())} if known else {}
        obs["seen_by"] = {SEAT_KEYS[o]: k[seat] for o, k in enumerate(self.known) if seat in k}
        return obs

    def _public_view(self) -> dict[str, Any]:
        view = self._common_view()
        view["hand_sizes"] = [len(h) for h in self.hands]
        view["over"] = self.over
        return view

    def _full_view(self) -> dict[str, Any]:
        view = self._public_view()
        view["hands"] = [list(h) for h in self.hands]
        view["deck"] = list(self.deck)
        view["burned"] = self.burned
        view["known"] = [{str(s): v for s, v in sorted(k.items())} for k in self.known]
        return view

    def is_over(self) -> bool:
        return self.over

    # ----- the forward model ------------------------------------------------------------------------------------
    def _clone(self) -> Self:
        """A field copy. Shared, because nothing changes them once made: the game, the options, the moves of the
        round and the actions of the history (each complete), ``last_round`` and ``set_aside_up`` (replaced, not
        changed, at each round); the generator until either state draws (``State._field_copy``)."""
        new = self._field_copy()
        copied = new.__dict__
        copied["history"] = self.history[:]
        copied["tokens"] = self.tokens[:]
        copied["deck"] = self.deck[:]
        copied["hands"] = [hand[:] for hand in self.hands]
        copied["discards"] = [pile[:] for pile in self.discards]
        copied["out"] = self.out[:]
        copied["protected"] = self.protected[:]
        copied["known"] = [knowledge.copy() for knowledge in self.known]
        copied["moves"] = self.moves[:]
        return new

    def _outcome(self) -> Outcome:
        # RULES.md "Players and the match" 2: whoever reached the target (several only if they reached it in the same
        # round, sharing first place) ranks first; the others rank by tokens.
        return Outcome.from_scores(list(self.tokens))

    def perturb_hidden(self, observer: int, rng: random.Random) -> LoveLetterState | None:
        """Swap two cards ``observer`` cannot see: deck cards, the burned card and unknown hands of other seats."""
        slots: list[tuple[str, int, int]] = [("deck", i, 0) for i in range(len(self.deck))]
        if self.burned is not None:
            slots.append(("burned", 0, 0))
        for seat in range(self.players):
            if seat != observer and seat not in self.known[observer]:
                slots += [("hand", seat, i) for i in range(len(self.hands[seat]))]
        rng.shuffle(slots)
        for i, first in enumerate(slots):
            for second in slots[i + 1 :]:
                if self._slot(first) != self._slot(second):
                    other = self.clone()
                    a, b = other._slot(first), other._slot(second)
                    other._set_slot(first, b)
                    other._set_slot(second, a)
                    return other
        return None

    def _slot(self, slot: tuple[str, int, int]) -> int:
        kind, a, b = slot
        if kind == "deck":
            return self.deck[a]
        if kind == "burned":
            assert self.burned is not None
            return self.burned
        return self.hands[a][b]

    def _set_slot(self, slot: tuple[str, int, int], value: int) -> None:
        kind, a, b = slot
        if kind == "deck":
            self.deck[a] = value
        elif kind == "burned":
            self.burned = value
        else:
            self.hands[a][b] = value

    def card_count(self) -> int:
        """Cards in hands, the deck, discard piles and set aside: always 16 (RULES.md "Checks the engine passes")."""
        hidden = 0 if self.burned is None else 1
        return (
            sum(map(len, self.hands)) + len(self.deck) + sum(map(len, self.discards)) + len(self.set_aside_up) + hidden
        )


def _seat_list(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats)


def _seats(seats: list[int]) -> str:
    """'seat 2' or 'seats 0 and 2'."""
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return f"seats {', '.join(str(s) for s in seats[:-1])} and {seats[-1]}"


class LoveLetterGame(Game):
    spec = GameSpec(
        id="love_letter",
        title="Love Letter",
        min_players=2,
        max_players=4,
        version="1",
        observation=declaration.Observation,
        action=declaration.Action,
        hidden=(
            "The other players' hands (but cards you saw with a Priest, a Baron or "
            "a King), the burned card and the order of the deck."
        ),
        chance="The deck is shuffled for every round.",
        score="Tokens of affection; the first seat to reach the target ends the match.",
        summary=(
            "Suitors try to get their love letter to the Princess. Each player holds one card; on your turn you draw "
            "a second and play one of the two, and its effect may knock a rival out of the round, look at a hand, "
            "compare hands, protect you or trade hands. The last player standing, or the highest card when the deck "
            "runs out, wins the round and a token of affection; the first to 7 (2 players), 5 (3) or 4 (4) tokens "
            "wins the match. Classic 16-card edition."
        ),
        options_schema={
            "deck": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1, "maximum": 8},
                "minItems": DECK_SIZE,
                "maxItems": DECK_SIZE,
                "description": (
                    "The first round's whole deck, top first, as card values (5 Guards, 2 each of 2-5, one each of "
                    "6-8). The top card is burned, then (2 players) three go face up, then one card is dealt to "
                    "each seat from seat 0 up, then seat 0 draws first. Later rounds are shuffled from the seed. "
                    "Default: the first round is shuffled too."
                ),
            },
        },
    )
    state_class = LoveLetterState

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - {"deck"})
        if unknown:
            raise InvalidOptions(f"Love Letter has no option(s) {', '.join(unknown)}; the only option is 'deck'")
        if "deck" in options:
            deck = options["deck"]
            if not isinstance(deck, list) or not all(is_int(c) for c in deck):
                raise InvalidOptions("'deck' must be a list of card values (integers 1 to 8)")
            if Counter(deck) != Counter(FULL_DECK):
                raise InvalidOptions(
                    "'deck' must hold exactly the 16 cards: five 1s, two each of 2, 3, 4 and 5, one each of 6, 7, 8"
                )
            return {"deck": list(deck)}
        return {}


GAME = LoveLetterGame()
