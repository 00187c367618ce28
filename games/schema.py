"""JSON Schema from a game's declaration (``games.spec``), and the checks and texts the rest of Parlour builds on it.

``schemas(game_id)`` gives four schemas (JSON Schema 2020-12, plain JSON values):

- ``observation``: what ``State.observation(seat)`` returns;
- ``action``: an action a bot may send (every free field filled in);
- ``legal``: an entry of the ``legal`` list, where a field marked ``FREE`` may be ``null`` (a template);
- ``options``: the game's options, one object.

Objects are closed (``additionalProperties: false``): a field the engine sends or a bot answers must be declared.
Each ``TypedDict`` becomes one entry of ``$defs``, titled by its class name and described by its docstring; a field's
description is the string in its ``Annotated``. ``shape_problem`` checks an action against the ``action`` schema
with ``jsonschema`` (where a whole number is an ``int`` and never a ``bool`` or a ``float``: ``1``, ``1.0`` and
``true`` are different actions). ``type_text`` and ``fields`` put a schema into words for tables and pages.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, NotRequired, Required, get_args, get_origin, get_type_hints, is_typeddict

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import extend

from games.base import is_int
from games.registry import get_game
from games.spec import Bounds, Free, GameSpec

__all__ = [
    "DIALECT",
    "Field",
    "GameSchemas",
    "JsonSchema",
    "action_forms",
    "fields",
    "form_text",
    "free_paths",
    "game_schemas",
    "schemas",
    "shape_problem",
    "type_text",
    "validator",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
JsonSchema = dict[str, Any]

_SCALARS: dict[object, str] = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


class _Builder:
    """One schema document: the types met are gathered in ``defs``; ``templates`` lets ``FREE`` fields be null."""

    def __init__(self, templates: bool) -> None:
        self.templates = templates
        self.defs: dict[str, JsonSchema] = {}
        self._owners: dict[str, type] = {}

    def document(self, declared: object) -> JsonSchema:
        root = self.schema(declared)
        defs = dict(sorted(self.defs.items()))
        if set(root) == {"$ref"}:
            # A TypedDict is the document itself; the types it uses stay in $defs (unless one refers back to it).
            ref = root["$ref"]
            root = defs[_def_name(ref)]
            if ref not in json.dumps([d for name, d in defs.items() if name != _def_name(ref)]):
                del defs[_def_name(ref)]
        return {"$schema": DIALECT, **root, **({"$defs": defs} if defs else {})}

    def schema(self, tp: object) -> JsonSchema:
        origin = get_origin(tp)
        if origin is Annotated:
            base, *metadata = get_args(tp)
            return self._annotated(self.schema(base), metadata)
        if origin in (Required, NotRequired):
            return self.schema(get_args(tp)[0])
        if tp in _SCALARS:
            return {"type": _SCALARS[tp]}
        if origin is Literal:
            values = list(get_args(tp))
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [self.schema(arg) for arg in get_args(tp)]}
        if origin is list:
            (item,) = get_args(tp)
            return {"type": "array", "items": self.schema(item)}
        if origin is tuple:
            items = get_args(tp)
            return {
                "type": "array",
                "prefixItems": [self.schema(item) for item in items],
                "minItems": len(items),
                "maxItems": len(items),
            }
        if origin is dict:
            key, value = get_args(tp)
            if key is not str:
                raise TypeError(f"JSON object keys are strings, not {key!r}")
            return {"type": "object", "additionalProperties": self.schema(value)}
        if isinstance(tp, type) and is_typeddict(tp):
            return self._typeddict(tp)
        raise TypeError(
            f"{tp!r} cannot be declared as JSON (use int, float, str, bool, None, Literal, list, tuple, "
            "dict[str, ...], a TypedDict or a union of them)"
        )

    def _annotated(self, schema: JsonSchema, metadata: list[object]) -> JsonSchema:
        free = False
        for item in metadata:
            if isinstance(item, str):
                schema = {**schema, "description": inspect.cleandoc(item)}
            elif isinstance(item, Bounds):
                if item.minimum is not None:
                    schema = {**schema, "minimum": item.minimum}
                if item.maximum is not None:
                    schema = {**schema, "maximum": item.maximum}
            elif isinstance(item, Free):
                free = True
            elif get_origin(item) in (Required, NotRequired):
                continue
            else:
                raise TypeError(f"unknown declaration metadata {item!r}")
        if not free:
            return schema
        schema = {**schema, "x-free": True}
        if not self.templates:
            return schema
        description = schema.pop("description", None)
        nullable: JsonSchema = {"anyOf": [schema, {"type": "null"}], "x-free": True}
        return {**nullable, "description": description} if description else nullable

    def _typeddict(self, tp: type) -> JsonSchema:
        name = tp.__name__
        ref = {"$ref": f"#/$defs/{name}"}
        if name in self.defs:
            if self._owners[name] is not tp:
                raise TypeError(f"two declared types are called {name}: {self._owners[name]!r} and {tp!r}")
            return ref
        self._owners[name] = tp
        self.defs[name] = {}  # taken first: a type may refer to itself
        hints = get_type_hints(tp, include_extras=True)
        total = bool(getattr(tp, "__total__", True))
        properties = {key: self.schema(hint) for key, hint in hints.items()}
        required = [key for key, hint in hints.items() if _required(hint, total)]
        definition: JsonSchema = {"title": name, "type": "object"}
        doc = tp.__doc__
        if doc and not doc.startswith(f"{name}("):  # TypedDict's own generated docstring says nothing
            definition["description"] = inspect.cleandoc(doc)
        definition |= {"properties": properties, "required": required, "additionalProperties": False}
        self.defs[name] = definition
        return ref


def _required(hint: object, total: bool) -> bool:
    """Whether a TypedDict key is required, read from the resolved hint: with postponed annotations Python 3.11 takes
    every ``NotRequired`` key for a required one (``__required_keys__`` is wrong), so it is not used."""
    while True:
        origin = get_origin(hint)
        if origin is Required:
            return True
        if origin is NotRequired:
            return False
        if origin is not Annotated:
            return total
        hint = get_args(hint)[0]


@dataclass(frozen=True)
class GameSchemas:
    observation: JsonSchema
    action: JsonSchema
    legal: JsonSchema
    options: JsonSchema


def game_schemas(spec: GameSpec) -> GameSchemas:
    """The four schemas of a game, built from its spec (``schemas(game_id)`` caches them for registered games)."""
    options: JsonSchema = {
        "$schema": DIALECT,
        "type": "object",
        "properties": {name: dict(option) for name, option in spec.options_schema.items()},
        "additionalProperties": False,
    }
    return GameSchemas(
        observation=_Builder(templates=False).document(spec.observation),
        action=_Builder(templates=False).document(spec.action),
        legal=_Builder(templates=True).document(spec.action),
        options=options,
    )


@cache
def schemas(game_id: str) -> GameSchemas:
    return game_schemas(get_game(game_id).spec)


# ----- checking ------------------------------------------------------------------------------------------------------


def _strict_integer(_checker: object, instance: object) -> bool:
    return is_int(instance)


# JSON Schema counts 1.0 as an integer and Python counts True as one; an action does neither.
_StrictValidator: type[Validator] = extend(  # type: ignore[no-untyped-call]  # typeshed leaves it untyped
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer),
)


def validator(schema: JsonSchema) -> Validator:
    """A validator for ``schema`` (checked once here, so a wrong declaration fails at once, not at a bot's reply)."""
    _StrictValidator.check_schema(schema)
    return _StrictValidator(schema)


@cache
def _action_validator(game_id: str) -> Validator:
    return validator(schemas(game_id).action)


def shape_problem(game_id: str, action: Any) -> str | None:
    """What is wrong with the shape of ``action`` for ``game_id``'s declared action, in one line; ``None`` if it has
    the shape (the engine then checks the rules)."""
    check = _action_validator(game_id)
    if check.is_valid(action):
        return None
    error = best_match(check.iter_errors(action))
    where = "".join(f"[{part!r}]" for part in error.absolute_path)
    return f"the action does not have a declared shape: {error.message}" + (f" (at {where})" if where else "")


# ----- words ------------------------------------------------------------------------------------------------------


def _def_name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def type_text(schema: JsonSchema) -> str:
    """A schema as a short type: ``int``, ``int 1-8``, ``list[Card]``, ``{str: int}``, ``"flip" | "stop"``, ``Card |
    null``."""
    if "$ref" in schema:
        return _def_name(schema["$ref"])
    if "const" in schema:
        return _json(schema["const"])
    if "enum" in schema:
        return " | ".join(_json(value) for value in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(type_text(option) for option in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(type_text(item) for item in schema["prefixItems"]) + "]"
        return f"list[{type_text(schema['items'])}]" if "items" in schema else "list"
    if kind == "object":
        extra = schema.get("additionalProperties")
        return f"{{str: {type_text(extra)}}}" if isinstance(extra, dict) else "object"
    words = {"integer": "int", "number": "number", "string": "str", "boolean": "bool", "null": "null"}
    if isinstance(kind, list):
        return " | ".join(type_text({**schema, "type": one}) for one in kind)
    text = words.get(str(kind), str(kind))
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        text += f" {low}-{high}"
    elif low is not None:
        text += f" ≥ {low}"
    elif high is not None:
        text += f" ≤ {high}"
    return text


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Field:
    """One field of a declared object, in words."""

    name: str
    type: str
    description: str
    required: bool
    free: bool


def fields(schema: JsonSchema, root: JsonSchema | None = None) -> list[Field]:
    """The fields of an object schema (a ``$ref`` is followed in ``root``), in declaration order."""
    if "$ref" in schema:
        schema = (root or schema)["$defs"][_def_name(schema["$ref"])]
    required = set(schema.get("required", ()))
    return [
        Field(
            name=name,
            type=type_text(prop),
            description=str(prop.get("description", "")),
            required=name in required,
            free=bool(prop.get("x-free")),
        )
        for name, prop in schema.get("properties", {}).items()
    ]


def form_text(form: JsonSchema, root: JsonSchema) -> str:
    """An object schema as JSON-like text, nested objects spelled out: ``{"card": int, "target"?: int}``."""
    parts = []
    required = set(form.get("required", ()))
    for name, prop in form.get("properties", {}).items():
        value = form_text(root["$defs"][_def_name(prop["$ref"])], root) if "$ref" in prop else type_text(prop)
        parts.append(f"{json.dumps(name)}{'' if name in required else '?'}: {value}")
    return "{" + ", ".join(parts) + "}"


def action_forms(schema: JsonSchema) -> list[JsonSchema]:
    """The declared forms of action: one object schema per TypedDict of the action union (``$ref`` resolved)."""
    options = schema.get("anyOf", [schema])
    return [schema["$defs"][_def_name(option["$ref"])] if "$ref" in option else option for option in options]


def free_paths(form: JsonSchema, root: JsonSchema, prefix: str = "") -> list[str]:
    """The dotted paths of the ``FREE`` fields of an action form (``create.word``, ``pay.cards``)."""
    paths: list[str] = []
    for name, prop in form.get("properties", {}).items():
        path = f"{prefix}.{name}" if prefix else name
        items = prop.get("items")
        if prop.get("x-free") or (isinstance(items, dict) and items.get("x-free")):
            paths.append(path)
        target = _resolve(prop, root)
        if target is not None:
            paths += free_paths(target, root, path)
    return paths


def _resolve(schema: JsonSchema, root: JsonSchema) -> JsonSchema | None:
    if "$ref" in schema:
        resolved: JsonSchema = root["$defs"][_def_name(schema["$ref"])]
        return resolved
    items = schema.get("items")
    if isinstance(items, dict) and "$ref" in items:
        return _resolve(items, root)
    return None
