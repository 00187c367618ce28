"""The reference material for bot authors of one game, generated from the engine so it never drifts from the code.

``reference(game_id)`` plays a short real game between the game's built-in players and records what a bot in one
seat would have been sent: the ``start`` message, every ``act`` message, an ``action`` reply and the ``end`` message,
built with the same ``bots.protocol`` functions the runner uses. From that record it derives the observation fields
(with the JSON types seen over the whole game, every seat), the shapes of the legal actions, and it pairs each field
with its description from the game's rules reference (``games/<game>/RULES.md``, read through
``games.registry.rules_text``). The league's reference pages and the starter kit (``bots.authoring.starter``) read
it; ``shorten`` and ``pretty`` lay its messages out for people.

No Django here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from bots import protocol
from bots.limits import Limits
from games.registry import builtin_players, get_game, make_player, rules_text
from games.simulate import MAX_DECISIONS

SAMPLE_SEED = 7
SAMPLE_ACTS = 24  # act messages kept for the smoke test (spread evenly over the focus seat's decisions)
SAMPLE_NOTE = "a short note, kept in the replay"
SURVEY_SEEDS = (1, 2)  # extra games per player count, for the field types and action shapes


@dataclass(frozen=True)
class Field:
    """One observation field: its name, the JSON types it took over a real game, its documentation and an example."""

    name: str
    type: str
    description: str
    example: Any


@dataclass(frozen=True)
class ActionShape:
    """One form of legal action (its keys, nested keys included) with an example; ``free`` lists the fields that
    appear as ``null`` templates to be filled in."""

    keys: str
    example: dict[str, Any]
    seen: int
    free: tuple[str, ...] = ()
    template: dict[str, Any] | None = None


@dataclass(frozen=True)
class Reference:
    game_id: str
    title: str
    version: str
    summary: str
    min_players: int
    max_players: int
    players: int
    seed: int
    seat: int  # the seat whose messages are shown
    decisions: int  # decisions in the sample game, all seats
    options: list[tuple[str, dict[str, Any]]]
    builtins: list[tuple[str, str]]
    fields: list[Field]
    actions: list[ActionShape]
    messages: dict[str, dict[str, Any]]  # start, ready, act, action, end
    acts: list[dict[str, Any]] = field(default_factory=list)  # a sample of the seat's act messages, in order
    doc_sections: dict[str, str] = field(default_factory=dict)  # "rules", "actions", from games/<id>/RULES.md
    undocumented: list[str] = field(default_factory=list)  # fields the engine sends that the doc does not describe
    documented_missing: list[str] = field(default_factory=list)  # fields the doc describes that never appeared

    def message_text(self, name: str, abbreviate: bool = True) -> str:
        message = self.messages[name]
        return pretty(shorten(message) if abbreviate else message)


# ----- the sample game ----------------------------------------------------------------------------------------------


def _sample_players(game_id: str) -> int:
    game = get_game(game_id)
    return max(game.min_players, min(3, game.max_players))


def strong_player(game_id: str) -> str:
    names = sorted(builtin_players(game_id))
    return next((name for name in names if name != "random"), "random")


def _time_control(game_id: str) -> dict[str, Any]:
    # The runner's own defaults for the game, so the example start message is the one a bot really gets.
    return Limits.for_game(game_id).time_control()


@cache
def reference(game_id: str) -> Reference:
    """The reference for ``game_id``, from a real game between its strongest built-in players (cached)."""
    game = get_game(game_id)
    players = _sample_players(game_id)
    seat = 1 if players > 1 else 0
    name = strong_player(game_id)
    bots = [make_player(game_id, name, SAMPLE_SEED * 100 + s) for s in range(players)]
    state = game.new_state(players, SAMPLE_SEED)
    for s, bot in enumerate(bots):
        bot.start(s, players, state.options)
    time_control = _time_control(game_id)
    start = protocol.start_message(
        game_id, seat, players, state.options, time_control, game.start_info(players, state.options)
    )
    observations: list[dict[str, Any]] = []
    legal_lists: list[list[dict[str, Any]]] = []
    acts: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (act message, the action chosen)
    bank = time_control["bank_ms"]
    decisions = 0
    for _ in range(MAX_DECISIONS):
        mover = state.to_move()
        if mover is None:
            break
        obs = state.observation(mover)
        legal = state.legal_actions()
        observations.append(obs)
        legal_lists.append(legal)
        action = bots[mover].act(copy.deepcopy(obs), copy.deepcopy(legal))
        if mover == seat:
            message = protocol.act_message(obs, legal, time_control["move_ms"] + bank)
            acts.append((copy.deepcopy(message), copy.deepcopy(action)))
        state.apply(action)
        decisions += 1
    else:
        raise RuntimeError(f"{game_id}: the sample game did not end")
    final = [state.observation(s) for s in range(players)]
    observations.extend(final)
    _survey(game_id, observations, legal_lists)
    end = protocol.end_message(state.outcome(), final[seat])
    # The example act: the middle one of the seat's decisions (past the opening, before the end).
    chosen, chosen_action = acts[len(acts) // 2]
    reply: dict[str, Any] = {"type": "action", "action": chosen_action, "note": SAMPLE_NOTE}
    docs = _doc_fields(game_id)
    fields = _fields(observations, chosen["obs"], docs)
    seen = {f.name for f in fields}
    step = max(1, len(acts) // SAMPLE_ACTS)
    sample = [message for message, _action in acts[::step]][:SAMPLE_ACTS]
    return Reference(
        game_id=game_id,
        title=game.title,
        version=game.version,
        summary=game.spec.summary,
        min_players=game.min_players,
        max_players=game.max_players,
        players=players,
        seed=SAMPLE_SEED,
        seat=seat,
        decisions=decisions,
        options=[(key, dict(schema)) for key, schema in game.spec.options_schema.items()],
        builtins=[(n, cls.description) for n, cls in sorted(builtin_players(game_id).items())],
        fields=fields,
        actions=_action_shapes(legal_lists),
        messages={"start": start, "ready": {"type": "ready"}, "act": chosen, "action": reply, "end": end},
        acts=sample,
        doc_sections=_doc_sections(game_id),
        undocumented=[f.name for f in fields if not f.description],
        documented_missing=sorted(set(docs) - seen),
    )


def _survey(game_id: str, observations: list[dict[str, Any]], legal_lists: list[list[dict[str, Any]]]) -> None:
    """More games, every player count, random players (they wander into corners the strong ones avoid): so the
    field types and action shapes cover more than one game's worth of situations."""
    game = get_game(game_id)
    for players in range(game.min_players, game.max_players + 1):
        for seed in SURVEY_SEEDS:
            bots = [make_player(game_id, "random", seed * 100 + s) for s in range(players)]
            state = game.new_state(players, seed)
            for s, bot in enumerate(bots):
                bot.start(s, players, state.options)
            for _ in range(MAX_DECISIONS):
                mover = state.to_move()
                if mover is None:
                    break
                obs, legal = state.observation(mover), state.legal_actions()
                observations.append(obs)
                legal_lists.append(legal)
                state.apply(bots[mover].act(copy.deepcopy(obs), copy.deepcopy(legal)))
            observations.extend(state.observation(s) for s in range(players))


