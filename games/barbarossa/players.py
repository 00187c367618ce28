"""Built-in Barbarossa players: ``random`` and the ``reasoner``.

Both see only what a bot sees: the observation, the legal list and the public lexicon (bots get it in ``start``).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Any

from games.barbarossa.declaration import Observation
from games.barbarossa.engine import (
    ARROW_TABLE,
    DRAGON_GAIN,
    FEATURES,
    FIRST_SOLVER,
    LAST_ARROW,
    MAX_ARROWS,
    MAX_ELFSTONES,
    NO_ARROW_PENALTY,
    ONE_ARROW_PENALTY,
    POSITIONS,
    SECOND_SOLVER,
    WORDS,
    answer_for,
    candidate_words,
    letter_at,
    yes_features,
)
from games.base import Action, Player, RandomPlayer


def _sculpture_bounds(options: dict[str, Any]) -> tuple[int, int]:
    return options.get("sculpture_min", 1), options.get("sculpture_max", 5)


def _own_words(obs: Observation) -> set[str]:
    return {word for o in obs["objects"] if o["maker"] == obs["seat"] and (word := o.get("word"))}


def knowledge(obs: Observation) -> dict[str, set[str]]:
    """For every opponent object, the words it can still be given all that ``obs`` shows: its sculpture, the public
    answers, the letters this seat was told and this seat's own guesses (right ones pin the word down)."""
    seat = obs["seat"]
    found: dict[str, set[str]] = {}
    for obj in obs["objects"]:
        if obj["maker"] == seat or obj["sculpture"] is None:
            continue
        mine = [g for g in obs["guesses"] if g["object"] == obj["id"] and g["guesser"] == seat]
        right = [g["word"] for g in mine if g["right"]]
        if right:
            found[obj["id"]] = {right[0]}
            continue
        answers = [(q["feature"], q["answer"]) for q in obs["questions"] if q["object"] == obj["id"]]
        letters = [(t["position"], t["letter"]) for t in obs["letters"] if t["object"] == obj["id"]]
        wrong = [g["word"] for g in mine]
        found[obj["id"]] = candidate_words(obj["sculpture"], answers, letters, wrong)
    # A maker never uses one word twice: a word known for one of its objects is ruled out for the others.
    for obj in obs["objects"]:
        words = found.get(obj["id"])
        if words is not None and len(words) == 1:
            (word,) = words
            for other in obs["objects"]:
                same_maker = other["maker"] == obj["maker"] and other["id"] != obj["id"]
                if same_maker and len(found.get(other["id"], ())) > 1:
                    found[other["id"]].discard(word)
    return found


def random_creation(rng: Any, obs: Observation, options: dict[str, Any]) -> dict[str, Any]:
    """A random word the seat has not used yet, showing a random 1-5 of its true features."""
    low, high = _sculpture_bounds(options)
    taken = _own_words(obs)
    word = rng.choice([w for w in WORDS if w not in taken and len(yes_features(w)) >= low])
    shown = yes_features(word)
    return {"word": word, "sculpture": rng.sample(shown, rng.randint(low, min(high, len(shown))))}


class BarbarossaRandomPlayer(RandomPlayer[Observation]):
    """Picks a uniformly random legal entry and fills a template sensibly: a random word with a random true
    sculpture, or a random word that fits the sculpture of the object it guesses."""

    name = "random"
    description = "random legal actions; random but valid objects and guesses that fit the sculpture"

    def act(self, obs: Observation, legal: list[Action]) -> Action:
        action = self.rng.choice(legal)
        if "create" in action and action["create"]["word"] is None:
            return {"create": random_creation(self.rng, obs, self.options)}
        if "guess" in action and action["guess"]["word"] is None:
            return {"guess": self._fill_guess(obs, action["guess"])}
        curse = action.get("curse")
        if curse and "guess" in curse and curse["guess"]["word"] is None:
            return {"curse": {"guess": self._fill_guess(obs, curse["guess"])}}
        return action

    def _fill_guess(self, obs: Observation, template: dict[str, Any]) -> dict[str, Any]:
        obj = next(o for o in obs["objects"] if o["id"] == template["object"])
        fits = sorted(candidate_words(obj["sculpture"] or ()))
        return {"object": template["object"], "word": self.rng.choice(fits or list(WORDS))}


