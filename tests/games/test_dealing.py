"""``games.base.shuffle``, with which engines deal: the order ``random.Random.shuffle`` makes from the same generator,
and the generator left in the same state (same seeds, same games)."""

from __future__ import annotations

import random

from games.base import shuffle


def test_shuffle_deals_what_random_shuffle_deals_and_draws_as_much() -> None:
    for seed in range(3000):
        size = seed % 70
        theirs, ours = list(range(size)), list(range(size))
        their_rng, our_rng = random.Random(seed), random.Random(seed)
        their_rng.shuffle(theirs)
        shuffle(ours, our_rng)
        assert ours == theirs, (seed, size)
        assert our_rng.getstate() == their_rng.getstate()
