"""Barbarossa's blanks (games/blanks.py): a guess names a lexicon word; a creation names a word of one's own and
the sculpture's features, true of that word. The lexicon is public; the words left out of a creation's list are the
mover's own, which the mover knows."""

from __future__ import annotations

from typing import Any

from games.barbarossa.lexicon import FEATURES, WORDS, YES_FEATURES
from games.base import Action
from games.blanks import Blank, Blanks, generic_blanks


def _feature_label(feature: str) -> str:
    return feature.removeprefix("is_").replace("_", " ")


def describe(actions: list[Action], own_words: list[str], low: int, high: int) -> Blanks:
    """``own_words``: the mover's objects' words (a creation needs a new one); ``low``/``high``: the sculpture's
    size bounds (options ``sculpture_min``/``sculpture_max``)."""
    lists: dict[str, Any] = {}
    out: list[list[Blank]] = []
    for action in actions:
        if "create" in action and action["create"].get("word") is None:
            fresh = [w for w in WORDS if w not in own_words and len(YES_FEATURES[w]) >= low]
            # Bare values, one label table: the words' features are 385 lists (~70 KB, only while creating).
            lists["new_words"] = fresh
            lists["features"] = {w: list(YES_FEATURES[w]) for w in fresh}
            lists["feature_labels"] = {f: _feature_label(f) for f in FEATURES}
            out.append(
                [
                    {"path": ["create", "word"], "label": "your secret word", "kind": "one", "choices": "new_words"},
                    {
                        "path": ["create", "sculpture"],
                        "label": f"the sculpture shows ({low} to {high} features)",
                        "kind": "some",
                        "choices": "features",
                        "per": ["create", "word"],
                        "labels": "feature_labels",
                        "min": low,
                        "max": high,
                    },
                ]
            )
            continue
        guess = action.get("guess") or (action.get("curse") or {}).get("guess")
        if isinstance(guess, dict) and guess.get("word") is None:
            lists["words"] = list(WORDS)
            path: list[str | int] = ["guess", "word"] if "guess" in action else ["curse", "guess", "word"]
            out.append(
                [{"path": path, "label": f"your guess for {guess.get('object')}", "kind": "one", "choices": "words"}]
            )
            continue
        out.append(generic_blanks(action))
    return {"blanks": out, "lists": lists}