# ----- observation fields and action shapes -------------------------------------------------------------------------


def json_type(value: Any) -> str:
    """A short JSON type: ``int``, ``str | null`` is built by the caller, ``list[int]``, ``list[list[object]]``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        inner = _union(json_type(item) for item in value)
        return f"list[{inner}]" if inner else "list"
    return "object"


def _union(types: Iterable[str]) -> str:
    found = set(types)
    if any(t.startswith("list[") for t in found):
        found.discard("list")  # an empty list adds nothing once the items' type is known
    if {"int", "number"} <= found:
        found.discard("int")
    order = {"null": 1}
    return " | ".join(sorted(found, key=lambda t: (order.get(t, 0), t)))


def _fields(observations: list[dict[str, Any]], example: dict[str, Any], docs: dict[str, str]) -> list[Field]:
    names: list[str] = []
    types: dict[str, set[str]] = {}
    for obs in observations:
        for key, value in obs.items():
            if key not in types:
                names.append(key)
                types[key] = set()
            types[key].add(json_type(value))
    # The doc's order (chosen for people), then fields it does not describe in the order the engine sent them.
    documented = {name: index for index, name in enumerate(docs)}
    seen = {name: index for index, name in enumerate(names)}
    names.sort(key=lambda key: (documented.get(key, len(documented)), seen[key]))
    return [
        Field(name=key, type=_union(types[key]), description=docs.get(key, ""), example=example.get(key))
        for key in names
    ]


def _structure(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((key, _structure(item)) for key, item in value.items()))
    return None


def _null_paths(value: Any, prefix: str = "") -> list[str]:
    paths = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            if item is None:
                paths.append(path)
            else:
                paths += _null_paths(item, path)
    return paths


def _keys_text(structure: Any) -> str:
    parts = []
    for key, inner in structure:
        parts.append(f"{key}: {{{_keys_text(inner)}}}" if inner else key)
    return ", ".join(parts)


def _action_shapes(legal_lists: list[list[dict[str, Any]]]) -> list[ActionShape]:
    shapes: dict[Any, dict[str, Any]] = {}
    for legal in legal_lists:
        for action in legal:
            key = _structure(action)
            entry = shapes.setdefault(key, {"example": None, "template": None, "seen": 0, "free": set()})
            entry["seen"] += 1
            nulls = _null_paths(action)
            if nulls:
                entry["free"].update(nulls)
                entry["template"] = entry["template"] or action
            elif entry["example"] is None:
                entry["example"] = action
    return [
        ActionShape(
            keys=_keys_text(key),
            example=entry["example"] or entry["template"],
            seen=entry["seen"],
            free=tuple(sorted(entry["free"])),
            template=entry["template"],
        )
        for key, entry in shapes.items()
    ]


# ----- the game's documentation ------------------------------------------------------------------------------------

_SECTIONS = {"rules": "the rules in brief", "actions": "action reference", "options": "options"}


def _doc_sections(game_id: str) -> dict[str, str]:
    """The sections of the game's RULES.md worth repeating for bot authors, by key (markdown, heading removed)."""
    text = rules_text(game_id)
    sections: dict[str, str] = {}
    for match in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S):
        heading = match.group(1).strip().lower()
        for key, prefix in _SECTIONS.items():
            if heading.startswith(prefix) and key not in sections:
                sections[key] = match.group(2).strip()
    return sections


