"""Love Letter's sampler of the unseen (``Game.sample``, docs/search.md "Love Letter").

Only the current round hides anything: the other hands, the burned card, the deck's order and who knows what about
whom (``known``) — earlier rounds were revealed in ``last_round`` and the tokens are public. The round's public
record (``moves``, ``discards``) fixes everything but the values of the cards dealt and drawn, so the sampler
replays the round over every value those draws could have had, keeping only the histories that tell the seat
exactly what it was told at each of its decisions this round (its hand, ``known`` and ``seen_by``) and that make the
public record come out as it did (Guard hits and misses, Baron results, the cards a Prince or a knock-out revealed,
the Countess rule). Identical histories so far are merged with their weight summed, so the work grows with the
distinct hands in play, not with the number of histories.

The draw is exact: a uniform shuffle of the 16 cards conditioned on everything the seat was told (every consistent
deal equally likely). That is the posterior when the players' choices are taken as telling nothing about their
cards, the usual assumption of information-set search. It is uniform over consistent *deals*, not over current
hidden states: two histories can end in the same hands (a seat that held X and drew Y, or held Y and drew X, and
played Y), and such an end is drawn as often as the deals that lead to it. The cards nobody has seen (the deck and
the burned card) are shuffled uniformly. Every inference the rules make certain is used, negative ones included
(a Guard that missed, a King or Prince played while the Countess was not forced); the choices themselves are not
read as evidence (a seat that kept a Princess is not thought more likely to hold high cards).

The sample's ``history`` is empty: the actions before this round were partly hidden (a Guard's target kept its card
unseen) and nothing in the engine reads them. Its ``rng`` is fresh, seeded from the sampler's ``rng``.
"""

from __future__ import annotations

import random
from collections import Counter, OrderedDict
from typing import TYPE_CHECKING, Any

from games.love_letter.engine import (
    BARON,
    COUNTESS,
    COUNTS,
    GUARD,
    HANDMAID,
    KING,
    PRIEST,
    PRINCE,
    PRINCESS,
    TARGET_TOKENS,
    LoveLetterState,
)
from games.seen import Seen

if TYPE_CHECKING:
    from games.base import Game

WILD = 0  # a card dealt or drawn whose value nothing has needed yet (module docstring, "lazily")
VALUES = tuple(range(GUARD, PRINCESS + 1))
ONLY = {value: (value,) for value in VALUES}
EXCEPT = {value: tuple(v for v in VALUES if v != value) for value in VALUES}

# A history so far, as the filter keeps it: every seat's hand (engine order, ``WILD`` for a card not valued yet),
# ``known`` flattened (``known[observer * players + seat]``, 0 for nothing known) and the cards not valued yet,
# counted by value (index 0 unused).
Hands = tuple[tuple[int, ...], ...]
Known = tuple[int, ...]
Pool = tuple[int, ...]
Key = tuple[Hands, Known, Pool]
Particles = dict[Key, float]  # each distinct history-so-far and its probability under a uniform shuffle
Branch = tuple[int, Pool, float]  # a card's value, the pool once it is taken out, and the chance of that value


class Inconsistent(ValueError):
    """The observations contradict each other: no deal could have told the seat all of them."""


def sample(cls: type[LoveLetterState], game: Game, seen: Seen, rng: random.Random) -> LoveLetterState:
    """A state drawn from what ``seen.seat`` was told (module docstring): hidden cards re-dealt, never read."""
    obs = seen.current
    if obs["to_move"] != seen.seat:
        raise ValueError("a sample is drawn at one of the seat's own decisions (its observation has it to move)")
    posterior = posterior_of(seen)
    hands, known, pool = posterior.draw(rng)
    return _build(cls, game, seen, obs, posterior, hands, known, pool, rng)


# The posteriors of the last few ``Seen`` records: a search samples many times at one decision, and a record grows
# by one observation per decision, so the round is replayed once and then extended move by move.
_CACHE: OrderedDict[int, tuple[list[dict[str, Any]], int, RoundPosterior]] = OrderedDict()
_CACHE_SIZE = 16


