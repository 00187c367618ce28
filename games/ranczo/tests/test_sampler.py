"""Ranczo Party's sampler (games/ranczo/sampler.py): the facts it infers hold in real games, worked examples of each,
and its draws are uniform over the hidden states that agree with what the seat knows (chi-square, with a biased
draw that the same test catches)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations, permutations

from games.base import canonical
from games.ranczo.engine import CARD_COUNT, GAME, RanczoState
from games.ranczo.sampler import can_play, knowledge
from games.ranczo.tests.test_ranczo import COW, GOOSE, HEN, HORSE, PIG, SHEEP, dealt, full_grid, ids, position
from games.seen import Seen

Key = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


def seen_of(state: RanczoState, seat: int) -> Seen:
    return Seen(game="ranczo", seat=seat, players=state.players, options=dict(state.options))


def hidden_key(state: RanczoState, seat: int) -> Key:
    """The hidden part of a state for ``seat``: the other hands (as sets) and the deck in order."""
    return tuple(tuple(hand) for s, hand in enumerate(state.hands) if s != seat), tuple(state.deck)


def random_games(seeds: range, each: Callable[[RanczoState, Seen, int], None]) -> None:
    """Random games of 2 to 4 players (some of two rounds); ``each`` sees every decision, the mover's record first."""
    for seed in seeds:
        players = 2 + seed % 3
        state = GAME.new_state(players, seed, {"rounds": 1 + seed % 2})
        assert isinstance(state, RanczoState)
        seen = [seen_of(state, s) for s in range(players)]
        rng = random.Random(seed)
        while (seat := state.to_move()) is not None:
            seen[seat].record(state.observation(seat))
            each(state, seen[seat], seat)
            state.apply(rng.choice(state.legal_actions()))


# ----- the inferences ----------------------------------------------------------------------------------------------
def test_a_decision_is_a_bury_exactly_when_the_observed_hand_has_no_legal_cell() -> None:
    kinds: Counter[bool] = Counter()

    def check(state: RanczoState, seen: Seen, seat: int) -> None:
        plays = "play" in state.legal_actions()[0]
        assert can_play(seen.current) == plays
        kinds[plays] += 1

    random_games(range(20), check)
    assert kinds[True] and kinds[False]


def test_the_facts_hold_in_real_games_and_every_own_bury_still_in_the_deck_is_pinned() -> None:
    found = Counter[str]()

    def check(state: RanczoState, seen: Seen, seat: int) -> None:
        known = knowledge(seen)
        for where, card in known.pinned.items():
            assert state.deck[where] == card and state.deck_buried_by[where] == seat
        own = {where: card for where, card in enumerate(state.deck) if state.deck_buried_by[where] == seat}
        assert known.pinned == own, "a bury of its own that the seat lost track of"
        for card, holder in known.held.items():
            assert card in state.hands[holder]
        found["pinned"] += len(known.pinned)
        found["held"] += len(known.held)

    random_games(range(120), check)
    assert found["pinned"] > 100 and found["held"] > 10, found


def test_an_own_bury_is_pinned_where_the_draws_since_have_moved_it() -> None:
    # Seat 0 holds sheep and draws a horse: nothing of it touches the hen, so it buries a sheep behind 33 cards.
    state = dealt(2, [ids(4), ids(2)], HEN, [HORSE, HORSE + 1, HORSE + 2])
    seen = seen_of(state, 0)
    seen.record(state.observation(0))
    assert seen.current["deck_size"] == 33
    state.apply({"bury": SHEEP + 3})
    state.apply({"play": GOOSE, "row": 0})  # seat 1 drew a card; seat 0 draws the next
    seen.record(state.observation(0))
    assert knowledge(seen).pinned == {31: SHEEP + 3} and state.deck[31] == SHEEP + 3 == state.deck[-1]
    for k in range(20):
        assert fair_sample(seen, random.Random(k)).deck[31] == SHEEP + 3


def test_an_own_bury_drawn_by_an_opponent_who_has_only_played_since_is_in_their_hand() -> None:
    # The deck is empty and columns 1-4 are full. Seat 0 holds cows only: no cell touches a pig or a horse, so it
    # buries one; seat 1 draws it. Seats 1 and 2 then place pigs: no opponent buried, so seat 1 still holds the cow.
    pigs, horses = ids(5), ids(7)
    state = position(full_grid(columns=range(1, 5)), [ids(6), pigs[:4] + horses[:3], pigs[4:] + horses[3:]], deck=[])
    seen = seen_of(state, 0)
    seen.record(state.observation(0))
    state.apply({"bury": COW + 3})
    assert COW + 3 in state.hands[1]
    state.apply({"play": PIG, "row": 0})
    state.apply({"play": PIG + 4, "row": 1})
    seen.record(state.observation(0))
    assert knowledge(seen).held == {COW + 3: 1}
    for k in range(20):
        assert COW + 3 in fair_sample(seen, random.Random(k)).hands[1]


def test_after_an_opponents_bury_the_drawn_card_is_no_longer_placed() -> None:
    # As above, but seat 2 holds horses only and buries: seat 1 might have buried the cow since (approximation).
    pigs, horses = ids(5), ids(7)
    state = position(full_grid(columns=range(1, 5)), [ids(6), pigs, horses], deck=[])
    seen = seen_of(state, 0)
    seen.record(state.observation(0))
    state.apply({"bury": COW + 3})
    state.apply({"play": PIG, "row": 0})
    state.apply({"bury": HORSE})
    seen.record(state.observation(0))
    assert knowledge(seen).held == {} and knowledge(seen).pinned == {}


