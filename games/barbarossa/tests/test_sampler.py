"""Barbarossa's sampler (games/barbarossa/sampler.py): the inferences it uses, the uniformity of its draws where the
consistent word assignments can be counted, and what it makes of the parts no rule pins down."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from games.barbarossa import sampler
from games.barbarossa.engine import GAME, WORDS, BarbarossaState, answer_for, letter_at, yes_features
from games.base import Action, canonical
from games.registry import make_player
from games.seen import Seen

Assignment = tuple[str, ...]


# ----- positions -----------------------------------------------------------------------------------------------------
class Table:
    """A real game and what each seat was told at its decisions (the observations a bot receives)."""

    def __init__(self, creations: list[list[tuple[str, list[str]]]], players: int = 4) -> None:
        state = GAME.new_state(players, 1)
        assert isinstance(state, BarbarossaState)
        self.state = state
        self.seen = [
            Seen(game="barbarossa", seat=seat, players=self.state.players, options=dict(self.state.options))
            for seat in range(self.state.players)
        ]
        for objects in creations:
            for word, sculpture in objects:
                self.play({"create": {"word": word, "sculpture": sculpture}})

    def play(self, action: Action) -> None:
        seat = self.state.to_move()
        assert seat is not None
        self.seen[seat].record(self.state.observation(seat))
        self.state.apply(action)

    def told(self, seat: int) -> Seen:
        """``seat``'s record with the observation of the decision it faces now."""
        assert self.state.to_move() == seat
        self.seen[seat].record(self.state.observation(seat))
        return self.seen[seat]

    def oid(self, maker: int, index: int) -> str:
        return [obj["id"] for obj in self.state.objects if obj["maker"] == maker][index]


FLYERS = ["is_vehicle", "can_fly"]  # airplane, helicopter, rocket
RIDDEN_FLYERS = [*FLYERS, "can_be_ridden"]  # airplane, helicopter


def counted_position() -> Table:
    """Seat 0's first move in a 4-player game whose hidden words are few: seat 1 and seat 3 each made two objects
    whose candidates overlap unevenly ({airplane, helicopter, rocket} and {airplane, helicopter}: 4 distinct pairs),
    seat 2 two objects with the same three candidates (6 pairs). 4 x 6 x 4 = 96 consistent assignments."""
    return Table(
        [
            [("anchor", yes_features("anchor")[:2]), ("apple", yes_features("apple")[:2])],
            [("rocket", FLYERS), ("airplane", RIDDEN_FLYERS)],
            [("helicopter", FLYERS), ("rocket", FLYERS)],
            [("rocket", FLYERS), ("helicopter", RIDDEN_FLYERS)],
        ]
    )


FURRY = ["is_animal", "has_fur"]


def told_position() -> Table:
    """Seat 0 has learned things about seat 1's and seat 2's objects (an answer, a letter, a wrong and a right guess)
    while other seats learned things seat 0 was not told (a letter, a wrong guess's word)."""
    table = Table(
        [
            [("anchor", yes_features("anchor")[:2]), ("apple", yes_features("apple")[:2])],
            [("cat", FURRY), ("dog", FURRY)],
            [("bear", FURRY), ("wolf", FURRY)],
            [("drum", yes_features("drum")[:2]), ("cake", yes_features("cake")[:2])],
        ]
    )
    o2, o3, o4 = table.oid(1, 0), table.oid(1, 1), table.oid(2, 0)
    table.play({"move": 6})  # seat 0 to a question space
    table.play({"ask": {"object": o2, "feature": "can_fly"}})  # no: the second round
    table.play({"ask": {"object": o2, "feature": "has_a_tail"}})  # yes
    table.play({"guess": {"object": o2, "word": "dog"}})  # wrong
    table.play({"pass": True})  # seat 1
    table.play({"curse": {"guess": {"object": o2, "word": "fox"}}})  # seat 2, wrong; seat 0 never sees "fox"
    table.play({"curse": {"letter": {"object": o3, "position": 1}}})  # seat 3 is told "d"
    table.play({"move": 1})  # seat 1 to an elfstone
    table.play({"pass": True})  # seat 2
    table.play({"pass": True})  # seat 3
    table.play({"curse": {"letter": {"object": o2, "position": "last"}}})  # seat 0 is told "t"
    table.play({"move": 1})  # seat 2 to an elfstone
    table.play({"pass": True})  # seat 3
    table.play({"curse": {"guess": {"object": o4, "word": "bear"}}})  # seat 0, right
    table.play({"pass": True})  # seat 1
    table.play({"move": 1})  # seat 3 to an elfstone: seat 0's curse window
    return table


