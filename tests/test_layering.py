"""The direction of imports (DESIGN.md, Layout): games ← bots ← workers → league; league never reaches bots.sandbox."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "bots", "league", "workers")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module_name(path): path
    for package in PACKAGES
    for path in (ROOT / package).rglob("*.py")
    # Example bots are standalone programs; a game's own tests (games/<id>/tests/) are tests, not the game.
    if not {"examples", "example", "tests", "migrations"} & set(path.relative_to(ROOT).parts)
}


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every module ``module`` imports, at the top or inside functions."""
    tree = ast.parse(MODULES[module].read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        todo.extend(imports_of(module))
    return seen


def _forbidden(package: str, roots: tuple[str, ...]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module in MODULES
        if module.split(".")[0] == package
        for name in imports_of(module)
        if name.split(".")[0] in roots
    ]


def test_games_import_nothing_from_django_celery_bots_league_or_workers() -> None:
    assert _forbidden("games", ("django", "rest_framework", "celery", "bots", "league", "workers")) == []


def test_bots_import_nothing_from_django_league_or_workers() -> None:
    assert _forbidden("bots", ("django", "rest_framework", "celery", "league", "workers")) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] == "league"))
def test_league_never_reaches_the_sandbox(module: str) -> None:
    # league/__init__ wires the Celery app (workers.celery), whose tasks may use the sandbox: that edge is allowed.
    chain = reachable(module) - reachable("workers.celery")
    assert "bots.sandbox" not in chain and "bots.runner" not in chain


def test_nothing_imports_workers_except_celery_wiring() -> None:
    offenders = [
        f"{module} imports {name}"
        for module in MODULES
        if not module.startswith("workers")
        for name in imports_of(module)
        if name.split(".")[0] == "workers" and module != "league"
    ]
    assert offenders == []
