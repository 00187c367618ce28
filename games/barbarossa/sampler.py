"""Barbarossa's sampler of the unseen (``Game.sample``, docs/search.md "Barbarossa"): a full state drawn from what one
seat was told, never from the real game.

What is hidden from a seat: the other makers' words (and, during creation, the objects already made by the seats
before it), the letters told to other seats, the words of other seats' wrong guesses, and the die's future (the
seed). Everything else is in the seat's current observation, which holds the whole public record (every question
with its answer, every letter request, every guess) and every letter this seat was told; an earlier observation
tells nothing the current one does not, so the sampler reads ``seen.current`` only.

The words are drawn **uniformly over the word assignments consistent with what the seat knows**:

- each object's word is a lexicon word that is ``yes`` for every feature its sculpture shows, gives every public
  answer about that object, has every letter this seat was told of it, and is not a word this seat guessed wrong
  for it; a right guess of this seat pins it;
- one maker's objects hold different words (RULES.md "Setup" 1), so a maker's words are drawn together, uniformly
  over the tuples of distinct candidates (by rejection, exact: a rejected tuple is drawn again as a whole);
  different makers are independent (two players may choose the same word).

What it does not infer (the approximation, written down): another seat's guess, question or letter request is a
choice of its bot, and a bot's choices may hint at what it knows (e.g. a wrong guess by another seat tells that
its word, unseen, was not the object's). The sampler treats every word assignment the rules allow as equally
likely and reads nothing into other seats' choices.

The rest of the hidden part follows the game's own draws: during creation, the objects made by seats before this
one are random creations as the engine suggests them (a word the maker has not used, a random 1-5 of its ``yes``
features); a wrong guess by another seat names a random other lexicon word (nothing in the rules reads it); the
letters told to other seats follow from the drawn words and the public letter requests. The result has a fresh
seed drawn from ``rng`` (its ``rng``, the die, and its creation suggestions come from that seed) and an empty
``history``: the seat does not see every action (other seats' creations and guessed words are secret), so no
replay of the sample exists; its future is what a search plays on it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, TypeVar

from games.barbarossa.lexicon import WORDS, candidate_words, letter_at
from games.barbarossa.table import BarbarossaTable, random_creation, suggestions
from games.base import Game
from games.seen import Seen

StateT = TypeVar("StateT", bound=BarbarossaTable)

# Rejection draws of one maker's words before the exact (slower) enumeration takes over: with overlapping candidate
# sets of two or three words a tuple may collide often; rejection stays exact, the cap only bounds its cost.
REJECTION_TRIES = 64


def sample(cls: type[StateT], game: Game, seen: Seen, rng: random.Random) -> StateT:
    """A ``cls`` state that gives ``seen.seat`` exactly ``seen.current``, its hidden part drawn with ``rng``."""
    obs = seen.current
    seat, players = seen.seat, seen.players
    if obs.get("seat") != seat or obs.get("players") != players:
        raise ValueError("the observation is not this seat's")
    phase: str = obs["phase"]
    if phase == "create" and obs["to_move"] != seat:
        # A seat is told an observation only at its own decisions; during creation that is while it creates.
        raise ValueError("a creation-phase observation is sampled only at the seat's own creation")
    seed = rng.getrandbits(64)
    state = object.__new__(cls)
    state.game, state.players, state.seed, state.options = game, players, seed, dict(seen.options)
    state.rng = random.Random(seed)
    state.history = []
    _copy_public(state, obs)
    if phase == "create":
        _draw_creations(state, obs, seat, rng)
        _keep_the_suggestion(state, seen.legal, seat)
    else:
        _draw_words(state, obs, seat, rng)
        state.suggestions = []  # read only while creating
    _fill_letters_and_guesses(state, obs, seat, rng)
    return state


def _copy_public(state: BarbarossaTable, obs: dict[str, Any]) -> None:
    """Every field the observation shows as it is (copies: the sample shares nothing with ``seen``)."""
    n = state.players
    state.per_player = obs["objects_per_player"]
    state.objects = [
        {
            "id": view["id"],
            "maker": view["maker"],
            "word": None,
            "sculpture": None,
            "arrows": view["arrows"],
            "solved_by": list(view["solved_by"]),
        }
        for view in obs["objects"]
    ]
    state.object_index = {obj["id"]: i for i, obj in enumerate(state.objects)}
    state.phase = obs["phase"]
    state.current = obs["mover"]
    state.turn = obs["turn"]
    state.wizards = list(obs["wizards"])
    state.hats = list(obs["hats"])
    state.elfstones = list(obs["elfstones"])
    state.curses = list(obs["curses"])
    state.curses_used = obs["curses_used"]
    state.refilled = list(obs["refilled"])
    state.question_round = obs["question_round"]
    state.questions = [dict(q) for q in obs["questions"]]
    state.asked = {(q["object"], q["feature"]) for q in state.questions}
    state.open_asks, state.open_asks_size = {}, -1  # built when first needed
    state.letter_requests = [dict(r) for r in obs["letter_requests"]]
    state.window = list(obs["curse_window"])
    state.last_roll = obs["last_roll"]
    state.space = obs["space"]
    state.arrows_total = obs["arrows_total"]
    state.over = obs["phase"] == "over"
    state.end_reason = obs["end_reason"]
    state.winners = list(obs["winners"])
    state.penalties = list(obs["penalties"]) if obs["penalties"] is not None else [0] * n
    state.scores = list(obs["scores"]) if obs["scores"] is not None else None
    for obj, view in zip(state.objects, obs["objects"], strict=True):
        obj["word"] = view.get("word")
        if view["sculpture"] is not None:
            obj["sculpture"] = list(view["sculpture"])


def _draw_words(state: BarbarossaTable, obs: dict[str, Any], seat: int, rng: random.Random) -> None:
    """After creation: each other maker's words, uniformly over the distinct tuples of consistent candidates."""
    answers: dict[str, list[tuple[str, str]]] = {}
    for q in obs["questions"]:
        answers.setdefault(q["object"], []).append((q["feature"], q["answer"]))
    letters: dict[str, list[tuple[int | str, str]]] = {}
    for told in obs["letters"]:
        letters.setdefault(told["object"], []).append((told["position"], told["letter"]))
    wrong: dict[str, list[str]] = {}
    right: dict[str, str] = {}
    for guess in obs["guesses"]:
        if guess["guesser"] == seat:
            if guess["right"]:
                right[guess["object"]] = guess["word"]
            else:
                wrong.setdefault(guess["object"], []).append(guess["word"])
    by_maker: dict[int, list[dict[str, Any]]] = {}
    for obj in state.objects:
        if obj["word"] is None:
            by_maker.setdefault(obj["maker"], []).append(obj)
    for maker in sorted(by_maker):
        hidden = by_maker[maker]
        choices = [
            (right[obj["id"]],)
            if obj["id"] in right
            else candidates(
                tuple(obj["sculpture"]),
                tuple(answers.get(obj["id"], ())),
                tuple(letters.get(obj["id"], ())),
                tuple(wrong.get(obj["id"], ())),
            )
            for obj in hidden
        ]
        for obj, word in zip(hidden, draw_distinct(choices, rng), strict=True):
            obj["word"] = word


