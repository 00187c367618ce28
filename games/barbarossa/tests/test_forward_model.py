"""Barbarossa's forward model: a clone's die and its legal lists, which it shares with its original until it may not."""

from __future__ import annotations

from games.barbarossa.engine import GAME, BarbarossaState, yes_features
from games.base import canonical


def moving() -> BarbarossaState:
    state = GAME.new_state(3, 5)
    assert isinstance(state, BarbarossaState)
    for word in ("anchor", "apple", "axe", "bear", "bus", "boot", "cat", "cake", "cup"):
        state.apply({"create": {"word": word, "sculpture": yes_features(word)[:1]}})
    return state


def rolls(state: BarbarossaState, count: int) -> list[int]:
    """Where ``count`` rolls took their movers (passing every curse window, ending every dwarf or question round)."""
    seen: list[int] = []
    while len(seen) < count and not state.is_over():
        if state.phase == "move":
            mover = state.current
            state.advance({"roll": True})
            seen.append(state.wizards[mover])
        else:
            state.advance(state.legal_actions()[-1] if state.phase == "question" else state.legal_actions()[0])
    return seen


def test_a_clone_and_its_original_roll_the_same_die_whichever_rolls_first() -> None:
    original = moving()
    first = original.clone()
    second = original.clone()
    assert rolls(original, 20) == rolls(first, 20) == rolls(second, 20)


def test_a_clone_rolling_leaves_the_original_die_as_it_was() -> None:
    original = moving()
    copy = original.clone()
    rolls(copy, 5)
    assert original.rng.getstate() != copy.rng.getstate()
    assert rolls(original, 20) == rolls(moving(), 20)


def test_an_ask_leaves_the_shared_legal_entries_as_they_were() -> None:
    state = moving()
    state.apply({"move": 6})  # a question space
    asks = [a for a in state.legal_actions() if "ask" in a]
    listed = canonical(asks)
    other = state.clone()
    other.advance(asks[0])
    assert canonical(asks) == listed
    assert asks[0] not in other.legal_actions() and asks[0] in state.legal_actions()
