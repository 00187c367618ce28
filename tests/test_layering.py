"""The direction of imports (docs/design.md, Layout): games ← bots ← workers → league ← parlour (the project wiring);
league never reaches bots.sandbox, and imports neither workers nor parlour."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "bots", "league", "workers", "parlour")


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
    chain = reachable(module)
    assert "bots.sandbox" not in chain and "bots.runner" not in chain


def test_nothing_imports_workers_except_celery_wiring() -> None:
    offenders = [
        f"{module} imports {name}"
        for module in MODULES
        if not module.startswith("workers")
        for name in imports_of(module)
        if name.split(".")[0] == "workers" and module != "parlour.celery"
    ]
    assert offenders == []


def test_league_imports_neither_workers_nor_the_project() -> None:
    # The app enqueues tasks by name through Celery's current_app; the project (parlour) wires the app, not the reverse.
    assert _forbidden("league", ("workers", "parlour")) == []


def test_games_and_bots_import_nothing_from_the_project() -> None:
    assert _forbidden("games", ("parlour",)) + _forbidden("bots", ("parlour",)) == []


def test_the_project_reaches_the_league_only_through_its_urls() -> None:
    # Settings name the league's parts by dotted strings (INSTALLED_APPS, MIDDLEWARE, ...), never by importing them.
    # The ASGI entry asks the league's body limits before Django's handler reads a body (it runs before any
    # middleware could).
    importers = {
        module
        for module in MODULES
        if module.split(".")[0] == "parlour"
        for name in imports_of(module)
        if name.split(".")[0] == "league"
    }
    assert importers == {"parlour.urls", "parlour.asgi"}


PURE_LEAGUE_MODULES = [
    "league",
    "league.ratings",  # (a feature's package: its docstring only)
    "league.ladder",
    "league.tournaments",
    "league.ratings.elo",
    "league.ladder.pairing",
    "league.ratings.fitting",
    "league.ladder.settling",
    *sorted(m for m in MODULES if m == "league.tournaments.formats" or m.startswith("league.tournaments.formats.")),
]


@pytest.mark.parametrize("module", PURE_LEAGUE_MODULES)
def test_importing_a_pure_league_module_loads_neither_celery_nor_the_django_settings(module: str) -> None:
    # A fresh interpreter: this one has Django and Celery loaded already.
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    probe = (
        f"import os, sys, {module}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('celery', 'kombu', 'workers', 'parlour')))\n"
        "print(os.environ.get('DJANGO_SETTINGS_MODULE'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.splitlines() == ["[]", "None"]


@pytest.mark.parametrize("module", PURE_LEAGUE_MODULES[4:])
def test_a_pure_league_module_imports_only_the_stdlib_numpy_scipy_and_pure_league_modules(module: str) -> None:
    allowed_roots = set(sys.stdlib_module_names) | {"numpy", "scipy"}
    offenders = [
        name
        for name in imports_of(module)
        if name.split(".")[0] not in allowed_roots
        and not any(name == pure or name.startswith(pure + ".") for pure in PURE_LEAGUE_MODULES[1:])
    ]
    assert offenders == []


# ----- inside bots: the runner, the sandbox and the author tools -------------------------------------------------
def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _imports_into(package: str, targets: tuple[str, ...]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module in MODULES
        if _in(module, package)
        for name in imports_of(module)
        if any(_in(name, target) for target in targets)
    ]


def test_the_sandbox_never_imports_the_runner_or_the_author_tools() -> None:
    assert _imports_into("bots.sandbox", ("bots.runner", "bots.authoring")) == []


def test_the_runner_never_imports_the_author_tools() -> None:
    # The author tools sit on top of the runner (they play matches with it), never the other way round.
    assert _imports_into("bots.runner", ("bots.authoring",)) == []


def test_only_the_author_tools_and_bots_main_import_the_author_tools() -> None:
    offenders = [
        f"{module} imports {name}"
        for module in MODULES
        if not _in(module, "bots.authoring") and module.split(".")[0] in ("games", "bots", "workers")
        for name in imports_of(module)
        if _in(name, "bots.authoring") and module != "bots.__main__"
    ]
    assert offenders == []


def test_the_replay_format_has_one_owner_in_games() -> None:
    # The writer (the runner) and the readers (games.frames, the league) take the format from games.replay.
    for module in ("bots.runner.match", "games.frames"):
        assert "games.replay" in imports_of(module), module


def _packages_of(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] == "league"))
def test_league_never_reaches_any_part_of_the_sandbox_or_runner(module: str) -> None:
    # Importing a module runs its packages' __init__ first: follow those edges too.
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            current = todo.pop()
            if current in seen or current not in MODULES:
                continue
            seen.add(current)
            todo.extend(imports_of(current))
            todo.extend(_packages_of(current))
        return seen

    chain = reach(module)
    assert [m for m in chain if _in(m, "bots.sandbox") or _in(m, "bots.runner")] == []


@cache
def runtime_imports_of(module: str) -> frozenset[str]:
    """The modules of ours that ``module`` imports when it runs (inside functions too; ``if TYPE_CHECKING:`` left
    out)."""
    tree = ast.parse(MODULES[module].read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return frozenset(name for name in found if name in MODULES and name != module)


def test_the_web_process_has_the_configured_celery_app() -> None:
    # parlour/__init__.py loads the Celery app with the settings, so the web server's send_task goes to our broker.
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["SECRET_KEY"] = "x"
    probe = (
        "import parlour.wsgi\nfrom celery import current_app\nprint(current_app.main, current_app.conf.task_acks_late)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["parlour", "True"]


def test_the_results_the_league_records_are_plain_data() -> None:
    # The worker hands the league the runner's typed MatchResult: bots.results must never pull the runner (nor the
    # sandbox) into the league.
    assert [m for m in reachable("bots.results") if _in(m, "bots.runner") or _in(m, "bots.sandbox")] == []
    assert "bots.results" in imports_of("league.play.recording")


# ----- league/ by feature (docs/architecture.md, the league's section) ------------------------------------------------
# A feature may use the features before it in this order, never one after it; a later feature acts on an earlier
# one's events through signals that league/apps.py connects. Models are the exception: one Django app, one schema, so
# any feature may read any feature's models (league/<feature>/models.py), core excepted.
FEATURE_ORDER = (
    "core",
    "accounts",
    "ratings",
    "play",
    "bots",
    "ladder",
    "tournaments",
    "challenges",
    "tables",
    "remote",
    "live",
)
# The web layer: pages, the API and the admin. It may use every feature, and features never import it.
WEB_FEATURES = ("authors", "site", "api")
WEB_MODULE_NAMES = ("views", "admin", "forms", "urls")
LEAGUE_WIRING = ("league", "league.models", "league.urls", "league.admin", "league.apps")


def _feature(module: str) -> str:
    return module.split(".")[1]


def _is_web(module: str) -> bool:
    parts = module.split(".")
    return (
        module in LEAGUE_WIRING
        or parts[1] in (*WEB_FEATURES, "templatetags", "management")
        or parts[-1] in WEB_MODULE_NAMES
    )


def _owner_module(name: str) -> str | None:
    """The module an imported name belongs to (``league.play.matches.do_create_match`` -> ``league.play.matches``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


LEAGUE_DOMAIN = sorted(m for m in MODULES if m.startswith("league.") and not _is_web(m))


def test_every_league_module_is_in_a_feature_or_the_web_layer() -> None:
    assert [m for m in LEAGUE_DOMAIN if _feature(m) not in FEATURE_ORDER] == []


@pytest.mark.parametrize("module", LEAGUE_DOMAIN)
def test_a_feature_uses_only_the_features_before_it(module: str) -> None:
    mine = FEATURE_ORDER.index(_feature(module))
    offenders = []
    for name in imports_of(module):
        target = _owner_module(name)
        if target is None or not target.startswith("league.") or target == module:
            continue
        if _is_web(target):
            offenders.append(f"{target} (the web layer)")
        elif target.endswith(".models") and _feature(module) != "core":
            continue
        elif FEATURE_ORDER.index(_feature(target)) > mine:
            offenders.append(target)
    assert offenders == []


def _import_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    return {
        module: {name for name in runtime_imports_of(module) if name.split(".")[0] in packages}
        for module in MODULES
        if module.split(".")[0] in packages
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.mark.parametrize("packages", [("games", "bots"), ("league", "workers")])
def test_no_import_cycle(packages: tuple[str, ...]) -> None:
    # Every import counts, those inside functions too: none may hide a cycle.
    assert _cycles(_import_graph(packages)) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