def posterior_of(seen: Seen) -> RoundPosterior:
    """The posterior of ``seen``'s current round, reusing and extending the one kept for the same record."""
    observations = seen.observations
    entry = _CACHE.get(id(observations))
    if entry is not None:
        kept, length, posterior = entry
        # The same list, grown only at its end since (the kept observation is still in its place).
        if kept is observations and len(observations) >= length and posterior.extends(seen, length):
            if len(observations) > length:
                posterior.extend(seen)
                _CACHE[id(observations)] = (observations, len(observations), posterior)
            _CACHE.move_to_end(id(observations))
            return posterior
    posterior = RoundPosterior(seen)
    _CACHE[id(observations)] = (observations, len(observations), posterior)
    _CACHE.move_to_end(id(observations))
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return posterior


class RoundPosterior:
    """The distribution of the current round's hidden part given one seat's observations (module docstring).

    A filter over the round's timeline: ``particles`` are the distinct histories up to the seat's latest decision
    that agree with everything it was told, each with its probability."""

    def __init__(self, seen: Seen) -> None:
        obs = seen.current
        self.players = n = seen.players
        self.seat = seen.seat
        self.round = obs["round"]
        self.last_seen: dict[str, Any] = obs
        deck_option = seen.options.get("deck")
        # In round 1 the ``deck`` option, when set, is the deal itself: nothing is left to chance.
        self.fixed: list[int] | None = list(deck_option) if deck_option is not None and self.round == 1 else None
        up = obs["set_aside_up"]
        unseen = Counter(COUNTS)
        unseen.subtract(up)
        self.next_fixed = 1 + len(up)  # the deal's next card in ``fixed``
        self.deck_left = 16 - 1 - len(up)
        self.burned_taken = False
        self.out = [False] * n
        self.pointer = [0] * n  # how far into each seat's discard pile the replay has come
        self.particles: Particles = {(((),) * n, (0,) * (n * n), tuple(unseen[v] for v in range(PRINCESS + 1))): 1.0}
        self.current = starter = obs["starter"]
        for i in range(n):
            self._draw((starter + i) % n)
        self.played = 0  # moves of the round replayed so far
        self._turn(seen)
        self.extend(seen)

    def extends(self, seen: Seen, length: int) -> bool:
        """Whether ``seen`` is the record this posterior was built from, with perhaps more observations since."""
        return seen.seat == self.seat and seen.observations[length - 1] is self.last_seen

    def extend(self, seen: Seen) -> None:
        """Replay the moves played since the last decision this posterior saw, up to ``seen``'s current one."""
        obs = seen.current
        if obs["round"] != self.round:
            self.__init__(seen)  # type: ignore[misc]  # a new round: start over
            return
        self.last_seen = obs
        moves = obs["moves"]
        n = self.players
        while self.played < len(moves):
            move = moves[self.played]
            if move["seat"] != self.current:
                raise Inconsistent(f"move {self.played} was played by seat {move['seat']}, not seat {self.current}")
            self._play(move, obs["discards"])
            for seat in move["out"]:
                self.out[seat] = True
            self.current = next(s for s in ((self.current + k) % n for k in range(1, n + 1)) if not self.out[s])
            self.played += 1
            self._turn(seen)
        if not self.particles:
            raise Inconsistent("no deal agrees with everything this seat was told")

    def _turn(self, seen: Seen) -> None:
        """The seat to move draws; at one of our decisions, keep what its observation says."""
        self._draw(self.current)
        if self.current == self.seat:
            for obs in reversed(seen.observations):
                if obs["round"] == self.round and len(obs["moves"]) == self.played and obs["to_move"] == self.seat:
                    self._tell(obs)
                    break

    # ----- the round replayed over every possible history -------------------------------------------------------
    def _draw(self, seat: int) -> None:
        """``seat`` takes the deck's top card, or the burned card when the deck is empty."""
        from_deck = self.deck_left > 0
        if from_deck:
            self.deck_left -= 1
        else:
            self.burned_taken = True
        if self.fixed is None:
            # Not valued yet: every unseen card is alike until something needs this one's value.
            self.particles = {
                (_put(hands, seat, (*hands[seat], WILD)), known, pool): weight
                for (hands, known, pool), weight in self.particles.items()
            }
            return
        value = self.fixed[self.next_fixed] if from_deck else self.fixed[0]
        self.next_fixed += from_deck
        self.particles = {
            (_put(hands, seat, (*hands[seat], value)), known, _put(pool, value, pool[value] - 1)): weight
            for (hands, known, pool), weight in self.particles.items()
        }

    def _tell(self, obs: dict[str, Any]) -> None:
        """Keep the histories in which this decision's observation says what it said."""
        n, seat = self.players, self.seat
        hand = obs["hand"]
        row = tuple(obs["known"].get(str(s), 0) for s in range(n))
        column = tuple(obs["seen_by"].get(str(o), 0) for o in range(n))
        told: Particles = {}
        for (hands, known, pool), weight in self.particles.items():
            if known[seat * n : (seat + 1) * n] != row or known[seat::n] != column or len(hands[seat]) != len(hand):
                continue
            branches: list[tuple[tuple[int, ...], Pool, float]] = [((), pool, weight)]
            for slot, value in zip(hands[seat], hand, strict=True):
                branches = [
                    ((*cards, valued), after, chance * p)
                    for cards, left, chance in branches
                    for valued, after, p in _value(left, slot, ONLY[value])
                ]
            for cards, left, chance in branches:
                key = (_put(hands, seat, cards), known, left)
                told[key] = told.get(key, 0.0) + chance
        self.particles = told

    def _play(self, move: dict[str, Any], discards: list[list[int]]) -> None:
        """The engine's ``_apply`` for one public move, over every history; drops those the record contradicts."""
        seat, card, target = move["seat"], move["card"], move.get("target")
        pointer = self.pointer

        def revealed(owner: int) -> int:
            value = discards[owner][pointer[owner]]
            pointer[owner] += 1
            return value

        if revealed(seat) != card:
            raise Inconsistent(f"seat {seat}'s discards do not show the {card} it played")
        shown = None
        if card == PRINCESS or (card in (GUARD, BARON) and move["out"]):
            shown = revealed(move["out"][0])
        elif card == PRINCE:
            assert target is not None
            shown = revealed(target)
        kept: Particles = {}
        for key, weight in self.particles.items():
            for after, chance in _apply_move(self.players, key, move, shown):
                kept[after] = kept.get(after, 0.0) + weight * chance
        self.particles = kept
        if card == PRINCE and shown != PRINCESS:
            assert target is not None
            self._draw(target)

    # ----- drawing one ------------------------------------------------------------------------------------------
    def draw(self, rng: random.Random) -> Key:
        """One history's end, drawn in proportion to its probability."""
        pick = rng.random() * sum(self.particles.values())
        for key, weight in self.particles.items():
            pick -= weight
            if pick < 0:
                return key
        return key  # rounding left ``pick`` a hair above zero: the last one


