"""Barbarossa's rules in play: whose move it is, what is legal, and what each move does (RULES.md "Setup", "A turn",
"Guesses and scoring")."""

from __future__ import annotations

from functools import cache
from typing import Any

from games.barbarossa.blanks import describe as describe_blanks
from games.barbarossa.lexicon import FEATURE_SET, LONGEST_WORD, POSITIONS, WORD_SET, answer_for, letter_at
from games.barbarossa.table import (
    ARROW_TABLE,
    DRAGON_GAIN,
    FIRST_SOLVER,
    LAST_ARROW,
    MAX_ARROWS,
    MAX_ELFSTONES,
    MAX_PAID_MOVE,
    NO_ARROW_PENALTY,
    ONE_ARROW_PENALTY,
    REFILL,
    REFILL_AFTER_USED,
    SECOND_SOLVER,
    TRACK,
    BarbarossaTable,
)
from games.base import Action, IllegalAction, is_int
from games.blanks import Blanks

PHASE_KEYS: dict[str, tuple[str, ...]] = {
    "create": ("create",),
    "move": ("roll", "move"),
    "dwarf": ("letter",),
    "question": ("ask", "guess", "stop"),
    "curse": ("pass", "curse"),
}


# Legal entries other than templates are built once per object and shared by every list that holds them (a search
# lists the legal actions at every step): read-only values. Templates, which a player fills, are new every time.
MOVES: tuple[Action, ...] = ({"roll": True}, *({"move": k} for k in range(1, MAX_PAID_MOVE + 1)))
PASS: Action = {"pass": True}
STOP: Action = {"stop": True}


@cache
def _letters(object_id: str, curse: bool) -> tuple[Action, ...]:
    """A dwarf's (or a curse's) letter request for every position, in ``POSITIONS`` order."""
    requests = ({"object": object_id, "position": position} for position in POSITIONS)
    return tuple({"curse": {"letter": r}} if curse else {"letter": r} for r in requests)


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


