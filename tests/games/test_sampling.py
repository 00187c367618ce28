"""Every game's sampler of the unseen (``Game.sample``, docs/search.md): what it must show in CI.

A seat is told an observation at each of its own decisions (the ``act`` messages) and nothing in between; ``Seen``
holds exactly those. At every decision of random games, for the seat to move: a state drawn from what that seat
was told gives it exactly its real observation (canonical JSON) and the same legal actions, and plays on to a valid
end. A hidden-information perturbation of the real state changes nothing the sampler reads, so it cannot change
what it draws. Each game's own tests show that the draws are uniform where the consistent deals can be counted.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.base import Player, State, canonical, has_sampler
from games.registry import GAMES, get_game, make_player
from games.seen import Seen
from games.simulate import MAX_DECISIONS

DECISIONS = 10_000  # per game, over as many random games as it takes
PERTURBED_SHARE = 0.05  # of the samples played on to their end
PERTURBATION_SHARE = 0.2  # of the decisions whose hidden information is perturbed (a copy and six draws each)


SAMPLED = [game_id for game_id in GAMES if has_sampler(get_game(game_id).state_class)]


def _seen(game_id: str, seat: int, state: State) -> Seen:
    return Seen(
        game=game_id,
        seat=seat,
        players=state.players,
        options=dict(state.options),
        start=get_game(game_id).start_info(state.players, state.options),
    )


def _random_players(game_id: str, state: State, seed: int) -> list[Player[Any]]:
    """A started random player per seat (they fill the templates some games list), seeded ``seed``, ``seed + 1``, …"""
    players = [make_player(game_id, "random", seed + seat) for seat in range(state.players)]
    for seat, player in enumerate(players):
        player.start(seat, state.players, state.options)
    return players


def _new_game(game_id: str, seed: int) -> tuple[State, list[Player[Any]], list[Seen]]:
    """Game ``seed`` of the suite (the player counts in turn), its random players and each seat's empty record."""
    game = get_game(game_id)
    state = game.new_state(game.min_players + seed % (game.max_players - game.min_players + 1), seed)
    return state, _random_players(game_id, state, seed * 10), [_seen(game_id, s, state) for s in range(state.players)]


def _play_until_over(game_id: str, state: State, seed: int) -> None:
    """Random players play a sample on to its end."""
    players = _random_players(game_id, state, seed)
    for _ in range(MAX_DECISIONS):
        seat = state.to_move()
        if seat is None:
            assert state.outcome().ranks
            return
        state.apply(players[seat].act(state.observation(seat), state.legal_actions()))
    raise AssertionError("a sampled state did not end")


@pytest.mark.parametrize("game_id", SAMPLED)
def test_a_sample_tells_the_seat_exactly_what_it_was_told(game_id: str) -> None:
    game = get_game(game_id)
    decisions = 0
    seed = 0
    while decisions < DECISIONS:
        state, bots, seen = _new_game(game_id, seed)
        rng = random.Random(seed)
        while (seat := state.to_move()) is not None:
            observation = state.observation(seat)
            legal = state.legal_actions()
            seen[seat].record(observation, legal)
            sample = game.sample(seen[seat], random.Random(rng.getrandbits(64)))
            where = f"{game_id} seed {seed}, decision {len(state.history)}, seat {seat}"
            assert sample.to_move() == seat, where
            assert canonical(sample.observation(seat)) == canonical(observation), where
            assert canonical(sample.legal_actions()) == canonical(legal), where
            if rng.random() < PERTURBED_SHARE:
                _play_until_over(game_id, sample, rng.getrandbits(32))
            state.apply(bots[seat].act(observation, legal))
            decisions += 1
        seed += 1


@pytest.mark.parametrize("game_id", SAMPLED)
def test_hidden_information_the_seat_cannot_see_does_not_move_its_samples(game_id: str) -> None:
    """The conformance suite's perturbation swaps hidden cards; the seat's record and so its draws stay the same."""
    game = get_game(game_id)
    checked = 0
    for seed in range(40):
        state, bots, seen = _new_game(game_id, seed)
        rng = random.Random(seed)
        while (seat := state.to_move()) is not None:
            observation, legal = state.observation(seat), state.legal_actions()
            seen[seat].record(observation, legal)
            other = state.perturb_hidden(seat, rng) if rng.random() < PERTURBATION_SHARE else None
            if other is not None:
                assert canonical(other.observation(seat)) == canonical(seen[seat].current)
                seen_other = _seen(game_id, seat, other)
                seen_other.observations = [*seen[seat].observations[:-1], other.observation(seat)]
                seen_other.legal = other.legal_actions()
                draws = [canonical(game.sample(seen[seat], random.Random(k)).full_view()) for k in range(3)]
                again = [canonical(game.sample(seen_other, random.Random(k)).full_view()) for k in range(3)]
                assert draws == again, f"{game_id} seed {seed}: the sampler read something the seat cannot see"
                checked += 1
            state.apply(bots[seat].act(observation, legal))
    assert checked > 0
