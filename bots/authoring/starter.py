"""Starter kits and reference material for bot authors, generated from the engines so they never drift from the code.

``reference(game_id)`` plays a short real game between the game's built-in players and records what a bot in one
seat would have been sent: the ``start`` message, every ``act`` message, an ``action`` reply and the ``end`` message,
built with the same ``bots.protocol`` functions the runner uses. From that record it derives the observation fields
(with the JSON types seen over the whole game, every seat), the shapes of the legal actions, and it pairs each field
with its description from the game's rules reference (``games/<game>/RULES.md``, read through
``games.registry.rules_text``). The league's reference pages and ``build_kit`` read it.

``build_kit(game_id)`` is the starter kit, a zip with one top-level folder (uploadable as it is):

- ``main.py``: the game's example bot (``games/<game>/example/main.py``), plain protocol, standard library only;
- ``main_sdk.py`` and ``parlour_sdk.py``: the same strategy on the SDK, and the SDK itself, importable next to it;
- ``README.md``: the rules in brief, the observation fields with a real example, the actions, every protocol
  message, how to run it locally and how to upload it;
- ``smoke_test.py`` and ``sample_messages.jsonl``: replays the messages of a real game to ``main.py`` and checks
  each answer is a legal action (no Parlour install needed).

No Django here. ``python -m bots.authoring.starter <game> [out.zip]`` writes a kit.
"""

from __future__ import annotations

import copy
import io
import json
import re
import sys
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bots import protocol
from bots.limits import Limits
from games.registry import builtin_players, example_dir, get_game, make_player, rules_text
from games.simulate import MAX_DECISIONS

SDK_SOURCE = Path(__file__).resolve().parents[1] / "sdk" / "__init__.py"

SAMPLE_SEED = 7
SAMPLE_ACTS = 24  # act messages kept for the smoke test (spread evenly over the focus seat's decisions)
SAMPLE_NOTE = "a short note, kept in the replay"
SURVEY_SEEDS = (1, 2)  # extra games per player count, for the field types and action shapes

__all__ = ["ActionShape", "Field", "Reference", "build_kit", "kit_filename", "pretty", "readme", "reference"]


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


def _strong_player(game_id: str) -> str:
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
    name = _strong_player(game_id)
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


# ----- the kit ------------------------------------------------------------------------------------------------------


def kit_filename(game_id: str) -> str:
    return f"parlour-{game_id}-starter.zip"


def _folder(game_id: str) -> str:
    return f"{game_id}-bot"


def _main_sdk(game_id: str) -> str:
    return f'''"""The example bot of main.py on the SDK: parlour_sdk runs the protocol loop, you write ``act``.

parlour_sdk.py sits next to this file so it runs anywhere; on the league the SDK is also provided for you. To play
this file instead of main.py, upload the folder with a bot.toml that says:  command = ["python3", "main_sdk.py"]
"""

from __future__ import annotations

from main import choose  # the strategy of the plain example bot ({game_id})
from parlour_sdk import log, run


def act(obs: dict, legal: list[dict], ctx) -> tuple[dict, str]:
    action = choose(obs, legal)
    return action, f"{{len(legal)}} legal actions"


def on_end(ctx, obs: dict) -> None:
    log(f"seat {{ctx.seat}}: the match is over after {{ctx.moves}} moves; outcome {{ctx.outcome}}")


if __name__ == "__main__":
    run(act, on_end=on_end)  # plays every game the runner sends (each start: a fresh ctx); returns when stdin closes
'''