# ----- the reasoner ------------------------------------------------------------------------------------------------
# What a space is worth to the mover, in hat points (a dragon hands every opponent +1: -1 relative to each).
STONE_VALUE = 0.35
INFO_VALUE = 0.6  # per bit of information about an object still to be solved, for later turns
# Object choice: a word and sculpture that an opponent who has learned one letter of it (the most telling one) solves
# in one question round about this often (``round_chance``): out of reach of a question round alone, within reach of
# a letter and a round.
TARGET_CHANCE = 0.8
CREATE_TRIES = 40
LARGEST_SCULPTURE = 4
# Patience: answers are public, so a round that does not end in a right guess hands the next players what it
# learned. The reasoner works on an object when its odds of solving it this round, chance / (1 - chance), are at
# least PATIENCE times the chance the others would gain if it failed: from what the public answers give them now up
# to about LEAK_CEILING (a failed round usually leaves a handful of words). Set by measurement (docs: tuning note).
PATIENCE = 20.0
LEAK_CEILING = 0.9
IDLE_QUESTION_VALUE = 1.0  # a question space with nothing worth asking: a free guess, little else
# Curses: a letter is worth a token when it is expected to rule out at least this many points' worth of the words
# (reward x share of the set a letter rules out), on objects of at most CURSE_LETTER_WORDS candidate words.
CURSE_LETTER_VALUE = 2.0
CURSE_LETTER_WORDS = 60

_ROWS: dict[str, tuple[str, ...]] = {w: tuple(answer_for(w, f) for f in FEATURES) for w in WORDS}


def _entropy_gain(words: set[str], classes: Counter[str]) -> float:
    """Bits gained about a uniformly random word of ``words`` when told which class it falls in."""
    total = len(words)
    if total <= 1:
        return 0.0
    # Sorted, so that the sum (and every comparison built on it) does not depend on the order sets iterate in.
    return math.log2(total) - sum(c / total * math.log2(c) for c in sorted(classes.values()) if c)


def _split(words: frozenset[str], index: int) -> dict[str, frozenset[str]]:
    parts: dict[str, set[str]] = {}
    for word in words:
        parts.setdefault(_ROWS[word][index], set()).add(word)
    return {answer: frozenset(part) for answer, part in parts.items()}


@lru_cache(maxsize=1 << 12)
def round_chance(words: frozenset[str]) -> float:
    """The chance that one question round ends in a right guess at a word drawn uniformly from ``words``, when the
    asker knows nothing else: in round one it asks the best-splitting question (a "no" opens round two); in round two
    it asks the question whose answers other than "no" (a "no" ends the turn) split the set into the most groups, or
    guesses when that is better. A pure function of the set, so cached for everyone."""
    memo: dict[tuple[frozenset[str], int], float] = {}

    def chance(found: frozenset[str], round_: int) -> float:
        total = len(found)
        if total <= 1:
            return 1.0  # round one: a question certain to be answered "no" opens round two, then the guess
        key = (found, round_)
        if key not in memo:
            splits = [parts for parts in (_split(found, i) for i in range(len(FEATURES))) if len(parts) > 1]
            if round_ == 1:
                if not splits:
                    value = chance(found, 2)
                else:
                    parts = max(splits, key=lambda p: -sum(n * math.log2(n) for n in sorted(map(len, p.values()))))
                    value = sum(len(s) / total * chance(s, 2 if a == "no" else 1) for a, s in sorted(parts.items()))
            else:
                value = 1.0 / total
                if splits:
                    parts = max(splits, key=lambda p: sum(1 for a in p if a != "no"))
                    asked = sum(len(s) / total * chance(s, 2) for a, s in sorted(parts.items()) if a != "no")
                    value = max(value, asked)
            memo[key] = value
        return memo[key]

    return chance(words, 1)


def telling_position(words: set[str] | frozenset[str]) -> int | str:
    """The letter position whose answer splits ``words`` best."""
    return max(POSITIONS, key=lambda p: _entropy_gain(set(words), Counter(letter_at(w, p) for w in words)))


def public_knowledge(obs: Observation) -> dict[str, set[str]]:
    """For every object, the words it can be given only what everybody sees: its sculpture and the public answers."""
    found = {}
    for obj in obs["objects"]:
        if obj["sculpture"] is not None:
            answers = [(q["feature"], q["answer"]) for q in obs["questions"] if q["object"] == obj["id"]]
            found[obj["id"]] = candidate_words(obj["sculpture"], answers)
    return found


