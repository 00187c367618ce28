"""The SDK's type stubs, generated from each game's JSON Schema (``games.schema``): ``bots/sdk/games/<id>.pyi``.

A bot author's type checker reads them (the starter kit ships the game's as ``<id>_types.pyi``):

    from typing import TYPE_CHECKING
    if TYPE_CHECKING:
        from parlour_sdk.games.love_letter import Action, Observation

They hold one ``TypedDict`` per declared object and nothing that runs. ``tests/bots/test_stubs.py`` checks they are
up to date.

    python -m bots.authoring.stubs            # list the stubs that are out of date
    python -m bots.authoring.stubs --write    # rewrite them
"""

from __future__ import annotations

import argparse
import json
import keyword
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from bots import sdk
from games.registry import GAMES, get_game
from games.schema import JsonSchema, schemas

STUBS_PACKAGE = "games"  # parlour_sdk.games.<id>
STUBS_DIR = Path(sdk.__file__).resolve().parent / STUBS_PACKAGE
_WIDTH = 116


def stub_path(game_id: str) -> Path:
    return STUBS_DIR / f"{game_id}.pyi"


def _python_type(schema: JsonSchema) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    if "const" in schema:
        return f"Literal[{_literal(schema['const'])}]"
    if "enum" in schema:
        return f"Literal[{', '.join(_literal(value) for value in schema['enum'])}]"
    if "anyOf" in schema:
        return " | ".join(_python_type(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return f"tuple[{', '.join(_python_type(item) for item in schema['prefixItems'])}]"
        return f"list[{_python_type(schema['items'])}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"dict[str, {_python_type(extra)}]" if isinstance(extra, dict) else "dict[str, object]"
    scalars = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}
    return scalars[str(kind)]


def _literal(value: object) -> str:
    return "None" if value is None else str(value) if isinstance(value, bool) else json.dumps(value)


def _comment(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(" ".join(text.split()), _WIDTH - len(indent))]


def _typeddict(name: str, schema: JsonSchema) -> list[str]:
    required = set(schema.get("required", ()))
    items = []
    for key, prop in schema.get("properties", {}).items():
        kind = _python_type(prop)
        items.append((key, kind if key in required else f"NotRequired[{kind}]", str(prop.get("description", ""))))
    lines = _comment(str(schema.get("description", "")), "")
    if all(key.isidentifier() and not keyword.iskeyword(key) for key, _kind, _doc in items):
        lines.append(f"class {name}(TypedDict):")
        for key, kind, doc in items:
            lines += _comment(doc, "    ")
            lines.append(f"    {key}: {kind}")
        return lines
    # A key that is not a Python name ("pass") needs the functional syntax.
    fields = ", ".join(f"{json.dumps(key)}: {kind}" for key, kind, _doc in items)
    return [*lines, f"{name} = TypedDict({json.dumps(name)}, {{{fields}}})"]


def stub(game_id: str) -> str:
    """The stub module of ``game_id``'s observation and action."""
    declared = schemas(game_id)
    definitions: dict[str, JsonSchema] = {}
    for document in (declared.observation, declared.action):
        for name, definition in document.get("$defs", {}).items():
            if definitions.setdefault(name, definition) != definition:
                raise ValueError(f"{game_id}: the observation and the action declare two types called {name}")
    title = get_game(game_id).title
    lines = [
        f'"""Types of {title}\'s observation and actions, generated from its declaration by',
        "``python -m bots.authoring.stubs`` (do not edit). For type checkers only: nothing here runs.",
        "",
        "In ``legal``, a field the rules reference marks free may be ``null`` (a template to fill in).",
        '"""',
        "",
        "from typing import {imports}",
    ]  # stub style (ruff format for .pyi): one blank line between definitions
    for name, definition in sorted(definitions.items()):
        lines += ["", *_typeddict(name, definition)]
    lines += ["", *_typeddict("Observation", declared.observation), ""]
    if "anyOf" in declared.action:
        lines += _comment(str(declared.action.get("description", "")), "")
        lines.append(f"Action = {_python_type(declared.action)}")
    else:
        lines += _typeddict("Action", declared.action)
    text = "\n".join(lines) + "\n"
    used = [
        name
        for name in ("Literal", "NotRequired", "TypedDict")
        if f"{name}[" in text or f"{name})" in text or f"{name}(" in text
    ]
    return text.replace("{imports}", ", ".join(used), 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.authoring.stubs", description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite the out-of-date stubs")
    args = parser.parse_args(argv)
    stale = [
        game_id
        for game_id in GAMES
        if not stub_path(game_id).is_file() or stub_path(game_id).read_text() != stub(game_id)
    ]
    for game_id in stale:
        if args.write:
            stub_path(game_id).write_text(stub(game_id), encoding="utf-8")
        print(f"{'rewrote' if args.write else 'out of date:'} {stub_path(game_id)}")
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
