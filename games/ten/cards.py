"""TEN's cards (RULES.md "Components"): the faces, their observation format, and the deck for a player count.

Cards are kept internally as ids into a per-game catalogue of faces ``(kind, colour, value, pips)``; ids are
assigned in a canonical order (number cards by colour and value, then wilds, then currency), so the same id always
means the same card for a given player count and options. Bots see cards in the observation format
``{"id", "kind": "number", "colour", "value"}``, ``{"id", "kind": "currency", "pips"}`` or
``{"id", "kind": "wild", "colour": str | None, "value": int | None}``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
VALUES: tuple[int, ...] = tuple(range(1, 10))
NUMBER, WILD, CURRENCY = "number", "wild", "currency"

# The limit the game is named after (RULES.md "Flipping", fiasko): a total or the pips alone above this bust.
LIMIT = 10
FIASCO_WORTH = 3  # RULES.md "Components", "Paying"

# Number cards per colour in the full (4-5 player) deck: 1-6 three times, 7-9 once (RULES.md "Components").
BASE_NUMBER_COPIES: dict[int, int] = {v: (3 if v <= 6 else 1) for v in VALUES}
COLOUR_WILDS_PER_COLOUR = 2
MAX_PIPS = 9

Face = tuple[str, str | None, int | None, int | None]  # (kind, colour, value, pips)


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
    """The faces of the deck for ``players``, in canonical id order (RULES.md "Components", player-count marks)."""
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


@lru_cache(maxsize=64)
def card_table(faces: tuple[Face, ...]) -> tuple[dict[str, Any], ...]:
    """Each card of a catalogue in the observation format, built once and shared by every view (read-only)."""
    return tuple({"id": cid, **face_json(face)} for cid, face in enumerate(faces))
