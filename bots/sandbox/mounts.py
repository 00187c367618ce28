"""What a sandboxed bot sees of the host's files: its code, the SDK and the game engines (bound as they are when
others may read them, else copied), the few /etc files the runtimes need, and the SDK and engines compiled ahead."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bots.sandbox.command import ENGINES_DIR, SDK_DIR, SYSTEM_PYTHON
from bots.sandbox.config import BwrapConfig, ensure_dir

__all__ = [
    "ETC_FILES",
    "Mounts",
    "compiled_engines",
    "compiled_sdk",
    "copy_files",
    "copy_tree",
    "engine_files",
    "shareable_tree",
]

log = logging.getLogger("bots.sandbox")

# Only what the runtimes need from /etc (the dynamic loader's cache, Debian's alternatives used by BLAS, time zone).
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")


@dataclass
class Mounts:
    code: Path  # bound read-only at /bot
    sdk: Path  # bound read-only at /parlour/parlour_sdk
    etc: Path  # passwd and group
    engines: Path  # the games package, bound read-only at /parlour/engines/games (parlour_sdk.engine)


_SHAREABLE_MAX_ENTRIES = 2000


def shareable_tree(root: Path) -> bool:
    """True if ``root`` can be bound into the sandbox as it is: every ancestor searchable by others, and below it only
    directories (others: r-x), regular files (others: r--) and symlinks (resolved inside the sandbox, so harmless).
    Otherwise the bot gets a copy. Uploads unpacked by bots.packaging qualify: no copy, no cost."""
    try:
        root = root.resolve(strict=True)
        for parent in root.parents:
            if not os.stat(parent).st_mode & 0o001:
                return False
        entries = 0
        for current, dirs, files in os.walk(root):
            mode = os.lstat(current).st_mode
            if not stat.S_ISDIR(mode) or mode & 0o005 != 0o005:
                return False
            for name in files + [d for d in dirs if os.path.islink(os.path.join(current, d))]:
                entries += 1
                mode = os.lstat(os.path.join(current, name)).st_mode
                if stat.S_ISLNK(mode):
                    continue
                if not stat.S_ISREG(mode) or not mode & 0o004 or mode & (stat.S_ISUID | stat.S_ISGID):
                    return False
            entries += len(dirs)
            if entries > _SHAREABLE_MAX_ENTRIES:
                return False
    except OSError:
        return False
    return True


def copy_tree(src: Path, dst: Path) -> None:
    """Copy a bot's files so the slot uid can read (not write) them: regular files, directories and symlinks only.

    Symlinks are copied as links: inside the sandbox they can only point at what the sandbox shows."""
    dst.mkdir(mode=0o755, parents=True)
    dst.chmod(0o755)
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target_root = dst if rel == "." else dst / rel
        for name in dirs + files:
            source = os.path.join(root, name)
            target = target_root / name
            st = os.lstat(source)
            if stat.S_ISLNK(st.st_mode):
                target.symlink_to(os.readlink(source))
            elif stat.S_ISDIR(st.st_mode):
                target.mkdir(mode=0o755)
                target.chmod(0o755)
            elif stat.S_ISREG(st.st_mode) and name != "__pycache__":
                shutil.copyfile(source, target, follow_symlinks=False)
                target.chmod(0o755 if st.st_mode & 0o111 else 0o644)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]


# What of the games package a bot's forward model needs: its code and data (Barbarossa's lexicon), not its tests,
# example bots, renderers, rules text, golden playthroughs or the game template.
_ENGINE_SKIPPED_FOLDERS = {"__pycache__", "tests", "example", "viewer", "template"}
_ENGINE_SUFFIXES = {".py", ".json"}


def engine_files() -> Iterator[tuple[Path, Path]]:
    """(path inside the games package, path here) of every file a sandboxed bot gets of the engines."""
    for path in sorted(ENGINES_DIR.rglob("*")):
        relative = path.relative_to(ENGINES_DIR)
        if path.is_file() and path.suffix in _ENGINE_SUFFIXES and not _ENGINE_SKIPPED_FOLDERS & set(relative.parts):
            yield relative, path


def copy_files(files: Iterable[tuple[Path, Path]], dst: Path) -> None:
    """Copy (relative path, source) pairs under ``dst`` so the slot uid can read (not write) them."""
    for relative, source in files:
        target = dst / relative
        for part in [dst, *reversed(target.parents[: len(relative.parts) - 1])]:
            if not part.is_dir():
                part.mkdir(mode=0o755)
                part.chmod(0o755)
        shutil.copyfile(source, target)
        target.chmod(0o644)


def compiled_sdk(config: BwrapConfig) -> Path | None:
    """A copy of the SDK with its bytecode, compiled by the bots' own Python, once per machine and SDK version.

    Bots cannot write bytecode (``PYTHONDONTWRITEBYTECODE``, and the SDK is read-only), so without this every bot that
    imports the SDK compiles it again at start-up. The copy is made world-readable under the state directory; None
    (use the SDK as it is) if that fails."""
    return _compiled_copy(config, "sdk", [(Path(path.name), path) for path in sorted(SDK_DIR.glob("*.py"))])


def compiled_engines(config: BwrapConfig) -> Path | None:
    """The games package as bots see it (``engine_files``) with its bytecode, as ``compiled_sdk`` makes the SDK's:
    without it, a bot that loads an engine would compile ``games.base`` and its game at every start-up."""
    return _compiled_copy(config, "engines", list(engine_files()))


def _compiled_copy(config: BwrapConfig, kind: str, files: list[tuple[Path, Path]]) -> Path | None:
    """``files`` copied under ``<state>/<kind>/<digest>/`` and compiled by the bots' Python, once per content."""
    try:
        digest = hashlib.sha256()
        for relative, source in files:
            digest.update(str(relative).encode() + b"\0" + source.read_bytes() + b"\0")
        parent = config.state_dir / kind
        target = parent / digest.hexdigest()[:16]
        if (target / "__pycache__").is_dir():
            return target
        ensure_dir(parent, 0o711)
        building = Path(tempfile.mkdtemp(prefix=".building-", dir=parent))
        try:
            building.chmod(0o755)
            for relative, source in files:
                (building / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, building / relative)  # keeps the mtime the bytecode is checked against
            subprocess.run(
                [SYSTEM_PYTHON, "-m", "compileall", "-q", str(building)],
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                check=True,
                capture_output=True,
                timeout=60,
            )
            for path in building.rglob("*"):
                path.chmod(0o755 if path.is_dir() else 0o644)
            try:
                building.rename(target)
            except OSError:  # another worker made it first
                shutil.rmtree(building, ignore_errors=True)
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
        return target if (target / "__pycache__").is_dir() else None
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("bots will compile the %s at each start-up: cannot prepare its bytecode: %s", kind, exc)
        return None
