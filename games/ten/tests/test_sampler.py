"""TEN's sampler (games/ten/sampler.py): uniform over the decks a seat cannot tell apart, and the inferences it uses.

The generic suite (tests/games/test_sampling.py) shows that a sample tells the seat exactly what it was told; here:
the deck's ids and order are uniform where the consistent decks can be counted (and a biased draw is caught by the
same test), and what the seat knows from its earlier observations is used.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from scipy.stats import chisquare

from games.base import canonical
from games.registry import make_player
from games.seen import Seen
from games.ten.engine import GAME, WILD, Face, TenState
from games.ten.sampler import Pools, deck_pools, ids_by_face, visible_ids

P_VALUE = 1e-4  # a sampler this test rejects is biased; a correct one fails it once in ten thousand runs


def play(players: int, seed: int) -> Iterator[tuple[TenState, Seen]]:
    """A random game; at every decision the real state and the record of the seat to move (that decision
    included)."""
    state = GAME.new_state(players, seed)
    assert isinstance(state, TenState)
    bots = [make_player("ten", "random", seed * 10 + seat) for seat in range(players)]
    seen = [Seen(game="ten", seat=seat, players=players, options=dict(state.options)) for seat in range(players)]
    for seat, bot in enumerate(bots):
        bot.start(seat, players, state.options)
    while (seat := state.to_move()) is not None:
        observation = state.observation(seat)
        seen[seat].record(observation)
        yield state, seen[seat]
        state.apply(bots[seat].act(observation, state.legal_actions()))


def position(players: int, seed: int, moves: int) -> tuple[TenState, Seen]:
    """The first decision of a random game after ``moves`` moves."""
    return next((state, seen) for state, seen in play(players, seed) if len(state.history) >= moves)


def sample(seen: Seen, rng: random.Random) -> TenState:
    state = GAME.sample(seen, rng)
    assert isinstance(state, TenState)
    return state


def ever_seen(seen: Seen) -> set[int]:
    return set().union(*(visible_ids(obs) for obs in seen.observations))


def consistent_decks(state: TenState, seen: Seen) -> list[tuple[int, ...]]:
    """Every deck (ids, top last) the seat cannot rule out, counted by brute force: ids it never saw whose faces
    make up what ``deck_counts`` says the deck holds."""
    counts = seen.current["deck_counts"]
    unseen = [cid for cid in range(len(state.faces)) if cid not in ever_seen(seen)]

    def fits(deck: tuple[int, ...]) -> bool:
        faces = [state.faces[cid] for cid in deck]
        if sum(face[0] == WILD for face in faces) != counts["wild"]:
            return False
        numbers = Counter((colour, value) for kind, colour, value, _ in faces if kind == "number")
        currency = Counter(pips for kind, _, _, pips in faces if kind == "currency")
        return all(
            numbers[(colour, int(value))] == n for colour, row in counts["colour"].items() for value, n in row.items()
        ) and all(currency[int(pips)] == n for pips, n in counts["currency"].items())

    return [deck for deck in itertools.permutations(unseen, len(state.deck)) if fits(deck)]


def late_position(low: int, high: int) -> tuple[TenState, Seen, list[tuple[int, ...]]]:
    """A decision late in a 2-player game where the seat cannot tell apart between ``low`` and ``high`` decks, some of
    them differing in which ids (not only in order)."""
    for seed in range(200):
        for state, seen in play(2, seed):
            if 3 <= len(state.deck) <= 4:
                decks = consistent_decks(state, seen)
                orders = len(list(itertools.permutations(state.deck)))
                if low <= len(decks) <= high and len(decks) > orders:
                    return state, seen, decks
                break
    raise AssertionError("no late position with a countable number of decks")


def chi_square_p(draws: list[tuple[int, ...]], decks: list[tuple[int, ...]]) -> float:
    seen_counts = Counter(draws)
    assert set(seen_counts) <= set(decks), "a draw the seat could rule out"
    observed = [seen_counts[deck] for deck in decks]
    return float(chisquare(observed).pvalue)


def test_the_deck_is_uniform_over_every_deck_the_seat_cannot_rule_out() -> None:
    state, seen, decks = late_position(24, 400)
    rng = random.Random(1)
    draws = [tuple(sample(seen, rng).deck) for _ in range(40 * len(decks))]
    assert tuple(state.deck) in decks
    assert chi_square_p(draws, decks) > P_VALUE


def prefer_low_ids(pools: Pools, rng: random.Random) -> list[int]:
    """A biased draw: like the sampler's but the lowest id of a face goes in the deck twice as often as it should."""
    deck: list[int] = []
    for ids, count in pools:
        chosen = rng.sample(ids, count)
        if chosen and ids[0] not in chosen and rng.random() < 0.5:
            chosen[0] = ids[0]
        deck += chosen
    rng.shuffle(deck)
    return deck