@lru_cache(maxsize=4096)
def candidates(
    sculpture: tuple[str, ...],
    answers: tuple[tuple[str, str], ...],
    letters: tuple[tuple[int | str, str], ...],
    wrong: tuple[str, ...],
) -> tuple[str, ...]:
    """The words an object can hold, sorted (a draw must not depend on a set's order). Cached: a search samples
    the same position many times, and what is known of an object changes seldom."""
    return tuple(sorted(candidate_words(sculpture, answers, letters, wrong)))


def draw_distinct(choices: Sequence[Sequence[str]], rng: random.Random) -> list[str]:
    """One word from each list, all different, uniformly over such tuples (one maker's objects)."""
    for _ in range(REJECTION_TRIES):
        drawn = [rng.choice(words) for words in choices]
        if len(set(drawn)) == len(drawn):
            return drawn
    return _draw_distinct_exactly(choices, rng)


def _draw_distinct_exactly(choices: Sequence[Sequence[str]], rng: random.Random) -> list[str]:
    """``draw_distinct`` by counting: each word in turn, weighted by the distinct completions it leaves."""
    words: list[str] = []
    for index, options in enumerate(choices):
        rest = choices[index + 1 :]
        weights = [_completions(rest, {*words, word}) if word not in words else 0 for word in options]
        if not any(weights):
            raise ValueError("no distinct words fit what the seat was told")
        words.append(rng.choices(options, weights)[0])
    return words


def _completions(choices: Sequence[Sequence[str]], used: set[str]) -> int:
    """How many tuples of distinct words from ``choices`` avoid ``used``."""
    if not choices:
        return 1
    return sum(_completions(choices[1:], used | {word}) for word in choices[0] if word not in used)


def _draw_creations(state: BarbarossaTable, obs: dict[str, Any], seat: int, rng: random.Random) -> None:
    """During creation (at this seat's own creation): the earlier seats' objects as the engine suggests creations;
    the suggestions the engine lists to each seat are drawn from the sample's fresh generator, as at set-up."""
    for maker in range(seat):
        taken: set[str] = set()
        for obj in state.objects:
            if obj["maker"] == maker:
                creation = random_creation(rng, state.options, taken)
                taken.add(creation["word"])
                obj["word"], obj["sculpture"] = creation["word"], creation["sculpture"]
    state.suggestions = [suggestions(state.rng, state.options, state.per_player) for _seat in range(state.players)]


def _keep_the_suggestion(state: BarbarossaTable, legal: list[dict[str, Any]], seat: int) -> None:
    """The ready-made creation the seat was offered (drawn in secret for it, shown only in its legal list) comes
    first in its suggestions, so that the sample lists what the seat was told."""
    offered = [entry["create"] for entry in legal if isinstance(entry.get("create"), dict)]
    told = [c for c in offered if isinstance(c.get("word"), str) and isinstance(c.get("sculpture"), list)]
    if told:
        suggestion = {"word": told[0]["word"], "sculpture": list(told[0]["sculpture"])}
        state.suggestions[seat] = [suggestion, *state.suggestions[seat]]


def _fill_letters_and_guesses(state: BarbarossaTable, obs: dict[str, Any], seat: int, rng: random.Random) -> None:
    """The letters every seat was told follow from the words and the public requests; this seat's are the
    observation's. Guesses: right ones name the object's word; another seat's wrong guess a random other word."""
    words = {obj["id"]: obj["word"] for obj in state.objects}
    state.letters = [[] for _ in range(state.players)]
    for request in obs["letter_requests"]:
        asker = request["asker"]
        if asker != seat:
            told = letter_at(words[request["object"]], request["position"])
            state.letters[asker].append({"object": request["object"], "position": request["position"], "letter": told})
    state.letters[seat] = [dict(told) for told in obs["letters"]]
    state.guesses = []
    for view in obs["guesses"]:
        guess = dict(view)
        if "word" not in guess:
            word = words[guess["object"]]
            if not guess["right"]:
                other = word
                while other == word:
                    other = WORDS[rng.randrange(len(WORDS))]
                word = other
            guess["word"] = word
        state.guesses.append(guess)
