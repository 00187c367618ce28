"""Barbarossa's table: the board, the objects and counters of a game, what each seat may see of them, and the
hidden-information checks (``perturb_hidden``).

Log entries (questions, letter requests, letters, guesses) are never mutated once appended — a change replaces the
entry — so clones share them instead of deep-copying the whole history; views hand out copies.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any, Self

from games.barbarossa.lexicon import FEATURES, WORDS, YES_FEATURES, candidate_words, letter_at, yes_features
from games.base import Action, IllegalAction, Outcome, State

# ----- the board ---------------------------------------------------------------------------------------------------
# Platform rule (RULES.md "The track"): the 12-space loop of the published game, space 0 first.
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
# RULES.md "Guesses and scoring" 3: the maker's hat moves by the total number of arrows on the board.
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


def random_creation(rng: random.Random, options: dict[str, Any], taken: set[str]) -> dict[str, Any]:
    """A random object: a word not in ``taken`` and a random ``sculpture_min``-``sculpture_max`` of its ``yes``
    features (the engine's suggestions; the sampler's stand-in for objects made unseen)."""
    fitting = _words_with_yes(options["sculpture_min"])
    word = rng.choice([w for w in fitting if w not in taken] if taken else fitting)
    shown = yes_features(word)
    low, high = options["sculpture_min"], min(options["sculpture_max"], len(shown))
    return {"word": word, "sculpture": rng.sample(shown, rng.randint(low, high))}


FEATURE_INDEX = {feature: i for i, feature in enumerate(FEATURES)}


@cache
def all_asks(object_id: str) -> tuple[Action, ...]:
    """Every question about an object, in lexicon order, as legal-list entries: built once, shared, read-only."""
    return tuple({"ask": {"object": object_id, "feature": feature}} for feature in FEATURES)


@cache
def _words_with_yes(low: int) -> tuple[str, ...]:
    """The words a sculpture of ``low`` features can show, in lexicon order (read-only: shared)."""
    return tuple(w for w in WORDS if len(YES_FEATURES[w]) >= low)


def suggestions(rng: random.Random, options: dict[str, Any], per_player: int) -> list[dict[str, Any]]:
    """One seat's ready-made creations, distinct words: twice as many as it makes, since it may take some."""
    taken: set[str] = set()
    row = []
    for _ in range(2 * per_player):
        creation = random_creation(rng, options, taken)
        taken.add(creation["word"])
        row.append(creation)
    return row


class BarbarossaTable(State):
    """The objects, wizards, hats and tokens of a game, every view of them, and the hidden-information checks;
    ``BarbarossaState`` adds the rules that move them."""

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
        self.current = 0  # the creating seat, then the seat whose turn it is (RULES.md "Setup" 3: seat 0 starts)
        self.turn = 0
        self.wizards = [0] * n
        self.hats = [0] * n
        self.elfstones = [START_ELFSTONES] * n
        self.curses = [START_CURSES] * n
        self.curses_used = 0
        self.refilled = [False] * n
        self.question_round: int | None = None
        self.asked: set[tuple[str, str]] = set()
        self._track_open_asks()
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
        self.suggestions = [suggestions(self.rng, self.options, self.per_player) for _seat in range(n)]

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
        open_asks = self._open_asks()
        return any(open_asks[obj["id"]] for obj in self.objects if obj["maker"] != seat)

    # The questions still open per object (legal-list entries), kept up to date as they are asked: rebuilt from
    # ``asked``, the truth, whenever it grew some other way (``asked`` only grows, so its size tells).
    def _track_open_asks(self) -> None:
        self.open_asks = {
            obj["id"]: tuple(a for a in all_asks(obj["id"]) if (obj["id"], a["ask"]["feature"]) not in self.asked)
            for obj in self.objects
        }
        self.open_asks_size = len(self.asked)

    def _open_asks(self) -> dict[str, tuple[Action, ...]]:
        if self.open_asks_size != len(self.asked):
            self._track_open_asks()
        return self.open_asks

    def _mark_asked(self, object_id: str, feature: str) -> None:
        fresh = self.open_asks_size == len(self.asked)
        self.asked.add((object_id, feature))
        if fresh:
            still = self.open_asks[object_id]
            at = still.index(all_asks(object_id)[FEATURE_INDEX[feature]])  # the shared entry itself: found by identity
            self.open_asks[object_id] = still[:at] + still[at + 1 :]
            self.open_asks_size = len(self.asked)

    def _outcome(self) -> Outcome:
        assert self.scores is not None
        return Outcome.from_scores(self.scores)

    # ----- views ---------------------------------------------------------------------------------------------------
    def _view(self, viewer: int | None, everything: bool) -> dict[str, Any]:
        reveal = everything or self.over
        # Other makers' sculptures are hidden while they create; a word is shown to its maker (to all at the end).
        creating = self.phase == "create" and not everything
        objects = []
        for obj in self.objects:
            mine = obj["maker"] == viewer
            sculpture = obj["sculpture"]
            shown: dict[str, Any] = {
                "id": obj["id"],
                "maker": obj["maker"],
                "sculpture": list(sculpture) if sculpture is not None and (mine or not creating) else None,
                "arrows": obj["arrows"],
                "solved_by": list(obj["solved_by"]),
            }
            if mine or reveal:
                shown["word"] = obj["word"]
            objects.append(shown)
        view: dict[str, Any] = {
            "players": self.players,
            "phase": self.phase,
            "to_move": self._to_move() if not self.over else None,
            "mover": self.current,
            "turn": self.turn,
            "objects": objects,
            "objects_per_player": self.per_player,
            "questions": list(map(dict.copy, self.questions)),
            "letter_requests": list(map(dict.copy, self.letter_requests)),
            "guesses": [
                dict(entry)
                if reveal or entry["guesser"] == viewer
                else {
                    "guesser": entry["guesser"],
                    "object": entry["object"],
                    "right": entry["right"],
                    "curse": entry["curse"],
                }
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
        view["letters"] = list(map(dict.copy, self.letters[seat]))
        return view

    def _public_view(self) -> dict[str, Any]:
        return self._view(None, everything=False)

    def _full_view(self) -> dict[str, Any]:
        view = self._view(None, everything=True)
        view["letters"] = [[dict(entry) for entry in told] for told in self.letters]
        return view

    # ----- cloning and hidden-information checks -----------------------------------------------------------------
    def _clone(self) -> Self:
        # Faster than the base deepcopy: actions and log entries are never mutated once recorded, so the lists that
        # hold them are copied shallowly; only the objects and the per-seat counters are mutable in place.
        # The generator is shared until either state rolls the die (``State._field_copy``).
        new = self._field_copy()
        new.options = dict(self.options)
        new.history = list(self.history)
        # An object's ``solved_by`` is replaced, never changed in place (``_guess``): the copies share it.
        new.objects = [obj.copy() for obj in self.objects]
        new.wizards, new.hats, new.elfstones = self.wizards[:], self.hats[:], self.elfstones[:]
        new.curses, new.refilled, new.window = self.curses[:], self.refilled[:], self.window[:]
        new.questions, new.letter_requests, new.guesses = self.questions[:], self.letter_requests[:], self.guesses[:]
        new.winners, new.penalties = self.winners[:], self.penalties[:]
        new.asked = set(self.asked)
        new.open_asks = dict(self.open_asks)
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

    def perturb_hidden(self, observer: int, rng: random.Random) -> Self | None:
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