class BarbarossaState(BarbarossaTable):
    """A game of Barbarossa: the table (``BarbarossaTable``) and the rules that move it. One state covers the whole
    game: creation in seat order, then turns (move, resolve the space, the curse window) until a hat reaches the
    end of the scoring track or the 13th arrow is placed."""

    # ----- hooks: whose move, what is legal ----------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.over

    def _to_move(self) -> int | None:
        return self.window[0] if self.phase == "curse" else self.current

    def _blanks(self, seat: int, actions: list[Action]) -> Blanks:
        low, high = self.options["sculpture_min"], self.options["sculpture_max"]
        return describe_blanks(actions, self._own_words(seat), low, high)

    def _legal_actions(self) -> list[Action]:
        seat = self._to_move()
        assert seat is not None
        if self.phase == "create":
            # RULES.md "Setup" 1: the space is too large to list, so one template; after it the engine offers one
            # ready-made creation (random, seen only by this seat) that a simple bot may send as it is.
            own = set(self._own_words(seat))
            suggestion = next(c for c in self.suggestions[seat] if c["word"] not in own)
            return [
                {"create": {"word": None, "sculpture": None}},
                {"create": {"word": suggestion["word"], "sculpture": list(suggestion["sculpture"])}},
            ]
        if self.phase == "move":
            return list(MOVES[: 1 + min(MAX_PAID_MOVE, self.elfstones[seat])])
        actions: list[Action] = []
        if self.phase == "dwarf":
            for obj in self.objects:
                if obj["maker"] != seat:
                    actions += _letters(obj["id"], False)
            return actions
        if self.phase == "question":
            open_asks = self._open_asks()
            for obj in self.objects:
                if obj["maker"] != seat:
                    actions += open_asks[obj["id"]]
            if self.question_round == 2:
                actions += [{"guess": template} for template in self._guess_templates(seat)]
                actions.append(STOP)
            return actions
        assert self.phase == "curse"
        actions.append(PASS)
        for obj in self.objects:
            if obj["maker"] != seat:
                actions += _letters(obj["id"], True)
        actions += [{"curse": {"guess": template}} for template in self._guess_templates(seat)]
        return actions

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
            # Platform rule (RULES.md "A turn" 2, no stalling): each (object, feature) question is asked once a game.
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
        lines: list[str] = []
        self._play(action, lines)
        return lines

    def _advance(self, action: Action) -> None:
        # The forward model's step: no check, no copy (the action is kept as given), no narration.
        self.history.append(action)
        self._play(action, None)

    def _play(self, action: Action, lines: list[str] | None) -> None:
        """Play a legal action; narrate into ``lines`` unless it is ``None``."""
        key, value = next(iter(action.items()))
        seat = self._to_move()
        assert seat is not None
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
            if lines is not None:
                lines.append(f"seat {seat} ends the question round")
            self._end_turn(lines)
        elif key == "pass":
            if lines is not None:
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

    def _create(self, seat: int, creation: dict[str, Any], lines: list[str] | None) -> None:
        obj = next(o for o in self.objects if o["maker"] == seat and o["word"] is None)
        obj["word"], obj["sculpture"] = creation["word"], list(creation["sculpture"])
        if lines is not None:
            lines.append(f"seat {seat} makes object {obj['id']} in secret")
        if any(o["maker"] == seat and o["word"] is None for o in self.objects):
            return
        if seat + 1 < self.players:
            self.current = seat + 1
            return
        # RULES.md "Setup" 1: sculptures become public when creation ends; words stay secret.
        if lines is not None:
            shown = "; ".join(f"{o['id']} (seat {o['maker']}): {', '.join(o['sculpture'])}" for o in self.objects)
            lines.append(f"creation is over, the sculptures are public: {shown}")
        self._start_turn(0, lines)

    def _start_turn(self, seat: int, lines: list[str] | None) -> None:
        self.phase, self.current, self.turn = "move", seat, self.turn + 1
        self.question_round, self.window, self.space, self.last_roll = None, [], None, None
        if lines is not None:
            lines.append(f"turn {self.turn}: seat {seat} to move")

    def _move(self, seat: int, paid: int | None, lines: list[str] | None) -> None:
        if paid is None:
            steps = self.rng.randint(1, 6)
            self.last_roll = steps
        else:
            steps = paid
            self.elfstones[seat] -= paid
        self.wizards[seat] = (self.wizards[seat] + steps) % len(TRACK)
        space = self.space = TRACK[self.wizards[seat]]
        if lines is not None:
            how = f"rolls {steps}" if paid is None else f"pays {paid} elfstone{'s' if paid > 1 else ''}"
            lines.append(f"seat {seat} {how} and lands on space {self.wizards[seat]} ({space})")
        if space == "elfstone":
            self.elfstones[seat] = min(MAX_ELFSTONES, self.elfstones[seat] + 1)
            stones = self.elfstones[seat]
            if lines is not None:
                lines.append(f"seat {seat} has {stones} elfstone{'s' if stones != 1 else ''}")
            self._end_turn(lines)
        elif space in DRAGON_GAIN:
            gain = DRAGON_GAIN[space]
            others = [s for s in range(self.players) if s != seat]
            for other in others:
                self.hats[other] = min(self.options["finish"], self.hats[other] + gain)
            if lines is not None:
                lines.append(f"every other player's hat moves +{gain}: hats {self.hats}")
            reached = [s for s in others if self.hats[s] >= self.options["finish"]]
            if reached:
                self._finish(reached, lines)
            else:
                self._end_turn(lines)
        elif space == "dwarf":
            self.phase = "dwarf"
            if lines is not None:
                lines.append(f"seat {seat} must ask an opponent for a letter")
        else:
            self.phase, self.question_round = "question", 1
            if lines is not None:
                lines.append(f"seat {seat} starts a question round")
            self._skip_empty_first_round(seat, lines)

    def _skip_empty_first_round(self, seat: int, lines: list[str] | None) -> None:
        # Platform rule (RULES.md "A turn" 2): a player with no question left is treated as answered "no".
        if self.question_round == 1 and not self._questions_left(seat):
            self.question_round = 2
            if lines is not None:
                lines.append(f"seat {seat} has no question left: the second round begins")

    def _letter(self, seat: int, request: dict[str, Any], curse: bool, lines: list[str] | None) -> None:
        obj = self.objects[self.object_index[request["object"]]]
        position = request["position"]
        self.letter_requests.append({"asker": seat, "object": obj["id"], "position": position, "curse": curse})
        self.letters[seat].append(
            {"object": obj["id"], "position": position, "letter": letter_at(obj["word"], position)}
        )
        if lines is not None:
            which = "the last letter" if position == "last" else f"letter {position}"
            lines.append(f"seat {seat} asks seat {obj['maker']} for {which} of {obj['id']} and is told it in secret")

    def _ask(self, seat: int, question: dict[str, Any], lines: list[str] | None) -> None:
        obj = self.objects[self.object_index[question["object"]]]
        feature = question["feature"]
        answer = answer_for(obj["word"], feature)
        self._mark_asked(obj["id"], feature)
        self.questions.append({"asker": seat, "object": obj["id"], "feature": feature, "answer": answer})
        if lines is not None:
            lines.append(f"seat {seat} asks seat {obj['maker']} about {obj['id']}: {feature}? {answer}")
        if answer == "no":
            if self.question_round == 1:
                self.question_round = 2
                if lines is not None:
                    lines.append(f"seat {seat} begins the second question round")
            else:
                self._end_turn(lines)
        else:
            self._skip_empty_first_round(seat, lines)

    def _use_curse(self, seat: int, lines: list[str] | None) -> None:
        self.curses[seat] -= 1
        self.curses_used += 1
        # RULES.md "A turn" 4 (Platform rule: automatic): once five tokens are used, anyone out of tokens takes three
        # back, once a game.
        if self.curses_used >= REFILL_AFTER_USED:
            for other in range(self.players):
                if self.curses[other] == 0 and not self.refilled[other]:
                    self.curses[other], self.refilled[other] = REFILL, True
                    if lines is not None:
                        lines.append(f"seat {other} takes {REFILL} curse tokens back")

    def _guess(self, seat: int, guess: dict[str, Any], curse: bool, lines: list[str] | None) -> None:
        obj = self.objects[self.object_index[guess["object"]]]
        right = guess["word"] == obj["word"]
        self.guesses.append(
            {"guesser": seat, "object": obj["id"], "right": right, "curse": curse, "word": guess["word"]}
        )
        how = " with a curse" if curse else ""  # narration
        if not right:
            if lines is not None:
                lines.append(f"seat {seat} guesses {obj['id']}{how}: wrong")
            return
        # RULES.md "Guesses and scoring" 4: the arrow, then the guesser's hat, then the maker's; stop at the end field.
        obj["arrows"] += 1
        obj["solved_by"] = [*obj["solved_by"], seat]
        self.arrows_total += 1
        if lines is not None:
            lines.append(f"seat {seat} guesses {obj['id']}{how}: right, arrow {self.arrows_total} of {LAST_ARROW}")
        gain = FIRST_SOLVER if len(obj["solved_by"]) == 1 else SECOND_SOLVER
        if self._move_hat(seat, gain, lines):
            self._finish([seat], lines)
            return
        if self._move_hat(obj["maker"], ARROW_TABLE[self.arrows_total], lines):
            self._finish([obj["maker"]], lines)
            return
        if self.arrows_total >= LAST_ARROW:
            if lines is not None:
                lines.append(f"the {LAST_ARROW}th arrow ends the game")
            self._finish([], lines)

    def _move_hat(self, seat: int, delta: int, lines: list[str] | None) -> bool:
        """Move a hat within 0..finish; True when it reaches the finish."""
        finish = self.options["finish"]
        self.hats[seat] = max(0, min(finish, self.hats[seat] + delta))
        if lines is not None:
            lines.append(f"seat {seat}'s hat moves {delta:+d} to {self.hats[seat]}")
        return delta > 0 and self.hats[seat] >= finish

    def _end_turn(self, lines: list[str] | None) -> None:
        """RULES.md "A turn" 3: the curse window, each other seat in order from the mover's left, then the next turn."""
        mover = self.current
        self.question_round = None
        self.window = [(mover + i) % self.players for i in range(1, self.players)]
        self._open_window(lines)

    def _next_in_window(self, lines: list[str] | None) -> None:
        self.window.pop(0)
        self._open_window(lines)

    def _open_window(self, lines: list[str] | None) -> None:
        # Seats without a token are skipped when their place comes (a refill may have given them some meanwhile).
        while self.window and self.curses[self.window[0]] == 0:
            self.window.pop(0)
        if self.window:
            self.phase = "curse"
        else:
            self._start_turn((self.current + 1) % self.players, lines)

    def _finish(self, reached: list[int], lines: list[str] | None) -> None:
        self.over, self.phase, self.window, self.question_round = True, "over", [], None
        self.winners = sorted(reached)
        self.end_reason = "finish" if reached else "last_arrow"
        if reached and lines is not None:
            lines.append(f"seat{'s' if len(reached) > 1 else ''} {', '.join(map(str, reached))} reach the end: win")
        # RULES.md "Guesses and scoring" 6 (the rulebook's recommended rule, an option): -5 for an own object without an
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
        if lines is not None:
            lines.append(f"final hats after penalties: {scores}")
            lines.append("the words were: " + ", ".join(f"{o['id']} {o['word']}" for o in self.objects))
