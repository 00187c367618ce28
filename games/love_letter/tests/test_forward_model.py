"""Love Letter's fast paths: the action check without the legal list, the narration-free step and the field clone
with its generator shared until either draws, each against the slow way it replaces."""

from __future__ import annotations

import random
from typing import Any

from games.base import IllegalAction, State, canonical
from games.love_letter.engine import GAME, LoveLetterState


def states(count: int) -> list[LoveLetterState]:
    """Positions of random games, every player count, all phases of a match."""
    found = []
    for seed in range(count):
        state = GAME.new_state(2 + seed % 3, seed)
        assert isinstance(state, LoveLetterState)
        rng = random.Random(seed)
        for _ in range(rng.randrange(60)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over():
            found.append(state)
    return found


def variants(action: dict[str, Any]) -> list[object]:
    """Actions near a legal one: other types, values, seats and keys."""
    near: list[object] = []
    for key, value in action.items():
        for other in (float(value), True, False, str(value), None, value + 1, value - 1, -1, 4, 9, [value]):
            near.append({**action, key: other})
        near.append({k: v for k, v in action.items() if k != key})
    for extra in ("target", "guess", "seat", "cards"):
        if extra not in action:
            near += [{**action, extra: 0}, {**action, extra: 2}, {**action, extra: 1.0}]
    return near


def slow_check(state: LoveLetterState, action: dict[str, Any]) -> str:
    """The base class's check: the listed action it matches, or the reason it is refused."""
    try:
        return canonical(list(State._check(state, action).items()))
    except IllegalAction as refused:
        return f"refused: {refused.reason}"


def fast_check(state: LoveLetterState, action: dict[str, Any]) -> str:
    try:
        return canonical(list(state._check(action).items()))  # key order included
    except IllegalAction as refused:
        return f"refused: {refused.reason}"


def test_the_check_without_the_list_accepts_and_refuses_exactly_what_the_list_does() -> None:
    checked = 0
    for state in states(120):
        for legal in state.legal_actions():
            for action in [legal, *variants(legal)]:
                if isinstance(action, dict):
                    assert fast_check(state, action) == slow_check(state, action), (state.full_view(), action)
                    checked += 1
    assert checked > 10_000


def test_advance_reaches_what_apply_reaches_and_keeps_the_history() -> None:
    for state in states(60):
        rng = random.Random(len(state.history))
        applied, advanced = state.clone(), state.clone()
        while applied.to_move() is not None:
            action = rng.choice(applied.legal_actions())
            applied.apply(action)
            advanced.advance(action)
            assert canonical(advanced.full_view()) == canonical(applied.full_view())
        assert advanced.history == applied.history and advanced.outcome() == applied.outcome()


def test_clones_draw_as_the_original_would_whoever_draws_first() -> None:
    state = states(5)[-1]
    expected = random.Random()
    expected.setstate(state.rng.getstate())
    clones = [state.clone() for _ in range(3)]
    future = [expected.random() for _ in range(5)]
    state.rng.random()  # the original moves on; the clones keep their own futures
    for clone in clones:
        assert [clone.rng.random() for _ in range(5)] == future
    later = state.clone()
    assert later.rng.getstate() == state.rng.getstate()


def test_a_clone_played_to_the_end_leaves_the_original_as_it_was() -> None:
    for state in states(30):
        before, generator = canonical(state.full_view()), state.rng.getstate()
        history, moves = canonical(state.history), canonical(state.moves)
        clone = state.clone()
        rng = random.Random(0)
        while clone.to_move() is not None:
            clone.advance(rng.choice(clone.legal_actions()))
        assert canonical(state.full_view()) == before and state.rng.getstate() == generator
        assert canonical(state.history) == history and canonical(state.moves) == moves
