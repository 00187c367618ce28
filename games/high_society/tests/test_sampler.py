"""High Society's sampler (games/high_society/sampler.py): the deck order is drawn uniformly over the orders of the
cards not in sight, which are exactly the cards the seat has not seen revealed."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from itertools import permutations
from typing import Any

import pytest

from games.base import RandomPlayer, canonical
from games.high_society.engine import GAME, STATUS_DECK, Card, HighSocietyState, card_json
from games.high_society.sampler import hidden_deck, unrevealed
from games.seen import Seen

Draw = Callable[[Seen, random.Random], list[Card]]


def seen_of(state: HighSocietyState, seat: int, observations: list[dict[str, Any]]) -> Seen:
    return Seen(
        game="high_society", seat=seat, players=state.players, options=dict(state.options), observations=observations
    )


def play_until(seed: int, players: int, stop: Callable[[HighSocietyState], bool]) -> tuple[HighSocietyState, Seen]:
    """The first decision where ``stop`` holds in random games from ``seed`` on (the next seed when a game ends
    before it), and what the seat to move was told so far in its game."""
    for game_seed in range(seed, seed + 100):
        state = GAME.new_state(players, game_seed)
        assert isinstance(state, HighSocietyState)
        bots: list[RandomPlayer[Any]] = [RandomPlayer(game_seed * 10 + seat) for seat in range(players)]
        told: list[list[dict[str, Any]]] = [[] for _ in range(players)]
        while (seat := state.to_move()) is not None:
            told[seat].append(state.observation(seat))
            if stop(state):
                return state, seen_of(state, seat, told[seat])
            state.apply(bots[seat].act(told[seat][-1], state.legal_actions()))
    raise AssertionError(f"no random game from seed {seed} reached the position asked for")


def late(deck_left: int) -> Callable[[HighSocietyState], bool]:
    return lambda state: len(state.deck) == deck_left and state.phase == "bid"


def chi_square(counts: Counter[tuple[Card, ...]], outcomes: list[tuple[Card, ...]], draws: int) -> float:
    expected = draws / len(outcomes)
    assert set(counts) <= set(outcomes), "a draw outside the consistent deals"
    return sum((counts[outcome] - expected) ** 2 / expected for outcome in outcomes)


def critical(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability 0.001 (Wilson-Hilferty; z is the normal's 0.999 quantile)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def deck_counts(draw: Draw, seen: Seen, draws: int, seed: int) -> Counter[tuple[Card, ...]]:
    rng = random.Random(seed)
    return Counter(tuple(draw(seen, rng)) for _ in range(draws))


def top_card_preferred(seen: Seen, rng: random.Random) -> list[Card]:
    """A deliberately biased draw: a second chance to put the highest guest on top, as a careless sampler might."""
    cards = hidden_deck(seen, rng)
    favourite = max((c for c in cards if isinstance(c, int)), default=cards[0])
    if cards[0] != favourite:
        rng.shuffle(cards)
    return cards


# ----- uniformity ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "players", "deck_left"), [(3, 3, 4), (11, 4, 5), (5, 5, 3)])
def test_deck_orders_are_drawn_uniformly_over_every_consistent_order(seed: int, players: int, deck_left: int) -> None:
    state, seen = play_until(seed, players, late(deck_left))
    outcomes = sorted(set(permutations(state.deck)), key=str)
    draws = 200 * len(outcomes)
    counts = deck_counts(hidden_deck, seen, draws, seed)
    assert len(counts) == len(outcomes)
    assert chi_square(counts, outcomes, draws) < critical(len(outcomes) - 1)


@pytest.mark.parametrize(("seed", "players", "deck_left"), [(3, 3, 4), (11, 4, 5), (5, 5, 3)])
def test_the_uniformity_test_catches_a_draw_biased_towards_one_card(seed: int, players: int, deck_left: int) -> None:
    state, seen = play_until(seed, players, late(deck_left))
    outcomes = sorted(set(permutations(state.deck)), key=str)
    draws = 200 * len(outcomes)
    counts = deck_counts(top_card_preferred, seen, draws, seed)
    assert chi_square(counts, outcomes, draws) > critical(len(outcomes) - 1)


def test_with_a_shared_prestige_card_the_distinct_orders_are_equally_likely() -> None:
    """Three prestige cards are alike: orders that differ only by swapping them are one deal, drawn as often as
    any other."""
    state, seen = play_until(0, 3, lambda s: len(s.deck) <= 6 and s.deck.count("prestige") >= 2 and s.phase == "bid")
    outcomes = sorted(set(permutations(state.deck)), key=str)
    assert len(outcomes) < math.factorial(len(state.deck))
    draws = 100 * len(outcomes)
    counts = deck_counts(hidden_deck, seen, draws, 1)
    assert chi_square(counts, outcomes, draws) < critical(len(outcomes) - 1)


# ----- what the sampler infers --------------------------------------------------------------------------------------
def test_the_unseen_cards_are_exactly_the_real_deck_at_every_decision() -> None:
    for seed in range(20):
        state = GAME.new_state(3 + seed % 3, seed)
        assert isinstance(state, HighSocietyState)
        rng = random.Random(seed)
        while (seat := state.to_move()) is not None:
            assert Counter(unrevealed(state.observation(seat))) == Counter(state.deck)
            state.apply(rng.choice(state.legal_actions()))


def test_a_gossip_discard_and_a_waiting_gossip_keep_their_cards_out_of_the_deck() -> None:
    state, seen = play_until(2, 3, lambda s: s.phase == "discard" or any(s.pending) or bool(s.discarded))
    cards = hidden_deck(seen, random.Random(0))
    assert Counter(cards) == Counter(state.deck)
    assert "discard" not in cards


def test_a_given_deck_is_public_so_the_sample_continues_it_exactly() -> None:
    order = list(STATUS_DECK)
    random.Random(7).shuffle(order)
    state = GAME.new_state(4, 1, {"deck": [card_json(c) for c in order]})
    assert isinstance(state, HighSocietyState)
    rng = random.Random(1)
    while (seat := state.to_move()) is not None:
        seen = seen_of(state, seat, [state.observation(seat)])
        sample = GAME.sample(seen, random.Random(rng.getrandbits(32)))
        assert canonical(sample.full_view()) == canonical(state.full_view())
        state.apply(rng.choice(state.legal_actions()))


def test_a_sample_has_no_history_and_a_fresh_generator_of_its_own() -> None:
    state, seen = play_until(4, 3, late(8))
    first, second = (GAME.sample(seen, random.Random(k)) for k in (1, 2))
    assert first.history == [] and second.history == []
    assert first.rng.getstate() != second.rng.getstate()
    assert first.rng.getstate() != state.rng.getstate()
    assert first.seed != state.seed


def test_a_sample_plays_on_apart_from_the_seen_record() -> None:
    _state, seen = play_until(6, 5, late(10))
    before = canonical(seen.observations)
    sample = GAME.sample(seen, random.Random(0))
    rng = random.Random(0)
    while sample.to_move() is not None:
        sample.apply(rng.choice(sample.legal_actions()))
    assert canonical(seen.observations) == before
    assert sample.outcome().ranks


def test_an_observation_that_miscounts_the_deck_is_refused() -> None:
    _state, seen = play_until(8, 3, late(6))
    seen.observations[-1] = {**seen.current, "deck_left": 7}
    with pytest.raises(ValueError, match="out of sight"):
        GAME.sample(seen, random.Random(0))