def _value(pool: Pool, slot: int, allowed: tuple[int, ...]) -> list[Branch]:
    """The values among ``allowed`` a card may have: itself if it has one, else each value still unseen, with its
    chance (a card not valued yet is any of the unseen cards alike)."""
    if slot != WILD:
        return [(slot, pool, 1.0)] if slot in allowed else []
    total = sum(pool)
    return [(v, _put(pool, v, pool[v] - 1), pool[v] / total) for v in allowed if pool[v]]


def _kept(hand: tuple[int, ...], card: int, pool: Pool) -> list[Branch]:
    """The card that stays when ``card`` leaves the two-card ``hand``, as disjoint cases with their chances."""
    first, second = hand
    if first == card:
        return [(second, pool, 1.0)]
    if first != WILD:
        return [(first, after, p) for _v, after, p in _value(pool, second, ONLY[card])]
    if second == card:
        return [(WILD, pool, 1.0)]  # whatever the first card is, it stays (if it is a ``card`` too, so be it)
    if second != WILD:
        return [(second, after, p) for _v, after, p in _value(pool, first, ONLY[card])]
    # Two cards not valued yet: either the first is ``card`` (the second stays, still unvalued), or it is not and
    # the second is.
    cases = [(WILD, after, p) for _v, after, p in _value(pool, first, ONLY[card])]
    for value, after, p in _value(pool, first, EXCEPT[card]):
        cases += [(value, left, p * q) for _v, left, q in _value(after, second, ONLY[card])]
    return cases