# ----- what a seat could know, enumerated from the rules alone -------------------------------------------------------
def fits(word: str, obj: dict[str, Any], obs: dict[str, Any]) -> bool:
    """Everything ``obs`` tells its seat about ``obj``, checked word by word against the lexicon."""
    if any(answer_for(word, feature) != "yes" for feature in obj["sculpture"]):
        return False
    if any(q["object"] == obj["id"] and answer_for(word, q["feature"]) != q["answer"] for q in obs["questions"]):
        return False
    if any(t["object"] == obj["id"] and letter_at(word, t["position"]) != t["letter"] for t in obs["letters"]):
        return False
    mine = [g for g in obs["guesses"] if g["object"] == obj["id"] and g["guesser"] == obs["seat"]]
    return all((word == g["word"]) == g["right"] for g in mine)


def consistent(obs: dict[str, Any]) -> tuple[list[str], list[Assignment]]:
    """(hidden object ids, every assignment of words to them that the rules allow given ``obs``)."""
    hidden = [obj for obj in obs["objects"] if obj["maker"] != obs["seat"]]
    makers = sorted({obj["maker"] for obj in hidden})
    per_maker = []
    for maker in makers:
        own = [obj for obj in hidden if obj["maker"] == maker]
        choices = [[w for w in WORDS if fits(w, obj, obs)] for obj in own]
        per_maker.append([t for t in itertools.product(*choices) if len(set(t)) == len(t)])
    ids = [obj["id"] for maker in makers for obj in hidden if obj["maker"] == maker]
    return ids, [tuple(w for part in parts for w in part) for parts in itertools.product(*per_maker)]


def drawn(state: BarbarossaState, ids: list[str]) -> Assignment:
    words = {obj["id"]: obj["word"] for obj in state.objects}
    return tuple(words[i] for i in ids)


# ----- chi-square against uniform ----------------------------------------------------------------------------------
def chi_square(counts: Counter[Any], cells: Sequence[Any]) -> float:
    """Pearson's statistic of ``counts`` against the uniform distribution over ``cells`` (a draw outside them
    counts as an infinitely unlikely one)."""
    if set(counts) - set(cells):
        return math.inf
    expected = sum(counts.values()) / len(cells)
    return sum((counts[cell] - expected) ** 2 / expected for cell in cells)


def critical(cells: int) -> float:
    """The 99.9% quantile of chi-square with ``cells - 1`` degrees of freedom (Wilson-Hilferty): a uniform sampler
    exceeds it once in a thousand seeds, and the seeds here are fixed."""
    df = cells - 1
    return float(df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3)


def sampled_counts(seen: Seen, ids: list[str], draws: int, seed: int) -> Counter[Assignment]:
    rng = random.Random(seed)
    counts: Counter[Assignment] = Counter()
    for _ in range(draws):
        sample = GAME.sample(seen, rng)
        assert isinstance(sample, BarbarossaState)
        counts[drawn(sample, ids)] += 1
    return counts


def greedy(choices: Sequence[Sequence[str]], rng: random.Random) -> list[str]:
    """A plausible but biased way to draw one maker's distinct words: each in turn among those still free."""
    words: list[str] = []
    for options in choices:
        words.append(rng.choice([w for w in options if w not in words]))
    return words


def test_the_words_are_drawn_uniformly_over_the_consistent_assignments() -> None:
    seen = counted_position().told(0)
    ids, cells = consistent(seen.current)
    assert len(cells) == 96
    counts = sampled_counts(seen, ids, 20_000, seed=1)
    assert chi_square(counts, cells) < critical(len(cells))