def test_the_sample_tells_nothing_of_the_real_seed_or_history() -> None:
    state = GAME.new_state(3, 5)
    assert isinstance(state, RanczoState)
    seen = seen_of(state, 0)
    seen.record(state.observation(0))
    samples = [GAME.sample(seen, random.Random(k)) for k in range(2)]
    assert all(sample.history == [] for sample in samples)
    assert samples[0].rng.getstate() != samples[1].rng.getstate() != state.rng.getstate()
    assert canonical(samples[0].observation(0)) == canonical(state.observation(0))


# ----- uniformity ---------------------------------------------------------------------------------------------------
def small_positions(count: int) -> list[tuple[RanczoState, Seen, int]]:
    """Real late positions (one a game) with few hidden cards and at least one bury of the mover still in the deck,
    and no card of its own in an opponent's hand (``consistent_states`` places only the buries in the deck)."""
    found: list[tuple[RanczoState, Seen, int]] = []

    def keep(state: RanczoState, seen: Seen, seat: int) -> None:
        hidden = len(state.deck) + sum(len(hand) for s, hand in enumerate(state.hands) if s != seat)
        if len(found) == count or (found and found[-1][0].seed == state.seed):
            return
        own = state.deck_buried_by.count(seat)
        if 0 < own < len(state.deck) and hidden <= 10 and not knowledge(seen).held:
            found.append((state.clone(), Seen(**{**seen.__dict__, "observations": list(seen.observations)}), seat))

    random_games(range(300), keep)
    assert len(found) == count
    return found


def consistent_states(state: RanczoState, seat: int) -> set[Key]:
    """Every placement of the cards the seat cannot see into the other hands (as sets) and the deck (in order) that
    leaves the seat's own buries where they really are (the seat knows them)."""
    pinned = knowledge_from_truth(state, seat)
    in_sight = set(state.hands[seat]) | set(state.grid.values())
    unseen = frozenset(card for card in range(CARD_COUNT) if card not in in_sight)
    sizes = [len(hand) for s, hand in enumerate(state.hands) if s != seat]

    def placements(left: frozenset[int], sizes: list[int]) -> list[tuple[tuple[tuple[int, ...], ...], frozenset[int]]]:
        if not sizes:
            return [((), left)]
        return [
            ((hand, *rest), remaining)
            for hand in combinations(sorted(left), sizes[0])
            for rest, remaining in placements(left - set(hand), sizes[1:])
        ]

    return {
        (hands, deck)
        for hands, left in placements(unseen, sizes)
        for deck in permutations(sorted(left))
        if all(deck[where] == card for where, card in pinned.items())
    }


def knowledge_from_truth(state: RanczoState, seat: int) -> dict[int, int]:
    """Where the seat's own buries lie in the real deck."""
    return {where: card for where, card in enumerate(state.deck) if state.deck_buried_by[where] == seat}


def chi_square(counts: Counter[Key], keys: set[Key], draws: int) -> tuple[float, float]:
    """The statistic against uniform over ``keys`` and its critical value at p = 1e-4 (Wilson-Hilferty)."""
    expected = draws / len(keys)
    statistic = sum((counts.get(key, 0) - expected) ** 2 / expected for key in keys)
    df = len(keys) - 1
    z = 3.719
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return statistic, critical


def fair_sample(seen: Seen, rng: random.Random) -> RanczoState:
    sample = GAME.sample(seen, rng)
    assert isinstance(sample, RanczoState)
    return sample


def biased_sample(seen: Seen, rng: random.Random) -> RanczoState:
    """A deliberately biased draw: it prefers the deck's top card to be the lowest card the seat cannot see (one
    redraw when it is not)."""
    sample = fair_sample(seen, rng)
    seat = seen.seat
    in_sight = set(sample.hands[seat]) | set(sample.grid.values())
    lowest = min(card for card in range(CARD_COUNT) if card not in in_sight)
    if sample.deck and sample.deck[0] != lowest:
        sample = fair_sample(seen, rng)
    return sample


def test_samples_are_uniform_over_the_hidden_states_the_seat_cannot_tell_apart() -> None:
    for state, seen, seat in small_positions(3):
        keys = consistent_states(state, seat)
        assert hidden_key(state, seat) in keys and 2 <= len(keys) <= 800
        draws = max(2000, 30 * len(keys))
        rng = random.Random(state.seed)
        fair: Counter[Key] = Counter()
        biased: Counter[Key] = Counter()
        for _ in range(draws):
            fair[hidden_key(fair_sample(seen, rng), seat)] += 1
            biased[hidden_key(biased_sample(seen, rng), seat)] += 1
        assert set(fair) <= keys, "a sample the seat's knowledge rules out"
        statistic, critical = chi_square(fair, keys, draws)
        assert statistic < critical, f"{len(keys)} states: chi-square {statistic:.0f} >= {critical:.0f}"
        statistic, critical = chi_square(biased, keys, draws)
        assert statistic > critical, f"the biased draw passed: {statistic:.0f} < {critical:.0f}"
