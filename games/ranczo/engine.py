"""Ranczo Party rules engine: every rule and interpretation of games/ranczo/RULES.md.

Cards have fixed ids: value ``v`` owns ids ``7*(v-1)`` … ``7*(v-1)+6`` and, for values 2 to 6, the first of them is the
balloon card. An id therefore tells nothing its face does not already show, so ids may appear wherever faces do.
"""

from __future__ import annotations

import bisect
import random
from typing import Any, Self

from games.base import Action, Game, IllegalAction, InvalidOptions, Outcome, State, is_int, shuffle
from games.ranczo import declaration
from games.ranczo.declaration import Buried, Card, Cell, Played
from games.spec import GameSpec

COPIES = 7
CARD_COUNT = 49
HAND_SIZE = 7
MAX_ROWS = 7
LINE_LENGTH = 7
MAX_ROUNDS = 12
ANIMALS = {1: "hen", 2: "goose", 3: "goat", 4: "sheep", 5: "pig", 6: "cow", 7: "horse"}

VALUE: tuple[int, ...] = tuple(card // COPIES + 1 for card in range(CARD_COUNT))
BALLOON: tuple[bool, ...] = tuple(card % COPIES == 0 and 2 <= VALUE[card] <= 6 for card in range(CARD_COUNT))


def card_json(card: int) -> Card:
    """A card as observations show it."""
    return {"id": card, "value": VALUE[card], "balloon": BALLOON[card]}


def card_name(card: int) -> str:
    return f"{'balloon ' if BALLOON[card] else ''}{ANIMALS[VALUE[card]]} ({VALUE[card]})"


def _ids_of(value: int, balloon: bool) -> list[int]:
    return [card for card in range(CARD_COUNT) if VALUE[card] == value and BALLOON[card] == balloon]


def normalise_deck(deck: object) -> list[Card]:
    """Validate a ``deck`` option (49 cards, top first, ids optional) and return it with every id filled in."""
    if not isinstance(deck, list) or len(deck) != CARD_COUNT:
        raise InvalidOptions(f"deck must be a list of all {CARD_COUNT} cards, top first")
    faces: list[tuple[int, bool]] = []
    given: dict[int, int] = {}
    for position, card in enumerate(deck):
        where = f"deck card {position}"
        if not isinstance(card, dict):
            raise InvalidOptions(f'{where} must be an object like {{"value": 3, "balloon": true}}')
        unknown = set(card) - {"id", "value", "balloon"}
        if unknown:
            raise InvalidOptions(f"{where} has unknown field(s) {sorted(unknown)}")
        value, balloon = card.get("value"), card.get("balloon", False)
        if not is_int(value) or not 1 <= value <= 7:
            raise InvalidOptions(f"{where} needs a value from 1 to 7")
        if not isinstance(balloon, bool):
            raise InvalidOptions(f"{where}: balloon must be true or false")
        if balloon and not 2 <= value <= 6:
            raise InvalidOptions(f"{where}: only values 2 to 6 have a balloon card")
        if "id" in card:
            card_id = card["id"]
            if not is_int(card_id) or not 0 <= card_id < CARD_COUNT:
                raise InvalidOptions(f"{where}: id must be an integer from 0 to {CARD_COUNT - 1}")
            if (VALUE[card_id], BALLOON[card_id]) != (value, balloon):
                raise InvalidOptions(f"{where}: id {card_id} is the {card_name(card_id)}, not that card")
            if card_id in given.values():
                raise InvalidOptions(f"{where}: id {card_id} appears twice")
            given[position] = card_id
        faces.append((value, balloon))
    for value in range(1, 8):
        count = sum(1 for face in faces if face[0] == value)
        if count != COPIES:
            raise InvalidOptions(f"the deck must hold 7 cards of each value; it has {count} of value {value}")
        if 2 <= value <= 6:
            balloons = sum(1 for face in faces if face == (value, True))
            if balloons != 1:
                raise InvalidOptions(
                    f"the deck must hold exactly one balloon {ANIMALS[value]} ({value}); it has {balloons}"
                )
    free = {face: [c for c in _ids_of(*face) if c not in given.values()] for face in set(faces)}
    ids = [given[position] if position in given else free[face].pop(0) for position, face in enumerate(faces)]
    return [card_json(card) for card in ids]


# Rows as bits of an int per column (bit ``row + ROW_BIT``): a column's free cells that touch a card are a few
# shifts and ors. Rows run from -6 to 6 in play; the margin keeps positions laid out by hand in tests valid too.
ROW_BIT = 32
CARD_CELLS: tuple[tuple[int, bool], ...] = tuple((VALUE[card], BALLOON[card]) for card in range(CARD_COUNT))
# The rows of each set of free cells met so far (a column's free cells as bits): a few hundred in practice.
ROWS_OF: dict[int, tuple[int, ...]] = {}


class RanczoState(State):
    """One match: one game or, with ``rounds`` > 1, the rulebook's "multi" variant (tokens summed over the rounds).

    Derived from the grid and kept up to date by each placement (rebuilt when ``grid`` is set anew): ``_bits``,
    each column's occupied rows as bits, ``_open``, each column's legal rows (found when first asked), and
    ``_cells``, the grid sorted as observations list it (``_cell_keys``: their order). Ranczo draws from ``rng``
    only to shuffle a new round: a clone shares it and a sample makes its own only when it is used (``State.rng``)."""

    @property
    def grid(self) -> dict[tuple[int, int], int]:
        """The cards on the grid by (row, value)."""
        return self._grid

    @grid.setter
    def grid(self, grid: dict[tuple[int, int], int]) -> None:
        self._grid = grid
        self._bits: list[int] | None = None
        self._cells: list[Cell] | None = None
        self._cell_keys: list[int] = []
        self._open: list[tuple[int, ...] | None] = [None] * 8

    def _column_bits(self) -> list[int]:
        """Occupied rows per column (index = value; 0 and 8 stay empty so neighbours need no bounds check)."""
        if self._bits is None:
            bits = [0] * 9
            for row, value in self._grid:
                bits[value] |= 1 << (row + ROW_BIT)
            self._bits = bits
        return self._bits

    def _sorted_cells(self) -> list[Cell]:
        if self._cells is None:
            placed = sorted(self._grid.items())
            self._cells = [_cell(row, card) for (row, _value), card in placed]
            self._cell_keys = [_cell_key(row, value) for (row, value), _card in placed]
        return self._cells

    # ----- setup and turn flow -----------------------------------------------------------------------------------
    def _setup(self) -> None:
        self.rounds: int = self.options["rounds"]
        self.round = 0
        self.tokens = [0] * self.players
        self.round_results: list[list[int]] = []
        self.over = False
        self._start_round([])

    def _start_round(self, lines: list[str] | None) -> None:
        self.round += 1
        if self.round == 1 and "deck" in self.options:
            order = [card["id"] for card in self.options["deck"]]
        else:
            order = list(range(CARD_COUNT))
            shuffle(order, self.rng)
        # Dealing: seat 0 takes the top 7 cards, seat 1 the next 7, …; the next card opens the grid (RULES.md "Setup").
        self.hands = [sorted(order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(self.players)]
        first = order[self.players * HAND_SIZE]
        self.deck: list[int] = order[self.players * HAND_SIZE + 1 :]
        # Who put each deck card there (None: dealt). Only the burier knows that card; perturb_hidden keeps it.
        self.deck_buried_by: list[int | None] = [None] * len(self.deck)
        self.grid = {(0, VALUE[first]): first}
        self.row_counts: dict[int, int] = {0: 1}
        self.col_counts = [0] * 8
        self.col_counts[VALUE[first]] = 1
        self.top = self.bottom = 0
        self.round_tokens = [0] * self.players
        self.out = [False] * self.players
        self.buries_in_a_row = 0
        self.last: Played | Buried | None = None
        self.end_reason: str | None = None
        # The multi variant: each player starts one game in turn (seed, "Chcecie więcej?").
        starter = (self.round - 1) % self.players
        if lines is not None:
            if self.rounds > 1:
                lines.append(f"round {self.round} of {self.rounds} begins; seat {starter} starts")
            lines.append(f"the first card on the grid is a {card_name(first)}")
        self._begin_turn(starter, lines)

    def _begin_turn(self, seat: int, lines: list[str] | None) -> None:
        self.current = seat
        deck = self.deck
        if deck:
            card = deck.pop(0)
            self.deck_buried_by.pop(0)
            bisect.insort(self.hands[seat], card)
            if lines is not None:
                lines.append(f"seat {seat} draws a card ({len(deck)} left in the deck)")
        self._mark_out(lines)

    def _mark_out(self, lines: list[str] | None) -> None:
        # RULES.md "A turn" 4: once the deck is empty, a player then holding a single card takes no more turns (for
        # good, even if a card buried later refills the deck).
        if self.deck:
            return
        out = self.out
        for seat, hand in enumerate(self.hands):
            if not out[seat] and len(hand) == 1:
                out[seat] = True
                if lines is not None:
                    lines.append(f"seat {seat} holds a single card with the deck empty and takes no more turns")

    def _after_action(self, seat: int, lines: list[str] | None) -> None:
        self._mark_out(lines)
        out = self.out
        if max(map(len, self.hands)) == 1:  # no hand is ever empty
            self._end_round("every player holds exactly one card", lines)
        elif self.buries_in_a_row >= out.count(False):
            # RULES.md "End of game" 2: a full cycle of buries (by every player still taking turns) ends the game.
            self._end_round("every player in turn put a card under the deck", lines)
        else:
            players = self.players
            for step in range(1, players + 1):
                nxt = (seat + step) % players
                if not out[nxt]:
                    self._begin_turn(nxt, lines)
                    return
            self._end_round("no player takes turns any more", lines)  # pragma: no cover - caught above

    def _end_round(self, reason: str, lines: list[str] | None) -> None:
        self.end_reason = reason
        self.round_results.append(list(self.round_tokens))
        if lines is not None:
            if self.rounds > 1:
                lines.append(f"round {self.round} ends: {reason}; tokens this round {self.round_tokens}")
            else:
                lines.append(f"the game ends: {reason}")
        if self.round < self.rounds:
            self._start_round(lines)
        else:
            self.over = True
            if lines is not None:
                lines.append(f"final tokens {self.tokens}")

    # ----- rules of placement ------------------------------------------------------------------------------------
    def _open_rows(self, value: int) -> tuple[int, ...]:
        rows = self._open[value]
        if rows is None:
            # A free cell of the column touching a card: one beside it (the next columns) or above or below it.
            bits = self._column_bits()
            column = bits[value]
            free = (bits[value - 1] | bits[value + 1] | column << 1 | column >> 1) & ~column
            top, bottom = self.top, self.bottom
            if bottom - top + 1 < MAX_ROWS:
                top, bottom = top - 1, bottom + 1
            free &= ((2 << (bottom - top)) - 1) << (top + ROW_BIT)
            rows = ROWS_OF.get(free)
            if rows is None:
                rows = ROWS_OF[free] = tuple(row for row in range(-ROW_BIT, ROW_BIT) if free >> (row + ROW_BIT) & 1)
            self._open[value] = rows
        return rows

    def rows_for(self, value: int) -> list[int]:
        """Rows where a card of ``value`` may be placed now (RULES.md "A turn" 2), top to bottom."""
        return list(self._open_rows(value))

    def _plays(self) -> list[Action]:
        plays: list[Action] = []
        shown = 0
        rows: tuple[int, ...] = ()
        for card in self.hands[self.current]:  # sorted by id, so by value
            value = VALUE[card]
            if value != shown:
                shown, rows = value, self._open_rows(value)
            for row in rows:
                plays.append({"play": card, "row": row})
        return plays

    def _can_play(self) -> bool:
        return any(self._open_rows(value) for value in {VALUE[card] for card in self.hands[self.current]})

    # ----- hooks -------------------------------------------------------------------------------------------------
    def _to_move(self) -> int | None:
        return self.current

    def is_over(self) -> bool:
        return self.over

    def _legal_actions(self) -> list[Action]:
        plays = self._plays()
        if plays:
            return plays
        # RULES.md "A turn" 3: only when no card has a legal cell, one card of the player's choice goes under the deck.
        return [{"bury": card} for card in self.hands[self.current]]

    def _check(self, action: Action) -> Action:
        # The legal list's membership test without building the list: the same actions pass, in the same form.
        hand = self.hands[self.current]
        if len(action) == 2:
            card, row = action.get("play"), action.get("row")
            if type(card) is int and type(row) is int and card in hand and row in self._open_rows(VALUE[card]):
                return {"play": card, "row": row}
        elif len(action) == 1:
            card = action.get("bury")
            if type(card) is int and card in hand and not self._can_play():
                return {"bury": card}
        raise IllegalAction(self._explain_illegal(action))

    def _explain_illegal(self, action: Action) -> str:
        shape = 'an action is {"play": <card id>, "row": <row>} or {"bury": <card id>}'
        hand = self.hands[self.current]
        if "play" in action:
            extra = set(action) - {"play", "row"}
            if extra:
                return f"unexpected field(s) {sorted(extra)}: {shape}"
            card, row = action["play"], action.get("row")
            if not is_int(card):
                return "play must be the integer id of a card in your hand"
            if card not in hand:
                return f"card {card} is not in your hand"
            if "row" not in action:
                return "a play must name its row"
            if not is_int(row):
                return "row must be an integer (0 is the first card's row, negative rows are above it)"
            value = VALUE[card]
            if (row, value) in self.grid:
                return f"row {row} already holds a {ANIMALS[value]} ({value}): a row holds one card of each value"
            if not self.top - 1 <= row <= self.bottom + 1:
                return (
                    f"row {row} does not exist: a new row may only be started directly above the top row "
                    f"(row {self.top - 1}) or directly below the bottom row (row {self.bottom + 1})"
                )
            if not self.top <= row <= self.bottom and self.bottom - self.top + 1 >= MAX_ROWS:
                return "the grid already has 7 rows: no new row may be started"
            return (
                f"a card must touch a card on the grid (left, right, above or below): row {row}, column {value} "
                "has no neighbour"
            )
        if "bury" in action:
            extra = set(action) - {"bury"}
            if extra:
                return f"unexpected field(s) {sorted(extra)}: {shape}"
            card = action["bury"]
            if not is_int(card):
                return "bury must be the integer id of a card in your hand"
            if card not in hand:
                return f"card {card} is not in your hand"
            return "playing a card is compulsory: a card may go under the deck only when no card in hand can be played"
        return shape

    def _apply(self, action: Action) -> list[str]:
        lines: list[str] = []
        self._step(action, lines)
        return lines

    def _advance(self, action: Action) -> None:
        self.history.append(action)
        self._step(action, None)

    def _step(self, action: Action, lines: list[str] | None) -> None:
        """Play a legal action; narrate it into ``lines`` unless it is None (a search's step)."""
        seat = self.current
        if "play" in action:
            card, row = action["play"], action["row"]
            self.hands[seat].remove(card)
            gained = self._place(seat, card, row, lines)
            self.buries_in_a_row = 0
            self.last = {"seat": seat, "action": "play", "card": card_json(card), "row": row, "tokens": gained}
        else:
            card = action["bury"]
            self.hands[seat].remove(card)
            self.deck.append(card)
            self.deck_buried_by.append(seat)
            self.buries_in_a_row += 1
            self.last = {"seat": seat, "action": "bury"}
            if lines is not None:
                lines.append(f"seat {seat} cannot play and puts a card under the deck")
        self._after_action(seat, lines)

    def _place(self, seat: int, card: int, row: int, lines: list[str] | None) -> int:
        value = VALUE[card]
        grid = self._grid
        grid[(row, value)] = card
        if self._bits is not None:
            self._bits[value] |= 1 << (row + ROW_BIT)
        self._open = [None] * 8
        if self._cells is not None:
            key = _cell_key(row, value)
            at = bisect.bisect(self._cell_keys, key)
            self._cell_keys.insert(at, key)
            self._cells.insert(at, _cell(row, card))
        in_row = self.row_counts[row] = self.row_counts.get(row, 0) + 1
        self.col_counts[value] += 1
        if row < self.top:
            self.top = row
        elif row > self.bottom:
            self.bottom = row
        if lines is not None:
            lines.append(f"seat {seat} plays a {card_name(card)} in row {row}")
        gained = 0
        # RULES.md "Scoring": per completed line, 1 token plus 1 per balloon card in it; row and column both count.
        if in_row == LINE_LENGTH:
            score = 1 + sum(BALLOON[grid[(row, v)]] for v in range(1, 8))
            gained += score
            if lines is not None:
                lines.append(f"seat {seat} completes row {row} and gains {score} token(s)")
        if self.col_counts[value] == LINE_LENGTH:
            score = 1 + sum(BALLOON[c] for (_, v), c in grid.items() if v == value)
            gained += score
            if lines is not None:
                lines.append(f"seat {seat} completes column {value} and gains {score} token(s)")
        if gained:
            self.tokens[seat] += gained
            self.round_tokens[seat] += gained
        return gained

    # ----- views -------------------------------------------------------------------------------------------------
    def _grid_json(self) -> list[Cell]:
        # A card's cell never changes once placed: observations share the cell objects (read-only, as ``last`` is).
        return self._sorted_cells()[:]

    def _public_view(self) -> dict[str, Any]:
        over = self.over
        return {
            "players": self.players,
            "round": self.round,
            "rounds": self.rounds,
            "to_move": None if over else self.current,
            "grid": self._grid_json(),
            "rows": [self.top, self.bottom],
            "deck_size": len(self.deck),
            "hand_sizes": [len(hand) for hand in self.hands],
            "tokens": self.tokens[:],
            "round_tokens": self.round_tokens[:],
            "round_results": [result[:] for result in self.round_results],
            "out": self.out[:],
            "buries_in_a_row": self.buries_in_a_row,
            "last": self.last,
            "over": over,
        }

    def _observation(self, seat: int) -> dict[str, Any]:
        view = self._public_view()
        view["seat"] = seat
        cells = CARD_CELLS
        view["hand"] = [{"id": card, "value": cells[card][0], "balloon": cells[card][1]} for card in self.hands[seat]]
        return view

    def _full_view(self) -> dict[str, Any]:
        view = self._public_view()
        view["hands"] = [[card_json(card) for card in hand] for hand in self.hands]
        view["deck"] = [card_json(card) for card in self.deck]
        view["deck_buried_by"] = list(self.deck_buried_by)
        view["end_reason"] = self.end_reason
        return view

    def _outcome(self) -> Outcome:
        return Outcome.from_scores(self.tokens)

    def _clone(self) -> Self:
        """A field copy: the grid's derived data with it, the rng shared until either side draws from it."""
        other = self._field_copy()
        other.history = self.history[:]
        other.hands = [hand[:] for hand in self.hands]
        other.deck = self.deck[:]
        other.deck_buried_by = self.deck_buried_by[:]
        other._grid = self._grid.copy()
        if self._bits is not None:
            other._bits = self._bits[:]
        other._open = self._open[:]
        if self._cells is not None:
            other._cells = self._cells[:]
            other._cell_keys = self._cell_keys[:]
        other.row_counts = self.row_counts.copy()
        other.col_counts = self.col_counts[:]
        other.tokens = self.tokens[:]
        other.round_tokens = self.round_tokens[:]
        other.out = self.out[:]
        other.round_results = [result[:] for result in self.round_results]
        return other

    def perturb_hidden(self, observer: int, rng: random.Random) -> RanczoState | None:
        # Hidden from the observer: other seats' hands and the deck order, except the cards the observer buried
        # (they know those cards and where they went). Two hidden cards in different places are swapped.
        slots: list[tuple[str, int, int]] = [
            ("hand", seat, card) for seat in range(self.players) if seat != observer for card in self.hands[seat]
        ]
        slots += [
            ("deck", position, card)
            for position, card in enumerate(self.deck)
            if self.deck_buried_by[position] != observer
        ]
        order = list(slots)
        rng.shuffle(order)
        chosen: tuple[tuple[str, int, int], tuple[str, int, int]] | None = None
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                if a[:2] == b[:2]:
                    continue  # two cards of one hand: swapping them changes nothing
                if VALUE[a[2]] != VALUE[b[2]]:
                    chosen = (a, b)
                    break
                chosen = chosen or (a, b)
            if chosen and VALUE[chosen[0][2]] != VALUE[chosen[1][2]]:
                break
        if chosen is None:
            return None
        a, b = chosen
        other = self._clone()
        for (kind, where, card), replacement in ((a, b[2]), (b, a[2])):
            if kind == "hand":
                hand = other.hands[where]
                hand.remove(card)
                bisect.insort(hand, replacement)
            else:
                other.deck[where] = replacement
        return other


def _cell(row: int, card: int) -> Cell:
    return {"row": row, "value": VALUE[card], "balloon": BALLOON[card], "id": card}


def _cell_key(row: int, value: int) -> int:
    """Orders cells by row, then value, as observations list them."""
    return row * 8 + value


class RanczoGame(Game):
    spec = GameSpec(
        id="ranczo",
        title="Ranczo Party",
        min_players=2,
        max_players=4,
        version="1",
        observation=declaration.Observation,
        action=declaration.Action,
        hidden="The other players' hands and the order of the deck.",
        chance="The deck is shuffled for every round.",
        score="Tokens for completed rows and columns, summed over the rounds.",
        summary=(
            "Sylvie Barc's Dragon, Polish edition: 49 farm-animal cards, seven of each value 1-7, five of them with "
            "a balloon. Each turn you draw and must place a card in its value's column on a grid of at most seven "
            "rows, next to a card already there. Completing a row or a column of seven earns a token plus one per "
            "balloon card in it. The game ends when every player holds one card; most tokens wins."
        ),
        options_schema={
            "rounds": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_ROUNDS,
                "default": 1,
                "description": (
                    "games to play, tokens summed; the rulebook's 'multi' variant is rounds = number of players. "
                    "Round k (from 1) is started by seat (k - 1) mod players."
                ),
            },
            "deck": {
                "type": "array",
                "minItems": CARD_COUNT,
                "maxItems": CARD_COUNT,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 0, "maximum": CARD_COUNT - 1},
                        "value": {"type": "integer", "minimum": 1, "maximum": 7},
                        "balloon": {"type": "boolean", "default": False},
                    },
                    "required": ["value"],
                },
                "default": None,
                "description": (
                    "the whole deck of the first round, top first (seat 0 takes the top 7 cards, seat 1 the next "
                    "7, …, the next card opens the grid); later rounds are shuffled. Ids may be left out."
                ),
            },
        },
    )
    state_class = RanczoState

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        unknown = set(options) - {"rounds", "deck"}
        if unknown:
            raise InvalidOptions(f"Ranczo Party has no option(s) {sorted(unknown)}; it takes 'rounds' and 'deck'")
        rounds = options.get("rounds", 1)
        if not is_int(rounds) or not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidOptions(f"rounds must be an integer from 1 to {MAX_ROUNDS}")
        checked: dict[str, Any] = {"rounds": rounds}
        if options.get("deck") is not None:
            checked["deck"] = normalise_deck(options["deck"])
        return checked


GAME = RanczoGame()
