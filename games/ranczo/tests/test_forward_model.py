"""Ranczo Party's forward model beyond the conformance suite (which plays one round): in matches of several rounds,
where the rng deals each new round, a clone shares the rng only until either side uses it, and ``advance`` reaches
what ``apply`` reaches."""

from __future__ import annotations

import copy
import random

from games.base import canonical
from games.ranczo.engine import GAME, RanczoState


def multi_round_game(seed: int) -> RanczoState:
    state = GAME.new_state(2 + seed % 3, seed, {"rounds": 3})
    assert isinstance(state, RanczoState)
    return state


def test_a_clone_played_through_new_rounds_deals_as_a_deep_copy_would_and_leaves_the_original_alone() -> None:
    for seed in range(12):
        state = multi_round_game(seed)
        rng = random.Random(seed)
        while state.to_move() is not None:
            if rng.random() < 0.05:
                before, rng_state = canonical(state.full_view()), state.rng.getstate()
                clone, deep = state.clone(), copy.deepcopy(state)
                moves = random.Random(seed * 1000 + len(state.history))
                while deep.to_move() is not None:
                    action = moves.choice(deep.legal_actions())
                    clone.advance(action)
                    deep.apply(action)
                    assert canonical(clone.full_view()) == canonical(deep.full_view())
                assert clone.round == deep.round == 3
                assert canonical(state.full_view()) == before and state.rng.getstate() == rng_state
            state.apply(rng.choice(state.legal_actions()))


def test_advance_reaches_what_apply_reaches_across_rounds() -> None:
    for seed in range(12):
        state = multi_round_game(seed)
        rng = random.Random(seed)
        while state.to_move() is not None:
            action = rng.choice(state.legal_actions())
            stepped = state.clone()
            stepped.advance(action)
            state.apply(action)
            assert canonical(stepped.full_view()) == canonical(state.full_view())
            assert stepped.history == state.history
            assert canonical(stepped.legal_actions()) == canonical(state.legal_actions())