def _apply_move(n: int, key: Key, move: dict[str, Any], shown: int | None) -> list[tuple[Key, float]]:
    """One history after ``move`` (without the Prince's new card): the cases in which the move could happen.

    ``shown`` is the card the public record shows revealed by the move: the hand a Princess, Guard or Baron knocked
    out, or the card a Prince discarded."""
    hands_t, known_t, pool_t = key
    seat, card = move["seat"], move["card"]
    # The Countess rule: a King or a Prince played means the card kept was not the Countess.
    allowed = EXCEPT[COUNTESS] if card in (KING, PRINCE) else None
    results: list[tuple[Key, float]] = []
    for kept, after_play, p_play in _kept(hands_t[seat], card, pool_t):
        cases = [(kept, after_play, 1.0)] if allowed is None else _value(after_play, kept, allowed)
        for kept_value, pool, p_kept in cases:
            hands = list(hands_t)
            hands[seat] = (kept_value,)
            known = list(known_t)
            for observer in range(n):
                if known[observer * n + seat] == card:
                    known[observer * n + seat] = 0
            for after, p_effect in _effect(n, hands, known, pool, move, shown):
                results.append((after, p_play * p_kept * p_effect))
    return results


def _effect(
    n: int, hands: list[tuple[int, ...]], known: list[int], pool: Pool, move: dict[str, Any], shown: int | None
) -> list[tuple[Key, float]]:
    """The played card's effect in one history (``hands`` and ``known`` are this history's own lists)."""
    seat, card, target, out = move["seat"], move["card"], move.get("target"), move["out"]
    if card == PRINCESS:
        assert shown is not None
        return [_out(n, hands, known, left, seat, p) for _v, left, p in _value(pool, hands[seat][0], ONLY[shown])]
    if target is None or card in (HANDMAID, COUNTESS):
        return [((tuple(hands), tuple(known), pool), 1.0)]  # played without effect
    if card == GUARD:
        guess = move["guess"]
        if out:
            return [
                _out(n, hands, known, left, target, p) for _v, left, p in _value(pool, hands[target][0], ONLY[guess])
            ]
        return [
            (_replaced(hands, target, (value,), known, left), p)
            for value, left, p in _value(pool, hands[target][0], EXCEPT[guess])
        ]
    if card == PRINCE:
        assert shown is not None
        # The target's one card (the player's own kept card when they name themselves) is discarded and seen.
        cases = _value(pool, hands[target][0], ONLY[shown])
        results = []
        for _v, left, p in cases:
            hands[target] = ()
            _forget(known, n, target)
            results.append(((tuple(hands), tuple(known), left), p))
        return results
    results = []
    for mine, after_mine, p_mine in _value(pool, hands[seat][0], VALUES):
        for theirs, left, p_theirs in _value(after_mine, hands[target][0], VALUES):
            p = p_mine * p_theirs
            valued = list(hands)
            valued[seat], valued[target] = (mine,), (theirs,)
            told = list(known)
            if card == PRIEST:
                told[seat * n + target] = theirs
                results.append(((tuple(valued), tuple(told), left), p))
            elif card == BARON:
                told[seat * n + target] = theirs
                told[target * n + seat] = mine
                loser = [] if mine == theirs else [seat if mine < theirs else target]
                if loser != out:
                    continue
                if loser:
                    if valued[loser[0]] != (shown,):
                        continue
                    results.append(_out(n, valued, told, left, loser[0], p))
                else:
                    results.append(((tuple(valued), tuple(told), left), p))
            else:  # KING: the hands trade places, and so does what everyone knew about them (the swap is public)
                for observer in range(n):
                    about_seat, about_target = told[observer * n + seat], told[observer * n + target]
                    told[observer * n + seat] = about_target if observer != seat else 0
                    told[observer * n + target] = about_seat if observer != target else 0
                told[seat * n + target] = mine
                told[target * n + seat] = theirs
                valued[seat], valued[target] = valued[target], valued[seat]
                results.append(((tuple(valued), tuple(told), left), p))
    return results


