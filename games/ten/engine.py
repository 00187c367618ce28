"""TEN rules engine (the rules: games/ten/RULES.md).

Cards are kept internally as ids into a per-game catalogue of faces ``(kind, colour, value, pips)``; ids are
assigned in a canonical order (number cards by colour and value, then wilds, then currency), so the same id always
means the same card for a given player count and options. Bots see cards in the observation format
``{"id", "kind": "number", "colour", "value"}``, ``{"id", "kind": "currency", "pips"}`` or
``{"id", "kind": "wild", "colour": str | None, "value": int | None}``.

Payments (RULES.md "Paying") that use number cards from a collection are listed by ``legal_actions`` as templates whose
``cards`` list holds one ``null`` per card to give: the number of ways to choose them is far too large to list. A bot
fills each ``null`` with the id of a distinct number card in its own collection.

The engine is split by job: ``cards`` (faces and the deck), ``scoring``, ``paying``, ``table`` (the cards and tokens
in play and every view of them), ``state`` (legality and moves) and, here, the game with its options. Everything
is re-exported from here, the module the registry imports.
"""

from __future__ import annotations

from typing import Any

from games.base import Game, InvalidOptions, is_int
from games.spec import GameSpec
from games.ten import declaration
from games.ten.cards import (
    BASE_NUMBER_COPIES,
    COLOUR_WILDS_PER_COLOUR,
    COLOURS,
    CURRENCY,
    FIASCO_WORTH,
    LIMIT,
    MAX_PIPS,
    NUMBER,
    VALUES,
    WILD,
    Face,
    build_catalogue,
    card_table,
    face_from_json,
    face_json,
    face_name,
)
from games.ten.paying import payment_is_minimal, payment_options
from games.ten.scoring import score_cards, score_faces
from games.ten.state import PHASES, TenState
from games.ten.table import TenTable

__all__ = [
    "BASE_NUMBER_COPIES",
    "COLOURS",
    "COLOUR_WILDS_PER_COLOUR",
    "CURRENCY",
    "DEFAULT_COIN_CAP",
    "DEFAULT_CURRENCY",
    "DEFAULT_MARKS_FOUR_PLUS",
    "DEFAULT_MARKS_THREE",
    "DEFAULT_START_COINS",
    "FIASCO_WORTH",
    "GAME",
    "LIMIT",
    "MAX_PIPS",
    "NUMBER",
    "PHASES",
    "VALUES",
    "WILD",
    "Face",
    "TenGame",
    "TenState",
    "TenTable",
    "build_catalogue",
    "card_table",
    "face_from_json",
    "face_json",
    "face_name",
    "payment_is_minimal",
    "payment_options",
    "score_cards",
    "score_faces",
]

DEFAULT_CURRENCY = {"1": 7, "2": 6, "3": 6, "4": 4, "5": 4}
DEFAULT_MARKS_FOUR_PLUS = {"numbers": [1, 2, 3, 4, 5, 6], "currency": [1, 1, 2, 2, 3, 3]}
DEFAULT_MARKS_THREE = {"numbers": [1, 2, 3], "currency": [1, 2, 3, 4, 5]}
DEFAULT_COIN_CAP = 10
DEFAULT_START_COINS = 5


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
        observation=declaration.Observation,
        action=declaration.Action,
        hidden="The order of the deck (the same for every seat).",
        chance="The deck is shuffled.",
        score="The collection's points; ties go to more black tokens, then more fiasco tokens.",
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
                "type": ["array", "null"],
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
                "(see the components and player-count marks in games/ten/RULES.md)"
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
