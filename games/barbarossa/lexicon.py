"""Barbarossa's lexicon (RULES.md "The lexicon"): the words, their features and answers, and the word searches the
engine and the built-in players share. It is public: bots get it in the ``start`` message."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LEXICON_PATH = Path(__file__).with_name("lexicon.json")
LEXICON: dict[str, Any] = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))
FEATURES: tuple[str, ...] = tuple(LEXICON["features"])
FEATURE_SET = frozenset(FEATURES)
WORDS: tuple[str, ...] = tuple(sorted(LEXICON["words"]))
WORD_SET = frozenset(WORDS)
ANSWERS = ("yes", "no", "maybe", "cant_say")
# Positions a letter request may name (RULES.md "A turn" 2, dwarf): 1 up to the longest lexicon word, or "last".
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
    return list(YES_FEATURES[word])


# Read-only: the features each word shows (``yes_features`` hands out copies).
YES_FEATURES: dict[str, tuple[str, ...]] = {
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
