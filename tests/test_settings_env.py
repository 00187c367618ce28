"""Every setting read from the environment is documented: in .env.example with its default, and in
docs/configuration.md."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "parlour" / "settings.py"
UNSET = object()  # the default depends on other settings: the example shows it empty and says what unset does


def _default(call: ast.Call) -> object:
    if len(call.args) < 2:
        return None
    node = call.args[1]
    if any(isinstance(child, ast.Name) for child in ast.walk(node)):
        return UNSET
    return eval(compile(ast.Expression(node), str(SETTINGS), "eval"), {"__builtins__": {}})  # constants only


def env_settings() -> dict[str, object]:
    """Each name parlour/settings.py passes to an env_* reader, with the default it gives."""
    found: dict[str, object] = {}
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("env_"):
            name = node.args[0]
            assert isinstance(name, ast.Constant) and isinstance(name.value, str), ast.unparse(node)
            found[name.value] = _default(node)
    return found


def _as_env_value(value: object) -> str:
    if value is None or value is UNSET:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def example_values() -> dict[str, str]:
    lines = (ROOT / ".env.example").read_text().splitlines()
    return dict(
        re.fullmatch(r"# ([A-Z][A-Z0-9_]*)=(.*)", line).groups() for line in lines if re.match(r"# [A-Z_]+=", line)
    )


def documented_names() -> set[str]:
    """The variables in the first column of docs/configuration.md's tables."""
    rows = [line for line in (ROOT / "docs" / "configuration.md").read_text().splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", row.split("|")[1])}


def test_the_settings_read_the_environment_through_the_strict_readers() -> None:
    names = env_settings()
    assert len(names) > 50 and {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "CONN_MAX_AGE"} <= set(names)


def test_env_example_lists_every_setting_with_its_default() -> None:
    settings, example = env_settings(), example_values()
    assert sorted(set(settings) - set(example)) == [], "missing from .env.example"
    assert sorted(set(example) - set(settings)) == [], "in .env.example but never read"
    wrong = {name: (example[name], _as_env_value(default)) for name, default in settings.items()}
    assert {name: pair for name, pair in wrong.items() if pair[0] != pair[1]} == {}


def test_env_example_says_what_each_setting_means() -> None:
    lines = (ROOT / ".env.example").read_text().splitlines()
    for number, line in enumerate(lines):
        if re.match(r"# [A-Z_]+=", line):
            # A meaning above it: a comment in words, or the setting it shares its line of explanation with.
            above = next(lines[i] for i in range(number - 1, -1, -1) if not re.match(r"# [A-Z_]+=", lines[i]))
            assert above.startswith("# ") and not above.startswith("# -----"), line


def test_the_configuration_page_lists_every_setting() -> None:
    settings, documented = set(env_settings()), documented_names()
    assert sorted(settings - documented) == [], "missing from docs/configuration.md"
    assert sorted(documented - settings) == [], "in docs/configuration.md but never read"
