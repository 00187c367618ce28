"""Information-set Monte Carlo tree search over any Parlour game (docs/search.md), built only on the public forward
model: ``Game.sample`` (a state drawn from what one seat was told), ``State.clone``, ``legal_actions``, ``advance``,
``to_move``, ``is_over``, ``outcome`` and ``blanks``.

The search is single-observer ISMCTS (SO-ISMCTS, Cowling, Powley and Whitehouse 2012): every iteration draws a new
determinization from the seat's ``Seen`` (so it never reads what the seat cannot see), walks one tree keyed by the
actions taken, picks among the actions *available in this determinization* by UCB with availability counts, adds
one node, plays the rest of the game out, and credits each node with the result of the seat that chose it. The
other seats are searched with the same tree: their moves are chosen as if they knew what the searching seat knows
(the classic SO-ISMCTS simplification; it is cheap and needs nothing from the game but its forward model).

Templated actions (fields ``null`` the mover fills in, games/blanks.py) are expanded into concrete candidates from
the blanks' own description: a few random fills per template at the root, one per visit below it, and whatever the
``seed_actions`` add (the built-in player adds its game's heuristic choice). Pure Python, no Django, no ``bots``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.base import Action, Game, Outcome, State, canonical, same_json
from games.blanks import Blank
from games.seen import Seen

# A playout plays a state on (to the end, or to a horizon of its own) with the generator it is given, and raises
# ``OutOfTime`` once ``time.perf_counter()`` passes the deadline it is given (the third argument).
Playout = Callable[[State, random.Random, float], None]
# The reward of each seat, each in [0, 1], of a state a playout left (over, or at its horizon).
Evaluate = Callable[[State], list[float]]
# A model of the other seats: the action ``seat`` plays in ``state`` given its ``legal_actions()`` (one of them, or a
# filled template).
Policy = Callable[[State, int, list[Action]], Action]

DEFAULT_TIME_MS = 100
EXPLORATION = 0.7  # UCB's constant for rewards in [0, 1]
ROOT_FILLS = 4  # random fills of each template among the root's candidates
MAX_PLAYOUT_DECISIONS = 5_000  # a safety net: every game ends well before (games.simulate.MAX_DECISIONS is larger)


class OutOfTime(Exception):
    """Raised inside an iteration that reached the search's deadline: the iteration is dropped, the search ends."""


# ----- templated actions ----------------------------------------------------------------------------------------


