"""The engine base's helpers for actions as JSON values: strict sameness and copying."""

from __future__ import annotations

from typing import Any

import pytest

from games.base import IllegalAction, canonical, copy_json, same_json
from games.registry import get_game

EQUAL_PAIRS: list[tuple[Any, Any]] = [
    ({"card": 1}, {"card": 1}),
    ({"card": 1}, {"card": 1.0}),
    ({"card": 1}, {"card": True}),
    ({"card": 0}, {"card": False}),
    ({"bid": [3, 2]}, {"bid": [3.0, 2]}),
    ({"pay": {"coins": 1, "cards": [4]}}, {"pay": {"coins": 1, "cards": [4.0]}}),
    ({"x": 0.0}, {"x": -0.0}),
    ({"a": None, "b": "s"}, {"b": "s", "a": None}),
]


@pytest.mark.parametrize(("a", "b"), EQUAL_PAIRS)
def test_same_json_agrees_with_the_canonical_text_for_values_python_calls_equal(a: Any, b: Any) -> None:
    assert a == b
    assert same_json(a, b) is (canonical(a) == canonical(b))
    assert same_json(b, a) is (canonical(a) == canonical(b))


def test_copy_json_shares_nothing_mutable() -> None:
    action = {"pay": {"coins": 1, "cards": [4, 5]}, "tags": ("a", [1])}
    copied = copy_json(action)
    assert copied == action
    copied["pay"]["cards"].append(6)
    copied["tags"][1].append(2)
    assert action == {"pay": {"coins": 1, "cards": [4, 5]}, "tags": ("a", [1])}


def test_a_love_letter_action_written_with_a_float_or_a_bool_is_refused_and_the_int_one_taken() -> None:
    state = get_game("love_letter").new_state(2, 7)
    legal = state.legal_actions()[0]
    for key, value in legal.items():
        for strange in (float(value), bool(value)) if value in (0, 1) else (float(value),):
            with pytest.raises(IllegalAction):
                state.apply({**legal, key: strange})
    state.apply(dict(legal))
    assert state.history == [legal] and type(state.history[0]["card"]) is int
