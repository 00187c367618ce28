"""The blanks of templated legal actions (fields ``null`` that the mover fills in), described so that a person's
table can show each blank as a control instead of a JSON line (docs/tables.md, "Actions with blanks").

A description is ``{"blanks": [[Blank, ...] per legal action], "lists": {name: choices}}``, parallel to
``legal_actions()``: an empty list means the action is complete as listed (a button). A ``Blank``:

- ``path``: the keys (and list indices) down to the null; a ``some`` blank's path is the list of nulls itself;
- ``label``: what the control asks;
- ``kind``: ``one`` (pick one value), ``some`` (pick ``min`` to ``max`` distinct values, the list's length),
  ``number`` (a whole number from ``min`` to ``max``) or ``text``;
- ``choices`` (``one``/``some``): the name of a list in ``lists``; with ``per`` (the path of another blank) that
  list is a mapping from the other blank's value (as a string) to the choices.

A choice is a ``{"value", "label"}`` object, or a bare value shown as itself or, when the blank names ``labels``
(a list in ``lists`` that maps each value, as a string, to its label), as that label: long lists stay small. Choices
must hold only what the mover may see (they travel with the seat's
observation). Pure Python: no Django.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Blank(TypedDict):
    path: list[str | int]
    label: str
    kind: str  # one | some | number | text
    choices: NotRequired[str]
    per: NotRequired[list[str | int]]
    labels: NotRequired[str]
    min: NotRequired[int]
    max: NotRequired[int]


class Blanks(TypedDict):
    blanks: list[list[Blank]]
    lists: dict[str, Any]


def null_paths(value: Any, path: tuple[str | int, ...] = ()) -> list[list[str | int]]:
    """Every path down to a ``null`` in ``value``, in document order."""
    if value is None:
        return [list(path)]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in null_paths(item, (*path, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in null_paths(item, (*path, i))]
    return []


def label_of(path: list[str | int]) -> str:
    words = [str(step).replace("_", " ") for step in path if isinstance(step, str)]
    return " ".join(words) or "value"


def generic_blanks(action: Any) -> list[Blank]:
    """A free text blank for each null: what a game without its own description offers."""
    return [{"path": path, "label": label_of(path), "kind": "text"} for path in null_paths(action)]


def choice(value: Any, label: str | None = None) -> dict[str, Any]:
    return {"value": value, "label": str(value) if label is None else label}