def test_the_uniformity_test_catches_a_sampler_that_draws_a_makers_words_greedily(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = counted_position().told(0)
    ids, cells = consistent(seen.current)
    monkeypatch.setattr(sampler, "draw_distinct", greedy)
    counts = sampled_counts(seen, ids, 20_000, seed=1)
    assert set(counts) == set(cells), "the greedy draw reaches every assignment, only with the wrong odds"
    assert chi_square(counts, cells) > critical(len(cells))


DISTINCT_CASES = [
    [["a", "b", "c"], ["a", "b"]],
    [["a", "b", "c"], ["a", "b"], ["a", "c", "d"]],
    [["a", "b", "c", "d"], ["b", "c"], ["c", "d", "e"]],
]


@pytest.mark.parametrize("choices", DISTINCT_CASES)
@pytest.mark.parametrize("tries", [sampler.REJECTION_TRIES, 0])
def test_one_makers_words_are_uniform_over_the_distinct_tuples(
    choices: list[list[str]], tries: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ways the sampler draws them: by rejection and, when rejection gives up (0 tries here), by counting."""
    monkeypatch.setattr(sampler, "REJECTION_TRIES", tries)
    cells = [t for t in itertools.product(*choices) if len(set(t)) == len(t)]
    rng = random.Random(7)
    counts = Counter(tuple(sampler.draw_distinct(choices, rng)) for _ in range(6_000))
    assert chi_square(counts, cells) < critical(len(cells))
    greedy_counts = Counter(tuple(greedy(choices, rng)) for _ in range(6_000))
    assert chi_square(greedy_counts, cells) > critical(len(cells))


def test_distinct_words_that_cannot_be_found_are_an_error() -> None:
    with pytest.raises(ValueError, match="no distinct words"):
        sampler.draw_distinct([["a"], ["a"]], random.Random(1))


# ----- the inferences ----------------------------------------------------------------------------------------------
def test_every_draw_fits_all_the_seat_was_told_and_every_consistent_word_is_drawn() -> None:
    """Sculptures, public answers, the seat's letters, its wrong guesses (ruled out) and right ones (pinned), and one
    maker's distinct words: the words drawn are exactly those the rules allow, no fewer (no inference too many)."""
    table = told_position()
    seen = table.told(0)
    ids, cells = consistent(seen.current)
    allowed = [{cell[i] for cell in cells} for i in range(len(ids))]
    counts = sampled_counts(seen, ids, 4_000, seed=2)
    assert set(counts) <= set(cells)
    assert [{draw[i] for draw in counts} for i in range(len(ids))] == allowed
    o2, o4, o5 = table.oid(1, 0), table.oid(2, 0), table.oid(2, 1)
    assert allowed[ids.index(o4)] == {"bear"}, "seat 0 guessed it right"
    assert "bear" not in allowed[ids.index(o5)], "the same maker's other object"
    assert "dog" not in allowed[ids.index(o2)], "seat 0 guessed dog wrong"
    assert all(letter_at(w, "last") == "t" for w in allowed[ids.index(o2)]), "seat 0 was told its last letter"
    assert 1 < len(allowed[ids.index(o2)]) < len(allowed[ids.index(table.oid(1, 1))])


def test_what_other_seats_were_told_follows_the_drawn_words() -> None:
    table = told_position()
    seen = table.told(0)
    o2, o3 = table.oid(1, 0), table.oid(1, 1)
    rng = random.Random(3)
    for _ in range(200):
        sample = GAME.sample(seen, rng)
        assert isinstance(sample, BarbarossaState)
        words = {obj["id"]: obj["word"] for obj in sample.objects}
        assert sample.letters[3] == [{"object": o3, "position": 1, "letter": words[o3][0]}]
        assert sample.letters[0] == seen.current["letters"]
        fox = next(g for g in sample.guesses if g["guesser"] == 2)
        assert not fox["right"] and fox["word"] != words[o2] and fox["word"] in WORDS
        assert all(g["word"] == words[g["object"]] for g in sample.guesses if g["right"])


def test_a_sample_is_the_seats_position_with_a_fresh_future() -> None:
    table = told_position()
    seen = table.told(0)
    real = table.state
    first = GAME.sample(seen, random.Random(5))
    again = GAME.sample(seen, random.Random(5))
    other = GAME.sample(seen, random.Random(6))
    assert canonical(first.full_view()) == canonical(again.full_view()), "the sampler's rng decides everything"
    assert first.rng.getstate() == again.rng.getstate()
    assert first.rng.getstate() not in (real.rng.getstate(), other.rng.getstate())
    assert first.seed != real.seed and first.history == []
    assert canonical(first.observation(0)) == canonical(real.observation(0))
    assert canonical(first.legal_actions()) == canonical(real.legal_actions())
    # Its own game: playing the sample leaves the seat's record (and the real game) alone.
    record = canonical(seen.current)
    players = [make_player("barbarossa", "random", seat) for seat in range(first.players)]
    for index, player in enumerate(players):
        player.start(index, first.players, first.options)
    while (seat := first.to_move()) is not None:
        first.apply(players[seat].act(first.observation(seat), first.legal_actions()))
    assert canonical(seen.current) == record and first.outcome().ranks


def test_during_creation_the_earlier_seats_objects_are_random_creations() -> None:
    table = Table([[(word, yes_features(word)[:1]) for word in ("anchor", "apple", "axe")]], players=3)
    assert table.state.to_move() == 1
    table.play({"create": {"word": "bear", "sculpture": ["is_animal"]}})
    seen = table.told(1)
    rng = random.Random(4)
    low, high = table.state.options["sculpture_min"], table.state.options["sculpture_max"]
    words: Counter[str] = Counter()
    for _ in range(300):
        sample = GAME.sample(seen, rng)
        assert isinstance(sample, BarbarossaState)
        assert canonical(sample.observation(1)) == canonical(seen.current)
        assert sample.legal_actions()[0] == table.state.legal_actions()[0]
        made = [obj for obj in sample.objects if obj["maker"] == 0]
        assert len({obj["word"] for obj in made}) == 3
        for obj in made:
            assert low <= len(obj["sculpture"]) <= high
            assert all(answer_for(obj["word"], f) == "yes" for f in obj["sculpture"])
            words[obj["word"]] += 1
        assert all(obj["word"] is None for obj in sample.objects if obj["maker"] == 2)
    assert len(words) > 100, "any word, not the real ones"


def test_a_creation_observation_of_another_seat_is_refused() -> None:
    table = Table([[(word, yes_features(word)[:1]) for word in ("anchor", "apple", "axe")]], players=3)
    seen = Seen(game="barbarossa", seat=0, players=3, options=dict(table.state.options))
    seen.record(table.state.observation(0))
    with pytest.raises(ValueError, match="own creation"):
        GAME.sample(seen, random.Random(1))


def agrees(game_seeds: range, check: Callable[[BarbarossaState, Seen, BarbarossaState], None]) -> int:
    """Random games; at every decision, ``check(real, seen, sample)`` for the seat to move. Returns the decisions."""
    decisions = 0
    for seed in game_seeds:
        players = 3 + seed % 2
        state = GAME.new_state(players, seed)
        assert isinstance(state, BarbarossaState)
        bots = [make_player("barbarossa", "random", seed * 10 + seat) for seat in range(players)]
        seen = [Seen(game="barbarossa", seat=s, players=players, options=dict(state.options)) for s in range(players)]
        for index, bot in enumerate(bots):
            bot.start(index, players, state.options)
        rng = random.Random(seed)
        while (seat := state.to_move()) is not None:
            observation = state.observation(seat)
            seen[seat].record(observation)
            sample = GAME.sample(seen[seat], rng)
            assert isinstance(sample, BarbarossaState)
            check(state, seen[seat], sample)
            state.apply(bots[seat].act(observation, state.legal_actions()))
            decisions += 1
    return decisions


def test_a_sample_lists_the_same_legal_actions_but_a_fresh_creation_suggestion() -> None:
    """The legal list is the real one at every decision except one entry: while a seat creates, the engine lists a
    ready-made creation drawn from the game's hidden seed, which no observation shows; the sample's is fresh."""

    def check(real: BarbarossaState, seen: Seen, sample: BarbarossaState) -> None:
        seat = seen.seat
        assert sample.to_move() == seat
        assert canonical(sample.observation(seat)) == canonical(seen.current)
        legal, listed = real.legal_actions(), sample.legal_actions()
        if real.phase != "create":
            assert canonical(listed) == canonical(legal)
            return
        assert listed[0] == legal[0] and len(listed) == len(legal) == 2
        sample.clone().apply(listed[1])  # a creation the rules accept

    assert agrees(range(6), check) > 500


def test_what_the_seat_cannot_see_does_not_move_its_samples() -> None:
    """The generic suite's perturbation check, with random players filling the templates (its own loop plays bare
    legal entries, and a Barbarossa template is not an action): another word, as far as the seat knows, for some
    hidden object changes no draw."""
    checked = 0

    def check(real: BarbarossaState, seen: Seen, sample: BarbarossaState) -> None:
        nonlocal checked
        other = real.perturb_hidden(seen.seat, random.Random(len(real.history)))
        if other is None:
            return
        told = Seen(**{**seen.__dict__, "observations": [*seen.observations[:-1], other.observation(seen.seat)]})
        assert canonical(told.current) == canonical(seen.current)
        draws = [canonical(GAME.sample(seen, random.Random(k)).full_view()) for k in range(2)]
        assert draws == [canonical(GAME.sample(told, random.Random(k)).full_view()) for k in range(2)]
        checked += 1

    agrees(range(4), check)
    assert checked > 100
