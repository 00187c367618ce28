"""The author kit without the league: the engines (``games``), the SDK, the runner and the author tools (``bots``:
``python -m bots play``, ``arena``, ``view``, ``compare``) as one wheel, ``parlour-<version>-py3-none-any.whl``, built
from this checkout and served at ``/sdk/<that name>`` (docs/decisions.md, "The author kit as a wheel").

The wheel holds ``bots`` and ``games`` and nothing of the league: no Django, no ``league``, ``workers`` or
``parlour`` (tests/test_layering.py proves that ``bots`` and ``games`` import none of them; the install test installs
the wheel into a fresh virtual environment without them). Its dependencies are the two that ``bots`` and ``games``
import, ``orjson`` and ``jsonschema``, at the league's own pins.

The build is the standard one: the two packages are copied into a staging folder beside a small ``pyproject.toml``
and ``build`` runs setuptools' PEP 517 backend on it, in this environment (no isolation: nothing is downloaded). The
wheel is kept under ``<var>/sdk/<key>/``, ``key`` a digest of every file that goes in, so a changed checkout builds a
new one and an unchanged one is built once per machine (a lock keeps two processes from building it together).

No Django here either (the view passes the folder): ``python -m league.authors.kit OUT_DIR`` builds it by hand.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import bots
import games

DISTRIBUTION = "parlour"
PACKAGES = (Path(bots.__file__).resolve().parent, Path(games.__file__).resolve().parent)
# What a person's machine needs of the league's dependencies: what bots/ and games/ import (and nothing else).
DEPENDENCIES = ("orjson", "jsonschema")
# Left out: tests, the example programs of bots/examples/, the game template to copy (not a registered game).
SKIPPED_FOLDERS = {"__pycache__", "tests", "examples"}
SKIPPED_PATHS = {Path("games") / "template"}
SKIPPED_SUFFIXES = {".pyc", ".pyo"}
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
SUMMARY = "Parlour's author kit: the games' engines, the bot SDK and the local runner (python -m bots), no league."


class KitBuildError(RuntimeError):
    """The wheel could not be built here (a build tool missing, or the build failed)."""


@cache
def version() -> str:
    """The league's version (its ``pyproject.toml``), which the kit shares (read once per process)."""
    checkout = PACKAGES[0].parent / "pyproject.toml"
    if checkout.is_file():  # a checkout: its pyproject.toml is the truth, even before `pip install -e .` again
        project = tomllib.loads(checkout.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == DISTRIBUTION and isinstance(project.get("version"), str):
            return str(project["version"])
    return importlib.metadata.version(DISTRIBUTION)


def wheel_name() -> str:
    return f"{DISTRIBUTION}-{version()}-py3-none-any.whl"


@cache
def dependencies() -> tuple[str, ...]:
    """The league's own requirements on ``DEPENDENCIES``, as it declares them (so the pins never drift apart)."""
    checkout = PACKAGES[0].parent / "pyproject.toml"
    if checkout.is_file():
        declared = tomllib.loads(checkout.read_text(encoding="utf-8"))["project"]["dependencies"]
    else:
        declared = importlib.metadata.requires(DISTRIBUTION) or []
    found = {}
    for text in declared:
        name = REQUIREMENT_NAME.match(text)
        if name and name.group(0).lower() in DEPENDENCIES and ";" not in text:  # no extra, no marker: a plain pin
            found[name.group(0).lower()] = text.strip()
    missing = set(DEPENDENCIES) - found.keys()
    if missing:
        raise KitBuildError(f"the league declares no requirement on {', '.join(sorted(missing))}")
    return tuple(found[name] for name in DEPENDENCIES)


def files() -> Iterator[tuple[Path, Path]]:
    """Every file that goes into the wheel: (its path in the wheel, its path here), in a stable order."""
    for package in PACKAGES:
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package.parent)
            if (
                path.is_file()
                and not SKIPPED_FOLDERS & set(relative.parts[:-1])
                and not any(relative.is_relative_to(skipped) for skipped in SKIPPED_PATHS)
                and path.suffix not in SKIPPED_SUFFIXES
            ):
                yield relative, path


def pyproject() -> str:
    """The kit's ``pyproject.toml``: setuptools, the two packages and every file in them (a folder without an
    ``__init__.py``, such as a game's ``example/`` or the viewer, is a namespace package: its files go in too)."""
    requirements = ", ".join(f'"{text}"' for text in dependencies())
    packages = ", ".join(f'"{package.name}*"' for package in PACKAGES)
    return f"""[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{DISTRIBUTION}"
version = "{version()}"
description = "{SUMMARY}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = [{requirements}]

[tool.setuptools.packages.find]
include = [{packages}]

[tool.setuptools.package-data]
"*" = ["*"]
"""


README = """# Parlour's author kit

The games' engines, the bot SDK and the local runner of the Parlour league, without the league:

    python -m bots play love_letter my-bot/ builtin:random builtin:heuristic --sandbox none
    python -m bots arena love_letter my-bot/ other-bot/ builtin:heuristic --games 20 --sandbox none
    python -m bots compare old-bot/ my-bot/ --game love_letter --sandbox none
    python -m bots view replay.json

`--sandbox none` runs bots without isolation: your own code only. Linux with bubblewrap, as root, runs them in the
league's own sandbox instead (`python -m bots check` says whether it works here).
"""


def digest() -> str:
    """A digest of everything the wheel is made of: the same checkout, the same key."""
    hasher = hashlib.sha256(pyproject().encode())
    for relative, path in files():
        hasher.update(str(relative).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return hasher.hexdigest()


def build_wheel(out_dir: Path) -> Path:
    """Builds the wheel into ``out_dir`` (with ``build``, setuptools' backend, this interpreter) and returns it."""
    try:
        from build import BuildBackendException, BuildException, ProjectBuilder
        from pyproject_hooks import quiet_subprocess_runner
    except ImportError as exc:  # pragma: no cover - a league installed without its dependencies
        raise KitBuildError(f"the build tool is not installed here: {exc}") from exc
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="parlour-kit-") as staging_name:
        staging = Path(staging_name)
        for relative, path in files():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (staging / "pyproject.toml").write_text(pyproject(), encoding="utf-8")
        (staging / "README.md").write_text(README, encoding="utf-8")
        builder = ProjectBuilder(staging, python_executable=sys.executable, runner=quiet_subprocess_runner)
        if missing := builder.check_dependencies("wheel"):
            raise KitBuildError(f"the build needs {sorted(str(m) for m in missing)} in this environment")
        try:
            built = Path(builder.build("wheel", out_dir))
        except (BuildException, BuildBackendException) as exc:
            raise KitBuildError(f"the kit's build failed: {exc}") from exc
    if built.name != wheel_name():
        raise KitBuildError(f"the build made {built.name}, not {wheel_name()}")
    return built


@cache
def key() -> str:
    """``digest()`` once per process: the code of a running process does not change (a reload is a new process)."""
    return digest()


def cached_wheel(var_dir: Path) -> Path:
    """The wheel of this checkout, built once into ``var_dir/sdk/<key>/`` and kept there."""
    folder = var_dir / "sdk" / key()[:24]
    wheel = folder / wheel_name()
    if wheel.is_file():
        return wheel
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; the others find it built
        if not wheel.is_file():
            building = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
            try:
                built = build_wheel(building)
                folder.mkdir(exist_ok=True)
                os.replace(built, wheel)
            finally:
                shutil.rmtree(building, ignore_errors=True)
    return wheel


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m league.authors.kit OUT_DIR", file=sys.stderr)
        return 2
    print(build_wheel(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
