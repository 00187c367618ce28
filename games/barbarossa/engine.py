"""Barbarossa, the digital adaptation of Klaus Teuber's clay-riddle game (shared/rules/barbarossa.md).

An object is a secret word from the shared lexicon (``lexicon.json``) and its *sculpture* is the list of features,
all ``yes`` for that word, that its maker chose to show. One ``BarbarossaState`` covers the whole game: creation in
seat order, then turns (move, resolve the space, the curse window) until a hat reaches the end of the scoring track
or the 13th arrow is placed.

Log entries (questions, letter requests, letters, guesses) are never mutated once appended — a change replaces the
entry — so clones share them instead of deep-copying the whole history; views hand out copies.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

from games.base import Action, Game, GameSpec, IllegalAction, InvalidOptions, Outcome, State, is_int

# ----- the lexicon (public: bots get it in the ``start`` message) ---------------------------------------------------
LEXICON_PATH = Path(__file__).with_name("lexicon.json")
LEXICON: dict[str, Any] = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))
FEATURES: tuple[str, ...] = tuple(LEXICON["features"])
FEATURE_SET = frozenset(FEATURES)
WORDS: tuple[str, ...] = tuple(sorted(LEXICON["words"]))
WORD_SET = frozenset(WORDS)
ANSWERS = ("yes", "no", "maybe", "cant_say")
# Positions a letter request may name (spec "A turn" 2, dwarf): 1 up to the longest lexicon word, or "last".
LONGEST_WORD = max(len(word) for word in WORDS)
POSITIONS: tuple[int | str, ...] = (*range(1, LONGEST_WORD + 1), "last")


def answer_for(word: str, feature: str) -> str:
    """The lexicon's answer to "is <word> <feature>?": yes, no, maybe or cant_say (a feature left out)."""
    answer: str = LEXICON["words"][word].get(feature, "cant_say")
    return answer


def letter_at(word: str, position: int | str) -> str:
    """The letter a dwarf or curse reveals: ``none`` when the word is shorter than the position."""
    if position == "last":
        return word[-1]
    assert isinstance(position, int)
    return word[position - 1] if position <= len(word) else "none"


def yes_features(word: str) -> list[str]:
    """The features a sculpture of ``word`` may show, in lexicon order."""
    return list(_YES_FEATURES[word])


_YES_FEATURES: dict[str, tuple[str, ...]] = {
    w: tuple(f for f in FEATURES if LEXICON["words"][w].get(f) == "yes") for w in WORDS
}
_YES: dict[str, frozenset[str]] = {f: frozenset(w for w in WORDS if answer_for(w, f) == "yes") for f in FEATURES}
_BY_ANSWER: dict[tuple[str, str], frozenset[str]] = {
    (f, a): frozenset(w for w in WORDS if answer_for(w, f) == a) for f in FEATURES for a in ANSWERS
}


def candidate_words(
    sculpture: Iterable[str] = (),
    answers: Iterable[tuple[str, str]] = (),
    letters: Iterable[tuple[int | str, str]] = (),
    exclude: Iterable[str] = (),
) -> set[str]:
    """Every lexicon word with ``yes`` for each sculpture feature, the given (feature, answer) pairs and
    (position, letter) pairs, minus ``exclude``. Built-in players use it as well as ``perturb_hidden``."""
    sets = [_YES[feature] for feature in sculpture] + [_BY_ANSWER[pair] for pair in answers]
    sets.sort(key=len)
    found = set(sets[0]) if sets else set(WORD_SET)
    for subset in sets[1:]:
        found &= subset
    for position, letter in letters:
        found = {word for word in found if letter_at(word, position) == letter}
    found.difference_update(exclude)
    return found


# ----- the board ---------------------------------------------------------------------------------------------------
# Platform rule (spec "The track"): the 12-space loop of the published game, space 0 first.
TRACK: tuple[str, ...] = (
    "question",
    "elfstone",
    "dragon",
    "dwarf",
    "elfstone",
    "dragon",
    "question",
    "elfstone",
    "ghost",
    "dwarf",
    "elfstone",
    "dragon",
)
# Spec "Guesses and scoring" 3: the maker's hat moves by the total number of arrows on the board.
ARROW_TABLE: dict[int, int] = {1: -2, 2: -2, 3: -1, 4: 0, 5: 1, 6: 1, 7: 2, 8: 2, 9: 1, 10: 0, 11: -1, 12: -2, 13: -2}
LAST_ARROW = 13
MAX_ARROWS = 2  # per object
FIRST_SOLVER, SECOND_SOLVER = 5, 3
START_ELFSTONES, MAX_ELFSTONES = 12, 13
MAX_PAID_MOVE = 6
START_CURSES, REFILL_AFTER_USED, REFILL = 3, 5, 3
NO_ARROW_PENALTY, ONE_ARROW_PENALTY = 5, 2
OBJECTS_PER_PLAYER = {3: 3, 4: 2}
DRAGON_GAIN = {"dragon": 1, "ghost": 2}

