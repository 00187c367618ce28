"""The reference material for bot authors of one game: what the game declares, and the messages of a real game.

The observation fields and the forms of action come from the game's declaration, through its JSON Schema
(``games.schema``; games/spec.py): names, types, meanings, optional and free fields. Nothing about them is inferred
by playing. ``reference(game_id)`` then plays one short real game between the game's built-in players for the
examples: what a bot in one seat would have been sent (the ``start`` message, every ``act`` message, an ``action``
reply and the ``end`` message, built with the same ``bots.protocol`` functions the runner uses), each field's value
in one ``act``, and an example of each form of action met. The league's reference pages and the starter kit
(``bots.authoring.starter``) read it; ``shorten`` and ``pretty`` lay its messages out for people.

No Django here.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from bots import protocol
from bots.limits import Limits
from games.registry import builtin_players, get_game, make_player, rules_text
from games.schema import action_forms, fields, form_text, free_paths, schemas, validator
from games.simulate import MAX_DECISIONS

SAMPLE_SEED = 7
SAMPLE_ACTS = 24  # act messages kept for the smoke test (spread evenly over the focus seat's decisions)
SAMPLE_NOTE = "a short note, kept in the replay"


@dataclass(frozen=True)
class Field:
    """One observation field: its name, its declared type and meaning, and its value in the sample ``act``."""

    name: str
    type: str
    description: str
    example: Any
    required: bool = True


@dataclass(frozen=True)
class ActionShape:
    """One declared form of action: its shape (``keys``, nested objects spelled out), its meaning, the fields that
    ``legal`` lists as ``null`` templates (``free``), and an example (and a template) from the sample game when the
    form came up there."""

    keys: str
    description: str
    example: dict[str, Any] | None
    free: tuple[str, ...] = ()
    template: dict[str, Any] | None = None


@dataclass(frozen=True)
class Reference:
    game_id: str
    title: str
    version: str
    summary: str
    hidden: str  # what a seat cannot see ("" for perfect information)
    chance: str  # where chance comes in ("" for none)
    score: str  # what a score counts
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
    """The reference for ``game_id``: its declaration, with examples from a real game between its strongest built-in
    players (cached)."""
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
        legal_lists.append(legal)
        action = bots[mover].act(copy.deepcopy(obs), copy.deepcopy(legal))
        if mover == seat:
            message = protocol.act_message(obs, legal, time_control["move_ms"] + bank)
            acts.append((copy.deepcopy(message), copy.deepcopy(action)))
        state.apply(action)
        decisions += 1
    else:
        raise RuntimeError(f"{game_id}: the sample game did not end")
    end = protocol.end_message(state.outcome(), state.observation(seat))
    # The example act: the middle one of the seat's decisions (past the opening, before the end).
    chosen, chosen_action = acts[len(acts) // 2]
    reply: dict[str, Any] = {"type": "action", "action": chosen_action, "note": SAMPLE_NOTE}
    step = max(1, len(acts) // SAMPLE_ACTS)
    sample = [message for message, _action in acts[::step]][:SAMPLE_ACTS]
    return Reference(
        game_id=game_id,
        title=game.title,
        version=game.version,
        summary=game.spec.summary,
        hidden=game.spec.hidden,
        chance=game.spec.chance,
        score=game.spec.score,
        min_players=game.min_players,
        max_players=game.max_players,
        players=players,
        seed=SAMPLE_SEED,
        seat=seat,
        decisions=decisions,
        options=[(key, dict(schema)) for key, schema in game.spec.options_schema.items()],
        builtins=[(n, cls.description) for n, cls in sorted(builtin_players(game_id).items())],
        fields=_fields(game_id, chosen["obs"]),
        actions=_action_shapes(game_id, legal_lists),
        messages={"start": start, "ready": {"type": "ready"}, "act": chosen, "action": reply, "end": end},
        acts=sample,
        doc_sections=doc_sections(game_id),
    )


# ----- observation fields and action shapes, from the declaration ---------------------------------------------------


def _fields(game_id: str, example: dict[str, Any]) -> list[Field]:
    declared = schemas(game_id).observation
    return [
        Field(name=f.name, type=f.type, description=f.description, example=example.get(f.name), required=f.required)
        for f in fields(declared, declared)
    ]


def _action_shapes(game_id: str, legal_lists: list[list[dict[str, Any]]]) -> list[ActionShape]:
    """Each declared form of action, with the first complete action and the first template of that form the sample
    game listed."""
    declared = schemas(game_id)
    forms, templates = action_forms(declared.action), action_forms(declared.legal)
    defs = {"$defs": declared.action.get("$defs", {})}
    complete = [validator({**defs, **form}) for form in forms]
    open_ = [validator({"$defs": declared.legal.get("$defs", {}), **form}) for form in templates]
    examples: list[dict[str, Any] | None] = [None] * len(forms)
    found: list[dict[str, Any] | None] = [None] * len(forms)
    wanted = [bool(free_paths(form, declared.action)) for form in forms]  # only forms with free fields have templates
    for legal in legal_lists:
        if None not in examples and all(f is not None for f, want in zip(found, wanted, strict=True) if want):
            break
        for action in legal[:32] + legal[32:][-32:]:  # a few of each end of a long list (2,047 bids) are enough
            for index, (is_complete, is_template) in enumerate(zip(complete, open_, strict=True)):
                if examples[index] is None and is_complete.is_valid(action):
                    examples[index] = action
                    break
                if found[index] is None and not is_complete.is_valid(action) and is_template.is_valid(action):
                    found[index] = action
                    break
    return [
        ActionShape(
            keys=form_text(form, declared.action),
            description=str(form.get("description", "")),
            example=examples[index],
            free=tuple(free_paths(form, declared.action)),
            template=found[index],
        )
        for index, form in enumerate(forms)
    ]


# ----- the game's documentation ------------------------------------------------------------------------------------

_SECTIONS = {"rules": "the rules in brief", "actions": "action reference", "options": "options"}


def doc_sections(game_id: str) -> dict[str, str]:
    """The sections of the game's RULES.md worth repeating for bot authors, by key (markdown, heading removed)."""
    text = rules_text(game_id)
    sections: dict[str, str] = {}
    for match in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S):
        heading = match.group(1).strip().lower()
        for key, prefix in _SECTIONS.items():
            if heading.startswith(prefix) and key not in sections:
                # The generated tables' markers are HTML comments, which pages would show as text.
                sections[key] = re.sub(r"^<!-- .* -->\n", "", match.group(2), flags=re.M).strip()
    return sections


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
