"""The game-engine interface every Parlour game implements (docs/design.md, "The game-engine interface").

The base classes own the public methods — they validate, record and enforce the contract — and each game fills in
small hooks (names starting with ``_``). Engines are pure Python: no Django, no bots, no workers.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypedDict, TypeGuard, TypeVar, cast

from games.blanks import Blanks, generic_blanks
from games.seen import Seen
from games.spec import GameSpec

Action = dict[str, Any]


class LadderDefaults(TypedDict, total=False):
    """A game's own defaults for the league's ladder (``LADDER`` in ``games/<id>/__init__.py``); the league merges
    its settings over them. The keys and their meaning: docs/ratings.md."""

    table_sizes: list[int]  # player counts the ladder seats (default: all the game allows)
    games_per_hour: int  # at most this many ladder matches of the game in any hour
    max_in_flight: int  # queued or running ladder matches per bot
    time_control: dict[str, int]  # {"move_ms": ..., "bank_ms": ...}
    matchmaking: str  # "settle", "uncertainty" or "random"
    enabled: bool
    series: int  # games per ladder table, played in a row by the same bot processes (short games: several)


def is_int(value: object) -> TypeGuard[int]:
    """A whole number from JSON: an ``int`` and not a ``bool`` (``True`` is an ``int`` in Python, never in a rule)."""
    return isinstance(value, int) and not isinstance(value, bool)


class IllegalAction(Exception):
    """An action that breaks a rule. The message says which rule, in words a bot author understands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidOptions(ValueError):
    """Options (or a player count) the game cannot be set up with."""


@dataclass(frozen=True)
class Outcome:
    """Final scores per seat and ranks (1 = best; equal results share a rank)."""

    scores: list[float]
    ranks: list[int]

    @classmethod
    def from_scores(cls, scores: Sequence[float], tiebreak: Sequence[Any] | None = None) -> Outcome:
        """Rank by score (higher is better), then by ``tiebreak`` (higher is better); full ties share a rank."""
        keys = [(s, tiebreak[i] if tiebreak is not None else 0) for i, s in enumerate(scores)]
        return cls(scores=list(scores), ranks=ranks_from_keys(keys))

    def with_faults(self, faulted: Sequence[int]) -> Outcome:
        """A fault ranks its seat last, below every seat that did not fault (faulted seats share the last rank).

        Seats without a fault keep their relative order from the game."""
        faulted_set = set(faulted)
        if not faulted_set:
            return self
        keys = [(0 if seat in faulted_set else 1, -self.ranks[seat]) for seat in range(len(self.ranks))]
        return Outcome(scores=list(self.scores), ranks=ranks_from_keys(keys))

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks)}


def ranks_from_keys(keys: Sequence[Any]) -> list[int]:
    """Competition ranking (1, 2, 2, 4): a higher key is a better result; equal keys share a rank."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def canonical(action: Any) -> str:
    """A strict textual identity for a JSON value: ``1``, ``1.0`` and ``true`` are different actions."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def same_json(a: Any, b: Any) -> bool:
    """``canonical(a) == canonical(b)`` for JSON values already known to be ``==``, without serialising either:
    the same types all the way down (``1``, ``1.0`` and ``true`` differ) and floats that print the same."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(same_json(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)):
        return all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return repr(a) == repr(b) if isinstance(a, float) else True


_SCALARS = frozenset({int, float, str, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (``copy.deepcopy`` without its memo and dispatch: actions are copied at every
    move)."""
    if type(value) is dict:  # most actions: one flat object of numbers, copied in one step
        scalars = _SCALARS
        for item in value.values():
            if type(item) not in scalars:
                break
        else:
            return value.copy()
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    if isinstance(value, tuple):
        return tuple(copy_json(item) for item in value)
    return value