DEFAULT_OPTIONS: dict[str, Any] = {"finish": 30, "penalty": True, "sculpture_min": 1, "sculpture_max": 5}

PHASE_KEYS: dict[str, tuple[str, ...]] = {
    "create": ("create",),
    "move": ("roll", "move"),
    "dwarf": ("letter",),
    "question": ("ask", "guess", "stop"),
    "curse": ("pass", "curse"),
}


def _fields(value: object, what: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """``value`` must be an object with exactly ``keys``, none of them null (null marks a template's free field)."""
    if not isinstance(value, dict) or set(value) != set(keys):
        raise IllegalAction(f"{what} must be an object with exactly the fields {', '.join(keys)}")
    for key in keys:
        if value[key] is None:
            raise IllegalAction(
                f"{what}: {key!r} is null — the legal list shows a template; fill in its null fields before sending it"
            )
    return value


class BarbarossaState(State):
    # ----- setup ---------------------------------------------------------------------------------------------------
    def _setup(self) -> None:
        n = self.players
        self.per_player = OBJECTS_PER_PLAYER[n]
        self.objects: list[dict[str, Any]] = [
            {
                "id": f"o{i}",
                "maker": i // self.per_player,
                "word": None,
                "sculpture": None,
                "arrows": 0,
                "solved_by": [],
            }
            for i in range(n * self.per_player)
        ]
        self.object_index = {obj["id"]: i for i, obj in enumerate(self.objects)}
        self.phase = "create"
        self.current = 0  # the creating seat, then the seat whose turn it is (spec "Setup" 3: seat 0 starts)
        self.turn = 0
        self.wizards = [0] * n
        self.hats = [0] * n
        self.elfstones = [START_ELFSTONES] * n
        self.curses = [START_CURSES] * n
        self.curses_used = 0
        self.refilled = [False] * n
        self.question_round: int | None = None
        self.asked: set[tuple[str, str]] = set()
        self.questions: list[dict[str, Any]] = []
        self.letter_requests: list[dict[str, Any]] = []
        self.letters: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        self.guesses: list[dict[str, Any]] = []
        self.window: list[int] = []  # seats still to be offered the curse window, in order
        self.last_roll: int | None = None
        self.space: str | None = None
        self.arrows_total = 0
        self.over = False
        self.end_reason: str | None = None
        self.winners: list[int] = []
        self.penalties: list[int] = [0] * n
        self.scores: list[int] | None = None
        # A ready-made creation offered next to the template (see ``_legal_actions``), drawn now so that the legal
        # list is a pure function of the state. Twice as many as needed: the seat may have taken a suggested word.
        self.suggestions: list[list[dict[str, Any]]] = []
        for _seat in range(n):
            taken: set[str] = set()
            row = []
            for _ in range(2 * self.per_player):
                creation = self._random_creation(self.rng, taken)
                taken.add(creation["word"])
                row.append(creation)
            self.suggestions.append(row)

    def _random_creation(self, rng: random.Random, taken: set[str]) -> dict[str, Any]:
        low = self.options["sculpture_min"]
        word = rng.choice([w for w in WORDS if w not in taken and len(_YES_FEATURES[w]) >= low])
        shown = yes_features(word)
        high = min(self.options["sculpture_max"], len(shown))
        return {"word": word, "sculpture": rng.sample(shown, rng.randint(low, high))}

    # ----- helpers -------------------------------------------------------------------------------------------------
    def _obj(self, object_id: object, what: str) -> dict[str, Any]:
        if not isinstance(object_id, str) or object_id not in self.object_index:
            known = ", ".join(obj["id"] for obj in self.objects)
            raise IllegalAction(f"{what}: no object {object_id!r} (objects are {known})")
        return self.objects[self.object_index[object_id]]

    def _own_words(self, seat: int) -> list[str]:
        return [obj["word"] for obj in self.objects if obj["maker"] == seat and obj["word"] is not None]

    def _can_guess(self, seat: int, obj: dict[str, Any]) -> bool:
        return obj["maker"] != seat and seat not in obj["solved_by"] and obj["arrows"] < MAX_ARROWS

    def _questions_left(self, seat: int) -> bool:
        return any(
            (obj["id"], feature) not in self.asked
            for obj in self.objects
            if obj["maker"] != seat
            for feature in FEATURES
        )

    # ----- hooks: whose move, what is legal ----------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.over

    def _to_move(self) -> int | None:
        return self.window[0] if self.phase == "curse" else self.current

    def _legal_actions(self) -> list[Action]:
        seat = self._to_move()
        assert seat is not None
        if self.phase == "create":
            # Spec "Setup" 1: the space is too large to list, so one template; after it the engine offers one
            # ready-made creation (random, seen only by this seat) that a simple bot may send as it is.
            own = set(self._own_words(seat))
            suggestion = next(c for c in self.suggestions[seat] if c["word"] not in own)
            return [
                {"create": {"word": None, "sculpture": None}},
                {"create": {"word": suggestion["word"], "sculpture": list(suggestion["sculpture"])}},
            ]
        if self.phase == "move":
            top = min(MAX_PAID_MOVE, self.elfstones[seat])
            return [{"roll": True}] + [{"move": k} for k in range(1, top + 1)]
        if self.phase == "dwarf":
            return [{"letter": request} for request in self._letter_requests(seat)]
        if self.phase == "question":
            actions: list[Action] = [
                {"ask": {"object": obj["id"], "feature": feature}}
                for obj in self.objects
                if obj["maker"] != seat
                for feature in FEATURES
                if (obj["id"], feature) not in self.asked
            ]
            if self.question_round == 2:
                actions += [{"guess": template} for template in self._guess_templates(seat)]
                actions.append({"stop": True})
            return actions
        assert self.phase == "curse"
        return (
            [{"pass": True}]
            + [{"curse": {"letter": request}} for request in self._letter_requests(seat)]
            + [{"curse": {"guess": template}} for template in self._guess_templates(seat)]
        )

    def _letter_requests(self, seat: int) -> list[dict[str, Any]]:
        return [
            {"object": obj["id"], "position": position}
            for obj in self.objects
            if obj["maker"] != seat
            for position in POSITIONS
        ]

    def _guess_templates(self, seat: int) -> list[dict[str, Any]]:
        return [{"object": obj["id"], "word": None} for obj in self.objects if self._can_guess(seat, obj)]

    # ----- validation ----------------------------------------------------------------------------------------------
    def _check(self, action: Action) -> Action:
        seat = self._to_move()
        assert seat is not None
        allowed = PHASE_KEYS[self.phase]
        if len(action) != 1:
            raise IllegalAction(
                f"an action is an object with exactly one key; in the {self.phase} phase one of {', '.join(allowed)}"
            )
        key, value = next(iter(action.items()))
        if key not in allowed:
            raise IllegalAction(f"{key!r} is not an action in the {self.phase} phase; expected {', '.join(allowed)}")
        if key == "create":
            return {"create": self._check_create(seat, value)}
        if key == "roll":
            if value is not True:
                raise IllegalAction('a roll is {"roll": true}')
            return {"roll": True}
        if key == "move":
            return {"move": self._check_paid_move(seat, value)}
        if key == "letter":
            return {"letter": self._check_letter(seat, value, "a dwarf's letter request")}
        if key == "ask":
            return {"ask": self._check_ask(seat, value)}
        if key == "guess":
            if self.question_round != 2:
                raise IllegalAction("a guess is allowed only in the second question round (after an answer 'no')")
            return {"guess": self._check_guess(seat, value, "a guess")}
        if key == "stop":
            if value is not True:
                raise IllegalAction('stopping is {"stop": true}')
            if self.question_round != 2:
                raise IllegalAction("the first question round ends only with an answer 'no'; stop is for round two")
            return {"stop": True}
        if key == "pass":
            if value is not True:
                raise IllegalAction('passing is {"pass": true}')
            return {"pass": True}
        assert key == "curse"
        if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ("letter", "guess"):
            raise IllegalAction('a curse is {"curse": {"letter": {...}}} or {"curse": {"guess": {...}}}')
        if "letter" in value:
            return {"curse": {"letter": self._check_letter(seat, value["letter"], "a curse's letter request")}}
        return {"curse": {"guess": self._check_guess(seat, value["guess"], "a curse's guess")}}

    def _check_create(self, seat: int, value: object) -> dict[str, Any]:
        fields = _fields(value, "a creation", ("word", "sculpture"))
        word, sculpture = fields["word"], fields["sculpture"]
        if not isinstance(word, str) or word not in WORD_SET:
            raise IllegalAction(f"{word!r} is not a word of the lexicon (words are lower-case, e.g. 'anchor')")
        if word in self._own_words(seat):
            raise IllegalAction(f"you already made an object from {word!r}; each of your objects needs its own word")
        low, high = self.options["sculpture_min"], self.options["sculpture_max"]
        if not isinstance(sculpture, list) or not low <= len(sculpture) <= high:
            raise IllegalAction(f"a sculpture is a list of {low} to {high} features")
        for feature in sculpture:
            if not isinstance(feature, str) or feature not in FEATURE_SET:
                raise IllegalAction(f"{feature!r} is not a feature of the lexicon")
            if answer_for(word, feature) != "yes":
                raise IllegalAction(f"a sculpture shows only true features: {word!r} is not {feature!r} (lexicon)")
        if len(set(sculpture)) != len(sculpture):
            raise IllegalAction("a sculpture may not show the same feature twice")
        return {"word": word, "sculpture": list(sculpture)}

    def _check_paid_move(self, seat: int, value: object) -> int:
        if not is_int(value):
            raise IllegalAction('a paid move is {"move": k} with a whole number k from 1 to 6')
        assert isinstance(value, int)
        if not 1 <= value <= MAX_PAID_MOVE:
            raise IllegalAction(f"a paid move goes 1 to {MAX_PAID_MOVE} spaces, not {value}")
        if value > self.elfstones[seat]:
            raise IllegalAction(f"moving {value} spaces costs {value} elfstones; you have {self.elfstones[seat]}")
        return value

    def _check_letter(self, seat: int, value: object, what: str) -> dict[str, Any]:
        fields = _fields(value, what, ("object", "position"))
        obj = self._obj(fields["object"], what)
        if obj["maker"] == seat:
            raise IllegalAction(f"{what} goes to an opponent: {obj['id']} is your own object")
        position = fields["position"]
        if position != "last" and not (is_int(position) and 1 <= position <= LONGEST_WORD):
            raise IllegalAction(f'{what}: the position is a whole number from 1 to {LONGEST_WORD} or "last"')
        return {"object": obj["id"], "position": position}

    def _check_ask(self, seat: int, value: object) -> dict[str, Any]:
        fields = _fields(value, "a question", ("object", "feature"))
        obj = self._obj(fields["object"], "a question")
        if obj["maker"] == seat:
            raise IllegalAction(f"questions are about an opponent's objects: {obj['id']} is your own")
        feature = fields["feature"]
        if not isinstance(feature, str) or feature not in FEATURE_SET:
            raise IllegalAction(f"{feature!r} is not a feature of the lexicon")
        if (obj["id"], feature) in self.asked:
            # Platform rule (spec "A turn" 2, no stalling): each (object, feature) question is asked once a game.
            raise IllegalAction(f"whether {obj['id']} is {feature} was already asked in this game")
        return {"object": obj["id"], "feature": feature}

    def _check_guess(self, seat: int, value: object, what: str) -> dict[str, Any]:
        fields = _fields(value, what, ("object", "word"))
        obj = self._obj(fields["object"], what)
        if obj["maker"] == seat:
            raise IllegalAction(f"nobody may guess their own object ({obj['id']} is yours)")
        if seat in obj["solved_by"]:
            raise IllegalAction(f"you already solved {obj['id']}")
        if obj["arrows"] >= MAX_ARROWS:
            raise IllegalAction(f"{obj['id']} already holds {MAX_ARROWS} arrows, the most an object can hold")
        word = fields["word"]
        if not isinstance(word, str) or word not in WORD_SET:
            raise IllegalAction(f"{what}: {word!r} is not a word of the lexicon (words are lower-case)")
        return {"object": obj["id"], "word": word}

    # ----- applying ------------------------------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[str]:
        key, value = next(iter(action.items()))
        seat = self._to_move()
        assert seat is not None
        lines: list[str] = []
        if key == "create":
            self._create(seat, value, lines)
        elif key in ("roll", "move"):
            self._move(seat, value if key == "move" else None, lines)
        elif key == "letter":
            self._letter(seat, value, False, lines)
            self._end_turn(lines)
        elif key == "ask":
            self._ask(seat, value, lines)
        elif key == "guess":
            self._guess(seat, value, False, lines)
            if not self.over:
                self._end_turn(lines)
        elif key == "stop":
            lines.append(f"seat {seat} ends the question round")
            self._end_turn(lines)
        elif key == "pass":
            lines.append(f"seat {seat} passes")
            self._next_in_window(lines)
        else:
            self._use_curse(seat, lines)
            if "letter" in value:
                self._letter(seat, value["letter"], True, lines)
            else:
                self._guess(seat, value["guess"], True, lines)
            if not self.over:
                self._next_in_window(lines)
        return lines

    def _create(self, seat: int, creation: dict[str, Any], lines: list[str]) -> None:
        obj = next(o for o in self.objects if o["maker"] == seat and o["word"] is None)
        obj["word"], obj["sculpture"] = creation["word"], list(creation["sculpture"])
        lines.append(f"seat {seat} makes object {obj['id']} in secret")
        if any(o["maker"] == seat and o["word"] is None for o in self.objects):
            return
        if seat + 1 < self.players:
            self.current = seat + 1
            return
        # Spec "Setup" 1: sculptures become public when creation ends; words stay secret.
        shown = "; ".join(f"{o['id']} (seat {o['maker']}): {', '.join(o['sculpture'])}" for o in self.objects)
        lines.append(f"creation is over, the sculptures are public: {shown}")
        self._start_turn(0, lines)

    def _start_turn(self, seat: int, lines: list[str]) -> None:
        self.phase, self.current, self.turn = "move", seat, self.turn + 1
        self.question_round, self.window, self.space, self.last_roll = None, [], None, None
        lines.append(f"turn {self.turn}: seat {seat} to move")

    def _move(self, seat: int, paid: int | None, lines: list[str]) -> None:
        if paid is None:
            steps = self.rng.randint(1, 6)
            self.last_roll = steps
            how = f"rolls {steps}"
        else:
            steps = paid
            self.elfstones[seat] -= paid
            how = f"pays {paid} elfstone{'s' if paid > 1 else ''}"
        self.wizards[seat] = (self.wizards[seat] + steps) % len(TRACK)
        space = self.space = TRACK[self.wizards[seat]]
        lines.append(f"seat {seat} {how} and lands on space {self.wizards[seat]} ({space})")
        if space == "elfstone":
            self.elfstones[seat] = min(MAX_ELFSTONES, self.elfstones[seat] + 1)
            stones = self.elfstones[seat]
            lines.append(f"seat {seat} has {stones} elfstone{'s' if stones != 1 else ''}")
            self._end_turn(lines)
        elif space in DRAGON_GAIN:
            gain = DRAGON_GAIN[space]
            others = [s for s in range(self.players) if s != seat]
            for other in others:
                self.hats[other] = min(self.options["finish"], self.hats[other] + gain)
            lines.append(f"every other player's hat moves +{gain}: hats {self.hats}")
            reached = [s for s in others if self.hats[s] >= self.options["finish"]]
            if reached:
                self._finish(reached, lines)
            else:
                self._end_turn(lines)
        elif space == "dwarf":
            self.phase = "dwarf"
            lines.append(f"seat {seat} must ask an opponent for a letter")
        else:
            self.phase, self.question_round = "question", 1
            lines.append(f"seat {seat} starts a question round")
            self._skip_empty_first_round(seat, lines)

    def _skip_empty_first_round(self, seat: int, lines: list[str]) -> None:
        # Platform rule (spec "A turn" 2): a player with no question left is treated as answered "no".
        if self.question_round == 1 and not self._questions_left(seat):
            self.question_round = 2
            lines.append(f"seat {seat} has no question left: the second round begins")

    def _letter(self, seat: int, request: dict[str, Any], curse: bool, lines: list[str]) -> None:
        obj = self.objects[self.object_index[request["object"]]]
        position = request["position"]
        self.letter_requests.append({"asker": seat, "object": obj["id"], "position": position, "curse": curse})
        self.letters[seat].append(
            {"object": obj["id"], "position": position, "letter": letter_at(obj["word"], position)}
        )
        which = "the last letter" if position == "last" else f"letter {position}"
        lines.append(f"seat {seat} asks seat {obj['maker']} for {which} of {obj['id']} and is told it in secret")

    def _ask(self, seat: int, question: dict[str, Any], lines: list[str]) -> None:
        obj = self.objects[self.object_index[question["object"]]]
        feature = question["feature"]
        answer = answer_for(obj["word"], feature)
        self.asked.add((obj["id"], feature))
        self.questions.append({"asker": seat, "object": obj["id"], "feature": feature, "answer": answer})
        lines.append(f"seat {seat} asks seat {obj['maker']} about {obj['id']}: {feature}? {answer}")
        if answer == "no":
            if self.question_round == 1:
                self.question_round = 2
                lines.append(f"seat {seat} begins the second question round")
            else:
                self._end_turn(lines)
        else:
            self._skip_empty_first_round(seat, lines)

    def _use_curse(self, seat: int, lines: list[str]) -> None:
        self.curses[seat] -= 1
        self.curses_used += 1
        # Spec "A turn" 4 (Platform rule: automatic): once five tokens are used, anyone out of tokens takes three
        # back, once a game.
        if self.curses_used >= REFILL_AFTER_USED:
            for other in range(self.players):
                if self.curses[other] == 0 and not self.refilled[other]:
                    self.curses[other], self.refilled[other] = REFILL, True
                    lines.append(f"seat {other} takes {REFILL} curse tokens back")

    def _guess(self, seat: int, guess: dict[str, Any], curse: bool, lines: list[str]) -> None:
        obj = self.objects[self.object_index[guess["object"]]]
        right = guess["word"] == obj["word"]
        self.guesses.append(
            {"guesser": seat, "object": obj["id"], "right": right, "curse": curse, "word": guess["word"]}
        )
        how = " with a curse" if curse else ""
        if not right:
            lines.append(f"seat {seat} guesses {obj['id']}{how}: wrong")
            return
        # Spec "Guesses and scoring" 4: the arrow, then the guesser's hat, then the maker's; stop at the end field.
        obj["arrows"] += 1
        obj["solved_by"] = [*obj["solved_by"], seat]
        self.arrows_total += 1
        lines.append(f"seat {seat} guesses {obj['id']}{how}: right, arrow {self.arrows_total} of {LAST_ARROW}")
        gain = FIRST_SOLVER if len(obj["solved_by"]) == 1 else SECOND_SOLVER
        if self._move_hat(seat, gain, lines):
            self._finish([seat], lines)
            return
        if self._move_hat(obj["maker"], ARROW_TABLE[self.arrows_total], lines):
            self._finish([obj["maker"]], lines)
            return
        if self.arrows_total >= LAST_ARROW:
            lines.append(f"the {LAST_ARROW}th arrow ends the game")
            self._finish([], lines)

    def _move_hat(self, seat: int, delta: int, lines: list[str]) -> bool:
        """Move a hat within 0..finish; True when it reaches the finish."""
        finish = self.options["finish"]
        self.hats[seat] = max(0, min(finish, self.hats[seat] + delta))
        lines.append(f"seat {seat}'s hat moves {delta:+d} to {self.hats[seat]}")
        return delta > 0 and self.hats[seat] >= finish

    def _end_turn(self, lines: list[str]) -> None:
        """Spec "A turn" 3: the curse window, each other seat in order from the mover's left, then the next turn."""
        mover = self.current
        self.question_round = None
        self.window = [(mover + i) % self.players for i in range(1, self.players)]
        self._open_window(lines)

    def _next_in_window(self, lines: list[str]) -> None:
        self.window.pop(0)
        self._open_window(lines)

    def _open_window(self, lines: list[str]) -> None:
        # Seats without a token are skipped when their place comes (a refill may have given them some meanwhile).
        while self.window and self.curses[self.window[0]] == 0:
            self.window.pop(0)
        if self.window:
            self.phase = "curse"
        else:
            self._start_turn((self.current + 1) % self.players, lines)

    def _finish(self, reached: list[int], lines: list[str]) -> None:
        self.over, self.phase, self.window, self.question_round = True, "over", [], None
        self.winners = sorted(reached)
        self.end_reason = "finish" if reached else "last_arrow"
        if reached:
            lines.append(f"seat{'s' if len(reached) > 1 else ''} {', '.join(map(str, reached))} reach the end: win")
        # Spec "Guesses and scoring" 6 (the seed's recommended rule, an option): -5 for an own object without an
        # arrow, -2 for one with a single arrow. A seat that reached the end ranks first whatever its objects.
        scores = list(self.hats)
        for seat in range(self.players):
            own = [obj for obj in self.objects if obj["maker"] == seat]
            penalty = sum(
                NO_ARROW_PENALTY if o["arrows"] == 0 else ONE_ARROW_PENALTY if o["arrows"] == 1 else 0 for o in own
            )
            self.penalties[seat] = penalty if self.options["penalty"] else 0
            if seat not in reached:
                scores[seat] = max(0, scores[seat] - self.penalties[seat])
        self.scores = scores
        lines.append(f"final hats after penalties: {scores}")
        lines.append("the words were: " + ", ".join(f"{o['id']} {o['word']}" for o in self.objects))

    def _outcome(self) -> Outcome:
        assert self.scores is not None
        return Outcome.from_scores(self.scores)

    # ----- views ---------------------------------------------------------------------------------------------------
    def _object_view(self, obj: dict[str, Any], viewer: int | None, everything: bool) -> dict[str, Any]:
        mine = viewer is not None and obj["maker"] == viewer
        public = self.phase != "create" or everything or mine
        view = {
            "id": obj["id"],
            "maker": obj["maker"],
            "sculpture": list(obj["sculpture"]) if public and obj["sculpture"] is not None else None,
            "arrows": obj["arrows"],
            "solved_by": list(obj["solved_by"]),
        }
        if mine or everything or self.over:
            view["word"] = obj["word"]
        return view

    def _view(self, viewer: int | None, everything: bool) -> dict[str, Any]:
        reveal = everything or self.over
        view: dict[str, Any] = {
            "players": self.players,
            "phase": self.phase,
            "to_move": self._to_move() if not self.over else None,
            "mover": self.current,
            "turn": self.turn,
            "objects": [self._object_view(obj, viewer, everything) for obj in self.objects],
            "objects_per_player": self.per_player,
            "questions": [dict(entry) for entry in self.questions],
            "letter_requests": [dict(entry) for entry in self.letter_requests],
            "guesses": [
                dict(entry) if reveal or entry["guesser"] == viewer else {k: v for k, v in entry.items() if k != "word"}
                for entry in self.guesses
            ],
            "hats": list(self.hats),
            "elfstones": list(self.elfstones),
            "curses": list(self.curses),
            "curses_used": self.curses_used,
            "refilled": list(self.refilled),
            "wizards": list(self.wizards),
            "track": list(TRACK),
            "space": self.space,
            "last_roll": self.last_roll,
            "arrows_total": self.arrows_total,
            "question_round": self.question_round,
            "curse_window": list(self.window),
            "finish": self.options["finish"],
            "winners": list(self.winners),
            "end_reason": self.end_reason,
            "penalties": list(self.penalties) if self.over else None,
            "scores": list(self.scores) if self.scores is not None else None,
        }
        return view

    def _observation(self, seat: int) -> dict[str, Any]:
        view = self._view(seat, everything=False)
        view["seat"] = seat
        view["letters"] = [dict(entry) for entry in self.letters[seat]]
        return view

    def _public_view(self) -> dict[str, Any]:
        return self._view(None, everything=False)

    def _full_view(self) -> dict[str, Any]:
        view = self._view(None, everything=True)
        view["letters"] = [[dict(entry) for entry in told] for told in self.letters]
        return view

    # ----- cloning and hidden-information checks -----------------------------------------------------------------
    def clone(self) -> Self:
        # Faster than the base deepcopy: actions and log entries are never mutated once recorded, so the lists that
        # hold them are copied shallowly; only the objects and the per-seat counters are mutable in place.
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.options = dict(self.options)
        new.history = list(self.history)
        new.objects = [{**obj, "solved_by": list(obj["solved_by"])} for obj in self.objects]
        for name in (
            "wizards",
            "hats",
            "elfstones",
            "curses",
            "refilled",
            "questions",
            "letter_requests",
            "guesses",
            "window",
            "winners",
            "penalties",
        ):
            setattr(new, name, list(getattr(self, name)))
        new.asked = set(self.asked)
        new.letters = [list(told) for told in self.letters]
        new.scores = list(self.scores) if self.scores is not None else None
        return new

    def consistent_words(self, obj: dict[str, Any], observer: int) -> set[str]:
        """Words ``obj`` could hold as far as ``observer`` knows (for hidden-information checks)."""
        answers = [(q["feature"], q["answer"]) for q in self.questions if q["object"] == obj["id"]]
        letters = [(t["position"], t["letter"]) for t in self.letters[observer] if t["object"] == obj["id"]]
        wrong = [g["word"] for g in self.guesses if g["object"] == obj["id"] and not g["right"]]
        others = [w for w in self._own_words(obj["maker"]) if w != obj["word"]]
        return candidate_words(obj["sculpture"] or (), answers, letters, [*wrong, *others])

    def perturb_hidden(self, observer: int, rng: random.Random) -> BarbarossaState | None:
        """Swap another maker's secret word for another consistent with its sculpture, every public answer, the
        letters ``observer`` was told and every wrong guess; ``None`` once every word is known to ``observer``."""
        if self.over:
            return None
        hidden = [
            obj
            for obj in self.objects
            if obj["word"] is not None and obj["maker"] != observer and observer not in obj["solved_by"]
        ]
        rng.shuffle(hidden)
        for obj in hidden:
            others = sorted(self.consistent_words(obj, observer) - {obj["word"]})
            if others:
                new = self.clone()
                new._replace_word(obj["id"], rng.choice(others))
                return new
        return None

    def _replace_word(self, object_id: str, word: str) -> None:
        obj = self.objects[self.object_index[object_id]]
        obj["word"] = word
        # Keep the state coherent for the other seats too: their letters and right guesses follow the new word.
        self.letters = [
            [{**t, "letter": letter_at(word, t["position"])} if t["object"] == object_id else t for t in told]
            for told in self.letters
        ]
        self.guesses = [{**g, "word": word} if g["object"] == object_id and g["right"] else g for g in self.guesses]


class BarbarossaGame(Game):
    spec = GameSpec(
        id="barbarossa",
        title="Barbarossa",
        min_players=3,
        max_players=4,
        version="1",
        summary=(
            "A riddle game after Klaus Teuber's Barbarossa. Each player secretly picks words from a shared lexicon "
            "of concrete nouns and shows a 'sculpture' of one to five true features for each. Wizards race round a "
            "twelve-space loop: question spaces let you quiz an opponent's object feature by feature and, after "
            "a 'no', guess its word; dwarfs and curse tokens reveal single letters. A right guess places an arrow "
            "and scores 5 (first) or 3 (second); the maker scores by the arrow table, so riddles should be neither "
            "too easy nor too hard. Dragons and the ghost push every other hat forward. The first hat to reach the "
            "end of the track wins, or the best hat when the 13th arrow is placed."
        ),
        options_schema={
            "finish": {
                "type": "integer",
                "default": 30,
                "minimum": 5,
                "maximum": 100,
                "description": "the last field of the scoring track: a hat reaching it wins at once",
            },
            "penalty": {
                "type": "boolean",
                "default": True,
                "description": "at the end, -5 for each own object without an arrow and -2 for one with one arrow",
            },
            "sculpture_min": {
                "type": "integer",
                "default": 1,
                "minimum": 1,
                "maximum": 10,
                "description": "fewest features a sculpture shows",
            },
            "sculpture_max": {
                "type": "integer",
                "default": 5,
                "minimum": 1,
                "maximum": 10,
                "description": "most features a sculpture shows",
            },
        },
    )
    state_class = BarbarossaState

    def start_info(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        """The lexicon travels once, in the bot protocol's ``start`` message (spec "The lexicon")."""
        return {"lexicon": copy.deepcopy(LEXICON)}

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
        if unknown:
            raise InvalidOptions(f"Barbarossa has no option {', '.join(unknown)}; known: {', '.join(DEFAULT_OPTIONS)}")
        checked = {**DEFAULT_OPTIONS, **options}
        for name, rule in self.spec.options_schema.items():
            value = checked[name]
            if rule["type"] == "boolean":
                if not isinstance(value, bool):
                    raise InvalidOptions(f"option {name} must be true or false, not {value!r}")
            elif not is_int(value) or not rule["minimum"] <= value <= rule["maximum"]:
                raise InvalidOptions(
                    f"option {name} must be a whole number from {rule['minimum']} to {rule['maximum']}"
                )
        if checked["sculpture_min"] > checked["sculpture_max"]:
            raise InvalidOptions("option sculpture_min may not exceed sculpture_max")
        return checked


GAME = BarbarossaGame()
