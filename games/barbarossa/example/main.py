"""A minimal Barbarossa bot: standard library only, one JSON object per line on stdin/stdout.

It keeps, for every opponent object, the lexicon words that fit its sculpture, the public answers, the letters it
was told and its own wrong guesses; it asks the question that splits the smallest such set most evenly, guesses
(or curses) when one word is left, takes the engine's ready-made creation, and otherwise rolls or passes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

LEXICON: dict[str, Any] = {}


def answer(word: str, feature: str) -> str:
    return str(LEXICON["words"][word].get(feature, "cant_say"))


def letter(word: str, position: int | str) -> str:
    if not isinstance(position, int):  # "last"
        return word[-1]
    return word[position - 1] if position <= len(word) else "none"


def candidates(obs: dict[str, Any], obj: dict[str, Any]) -> list[str]:
    asked = [(q["feature"], q["answer"]) for q in obs["questions"] if q["object"] == obj["id"]]
    told = [(t["position"], t["letter"]) for t in obs["letters"] if t["object"] == obj["id"]]
    mine = [g for g in obs["guesses"] if g["object"] == obj["id"] and g["guesser"] == obs["seat"]]
    return [
        word
        for word in LEXICON["words"]
        if all(answer(word, f) == "yes" for f in obj["sculpture"])
        and all(answer(word, f) == a for f, a in asked)
        and all(letter(word, p) == t for p, t in told)
        and all(g["word"] != word for g in mine)
    ]


def choose(obs: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    if obs["phase"] == "create":
        return legal[-1]  # the engine's ready-made creation (legal[0] is the template with null fields)
    if obs["phase"] in ("move", "dwarf"):
        return legal[0]  # roll; or the first letter request the dwarf allows
    if not LEXICON.get("words"):
        return legal[-1] if obs["phase"] == "question" else legal[0]  # no lexicon: ask or stop; pass
    words = {o["id"]: candidates(obs, o) for o in obs["objects"] if o["maker"] != obs["seat"]}
    guessable = [a[next(iter(a))] for a in legal if "guess" in a] + [
        a["curse"]["guess"] for a in legal if "guess" in a.get("curse", {})
    ]
    for template in guessable:
        if len(words[template["object"]]) == 1:
            guess = {"object": template["object"], "word": words[template["object"]][0]}
            return {"guess": guess} if obs["phase"] == "question" else {"curse": {"guess": guess}}
    if obs["phase"] == "curse":
        return {"pass": True}
    best, best_score = None, -1.0
    for action in legal:
        if "ask" in action:
            fits = words[action["ask"]["object"]]
            yes = sum(answer(w, action["ask"]["feature"]) == "yes" for w in fits)
            score = min(yes, len(fits) - yes) / (len(fits) or 1)  # an even split of a small set
            if len(fits) > 1 and score > best_score:
                best, best_score = action, score
    return best or legal[-1]  # nothing to learn: the last entry (stop in round two)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            LEXICON.update(message.get("lexicon") or {})
            reply: dict[str, Any] = {"type": "ready"}
        elif message["type"] == "act":
            reply = {"type": "action", "action": choose(message["obs"], message["legal"])}
        else:  # "end": wait for the next line (another game's start on this process) or the end of stdin
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
