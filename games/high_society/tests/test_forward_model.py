"""High Society's forward model: a clone copies fields and makes its generator only when read; advance is apply
without its checks and narration (tests/games/test_conformance.py checks the states against apply's)."""

from __future__ import annotations

import copy
import random

from games.base import canonical
from games.high_society.engine import GAME, HighSocietyState


def midgame(seed: int, players: int = 4, steps: int = 12) -> HighSocietyState:
    state = GAME.new_state(players, seed)
    assert isinstance(state, HighSocietyState)
    rng = random.Random(seed)
    for _ in range(steps):
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_a_clone_reads_the_generator_its_original_had_and_each_draws_alone() -> None:
    state = midgame(1)
    expected = state.rng.getstate()
    clone = state.clone()
    assert clone.rng.getstate() == expected
    clone.rng.random()
    assert state.rng.getstate() == expected
    grandchild = clone.clone()
    assert grandchild.rng.getstate() == clone.rng.getstate() != expected


def test_a_clone_of_a_clone_before_any_read_still_has_the_original_generator() -> None:
    state = midgame(2)
    expected = state.rng.getstate()
    first = state.clone()
    second = first.clone()
    assert [s.rng.getstate() for s in (second, first, state)] == [expected] * 3


def test_a_generator_set_on_a_state_is_its_own() -> None:
    state = midgame(3)
    mine = random.Random(42)
    state.rng = mine
    assert state.rng is mine
    assert state.clone().rng.getstate() == mine.getstate()


def test_a_clone_shares_no_list_with_its_original() -> None:
    state = midgame(4)
    clone = state.clone()
    for name, value in vars(state).items():
        if isinstance(value, list):
            assert value is not vars(clone)[name], name
            for row, other in zip(value, vars(clone)[name], strict=True):
                assert not isinstance(row, list) or row is not other, name


def test_a_deep_copy_copies_the_recorded_actions_and_options_too() -> None:
    state = midgame(5)
    deep = copy.deepcopy(state)
    assert deep.history == state.history and deep.options == state.options
    assert all(a is not b for a, b in zip(deep.history, state.history, strict=True))
    assert deep.options is not state.options


def test_advance_records_the_action_and_reaches_what_apply_reaches_to_the_end() -> None:
    for seed in range(10):
        applied, advanced = GAME.new_state(3 + seed % 3, seed), GAME.new_state(3 + seed % 3, seed)
        rng = random.Random(seed)
        while applied.to_move() is not None:
            action = rng.choice(applied.legal_actions())
            applied.apply(action)
            advanced.advance(action)
            assert canonical(advanced.full_view()) == canonical(applied.full_view())
        assert canonical(advanced.history) == canonical(applied.history)
        assert advanced.outcome() == applied.outcome()