def has_null(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(has_null(item) for item in value.values())
    if isinstance(value, list):
        return any(has_null(item) for item in value)
    return False


def _choice_value(choice: Any) -> Any:
    return choice["value"] if isinstance(choice, dict) and "value" in choice else choice


def _get(value: Any, path: Sequence[str | int]) -> Any:
    for step in path:
        value = value[step]
    return value


def _put(action: Action, path: Sequence[str | int], value: Any) -> None:
    target: Any = action
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


class Filled(dict[str, Any]):
    """A template filled in by the search: not one of ``legal_actions()`` as listed, so it is played with ``apply``
    (which checks it and puts it in canonical form), never with ``advance``."""


def step(state: State, action: Action) -> None:
    """Play a candidate: ``advance`` for an action as listed, ``apply`` for a filled template."""
    if type(action) is Filled:
        state.apply(action)
    else:
        state.advance(action)


def _fill(template: Action, blanks: list[Blank], lists: dict[str, Any], rng: random.Random) -> Action | None:
    """``template`` with every blank filled at random from its choices, or None if a blank cannot be filled
    (free text, or no choice left)."""
    action: Action = Filled(_copy(template))
    for blank in blanks:
        kind = blank["kind"]
        if kind == "number":
            _put(action, blank["path"], rng.randint(blank.get("min", 0), blank.get("max", 0)))
            continue
        if kind not in ("one", "some") or "choices" not in blank:
            return None
        choices = lists.get(blank["choices"], [])
        if "per" in blank:
            choices = choices.get(str(_get(action, blank["per"])), []) if isinstance(choices, dict) else []
        values = [_choice_value(c) for c in choices]
        if kind == "one":
            if not values:
                return None
            _put(action, blank["path"], rng.choice(values))
            continue
        low, high = blank.get("min", 1), min(blank.get("max", len(values)), len(values))
        if low > high:
            return None
        _put(action, blank["path"], sorted(rng.sample(values, rng.randint(low, high)), key=canonical))
    return action


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def lists_templates(cls: type[State]) -> bool:
    """Whether the game may list templates: a game that does describes their blanks (overrides ``State._blanks``);
    for any other, a ``null`` in an action is a value, and the actions are complete as listed."""
    known = _LISTS_TEMPLATES.get(cls)
    if known is None:
        known = _LISTS_TEMPLATES[cls] = cls._blanks is not State._blanks
    return known


_LISTS_TEMPLATES: dict[type[State], bool] = {}


def concrete_actions(state: State, legal: list[Action], rng: random.Random, fills: int = 1) -> list[Action]:
    """``legal`` with each template replaced by ``fills`` random fills of its blanks (``State.blanks``); a template
    that cannot be filled (a free text blank) is left out. Complete actions come back as they are."""
    if not lists_templates(type(state)) or not any(has_null(action) for action in legal):
        return legal
    described = state.blanks(legal)
    out: list[Action] = []
    for action, blanks in zip(legal, described["blanks"], strict=True):
        if not blanks:
            out.append(action)
            continue
        for _ in range(fills):
            filled = _fill(action, blanks, described["lists"], rng)
            if filled is not None:
                out.append(filled)
    return out


# ----- playouts and rewards ---------------------------------------------------------------------------------------


def random_playout(state: State, rng: random.Random, deadline: float = math.inf) -> None:
    """Uniformly random concrete actions to the end of the game (templates filled at random)."""
    for _ in range(MAX_PLAYOUT_DECISIONS):
        if state.is_over():
            return
        if time.perf_counter() > deadline:
            raise OutOfTime
        legal = concrete_actions(state, state.legal_actions(), rng)
        step(state, rng.choice(legal))


def rank_rewards(state: State) -> list[float]:
    """Each seat's reward from the outcome's ranks: 1 for first, 0 for last, evenly between (ties share a rank)."""
    return rewards_of(state.outcome())


def rewards_of(outcome: Outcome) -> list[float]:
    """``rank_rewards`` of any outcome (a final one, or one made up of gains at a horizon)."""
    ranks = outcome.ranks
    worst = max(len(ranks) - 1, 1)
    return [(len(ranks) - rank) / worst for rank in ranks]


# ----- the tree ----------------------------------------------------------------------------------------------------


@dataclass
class Node:
    """The statistics of one action from one point of the tree, credited to the seat that chose it."""

    action: Action | None = None
    seat: int = -1
    visits: int = 0
    reward: float = 0.0
    available: int = 0  # how often it could have been chosen (ISMCTS's availability count)
    children: dict[str, Node] = field(default_factory=dict)


@dataclass
class SearchResult:
    action: Action
    iterations: int
    seconds: float
    visits: dict[str, int]  # the root's candidates (``action_key``) -> visits


def _ucb_pick(children: list[Node], exploration: float) -> Node:
    """UCB1 with availability counts: this iteration counts as one more chance for each of them."""
    best, best_value = children[0], -math.inf
    for child in children:
        value = child.reward / child.visits + exploration * math.sqrt(math.log(child.available + 1) / child.visits)
        if value > best_value:
            best, best_value = child, value
    return best


def ismcts(
    game: Game,
    seen: Seen,
    legal: list[Action],
    rng: random.Random,
    *,
    time_ms: float = DEFAULT_TIME_MS,
    iterations: int | None = None,
    playout: Playout = random_playout,
    evaluate: Evaluate = rank_rewards,
    exploration: float = EXPLORATION,
    seed_actions: Sequence[Action] = (),
    seed_visits: int = 0,
    opponents: Policy | None = None,
) -> SearchResult:
    """The most visited of ``legal``'s candidates after ``time_ms`` of search (or ``iterations``, whichever comes
    first when both are given). ``seen`` is the searching seat's record, its last observation the decision at hand;
    ``seed_actions`` are concrete actions to consider besides the fills of ``legal``'s templates; the first of them
    is the answer when not one iteration fits in the time (a game whose simulated games are too long for it).
    ``seed_visits`` gives each seed that many virtual visits at an even reward (0.5) before the search starts: a
    prior that the search must outvote, so that a few noisy iterations do not overturn a good heuristic's move.
    ``opponents``, when given, plays the other seats' decisions in the tree instead of UCB (see ``_iterate``)."""
    started = time.perf_counter()
    deadline = started + time_ms / 1000
    seat = seen.seat
    root = Node(seat=seat)
    keys, candidates = _root_candidates(game, seen, legal, rng, seed_actions)
    for seed in seed_actions[: len(seed_actions) if seed_visits else 0]:
        index = candidates.index(seed) if seed in candidates else -1
        if index >= 0:
            root.children[keys[index]] = Node(candidates[index], seat, seed_visits, 0.5 * seed_visits, seed_visits)
    if len(candidates) == 1:
        return SearchResult(_copy(dict(candidates[0])), 0, time.perf_counter() - started, {keys[0]: 0})
    done = 0
    now = time.perf_counter()
    # Stop when the next iteration would likely end past the deadline (the mean so far predicts it), and drop one
    # that reaches it: the time asked for is a limit, not a target.
    while (iterations is None or done < iterations) and (done == 0 or now + (now - started) / done < deadline):
        state = game.sample(seen, random.Random(rng.getrandbits(64)))
        try:
            _iterate(root, state, candidates, keys, rng, playout, evaluate, exploration, deadline, opponents)
        except OutOfTime:
            break
        done += 1
        now = time.perf_counter()
    if done == 0 or not any(child.visits for child in root.children.values()):
        fallback = seed_actions[0] if seed_actions else rng.choice(candidates)
        return SearchResult(_copy(dict(fallback)), 0, time.perf_counter() - started, {})
    best = max(zip(candidates, keys, strict=True), key=lambda pair: _visits(root, pair[1]))
    visits = {key: _visits(root, key) for key in keys}
    return SearchResult(_copy(dict(best[0])), done, time.perf_counter() - started, visits)


def _visits(root: Node, key: str) -> int:
    child = root.children.get(key)
    return child.visits if child else 0


def _root_candidates(
    game: Game, seen: Seen, legal: list[Action], rng: random.Random, seed_actions: Sequence[Action]
) -> tuple[list[str], list[Action]]:
    """The root's candidates (the seeds first, each action once) and their keys (``action_key``)."""
    if lists_templates(game.state_class) and any(has_null(action) for action in legal):
        # Blanks are described from the seat's own view: any sample agrees with it on everything the mover sees.
        expanded = concrete_actions(game.sample(seen, random.Random(rng.getrandbits(64))), legal, rng, ROOT_FILLS)
    else:
        expanded = legal
    out = {action_key(action): action for action in expanded}
    for seed in reversed(seed_actions):
        # A seed that is one of the candidates (perhaps with its keys in another order) is that candidate.
        same = next((action for action in expanded if action == seed and same_json(action, seed)), seed)
        out = {action_key(same): same, **out}
    if not out:  # every template unfillable: the legal list as it is (the answer is then a template to fill)
        out = {action_key(action): action for action in legal}
    return list(out), list(out.values())


def action_key(action: Action) -> str:
    """An action's identity in the tree: its ``repr`` (an engine lists an action with its keys in one order, and a
    filled template keeps its template's), several times cheaper than ``canonical`` on long legal lists."""
    return repr(action)


def _iterate(
    root: Node,
    state: State,
    root_candidates: list[Action],
    root_keys: list[str],
    rng: random.Random,
    playout: Playout,
    evaluate: Evaluate,
    exploration: float,
    deadline: float,
    opponents: Policy | None = None,
) -> None:
    """One iteration on one determinization. The tree changes only once the iteration is complete: ``OutOfTime``
    leaves it exactly as it was.

    Without ``opponents`` every seat chooses by UCB in the one tree: the other seats then choose as if they saw the
    determinization, the searcher's own hand included (SO-ISMCTS's known weakness: a Guard always names the right
    card). With ``opponents`` the other seats play that model's move, computed from their own observation of the
    determinization, and the tree branches on what they played."""
    path = [root]
    node = root
    first = True
    offered: list[Node] = []  # children that were available on the way down (their availability counts grow)
    leaf: tuple[Node, str, Node] | None = None  # the node added by this iteration: (parent, key, node)
    while not state.is_over():
        if time.perf_counter() > deadline:
            raise OutOfTime
        mover = state.to_move()
        assert mover is not None
        if first:
            actions, keys = root_candidates, root_keys
            first = False
        elif opponents is not None and mover != root.seat:
            listed_actions = state.legal_actions()
            forced = opponents(state, mover, listed_actions)
            if not any(forced == listed for listed in listed_actions):
                forced = Filled(forced)  # the model filled a template: played with apply, checked
            actions, keys = [forced], [action_key(forced)]
        else:
            actions = concrete_actions(state, state.legal_actions(), rng)
            keys = [action_key(action) for action in actions]
        untried = [i for i, key in enumerate(keys) if key not in node.children]
        available = [node.children[key] for key in keys if key in node.children]
        offered += available
        if untried:
            i = rng.choice(untried)
            child = Node(action=actions[i], seat=mover)
            leaf = (node, keys[i], child)
            step(state, actions[i])
            path.append(child)
            break
        node = _ucb_pick(available, exploration)
        assert node.action is not None
        step(state, node.action)
        path.append(node)
    if time.perf_counter() > deadline:
        raise OutOfTime
    if not state.is_over():
        playout(state, rng, deadline)
    rewards = evaluate(state)
    for child in offered:
        child.available += 1
    if leaf is not None:
        parent, leaf_key, child = leaf
        child.available += 1
        parent.children[leaf_key] = child
    for visited in path:
        visited.visits += 1
        if visited.seat >= 0:
            visited.reward += rewards[visited.seat]