def shuffle(items: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(items)``: the same order from the same generator, which ends in the same state, in about half
    the time. ``random.Random.shuffle`` draws each swap with a method call of its own (``_randbelow``: ``getrandbits``
    of the bound's bit length, again while above it); the same draws inline. Engines deal with it."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        bound = i + 1
        bits = bound.bit_length()
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


class State:
    """One game in progress. Subclasses implement the hooks below; the public methods are final.

    Every bit of randomness comes from ``self.rng``, seeded once, so the game id, engine version, options, seed and
    action list reproduce every state: that list *is* the replay.
    """

    # The generator, copy-on-write. A search clones states thousands of times a second, and copying a Mersenne
    # Twister (``getstate``/``setstate``) costs more than the rest of most clones, while most clones never draw: a
    # clone shares its original's generator (``_field_copy`` marks both as sharing) until either reads ``rng``,
    # which then copies it, so each draws exactly what an unshared copy would. ``None``: made from ``seed`` when
    # first read (a sampled state, which rarely draws). Code must not keep ``rng`` in a variable across a clone.
    _rng: random.Random | None = None
    _rng_shared: bool = False  # another state may hold ``_rng`` too: copy it before drawing

    def __init__(self, game: Game, players: int, seed: int, options: dict[str, Any]) -> None:
        self.game = game
        self.players = players
        self.seed = seed
        self.options = options
        self.history: list[Action] = []
        self._setup()

    @property
    def rng(self) -> random.Random:
        """This state's own generator (read it only to draw: a read may copy a shared one)."""
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self.seed)
            self._rng_shared = False
        elif self._rng_shared:
            copied = random.Random.__new__(random.Random)
            copied.setstate(rng.getstate())
            rng = self._rng = copied
            self._rng_shared = False
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng, self._rng_shared = value, False

    def _reseed(self, seed: int) -> None:
        """A fresh generator from ``seed`` (the state's ``seed`` from now on), made only if the state draws."""
        self.seed, self._rng, self._rng_shared = seed, None, False

    def _field_copy(self) -> Self:
        """A new state holding this one's fields, the same objects (``_clone`` then copies those the game changes),
        the generator shared copy-on-write."""
        self._rng_shared = True
        new = object.__new__(type(self))
        new.__dict__ = self.__dict__.copy()
        return new

    # ----- hooks a game fills in -------------------------------------------------------------------------------
    def _setup(self) -> None:
        """Deal and prepare the first decision (uses ``self.rng`` and ``self.options``)."""
        raise NotImplementedError

    def _to_move(self) -> int | None:
        raise NotImplementedError

    def _legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def _check(self, action: Action) -> Action:
        """Validate ``action`` for ``to_move()`` and return its canonical form, or raise ``IllegalAction``.

        The default accepts exactly the listed legal actions and asks ``_explain_illegal`` for the reason otherwise.
        Games whose ``legal_actions`` lists templates (free fields ``null``) override this."""
        for legal in self._legal_actions():
            # Dict equality first (fast), then the strict identity: 1 == 1.0 == True for dicts, not for us.
            if legal == action and same_json(legal, action):
                return legal
        raise IllegalAction(self._explain_illegal(action))

    def _explain_illegal(self, action: Action) -> str:
        """Which rule ``action`` breaks. Games override this to name the rule."""
        return f"{canonical(action)} is not one of the legal actions"

    def _apply(self, action: Action) -> list[str]:
        """Apply a validated, canonical action and return public narration lines. Must not raise. ``action`` is the
        copy recorded in ``history``: the rules read it and never change it (``_advance`` passes them a listed
        action, which may be shared, the same way)."""
        raise NotImplementedError

    def _observation(self, seat: int) -> Mapping[str, Any]:
        """What ``seat`` may know: the game's declared ``Observation`` (``GameSpec.observation``)."""
        raise NotImplementedError

    def _public_view(self) -> dict[str, Any]:
        raise NotImplementedError

    def _full_view(self) -> dict[str, Any]:
        raise NotImplementedError

    def _outcome(self) -> Outcome:
        raise NotImplementedError

    def _blanks(self, seat: int, actions: list[Action]) -> Blanks:
        """Describe the blanks of the templates in ``actions`` for ``seat`` (games/blanks.py). The default: a free
        text blank per null. Games that can enumerate a blank's values override this."""
        return {"blanks": [generic_blanks(action) for action in actions], "lists": {}}

    def perturb_hidden(self, observer: int, rng: random.Random) -> State | None:
        """A copy whose information hidden from ``observer`` differs (e.g. another seat's card swapped with one in
        the deck) while all that ``observer`` knows stays the same; ``None`` when nothing is hidden from them now.

        The conformance suite uses it to prove that ``observation(observer)`` leaks nothing."""
        raise NotImplementedError

    @classmethod
    def _sample(cls, game: Game, seen: Seen, rng: random.Random) -> State:
        """A state consistent with everything ``seen`` records, the hidden part drawn with ``rng`` (docs/search.md).

        Reads ``seen`` and ``rng`` only. The draw is uniform over the hidden states that agree with what the seat
        was told (or follows the deal's own distribution where the two differ, with the reason written down), and
        ``observation(seen.seat)`` of the result equals ``seen.current`` exactly. The result's ``rng`` is fresh
        (drawn from ``rng``): the real seed is hidden, and the future's randomness with it.

        By default, ``sample(cls, game, seen, rng)`` of the game's ``sampler`` module (``games/<id>/sampler.py``),
        found by name as the registry finds ``players``: a sampler builds on its engine, so the engine must not
        import it (that would be a cycle)."""
        module = module_beside(cls, "sampler")
        if module is None:
            raise NotImplementedError(f"{game.title} has no sampler yet")
        sampled: State = module.sample(cls, game, seen, rng)
        return sampled

    def _advance(self, action: Action) -> None:
        """``apply`` without its checks, copies and narration, for an action taken from ``legal_actions()`` as
        listed. Games override it where a search gains from it; it must reach exactly the state ``apply`` reaches."""
        self.apply(action)

    def _clone(self) -> Self:
        """A copy that shares nothing mutable with this state. Games override it with a cheaper field copy."""
        return copy.deepcopy(self)

    # ----- the public interface (final) ------------------------------------------------------------------------
    def to_move(self) -> int | None:
        return None if self.is_over() else self._to_move()

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over() else self._legal_actions()

    def blanks(self, actions: list[Action]) -> Blanks:
        """The blanks of ``actions`` (legal actions of the seat to move) as controls may show them."""
        seat = self.to_move()
        if seat is None or not actions:
            return {"blanks": [[] for _ in actions], "lists": {}}
        return self._blanks(seat, actions)

    def apply(self, action: Action) -> list[str]:
        if self.is_over():
            raise IllegalAction("the game is over")
        if not isinstance(action, dict):
            raise IllegalAction("an action must be a JSON object")
        recorded = copy_json(self._check(action))  # the caller's and the legal list's objects stay theirs
        self.history.append(recorded)
        return self._apply(recorded)

    def advance(self, action: Action) -> None:
        """The forward model's step: play ``action``, which must be one of ``legal_actions()`` as listed (it is not
        checked, so a search's simulated games cost less); no narration. A bot's own reply goes through ``apply``."""
        self._advance(action)

    def observation(self, seat: int) -> dict[str, Any]:
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player game")
        # A declared TypedDict is a dict: the public interface hands observations on as plain JSON objects.
        return cast("dict[str, Any]", self._observation(seat))

    def public_view(self) -> dict[str, Any]:
        return self._public_view()

    def full_view(self) -> dict[str, Any]:
        return self._full_view()

    def is_over(self) -> bool:
        raise NotImplementedError

    def outcome(self) -> Outcome:
        if not self.is_over():
            raise RuntimeError("the game is not over")
        return self._outcome()

    def clone(self) -> Self:
        """An independent copy (a search's forward model copies a state at every simulated game)."""
        return self._clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        # The Game is a shared, immutable singleton: never copy it.
        memo[id(self.game)] = self.game
        new = object.__new__(type(self))
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new


def module_beside(state_class: type[State], name: str) -> Any:
    """The module ``name`` beside ``state_class``'s (``games/<id>/<name>.py``: a game's sampler, its search knobs),
    or None when the game has none."""
    package = state_class.__module__.rpartition(".")[0]
    if not package or importlib.util.find_spec(f"{package}.{name}") is None:
        return None
    return importlib.import_module(f"{package}.{name}")


def has_sampler(state_class: type[State]) -> bool:
    """Whether ``Game.sample`` can draw states of this class: a ``sampler`` module beside it, or its own hook."""
    own_hook = any("_sample" in vars(klass) for klass in state_class.__mro__ if klass is not State)
    return own_hook or module_beside(state_class, "sampler") is not None


class Game:
    """A registered game: its spec, its state class and its built-in players.

    Subclasses set ``spec`` and ``state_class`` and may override ``_check_options``."""

    spec: ClassVar[GameSpec]
    state_class: ClassVar[type[State]]

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def min_players(self) -> int:
        return self.spec.min_players

    @property
    def max_players(self) -> int:
        return self.spec.max_players

    @property
    def version(self) -> str:
        return self.spec.version

    def new_state(self, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, not {players}"
            )
        checked = self._check_options(players, dict(options or {}))
        return self.state_class(self, players, seed, checked)

    def start_info(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        """Extra public fields for the bot protocol's ``start`` message (e.g. Barbarossa's lexicon)."""
        return {}

    def _check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        """Validate options (raise ``InvalidOptions``) and return them with defaults filled in."""
        if options:
            raise InvalidOptions(f"{self.title} takes no options, got {sorted(options)}")
        return options

    def sample(self, seen: Seen, rng: random.Random) -> State:
        """A full state drawn from what one seat has been told (``seen``): the hidden cards re-dealt, never read from
        the real game. The forward model of a search bot (docs/search.md)."""
        if seen.game != self.id:
            raise ValueError(f"this is {self.id}, not {seen.game}")
        if not self.min_players <= seen.players <= self.max_players or not 0 <= seen.seat < seen.players:
            raise ValueError(f"seat {seen.seat} of {seen.players} is not a seat of {self.title}")
        options = self._check_options(seen.players, dict(seen.options))
        return self.state_class._sample(self, Seen(**{**seen.__dict__, "options": options}), rng)

    def replay(self, players: int, seed: int, options: dict[str, Any] | None, actions: Sequence[Action]) -> State:
        """Rebuild the state reached by ``actions`` from the start."""
        state = self.new_state(players, seed, options)
        for action in actions:
            state.apply(action)
        return state


# A game's declared observation type (games/spec.py): a game's own players are ``Player[Observation]``.
ObservationT = TypeVar("ObservationT", bound=Mapping[str, Any])


class Player(Generic[ObservationT]):
    """A built-in player. It sees exactly what a bot sees: its observation and the legal actions.

    Subclasses implement ``act``; ``self.rng`` is their only source of randomness. Code that plays any game holds a
    ``Player[Any]``."""

    name: ClassVar[str] = "player"
    description: ClassVar[str] = ""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.seat = 0
        self.players = 0
        self.options: dict[str, Any] = {}

    def start(self, seat: int, players: int, options: dict[str, Any]) -> None:
        self.seat, self.players, self.options = seat, players, options

    def act(self, obs: ObservationT, legal: list[Action]) -> Action:
        raise NotImplementedError


class RandomPlayer(Player[ObservationT]):
    """Plays a uniformly random legal action. Games with templated actions subclass it to fill the free fields."""

    name = "random"
    description = "plays a uniformly random legal action"

    def act(self, obs: ObservationT, legal: list[Action]) -> Action:
        return self.rng.choice(legal)
