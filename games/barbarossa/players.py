"""Built-in Barbarossa players: ``random`` and the ``heuristic`` reasoner (also registered as ``reasoner``).

Both see only what a bot sees: the observation, the legal list and the public lexicon (bots get it in ``start``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from games.barbarossa.engine import (
    DRAGON_GAIN,
    FIRST_SOLVER,
    MAX_ARROWS,
    MAX_ELFSTONES,
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


def _own_words(obs: dict[str, Any]) -> set[str]:
    return {o["word"] for o in obs["objects"] if o["maker"] == obs["seat"] and o.get("word")}


def knowledge(obs: dict[str, Any]) -> dict[str, set[str]]:
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


def random_creation(rng: Any, obs: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """A random word the seat has not used yet, showing a random 1-5 of its true features."""
    low, high = _sculpture_bounds(options)
    taken = _own_words(obs)
    word = rng.choice([w for w in WORDS if w not in taken and len(yes_features(w)) >= low])
    shown = yes_features(word)
    return {"word": word, "sculpture": rng.sample(shown, rng.randint(low, min(high, len(shown))))}


class BarbarossaRandomPlayer(RandomPlayer):
    """Picks a uniformly random legal entry and fills a template sensibly: a random word with a random true
    sculpture, or a random word that fits the sculpture of the object it guesses."""

    name = "random"
    description = "random legal actions; random but valid objects and guesses that fit the sculpture"

    def act(self, obs: dict[str, Any], legal: list[Action]) -> Action:
        action = self.rng.choice(legal)
        if "create" in action and action["create"]["word"] is None:
            return {"create": random_creation(self.rng, obs, self.options)}
        if "guess" in action and action["guess"]["word"] is None:
            return {"guess": self._fill_guess(obs, action["guess"])}
        curse = action.get("curse")
        if curse and "guess" in curse and curse["guess"]["word"] is None:
            return {"curse": {"guess": self._fill_guess(obs, curse["guess"])}}
        return action

    def _fill_guess(self, obs: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
        obj = next(o for o in obs["objects"] if o["id"] == template["object"])
        fits = sorted(candidate_words(obj["sculpture"] or ()))
        return {"object": template["object"], "word": self.rng.choice(fits or list(WORDS))}


# ----- the reasoner ------------------------------------------------------------------------------------------------
# What a space is worth to the mover, in hat points (a dragon hands every opponent +1: -1 relative to each).
STONE_VALUE = 0.35
INFO_VALUE = 0.6  # per bit of information about an object still to be solved, for later turns
SWEET_SPOT = 12  # aim: a sculpture that fits about this many lexicon words


def _entropy_gain(words: set[str], classes: Counter[str]) -> float:
    """Bits gained about a uniformly random word of ``words`` when told which class it falls in."""
    total = len(words)
    if total <= 1:
        return 0.0
    return math.log2(total) - sum(c / total * math.log2(c) for c in classes.values() if c)


class Reasoner(Player):
    """Keeps the set of lexicon words each opponent object can still be, asks the question (or letter) that splits
    the most promising set best, guesses when a set is down to one word (or a coin flip pays), uses curses when
    confident, steers its wizard with elfstones towards question spaces and away from dragons, and builds sculptures
    that fit about a dozen words, aiming at the arrow table's sweet spot."""

    name = "heuristic"
    description = "tracks the words each object could be, asks the best-splitting questions, guesses when sure"
    sweet_spot = SWEET_SPOT

    # ----- entry point ---------------------------------------------------------------------------------------------
    def act(self, obs: dict[str, Any], legal: list[Action]) -> Action:
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

    def _targets(self, obs: dict[str, Any], known: dict[str, set[str]]) -> dict[str, tuple[set[str], int]]:
        """Objects this seat may still guess: their candidate words and the reward for a right guess."""
        seat = obs["seat"]
        out = {}
        for obj in obs["objects"]:
            if obj["maker"] == seat or seat in obj["solved_by"] or obj["arrows"] >= MAX_ARROWS:
                continue
            words = known.get(obj["id"])
            if words:
                out[obj["id"]] = (words, FIRST_SOLVER if obj["arrows"] == 0 else SECOND_SOLVER)
        return out

    # ----- creation ------------------------------------------------------------------------------------------------
    def _create(self, obs: dict[str, Any]) -> dict[str, Any]:
        low, high = _sculpture_bounds(self.options)
        taken = _own_words(obs)
        best: tuple[float, dict[str, Any]] | None = None
        words = [w for w in WORDS if w not in taken and len(yes_features(w)) >= low]
        for _ in range(60):
            word = self.rng.choice(words)
            shown = yes_features(word)
            fewest = max(low, min(2, high))
            size = self.rng.randint(fewest, max(fewest, min(high, len(shown), 4)))
            sculpture = self.rng.sample(shown, size)
            fits = len(candidate_words(sculpture))
            score = -abs(math.log(fits) - math.log(self.sweet_spot))
            if best is None or score > best[0]:
                best = (score, {"word": word, "sculpture": sculpture})
        assert best is not None
        return best[1]

    # ----- moving --------------------------------------------------------------------------------------------------
    def _space_value(self, obs: dict[str, Any], space: str, targets: dict[str, tuple[set[str], int]]) -> float:
        if space in DRAGON_GAIN:
            return -float(DRAGON_GAIN[space])
        if space == "elfstone":
            return STONE_VALUE if obs["elfstones"][obs["seat"]] < MAX_ELFSTONES else 0.0
        if not targets:
            return 0.0
        closest = min(len(words) for words, _ in targets.values())
        if space == "question":
            return 3.0 + (2.0 if closest <= 3 else 0.0)
        return 1.0 + (1.0 if 2 <= closest <= 6 else 0.0)  # dwarf

    def _move(self, obs: dict[str, Any], legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
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
    def _best_letter(self, obs: dict[str, Any], targets: dict[str, tuple[set[str], int]]) -> dict[str, Any] | None:
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

    def _letter_certainty(self, words: set[str]) -> tuple[float, int | str]:
        """The best chance that one letter pins ``words`` down to a single word, and the position to ask."""
        best = (0.0, POSITIONS[0])
        for position in POSITIONS:
            classes = Counter(letter_at(w, position) for w in words)
            chance = sum(1 for c in classes.values() if c == 1) / len(words)
            if chance > best[0]:
                best = (chance, position)
        return best

    # ----- questions -----------------------------------------------------------------------------------------------
    def _question(self, obs: dict[str, Any], legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
        second = obs["question_round"] == 2
        if second:
            sure = self._sure_guess(targets)
            if sure:
                return {"guess": sure}
        asks = [a["ask"] for a in legal if "ask" in a]
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
                now = sum(count / len(words) * reward / count for answer, count in classes.items() if answer != "no")
                value = now + INFO_VALUE * gain * reward / FIRST_SOLVER
            else:
                # In the first round a "no" only opens the second round: pure information, and when some object is
                # already certain, reaching the second round soon.
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
        if self._sure_guess(targets) or best_action is None or best_value <= 0.01:
            # Nothing worth learning, or a word to guess: the most likely "no" opens the second round.
            return self._likely_no(asks, targets) or legal[0]
        return best_action

    def _likely_no(self, asks: list[dict[str, Any]], targets: dict[str, tuple[set[str], int]]) -> Action | None:
        best: tuple[float, dict[str, Any]] | None = None
        for ask in asks:
            target = targets.get(ask["object"])
            if target is None:
                score = 0.5  # an object we no longer track: no estimate of its answers
            else:
                words = target[0]
                score = sum(1 for w in words if answer_for(w, ask["feature"]) == "no") / len(words)
            if best is None or score > best[0]:
                best = (score, ask)
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
    def _curse(self, obs: dict[str, Any], legal: list[Action], targets: dict[str, tuple[set[str], int]]) -> Action:
        curses = obs["curses"][obs["seat"]]
        sure = self._sure_guess(targets)
        if sure:
            return {"curse": {"guess": sure}}
        pairs = [(object_id, words) for object_id, (words, _) in sorted(targets.items()) if len(words) == 2]
        if pairs and curses >= 2:
            object_id, words = pairs[0]
            return {"curse": {"guess": {"object": object_id, "word": self.rng.choice(sorted(words))}}}
        if curses >= 2:
            best: tuple[float, dict[str, Any]] | None = None
            for object_id, (words, reward) in sorted(targets.items()):
                if 2 <= len(words) <= 6:
                    chance, position = self._letter_certainty(words)
                    if chance >= 0.5 and (best is None or chance * reward > best[0]):
                        best = (chance * reward, {"object": object_id, "position": position})
            if best:
                return {"curse": {"letter": best[1]}}
        return {"pass": True}


PLAYERS: dict[str, type[Player]] = {"random": BarbarossaRandomPlayer, "reasoner": Reasoner}