SMOKE_TEST = '''"""Replay the messages of a real game to your bot and check every answer (no Parlour install needed).

    python3 smoke_test.py            # runs: python3 main.py
    python3 smoke_test.py node main.js

sample_messages.jsonl holds what a bot in one seat was sent during a real game (a start message, some act messages,
the end message). The game itself was played by built-in players, so your answers do not change what comes next:
this checks the protocol and that every action you send is legal, not how well you play. For whole matches, use
the Parlour runtime: python -m bots play GAME ./ builtin:random builtin:random
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def fits(action, legal):
    """Exactly one of the legal actions, or a filled-in template (a legal entry whose null fields are free)."""
    if canonical(action) in {canonical(entry) for entry in legal}:
        return True
    return any(_fills(action, entry) for entry in legal)


def _fills(value, template):
    if template is None:
        return value is not None
    if isinstance(template, dict):
        return (
            isinstance(value, dict)
            and value.keys() == template.keys()
            and all(_fills(value[key], template[key]) for key in template)
        )
    return canonical(value) == canonical(template)


def main(argv):
    command = argv or [sys.executable, "main.py"]
    messages = [json.loads(line) for line in (HERE / "sample_messages.jsonl").read_text().splitlines() if line]
    bot = subprocess.Popen(command, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    problems = 0
    for number, message in enumerate(messages):
        bot.stdin.write(json.dumps(message) + "\\n")
        bot.stdin.flush()
        if message["type"] == "end":
            break
        began = time.monotonic()
        line = bot.stdout.readline()
        took = (time.monotonic() - began) * 1000
        if not line:
            print(f"message {number} ({message['type']}): the bot closed its stdout (see its stderr above)")
            return 1
        reply = json.loads(line)
        if message["type"] == "start":
            ok = reply == {"type": "ready"}
            verdict = "ok" if ok else 'EXPECTED {"type": "ready"}'
            print(f"start -> {line.strip()}  {verdict}")
        else:
            action = reply.get("action")
            ok = reply.get("type") == "action" and fits(action, message["legal"])
            note = f"  # {reply['note']}" if reply.get("note") else ""
            verdict = "ok" if ok else "NOT LEGAL"
            print(f"act {number:3d} -> {json.dumps(action)}  {took:.1f} ms  {verdict}{note}")
        problems += not ok
    bot.stdin.close()
    bot.wait(5)
    print("all answers legal" if not problems else f"{problems} bad answers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''


def readme(game_id: str, site_url: str = "") -> str:
    """The kit's README.md: everything a first bot needs, generated from the engine and the game's RULES.md."""
    ref = reference(game_id)
    site = site_url.rstrip("/")
    folder = _folder(game_id)
    lines = [
        f"# A {ref.title} bot for Parlour",
        "",
        f"{ref.summary}",
        "",
        f"Game id `{game_id}`, engine version {ref.version}, {ref.min_players} to {ref.max_players} players. This kit "
        f"was generated from the engine itself: every example below comes from a real {ref.players}-player game "
        f"(seed {ref.seed}) between the built-in players, seen from seat {ref.seat}.",
        "",
        "## What is in the kit",
        "",
        "| file | what it is |",
        "|---|---|",
        "| `main.py` | a complete bot in plain Python (standard library only): the protocol loop and a `choose(obs, "
        "legal)` strategy. Start here. |",
        "| `main_sdk.py` | the same strategy written with the SDK, which runs the protocol loop for you |",
        "| `parlour_sdk.py` | the SDK (`from parlour_sdk import run, log`), importable next to your bot |",
        "| `smoke_test.py`, `sample_messages.jsonl` | replays a real game's messages to your bot and checks each "
        "answer is legal: `python3 smoke_test.py` |",
        "| `README.md` | this page |",
        "",
        "## From here to a rated bot",
        "",
        "1. Check the bot answers: `python3 smoke_test.py` (every line should end in `ok`).",
        "2. Play whole matches locally exactly as the league does, with the Parlour runtime (`python -m bots`, from "
        "a checkout of Parlour after `pip install -e .`):",
        "",
        "   ```",
        f"   python -m bots play {game_id} {folder}/ builtin:random builtin:random --seed 1",
        f"   python -m bots arena {game_id} {folder}/ builtin:random builtin:{_strong_player(game_id)} --games 20",
        f"   python -m bots compare {folder}-v1/ {folder}/ --game {game_id} --sandbox none",
        "   ```",
        "",
        "   `play` shows every move, your notes and your stderr; add `--replay out.json` and watch it with "
        "`python -m bots view out.json`. `compare OLD NEW` keeps playing until a sequential test says whether NEW "
        "is stronger.",
        f"3. Upload: sign in on the site, choose *Upload a bot*, game {ref.title}, and upload `main.py` (or a zip of "
        "this folder). Or with an API token:",
        "",
        "   ```",
        f"   curl -H 'Authorization: Token plr_...' -F game={game_id} -F name=mybot -F file=@main.py "
        f"{site or 'https://SITE'}/api/bots/",
        "   ```",
        "",
        "4. A smoke match in the sandbox validates it within seconds; it then plays rated ladder games and appears on "
        f"the leaderboard{f' ({site}/games/{game_id}/)' if site else ''}. Its page shows every match, and on each "
        "match your bot's stderr, notes and time per move.",
        "5. Improve it, upload a new version, and ask for a *version test* on the site: the new version against the "
        "previous one, unrated, with an Elo estimate.",
        "",
    ]
    if "rules" in ref.doc_sections:
        lines += ["## The rules in brief", "", ref.doc_sections["rules"], ""]
    lines += [
        "## The protocol",
        "",
        "One JSON object per line on stdin (from the runner) and stdout (from your bot); write logs to stderr. "
        "Examples are shown on several lines; on the wire each message is one line. Long lists are cut here (`… N "
        "more`); `sample_messages.jsonl` has them whole.",
        "",
        "**start** (runner to bot), answered within `startup_ms` by **ready**:",
        "",
        "```json",
        ref.message_text("start"),
        "```",
        "",
        "```json",
        ref.message_text("ready"),
        "```",
        "",
        "**act** (runner to bot) whenever it is your decision; `time_left_ms` is the most this move may take:",
        "",
        "```json",
        ref.message_text("act"),
        "```",
        "",
        "**action** (bot to runner): one of the `legal` entries (copying one is always right), with an optional "
        "short `note` that is shown in the replay:",
        "",
        "```json",
        ref.message_text("action"),
        "```",
        "",
        "**end** (runner to bot): the outcome (`ranks`: 1 is best; ties share a rank; a fault ranks last) and your "
        "final observation. No answer.",
        "",
        "```json",
        ref.message_text("end"),
        "```",
        "",
        "**After end, keep reading.** The league may play a *series* of games on the same process: after `end` the "
        "runner sends the next game's **start** (a new seed, a new clock: start the game from scratch), or closes "
        "stdin when there is no further game. `main.py`'s loop (`for line in sys.stdin`) handles both: it answers "
        "every `start`, and ends when stdin closes. A bot that exits after `end` instead still works (it is started "
        "again for the next game), it only pays its start-up again. After the last game your process is stopped at "
        "once. A fault ends the series: its remaining games are played later, by fresh processes.",
        "",
        "Any misbehaviour is a *fault* that ranks you last: no `ready` in time, a move over the clock, a crash, a "
        "malformed line, an illegal action. The match page tells you which, at which move, with your stderr.",
        "",
        "## Observation fields",
        "",
        "`obs` in every act message. Types are the JSON types the engine sent over the whole sample game.",
        "",
        "| field | type | meaning | example |",
        "|---|---|---|---|",
    ]
    for f in ref.fields:
        example = json.dumps(shorten(f.example, max_items=3, max_chars=40), ensure_ascii=False)
        if len(example) > 60:
            example = example[:59] + "…"
        lines.append(f"| `{f.name}` | {_cell(f.type)} | {_cell(f.description) or '-'} | `{_cell(example)}` |")
    lines += [
        "",
        "## Actions",
        "",
        "The forms of legal action met in the sample game and in a survey of random games at every player count "
        "(each `legal` list holds every action legal at that moment):",
        "",
    ]
    lines += ["| keys | example | times listed |", "|---|---|---|"]
    for shape in ref.actions:
        example = json.dumps(shorten(shape.example, max_items=5), ensure_ascii=False)
        free = f" (free: {', '.join(f'`{p}`' for p in shape.free)})" if shape.free else ""
        lines.append(f"| {shape.keys}{free} | `{_cell(example)}` | {shape.seen} |")
    if "actions" in ref.doc_sections:
        lines += ["", ref.doc_sections["actions"]]
    if ref.options:
        lines += ["", "## Options", "", "| option | type | default | meaning |", "|---|---|---|---|"]
        for name, schema in ref.options:
            default = json.dumps(schema.get("default"))
            lines.append(
                f"| `{name}` | {schema.get('type', '')} | `{default}` | {_cell(str(schema.get('description', '')))} |"
            )
    lines += ["", "## Built-in players", "", "Opponents you can name as `builtin:<name>` locally:", ""]
    lines += [f"- `{name}`: {description}" for name, description in ref.builtins]
    lines += [
        "",
        "## The SDK",
        "",
        "```python",
        "from parlour_sdk import run, log",
        "",
        "def act(obs, legal):          # or act(obs, legal, ctx): ctx.seat, ctx.players, ctx.time_left_ms, ...",
        "    return legal[0]           # or (action, note)",
        "",
        "run(act)",
        "```",
        "",
        "`log(...)` writes to stderr (your log). Never print to stdout yourself: it belongs to the protocol.",
        "",
        "## More",
        "",
    ]
    if site:
        lines += [
            f"- This game's reference: {site}/games/{game_id}/reference/",
            f"- Write your first bot: {site}/first-bot/",
        ]
    lines += [
        "- The protocol in full (time control, faults, the replay): `docs/protocol.md` in Parlour",
        f"- The rules and every engine choice: `games/{game_id}/RULES.md` in Parlour",
        "",
    ]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def build_kit(game_id: str, site_url: str = "") -> bytes:
    """The starter kit zip for ``game_id`` (deterministic: the same bytes for the same code)."""
    ref = reference(game_id)
    example = example_dir(game_id) / "main.py"
    if not example.is_file():
        raise FileNotFoundError(f"{game_id} has no example bot at {example}")
    samples = [ref.messages["start"], *ref.acts, ref.messages["end"]]
    files = {
        "main.py": example.read_text(encoding="utf-8"),
        "main_sdk.py": _main_sdk(game_id),
        "parlour_sdk.py": SDK_SOURCE.read_text(encoding="utf-8"),
        "README.md": readme(game_id, site_url),
        "smoke_test.py": SMOKE_TEST,
        "sample_messages.jsonl": "".join(json.dumps(m, separators=(",", ":")) + "\n" for m in samples),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(f"{_folder(game_id)}/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print("usage: python -m bots.authoring.starter GAME [OUT.zip]", file=sys.stderr)
        return 2
    game_id = args[0]
    out = Path(args[1] if len(args) > 1 else kit_filename(game_id))
    out.write_bytes(build_kit(game_id))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
