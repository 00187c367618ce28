"""The states' copy-on-write generator (``State.rng``, games/base.py): a clone shares its original's generator until
either reads it, and every state then draws exactly what a generator of its own, copied at the clone, would."""

from __future__ import annotations

import copy
import random

import pytest

from games.base import State
from games.registry import GAMES, get_game, make_player


def midgame(game_id: str, seed: int) -> State:
    game = get_game(game_id)
    state = game.new_state(game.min_players, seed)
    players = [make_player(game_id, "random", seed * 10 + seat) for seat in range(state.players)]
    for seat, player in enumerate(players):
        player.start(seat, state.players, state.options)
    for _ in range(10):
        if (seat := state.to_move()) is None:
            break
        state.apply(players[seat].act(state.observation(seat), state.legal_actions()))
    return state


def own_copy(state: State) -> random.Random:
    """A generator of its own in the state's generator's place: the unshared copy the shared one must act as."""
    return copy.deepcopy(state).rng


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_clones_and_their_original_each_draw_what_an_unshared_copy_would(game_id: str) -> None:
    for seed in range(4):
        original = midgame(game_id, seed)
        states = [original]
        expected = [own_copy(original)]
        order = random.Random(seed)
        for _ in range(60):
            # Clone any state (a clone of a clone too), or draw from any state, in a random order.
            i = order.randrange(len(states))
            if order.random() < 0.3:
                expected.append(own_copy(states[i]))
                states.append(states[i].clone())
            else:
                assert states[i].rng.random() == expected[i].random(), (game_id, seed, i)
        for state, alone in zip(states, expected, strict=True):
            assert state.rng.getstate() == alone.getstate()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_clone_holds_its_original_generator_until_either_draws(game_id: str) -> None:
    original = midgame(game_id, 1)
    original.rng.random()
    clone = original.clone()
    assert clone._rng is original._rng  # nothing copied by the clone itself
    before = original.rng.getstate()
    clone.rng.random()
    assert clone._rng is not original._rng and original.rng.getstate() == before


def test_a_reseeded_state_makes_its_generator_from_the_seed_when_first_read() -> None:
    state = midgame("love_letter", 2)
    state._reseed(7)
    assert state._rng is None and state.seed == 7
    clone = state.clone()
    assert [state.rng.random(), clone.rng.random()] == [random.Random(7).random()] * 2


def test_a_generator_set_on_a_state_is_its_own_until_a_clone() -> None:
    state = midgame("ranczo", 3)
    mine = random.Random(42)
    state.rng = mine
    assert state.rng is mine
    clone = state.clone()
    assert clone.rng.getstate() == mine.getstate() and clone.rng is not mine