def _doc_fields(game_id: str) -> dict[str, str]:
    """Field descriptions from the doc's "Observation reference" table: ``| `name` | type | meaning |``."""
    text = rules_text(game_id)
    section = re.search(r"^## Observation reference\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    found: dict[str, str] = {}
    if section is None:
        return found
    for line in section.group(1).splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) < 3:
            continue
        for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[0]):
            found.setdefault(name, cells[-1].replace("\\|", "|"))
    return found


# ----- display ------------------------------------------------------------------------------------------------------


def shorten(value: Any, max_items: int = 8, max_keys: int = 40, max_chars: int = 160, depth: int = 0) -> Any:
    """A copy for display: long lists, objects and strings cut, each cut marked with what was left out. Deeper
    levels are cut harder (a lexicon of 385 words shows a few words with a few features each)."""
    items_here = max_items if depth < 2 else min(max_items, 3)
    keys_here = max_keys if depth < 2 else min(max_keys, 6)
    if isinstance(value, list):
        items = [shorten(item, max_items, max_keys, max_chars, depth + 1) for item in value[:items_here]]
        if len(value) > items_here:
            items.append(f"… {len(value) - items_here} more")
        return items
    if isinstance(value, dict):
        keys = list(value)
        result = {key: shorten(value[key], max_items, max_keys, max_chars, depth + 1) for key in keys[:keys_here]}
        if len(keys) > keys_here:
            more = len(keys) - keys_here
            result["…"] = f"{more} more key{'s' if more > 1 else ''}"
        return result
    if isinstance(value, str) and len(value) > max_chars:
        return value[:max_chars] + "…"
    return value


def pretty(value: Any, indent: int = 0, width: int = 100) -> str:
    """JSON that stays on one line while it fits in ``width`` and breaks objects and lists one entry a line."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = [
            f"{pad}{json.dumps(key, ensure_ascii=False)}: {pretty(item, indent + 2, width)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + pretty(item, indent + 2, width) for item in value]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