def first_after_arrow(obs: Observation, object_id: str, options: dict[str, Any]) -> bool:
    """Whether the seat of ``obs`` would rank first if its right guess at ``object_id`` ended the game (the 13th
    arrow): its hat, the maker's move on the arrow table, then everyone's end penalty."""
    seat, finish = obs["seat"], obs["finish"]
    hats = list(obs["hats"])
    arrows = {o["id"]: o["arrows"] for o in obs["objects"]}
    target = next(o for o in obs["objects"] if o["id"] == object_id)
    hats[seat] = min(finish, hats[seat] + (FIRST_SOLVER if target["arrows"] == 0 else SECOND_SOLVER))
    if hats[seat] >= finish:
        return True
    arrows[object_id] += 1
    maker = target["maker"]
    hats[maker] = max(0, min(finish, hats[maker] + ARROW_TABLE[min(obs["arrows_total"] + 1, LAST_ARROW)]))
    if options.get("penalty", True):
        for o in obs["objects"]:
            lost = NO_ARROW_PENALTY if arrows[o["id"]] == 0 else ONE_ARROW_PENALTY if arrows[o["id"]] == 1 else 0
            hats[o["maker"]] -= lost
    scores: list[int] = [max(0, hat) for hat in hats]
    return bool(scores[seat] >= max(scores))