def _out(n: int, hands: list[tuple[int, ...]], known: list[int], pool: Pool, seat: int, p: float) -> tuple[Key, float]:
    """``seat`` knocked out: its hand (already checked against the discards) is gone, and what others knew of it."""
    hands = list(hands)
    hands[seat] = ()
    known = list(known)
    _forget(known, n, seat)
    return (tuple(hands), tuple(known), pool), p


def _replaced(hands: list[tuple[int, ...]], seat: int, hand: tuple[int, ...], known: list[int], pool: Pool) -> Key:
    valued = list(hands)
    valued[seat] = hand
    return tuple(valued), tuple(known), pool


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """``values`` with ``values[index]`` replaced."""
    return (*values[:index], value, *values[index + 1 :])


def _forget(known: list[int], n: int, seat: int) -> None:
    for observer in range(n):
        known[observer * n + seat] = 0


def _build(
    cls: type[LoveLetterState],
    game: Game,
    seen: Seen,
    obs: dict[str, Any],
    posterior: RoundPosterior,
    hands: Hands,
    known: Known,
    pool: Pool,
    rng: random.Random,
) -> LoveLetterState:
    """The engine state of one drawn history: the public part copied from the observation."""
    n = seen.players
    state = object.__new__(cls)
    seed = rng.getrandbits(64)
    state.game = game
    state.players = n
    state.seed = seed
    state.options = seen.options
    state.rng = random.Random(seed)
    state.history = []
    state.target_tokens = TARGET_TOKENS[n]
    state.tokens = list(obs["tokens"])
    state.round = obs["round"]
    state.starter = obs["starter"]
    state.over = False
    last = obs["last_round"]
    state.last_round = (
        None
        if last is None
        else {
            **last,
            "hands": list(last["hands"]),
            "set_aside_up": list(last["set_aside_up"]),
            "discards": [list(d) for d in last["discards"]],
            "winners": list(last["winners"]),
        }
    )
    if posterior.fixed is not None:
        unseen = posterior.fixed[posterior.next_fixed :]
        burned = None if posterior.burned_taken else posterior.fixed[0]
    else:
        # The cards nobody has valued: the hands' unvalued cards, then the deck top first, then the burned card.
        unseen = [value for value in VALUES for _ in range(pool[value])]
        rng.shuffle(unseen)
        hands = tuple(tuple(unseen.pop() if card == WILD else card for card in hand) for hand in hands)
        burned = None if posterior.burned_taken else unseen.pop()
    state.deck = unseen
    state.burned = burned
    state.set_aside_up = list(obs["set_aside_up"])
    state.hands = [list(h) for h in hands]
    state.discards = [list(d) for d in obs["discards"]]
    state.out = list(obs["out"])
    state.protected = list(obs["protected"])
    state.known = [{s: known[o * n + s] for s in range(n) if known[o * n + s]} for o in range(n)]
    state.moves = [dict(m, out=list(m["out"])) for m in obs["moves"]]
    state.current = seen.seat
    return state