def test_the_same_test_catches_a_draw_that_prefers_one_card() -> None:
    state, seen, decks = late_position(24, 400)
    pools = deck_pools(state.catalogue, seen.current, ever_seen(seen))
    rng = random.Random(1)
    draws = [tuple(prefer_low_ids(pools, rng)) for _ in range(40 * len(decks))]
    assert chi_square_p(draws, decks) < P_VALUE


def test_the_top_card_follows_the_decks_contents_early_in_a_game() -> None:
    state, seen = position(4, 7, 20)
    faces: list[Face] = sorted(set(state.faces[cid] for cid in state.deck), key=repr)
    expected = Counter(state.faces[cid] for cid in state.deck)
    rng = random.Random(2)
    tops = Counter(state.faces[sample(seen, rng).deck[-1]] for _ in range(10_000))
    observed = [tops[face] for face in faces]
    total = sum(observed)
    assert chisquare(observed, [expected[face] * total / len(state.deck) for face in faces]).pvalue > P_VALUE


def test_ids_seen_before_and_gone_now_are_known_to_be_discarded() -> None:
    checked = 0
    for state, seen in play(3, 11):
        gone = ever_seen(seen) - visible_ids(seen.current)
        faces_in_deck = {state.faces[cid] for cid in state.deck}
        if not any(state.faces[cid] in faces_in_deck for cid in gone):
            continue  # the inference changes nothing here
        drawn = sample(seen, random.Random(checked))
        assert not gone & set(drawn.deck) and gone <= set(drawn.discard)
        checked += 1
    assert checked > 20


def test_the_decks_wilds_are_exactly_the_wilds_the_seat_never_saw() -> None:
    """Every wild flipped is auctioned to every seat, so the seat saw each wild that left the deck."""
    checked = 0
    for state, seen in play(4, 3):
        drawn = sample(seen, random.Random(checked))
        real = {cid for cid in state.deck if state.faces[cid][0] == WILD}
        assert {cid for cid in drawn.deck if drawn.faces[cid][0] == WILD} == real
        checked += bool(real) and len(real) < 18
    assert checked > 20


def test_a_fixed_deck_is_no_secret() -> None:
    deck = GAME.new_state(2, 5).full_view()["deck"]
    state = GAME.new_state(2, 0, {"deck": deck})
    assert isinstance(state, TenState)
    seen = Seen(game="ten", seat=0, players=2, options=dict(state.options))
    for _ in range(40):
        if state.to_move() == 0:
            seen.record(state.observation(0))
            assert sample(seen, random.Random(9)).deck == state.deck
        state.apply(state.legal_actions()[0])  # flip, pass or buy nothing: a long game of flipping
    assert len(seen.observations) > 10


def fixed_deck(*top: dict[str, Any]) -> list[dict[str, Any]]:
    """A 2-player deck with ``top`` on top, the rest in catalogue order."""
    rest = [dict(card) for card in GAME.new_state(2, 0).full_view()["deck"]]
    for card in top:
        rest.remove(next(c for c in rest if {k: v for k, v in c.items() if k != "id"} == card))
    return [*top, *({k: v for k, v in c.items() if k != "id"} for c in rest)]


def test_after_an_unsold_wild_the_active_player_may_stop_on_an_empty_play_area() -> None:
    """Whether the active player has flipped is not in the observation: the seat's previous one tells it."""
    wild = {"kind": "wild", "colour": None, "value": None}
    state = GAME.new_state(2, 0, {"deck": fixed_deck(wild)})
    seen = Seen(game="ten", seat=0, players=2, options=dict(state.options))
    seen.record(state.observation(0))
    assert GAME.sample(seen, random.Random(0)).legal_actions() == [{"flip": True}]
    state.apply({"flip": True})
    state.apply({"pass": True})  # seat 1
    seen.record(state.observation(0))
    state.apply({"pass": True})  # seat 0: nobody bid, the wild is discarded
    seen.record(state.observation(0))
    assert state.play_area == [] and {"stop": "numbers"} in state.legal_actions()
    drawn = sample(seen, random.Random(0))
    assert canonical(drawn.legal_actions()) == canonical(state.legal_actions())
    assert canonical(drawn.observation(0)) == canonical(state.observation(0))


def test_a_sample_has_no_history_and_a_fresh_rng_drawn_from_the_samplers() -> None:
    state, seen = position(2, 4, 30)
    first = GAME.sample(seen, random.Random(5))
    again = GAME.sample(seen, random.Random(5))
    other = GAME.sample(seen, random.Random(6))
    assert first.history == [] and first.rng is not state.rng
    assert first.rng.getstate() == again.rng.getstate() != other.rng.getstate()
    assert canonical(first.full_view()) == canonical(again.full_view())


def test_the_pools_hold_each_face_once() -> None:
    state = GAME.new_state(5, 0)
    assert isinstance(state, TenState)
    by_face = ids_by_face(state.faces)
    assert sorted(cid for ids in by_face.values() for cid in ids) == list(range(len(state.faces)))