class Reasoner(Player[Observation]):
    """Keeps the set of lexicon words each opponent object can still be. Works on an object (asks the question that
    splits its set best, then guesses) only when it is likely to solve it within the question round or the public
    answers have already made it easy for everyone (see PATIENCE); otherwise spends the round on a question that
    tells nobody anything and takes a free guess. Guesses when a set is down to one word, curses a guess only then,
    spends other curses on letters that rule out much of a set, and never places the game-ending 13th arrow unless
    that leaves it first. Steers its wizard with elfstones towards dwarfs (private letters) and useful question
    spaces and away from dragons. Makes objects aiming at the arrow table's sweet spot: out of reach of a question
    round alone, within reach of one letter and a round (TARGET_CHANCE)."""

    name = "heuristic"
    description = "tracks the words each object could be, asks the best-splitting questions when they pay off"
    target_chance = TARGET_CHANCE
    patience = PATIENCE

    # ----- entry point ---------------------------------------------------------------------------------------------
    def act(self, obs: Observation, legal: list[Action]) -> Action:
        phase = obs["phase"]
        if phase == "create":
            return {"create": self._create(obs)}
        known = knowledge(obs)
        targets = self._targets(obs, known)
        if phase == "move":
            return self._move(obs, legal, targets)
        if phase == "dwarf":
            request = self._best_letter(obs, targets)
            return {"letter": request} if request else legal[0]
        if phase == "question":
            return self._question(obs, legal, targets)
        return self._curse(obs, legal, targets)

    def _targets(self, obs: Observation, known: dict[str, set[str]]) -> dict[str, tuple[set[str], int]]:
        """Objects this seat may still guess: their candidate words and the reward for a right guess. At 12 arrows
        only those whose arrow would leave this seat first: the 13th arrow ends the game."""
        seat = obs["seat"]
        out = {}
        for obj in obs["objects"]:
            if obj["maker"] == seat or seat in obj["solved_by"] or obj["arrows"] >= MAX_ARROWS:
                continue
            words = known.get(obj["id"])
            if not words:
                continue
            if obs["arrows_total"] == LAST_ARROW - 1 and not first_after_arrow(obs, obj["id"], self.options):
                continue
            out[obj["id"]] = (words, FIRST_SOLVER if obj["arrows"] == 0 else SECOND_SOLVER)
        return out

    # ----- creation ------------------------------------------------------------------------------------------------
    def _create(self, obs: Observation) -> dict[str, Any]:
        low, high = _sculpture_bounds(self.options)
        taken = _own_words(obs)
        best: tuple[float, dict[str, Any]] | None = None
        words = [w for w in WORDS if w not in taken and len(yes_features(w)) >= low]
        for _ in range(CREATE_TRIES):
            word = self.rng.choice(words)
            shown = yes_features(word)
            size = self.rng.randint(low, max(low, min(high, len(shown), LARGEST_SCULPTURE)))
            sculpture = self.rng.sample(shown, size)
            fits = candidate_words(sculpture)
            position = telling_position(fits)
            told = frozenset(w for w in fits if letter_at(w, position) == letter_at(word, position))
            score = -abs(round_chance(told) - self.target_chance)
            if best is None or score > best[0]:
                best = (score, {"word": word, "sculpture": sculpture})
        assert best is not None
        return best[1]

    # ----- moving --------------------------------------------------------------------------------------------------
    def _space_value(self, obs: Observation, space: str, targets: dict[str, tuple[set[str], int]]) -> float:
        if space in DRAGON_GAIN:
            return -float(DRAGON_GAIN[space])
        if space == "elfstone":
            return STONE_VALUE if obs["elfstones"][obs["seat"]] < MAX_ELFSTONES else 0.0
        if not targets:
            return 0.0
        closest = min(len(words) for words, _ in targets.values())
        if space == "question":
            worth = self._worth_asking(obs, targets)
            if not worth:
                return IDLE_QUESTION_VALUE
            return 3.0 + (2.0 if min(len(words) for words, _ in worth.values()) <= 3 else 0.0)
        # A dwarf: a letter only this seat learns, the surest way to narrow a set without helping anyone else.
        return 2.0 + (1.0 if 2 <= closest <= 6 else 0.0)

    def _move(self, obs: Observation, legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
        seat, track = obs["seat"], obs["track"]
        here = obs["wizards"][seat]

        def value(steps: int) -> float:
            return self._space_value(obs, track[(here + steps) % len(track)], targets)

        best_action: Action = {"roll": True}
        best = sum(value(d) for d in range(1, 7)) / 6
        for action in legal:
            if "move" in action:
                paid = action["move"]
                worth = value(paid) - paid * STONE_VALUE
                if worth > best + 1e-9:
                    best, best_action = worth, action
        return best_action

    # ----- letters -------------------------------------------------------------------------------------------------
    def _best_letter(self, obs: Observation, targets: dict[str, tuple[set[str], int]]) -> dict[str, Any] | None:
        best: tuple[float, dict[str, Any]] | None = None
        for object_id, (words, reward) in targets.items():
            for position in POSITIONS:
                gain = _entropy_gain(words, Counter(letter_at(w, position) for w in words))
                score = gain * reward / len(words) ** 0.25
                if gain > 0 and (best is None or score > best[0]):
                    best = (score, {"object": object_id, "position": position})
        if best is None:
            # Nothing to learn: ask about any opponent object (a dwarf's request is compulsory).
            other = next(o for o in obs["objects"] if o["maker"] != obs["seat"])
            return {"object": other["id"], "position": 1}
        return best[1]

    # ----- questions -----------------------------------------------------------------------------------------------
    def _question(self, obs: Observation, legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
        second = obs["question_round"] == 2
        asks = [a["ask"] for a in legal if "ask" in a]
        sure = self._sure_guess(targets)
        if sure:
            # Round one cannot end without a "no": ask one that teaches the others nothing, then guess.
            return {"guess": sure} if second else self._quiet_question(obs, asks) or legal[0]
        worth = self._worth_asking(obs, targets)
        if worth:
            return self._work_on(obs, legal, asks, worth, second)
        if not second:
            return self._quiet_question(obs, asks) or legal[0]
        _, guess = self._best_guess(targets)  # a guess costs nothing and tells the others only "wrong"
        return {"guess": guess} if guess else {"stop": True}

    def _worth_asking(
        self, obs: Observation, targets: dict[str, tuple[set[str], int]]
    ) -> dict[str, tuple[set[str], int]]:
        """The objects worth working on now: likely enough to be solved this round, given what a failure would
        teach the others (see PATIENCE)."""
        public = public_knowledge(obs)
        worth = {}
        for object_id, (words, reward) in targets.items():
            mine = round_chance(frozenset(words))
            seen = public.get(object_id, words)
            theirs = mine if len(seen) <= len(words) else round_chance(frozenset(seen))
            if mine >= self.patience * max(0.0, LEAK_CEILING - theirs) * (1.0 - mine):
                worth[object_id] = (words, reward)
        return worth

    def _work_on(
        self,
        obs: Observation,
        legal: list[Action],
        asks: list[dict[str, Any]],
        targets: dict[str, tuple[set[str], int]],
        second: bool,
    ) -> Action:
        best_value, best_action = -1.0, None
        for ask in asks:
            target = targets.get(ask["object"])
            if target is None:
                continue
            words, reward = target
            classes = Counter(answer_for(w, ask["feature"]) for w in words)
            gain = _entropy_gain(words, classes)
            p_no = classes["no"] / len(words)
            if second:
                # A "no" ends the turn: weigh what the answer lets us guess right now against losing the turn.
                now = sum(1 / len(words) * reward for answer in sorted(classes) if answer != "no")
                value = now + INFO_VALUE * gain * reward / FIRST_SOLVER
            else:
                # In the first round a "no" only opens the second round: pure information.
                value = gain * reward / FIRST_SOLVER
            value += 0.01 * p_no  # tie-break towards the second round
            if value > best_value:
                best_value, best_action = value, {"ask": ask}
        if second:
            guess_value, guess = self._best_guess(targets)
            if guess and guess_value >= max(best_value, 0.0):
                return {"guess": guess}
            if best_action is None or best_value <= 0.01:
                return {"stop": True}
            return best_action
        if best_action is None or best_value <= 0.01:
            return self._quiet_question(obs, asks) or legal[0]
        return best_action

    def _quiet_question(self, obs: Observation, asks: list[dict[str, Any]]) -> Action | None:
        """The question surest to be answered "no" that tells everybody the least: ideally one whose answer is "no"
        for every word the object can be, as far as anyone can tell."""
        public = public_knowledge(obs)
        by_object: dict[str, list[str]] = {}
        for ask in asks:
            by_object.setdefault(ask["object"], []).append(ask["feature"])
        best: tuple[float, dict[str, Any]] | None = None
        for object_id in sorted(by_object, key=lambda o: (len(public.get(o, ())), o)):
            words = public.get(object_id)
            if not words:
                continue
            for feature in by_object[object_id]:
                classes = Counter(answer_for(w, feature) for w in words)
                if classes["no"] == len(words):
                    return {"ask": {"object": object_id, "feature": feature}}
                score = classes["no"] / len(words) - _entropy_gain(words, classes)
                if best is None or score > best[0]:
                    best = (score, {"object": object_id, "feature": feature})
        return {"ask": best[1]} if best else None

    def _sure_guess(self, targets: dict[str, tuple[set[str], int]]) -> dict[str, Any] | None:
        sure = [(reward, object_id, words) for object_id, (words, reward) in targets.items() if len(words) == 1]
        if not sure:
            return None
        _, object_id, words = max(sure, key=lambda item: (item[0], item[1]))
        return {"object": object_id, "word": next(iter(words))}

    def _best_guess(self, targets: dict[str, tuple[set[str], int]]) -> tuple[float, dict[str, Any] | None]:
        best: tuple[float, dict[str, Any] | None] = (0.0, None)
        for object_id in sorted(targets):
            words, reward = targets[object_id]
            value = reward / len(words)
            if value > best[0]:
                best = (value, {"object": object_id, "word": self.rng.choice(sorted(words))})
        return best

    # ----- curses --------------------------------------------------------------------------------------------------
    def _curse(self, obs: Observation, legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
        sure = self._sure_guess(targets)
        if sure:
            return {"curse": {"guess": sure}}
        if obs["curses"][obs["seat"]] > 0:
            # A letter only this seat learns: worth a token when it is expected to rule out much of a set.
            best: tuple[float, dict[str, Any]] | None = None
            for object_id, (words, reward) in sorted(targets.items()):
                if 2 <= len(words) <= CURSE_LETTER_WORDS:
                    for position in POSITIONS:
                        classes = Counter(letter_at(w, position) for w in words)
                        left = sum(c * c for c in classes.values()) / len(words)  # expected words left
                        value = reward * (len(words) - left) / len(words)
                        if best is None or value > best[0]:
                            best = (value, {"object": object_id, "position": position})
            if best and best[0] > CURSE_LETTER_VALUE:
                return {"curse": {"letter": best[1]}}
        return {"pass": True}


PLAYERS: dict[str, type[Player[Any]]] = {"random": BarbarossaRandomPlayer, "reasoner": Reasoner}
