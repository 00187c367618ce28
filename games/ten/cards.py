"""TEN's cards (RULES.md "Components"): the faces, their observation format, and the deck for a player count.

Cards are kept internally as ids into a per-game catalogue of faces ``(kind, colour, value, pips)``; ids are
assigned in a canonical order (number cards by colour and value, then wilds, then currency), so the same id always
means the same card for a given player count and options. Bots see cards in the observation format
``{"id", "kind": "number", "colour", "value"}``, ``{"id", "kind": "currency", "pips"}`` or
``{"id", "kind": "wild", "colour": str | None, "value": int | None}``.
"""

from __future__ import annotations

from dataclasses import dataclass
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


# The deck's contents as counts in one flat list (``Catalogue.slots`` maps a card to its place): number cards by
# colour and value, currency cards by pips, then the wilds. A flip lowers one count; the observation's
# ``deck_counts`` is read from it.
NUMBER_SLOTS = len(COLOURS) * len(VALUES)
WILD_SLOT = NUMBER_SLOTS + MAX_PIPS
SLOTS = WILD_SLOT + 1


def _slot(face: Face) -> int:
    kind, colour, value, pips = face
    if kind == NUMBER:
        return COLOURS.index(colour) * len(VALUES) + value - 1  # type: ignore[operator]
    if kind == CURRENCY:
        return NUMBER_SLOTS + pips - 1  # type: ignore[operator]  # a currency card has pips
    return WILD_SLOT


@dataclass(frozen=True)
class Catalogue:
    """The deck of one player count and options, and what every state of it derives from the faces (shared by
    every state of that deck: read-only)."""

    faces: tuple[Face, ...]
    cards: tuple[dict[str, Any], ...]  # each card in the observation format
    names: tuple[str, ...]  # each card in narration
    is_number: tuple[bool, ...]
    slots: tuple[int, ...]  # each card's place in the deck's counts
    currency: tuple[tuple[str, int], ...]  # the currency cards' pips ("3") and their slot, by pips

    def counts(self, deck: list[int]) -> list[int]:
        """The counts of a deck (see ``SLOTS``)."""
        counts = [0] * SLOTS
        slots = self.slots
        for cid in deck:
            counts[slots[cid]] += 1
        return counts


_CATALOGUES: dict[tuple[Any, ...], Catalogue] = {}


def catalogue(players: int, options: dict[str, Any]) -> Catalogue:
    """The catalogue for ``players`` and the (checked) options: built once per distinct deck."""
    four, three = options["marks_four_plus"], options["marks_three"]
    key = (
        players,
        tuple(options["currency_cards"].items()),
        tuple(four["numbers"]),
        tuple(four["currency"]),
        tuple(three["numbers"]),
        tuple(three["currency"]),
    )
    found = _CATALOGUES.get(key)
    if found is None:
        if len(_CATALOGUES) >= 64:
            _CATALOGUES.clear()
        found = _CATALOGUES[key] = _build(players, options)
    return found


def _build(players: int, options: dict[str, Any]) -> Catalogue:
    faces = tuple(build_catalogue(players, options))
    pips = sorted({face[3] for face in faces if face[0] == CURRENCY and face[3] is not None})
    return Catalogue(
        faces=faces,
        cards=card_table(faces),
        names=tuple(face_name(face) for face in faces),
        is_number=tuple(face[0] == NUMBER for face in faces),
        slots=tuple(_slot(face) for face in faces),
        currency=tuple((str(p), NUMBER_SLOTS + p - 1) for p in pips),
    )


def _values(counts: list[int], at: int) -> dict[str, int]:
    # Spelt out: a dict display is several times faster than building the same dict from a zip.
    c = counts
    return {
        "1": c[at],
        "2": c[at + 1],
        "3": c[at + 2],
        "4": c[at + 3],
        "5": c[at + 4],
        "6": c[at + 5],
        "7": c[at + 6],
        "8": c[at + 7],
        "9": c[at + 8],
    }


def deck_counts_view(counts: list[int], cat: Catalogue) -> dict[str, Any]:
    """The observation's ``deck_counts`` from a deck's counts (``Catalogue.counts``)."""
    per = len(VALUES)
    rows = [counts[i * per : (i + 1) * per] for i in range(len(COLOURS))]
    return {
        "number": _values([sum(column) for column in zip(*rows, strict=True)], 0),
        "colour": {name: _values(row, 0) for name, row in zip(COLOURS, rows, strict=True)},
        "currency": {pips: counts[slot] for pips, slot in cat.currency},
        "wild": counts[WILD_SLOT],
    }


def counts_view_without(view: dict[str, Any], face: Face) -> dict[str, Any]:
    """A ``deck_counts`` view with one card of ``face`` fewer; the parts it does not touch are shared (views never
    change once made)."""
    kind, colour, value, pips = face
    if kind == NUMBER:
        key = str(value)
        row = {**view["colour"][colour], key: view["colour"][colour][key] - 1}
        return {
            "number": {**view["number"], key: view["number"][key] - 1},
            "colour": {**view["colour"], colour: row},
            "currency": view["currency"],
            "wild": view["wild"],
        }
    if kind == CURRENCY:
        key = str(pips)
        return {**view, "currency": {**view["currency"], key: view["currency"][key] - 1}}
    return {**view, "wild": view["wild"] - 1}
