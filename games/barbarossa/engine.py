"""Barbarossa, the digital adaptation of Klaus Teuber's clay-riddle game (the rules: games/barbarossa/RULES.md).

An object is a secret word from the shared lexicon (``lexicon.json``) and its *sculpture* is the list of features,
all ``yes`` for that word, that its maker chose to show. One ``BarbarossaState`` covers the whole game: creation in
seat order, then turns (move, resolve the space, the curse window) until a hat reaches the end of the scoring track
or the 13th arrow is placed.

The engine is split by job: ``lexicon`` (the words and the searches over them), ``table`` (the board, the
objects and counters, every view of them and the hidden-information checks), ``state`` (legality and moves) and,
here, the game with its options. Everything is re-exported from here, the module the registry imports.
"""

from __future__ import annotations

import copy
from typing import Any

from games.barbarossa import declaration
from games.barbarossa.lexicon import (
    ANSWERS,
    FEATURE_SET,
    FEATURES,
    LEXICON,
    LEXICON_PATH,
    LONGEST_WORD,
    POSITIONS,
    WORD_SET,
    WORDS,
    YES_FEATURES,
    answer_for,
    candidate_words,
    letter_at,
    yes_features,
)
from games.barbarossa.state import PHASE_KEYS, BarbarossaState
from games.barbarossa.table import (
    ARROW_TABLE,
    DRAGON_GAIN,
    FIRST_SOLVER,
    LAST_ARROW,
    MAX_ARROWS,
    MAX_ELFSTONES,
    MAX_PAID_MOVE,
    NO_ARROW_PENALTY,
    OBJECTS_PER_PLAYER,
    ONE_ARROW_PENALTY,
    REFILL,
    REFILL_AFTER_USED,
    SECOND_SOLVER,
    START_CURSES,
    START_ELFSTONES,
    TRACK,
    BarbarossaTable,
)
from games.base import Game, InvalidOptions, is_int
from games.spec import GameSpec

__all__ = [
    "ANSWERS",
    "ARROW_TABLE",
    "DEFAULT_OPTIONS",
    "DRAGON_GAIN",
    "FEATURES",
    "FEATURE_SET",
    "FIRST_SOLVER",
    "GAME",
    "LAST_ARROW",
    "LEXICON",
    "LEXICON_PATH",
    "LONGEST_WORD",
    "MAX_ARROWS",
    "MAX_ELFSTONES",
    "MAX_PAID_MOVE",
    "NO_ARROW_PENALTY",
    "OBJECTS_PER_PLAYER",
    "ONE_ARROW_PENALTY",
    "PHASE_KEYS",
    "POSITIONS",
    "REFILL",
    "REFILL_AFTER_USED",
    "SECOND_SOLVER",
    "START_CURSES",
    "START_ELFSTONES",
    "TRACK",
    "WORDS",
    "WORD_SET",
    "YES_FEATURES",
    "BarbarossaGame",
    "BarbarossaState",
    "BarbarossaTable",
    "answer_for",
    "candidate_words",
    "letter_at",
    "yes_features",
]

DEFAULT_OPTIONS: dict[str, Any] = {"finish": 30, "penalty": True, "sculpture_min": 1, "sculpture_max": 5}


class BarbarossaGame(Game):
    spec = GameSpec(
        id="barbarossa",
        title="Barbarossa",
        min_players=3,
        max_players=4,
        version="1",
        observation=declaration.Observation,
        action=declaration.Action,
        hidden=(
            "The other players' words (and, during creation, their sculptures) and the letters told to other seats."
        ),
        chance="The die.",
        score="The scoring track's position at the end, less the end penalties.",
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
        """The lexicon travels once, in the bot protocol's ``start`` message (RULES.md "The lexicon")."""
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
